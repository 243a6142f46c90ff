'use strict';
/**
 * A virtual clock and a simulated OCR service for the poller: no server, no real time. A service
 * of `workers` workers takes queued tasks in one of three orders (fifo, random, smallest first)
 * and spends `msPerPage` per page on each; every status request costs `rttMs` of virtual time.
 *
 * `simulation(pollerModule)` binds it to a Poller: the fast tier passes the TypeScript source
 * (test/fast/DocumentOcr/waiting/poller.test.ts), the benchmark the built one (bench/poller.js).
 */

function rng(seed) {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

/** Timers fire in time order, each once every pending promise has settled. */
class Clock {
	constructor() {
		this.t = 0;
		this.timers = [];
		this.seq = 0;
		this.now = () => this.t;
		this.sleep = async (ms, signal) =>
			await new Promise((resolve, reject) => {
				if (signal?.aborted) return reject(new Error('aborted'));
				const timer = this.at(this.t + ms, resolve);
				signal?.addEventListener('abort', () => {
					timer.off = true;
					reject(new Error('aborted'));
				});
			});
	}

	at(time, fn) {
		const timer = { time: Math.max(time, this.t), seq: this.seq++, fn, off: false };
		this.timers.push(timer);
		return timer;
	}

	/** Lets every promise chain that can move on do so (all of them are promises: no I/O here). */
	async idle() {
		for (let i = 0; i < 200; i++) await Promise.resolve();
	}

	/** Runs until `done()`; throws when nothing is left to run. */
	async run(done) {
		await this.idle();
		while (!done()) {
			this.timers = this.timers.filter((t) => !t.off);
			if (!this.timers.length) throw new Error(`stuck at ${this.t} ms`);
			this.timers.sort((a, b) => a.time - b.time || a.seq - b.seq);
			const timer = this.timers.shift();
			this.t = timer.time;
			timer.fn();
			await this.idle();
		}
	}
}

/** `n` page counts from 1 to `max`, a seeded mix. */
function mixedPages(n, max = 20, seed = 3) {
	const random = rng(seed);
	return Array.from({ length: n }, () => 1 + Math.floor(random() * max));
}

/**
 * Request slots as the node's transport has them: at most `size` status requests under way, the
 * others queued in order (the time an answer takes includes the wait for a slot).
 */
function slots(size) {
	let active = 0;
	const queued = [];
	return {
		async acquire() {
			if (active < size) {
				active++;
				return;
			}
			await new Promise((resolve) => queued.push(resolve));
		},
		release() {
			const next = queued.shift();
			if (next) next();
			else active--;
		},
	};
}

/** The simulation bound to a poller module (`{ Poller, DEFAULT_POLLER }`). */
function simulation({ Poller, DEFAULT_POLLER }) {
	function poller(clock, settings = {}) {
		return new Poller({
			...DEFAULT_POLLER,
			now: clock.now,
			sleep: clock.sleep,
			cancelled: () => false,
			...settings,
		});
	}

	/**
	 * Runs `pages.length` tasks through the service while the poller waits for each; `rttMs` is how
	 * long a status answer takes, `requestSlots` how many status requests may be under way at
	 * once, `deadlineMs` each wait's deadline from the start.
	 */
	async function simulate({
		pages,
		workers = 4,
		msPerPage = 250,
		order = 'fifo',
		rttMs = 5,
		seed = 7,
		requestSlots = Infinity,
		deadlineMs = 3600_000,
	}) {
		const clock = new Clock();
		const random = rng(seed);
		const tasks = pages.map((p) => ({ pages: p, status: 'queued' }));
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
		const ended = [];
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
			endedAt: tasks.map((t) => ended.find((e) => e.task === t).at),
			doneAt: tasks.map((t) => t.doneAt),
		};
	}

	return { Clock, poller, simulate, mixedPages, rng };
}

module.exports = { simulation, Clock, mixedPages, rng };
