/**
 * A virtual clock and a simulated OCR service for the poller: no server, no real time. A service
 * of `workers` workers takes queued tasks in one of three orders (fifo, random, smallest first)
 * and spends `msPerPage` per page on each; every status request costs `rttMs` of virtual time.
 */
import { DEFAULT_POLLER, Poller } from '../../nodes/DocumentOcr/waiting/poller';
import type { PollOutcome, PollerSettings } from '../../nodes/DocumentOcr/waiting/poller';

export function rng(seed: number): () => number {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

interface Timer {
	time: number;
	seq: number;
	fn: () => void;
	off: boolean;
}

/** Timers fire in time order, each once every pending promise has settled. */
export class Clock {
	t = 0;

	private timers: Timer[] = [];

	private seq = 0;

	now = () => this.t;

	at(time: number, fn: () => void): Timer {
		const timer = { time: Math.max(time, this.t), seq: this.seq++, fn, off: false };
		this.timers.push(timer);
		return timer;
	}

	sleep = async (ms: number, signal?: AbortSignal): Promise<void> =>
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(new Error('aborted'));
			const timer = this.at(this.t + ms, resolve);
			signal?.addEventListener('abort', () => {
				timer.off = true;
				reject(new Error('aborted'));
			});
		});

	/** Lets every promise chain that can move on do so (all of them are promises: no I/O here). */
	private async idle() {
		for (let i = 0; i < 200; i++) await Promise.resolve();
	}

	/** Runs until `done()`; throws when nothing is left to run. */
	async run(done: () => boolean) {
		await this.idle();
		while (!done()) {
			this.timers = this.timers.filter((t) => !t.off);
			if (!this.timers.length) throw new Error(`stuck at ${this.t} ms`);
			this.timers.sort((a, b) => a.time - b.time || a.seq - b.seq);
			const timer = this.timers.shift()!;
			this.t = timer.time;
			timer.fn();
			await this.idle();
		}
	}
}

export function poller(clock: Clock, settings: Partial<PollerSettings> = {}): Poller {
	return new Poller({
		...DEFAULT_POLLER,
		now: clock.now,
		sleep: clock.sleep,
		cancelled: () => false,
		...settings,
	});
}

export type Order = 'fifo' | 'random' | 'smallest';

interface SimTask {
	pages: number;
	status: string;
	doneAt?: number;
}

/** `n` page counts from 1 to `max`, a seeded mix. */
export function mixedPages(n: number, max = 20, seed = 3): number[] {
	const random = rng(seed);
	return Array.from({ length: n }, () => 1 + Math.floor(random() * max));
}

/**
 * Request slots as the node's transport has them: at most `size` status requests under way, the
 * others queued in order (the time an answer takes includes the wait for a slot).
 */
function slots(size: number) {
	let active = 0;
	const queued: Array<() => void> = [];
	return {
		async acquire() {
			if (active < size) {
				active++;
				return;
			}
			await new Promise<void>((resolve) => queued.push(resolve));
		},
		release() {
			const next = queued.shift();
			if (next) next();
			else active--;
		},
	};
}

export async function simulate({
	pages,
	workers = 4,
	msPerPage = 250,
	order = 'fifo',
	rttMs = 5,
	seed = 7,
	requestSlots = Infinity,
	deadlineMs = 3600_000,
}: {
	pages: number[];
	workers?: number;
	msPerPage?: number;
	order?: Order;
	/** How long the service takes to answer a status request. */
	rttMs?: number;
	seed?: number;
	/** Status requests under way at once at most. */
	requestSlots?: number;
	/** Each wait's deadline, from the start. */
	deadlineMs?: number;
}) {
	const clock = new Clock();
	const random = rng(seed);
	const tasks: SimTask[] = pages.map((p) => ({ pages: p, status: 'queued' }));
	const queue = [...tasks];
	let busy = 0;
	const pump = () => {
		while (busy < workers && queue.length) {
			let k = 0;
			if (order === 'random') k = Math.floor(random() * queue.length);
			if (order === 'smallest')
				k = queue.reduce((best, t, j) => (t.pages < queue[best].pages ? j : best), 0);
			const task = queue.splice(k, 1)[0];
			busy++;
			task.status = 'processing';
			clock.at(clock.now() + task.pages * msPerPage, () => {
				task.status = 'done';
				task.doneAt = clock.now();
				busy--;
				pump();
			});
		}
	};
	pump();
	let polls = 0;
	const p = poller(clock);
	const slot = slots(requestSlots);
	const ended: Array<{ task: SimTask; outcome: PollOutcome; at: number }> = [];
	for (const task of tasks) {
		const fetch = async () => {
			await slot.acquire();
			polls++;
			await clock.sleep(rttMs);
			slot.release();
			return { record: { status: task.status } };
		};
		void p.wait(fetch, { deadline: deadlineMs }).then((outcome) => {
			ended.push({ task, outcome, at: clock.now() });
		});
	}
	await clock.run(() => ended.length === tasks.length);
	const lastDone = Math.max(...tasks.map((t) => t.doneAt ?? 0));
	return {
		pollsPerTask: polls / tasks.length,
		lateMs: Math.max(...ended.map((e) => e.at)) - lastDone,
		states: ended.map((e) => e.outcome.state),
		endedAt: tasks.map((t) => ended.find((e) => e.task === t)!.at),
		doneAt: tasks.map((t) => t.doneAt),
	};
}
