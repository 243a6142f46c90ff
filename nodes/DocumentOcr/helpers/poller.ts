import type { IDataObject } from 'n8n-workflow';

import { classifyStatus } from './task';

/**
 * Waits for all the tasks (or jobs) of one execution together, asking the service as little as
 * possible. Polling each task on its own timer costs about log(duration) status requests per task
 * and notices completions late; one answer, though, says a lot about the others:
 *
 *  - A service works through its queue in order, so the oldest unfinished record (the head) is
 *    asked first, and younger ones are not asked while the head is still running.
 *  - When the head turns out finished, the next ones probably are too: they are asked at once,
 *    a window of them in parallel that doubles while answers keep coming back finished.
 *  - While the head runs, the next look is timed by the pace at which records finished so far
 *    (doubling while it keeps running), never sooner than a Retry-After or the first-poll estimate.
 *  - If nothing has finished for a long while (a large document at the head, or a service that
 *    does not work in order), the next-oldest record is asked too, so nobody waits on the head.
 *
 * Every waiter keeps its own deadline (a last look, then timeout). Cancelling the execution ends
 * every wait at once; no request is sent after it.
 */

export type PollFetch = (
	deadline: number,
) => Promise<{ record: IDataObject; retryAfterMs?: number }>;

export interface PollOptions {
	/** Epoch ms after which the waiter gives up (after one last look). */
	deadline: number;
	/** Earliest first look, in ms from now (the service's estimate; 0 for synchronous providers). */
	firstPollAfterMs: number;
}

export type PollOutcome =
	| { state: 'done' | 'failed'; record: IDataObject }
	| { state: 'timeout'; record?: IDataObject }
	| { state: 'cancelled' }
	| { state: 'error'; error: Error };

export interface PollerSettings {
	minIntervalMs: number;
	maxIntervalMs: number;
	/** Most records asked in parallel. */
	window: number;
	/** Ask the next-oldest too when nothing finished for this long (and for 4× the pace). */
	stallMs: number;
	/** Resolves after `ms`, or rejects when the execution is cancelled. */
	sleep: (ms: number) => Promise<void>;
	cancelled: () => boolean;
}

interface Waiter {
	seq: number;
	fetch: PollFetch;
	deadline: number;
	notBefore: number;
	pendingAnswers: number;
	/** Not before this, whatever else is learnt (Retry-After). */
	retryUntil: number;
	busy: boolean;
	settle: (outcome: PollOutcome) => void;
}

export class Poller {
	private waiters: Waiter[] = [];

	private seq = 0;

	private loop?: Promise<void>;

	private wake?: () => void;

	private finishedAt: number[] = [];

	private lastProgress = Date.now();

	private window = 1;

	constructor(private readonly settings: PollerSettings) {}

	async wait(fetch: PollFetch, options: PollOptions): Promise<PollOutcome> {
		return await new Promise<PollOutcome>((settle) => {
			this.waiters.push({
				seq: this.seq++,
				fetch,
				deadline: options.deadline,
				notBefore: Date.now() + Math.max(0, options.firstPollAfterMs),
				pendingAnswers: 0,
				retryUntil: 0,
				busy: false,
				settle,
			});
			if (this.waiters.length === 1) this.lastProgress = Date.now();
			this.wake?.();
			this.loop ??= this.run().finally(() => (this.loop = undefined));
		});
	}

	/** Mean pause between two finishes seen recently, once there are a few. */
	private pace(): number | undefined {
		const recent = this.finishedAt.slice(-20);
		if (recent.length < 2) return undefined;
		return (recent[recent.length - 1] - recent[0]) / (recent.length - 1);
	}

	private settle(waiter: Waiter, outcome: PollOutcome) {
		this.waiters = this.waiters.filter((w) => w !== waiter);
		waiter.settle(outcome);
	}

	private async ask(waiter: Waiter): Promise<boolean> {
		waiter.busy = true;
		try {
			const { record, retryAfterMs } = await waiter.fetch(waiter.deadline);
			const now = Date.now();
			const state = classifyStatus(record.status);
			if (state !== 'pending') {
				this.finishedAt.push(now);
				this.lastProgress = now;
				this.settle(waiter, { state, record });
				return true;
			}
			if (now >= waiter.deadline) {
				this.settle(waiter, { state: 'timeout', record });
				return false;
			}
			waiter.pendingAnswers++;
			const base = this.pace() ?? this.settings.minIntervalMs;
			const backoff = Math.min(
				this.settings.maxIntervalMs,
				base * 2 ** (waiter.pendingAnswers - 1),
			);
			waiter.retryUntil = now + (retryAfterMs ?? 0);
			waiter.notBefore = now + Math.max(this.settings.minIntervalMs, backoff, retryAfterMs ?? 0);
			return false;
		} catch (error) {
			this.settle(waiter, { state: 'error', error: error as Error });
			return false;
		} finally {
			waiter.busy = false;
		}
	}

	/** Which waiters to ask now. */
	private due(now: number): Waiter[] {
		const idle = this.waiters.filter((w) => !w.busy).sort((a, b) => a.seq - b.seq);
		const picked = new Set<Waiter>();
		const head = idle[0];
		if (head && now >= head.notBefore) {
			for (const waiter of idle) {
				if (picked.size >= this.window) break;
				if (now >= waiter.notBefore) picked.add(waiter);
			}
		}
		const pace = this.pace() ?? 0;
		if (now - this.lastProgress >= Math.max(this.settings.stallMs, 4 * pace)) {
			// Nothing finished for a while: look beyond the head, one more record per round.
			const next = idle.find((w) => !picked.has(w) && w !== head && now >= w.notBefore);
			if (next) {
				picked.add(next);
				this.lastProgress = now;
			}
		}
		for (const waiter of idle) if (now >= waiter.deadline) picked.add(waiter);
		return [...picked];
	}

	private nextWake(now: number): number {
		const idle = this.waiters.filter((w) => !w.busy);
		let next = Infinity;
		const head = idle.sort((a, b) => a.seq - b.seq)[0];
		if (head) next = Math.min(next, head.notBefore);
		for (const waiter of idle) next = Math.min(next, waiter.deadline);
		if (idle.length > 1)
			next = Math.min(
				next,
				this.lastProgress + Math.max(this.settings.stallMs, 4 * (this.pace() ?? 0)),
			);
		return Number.isFinite(next) ? Math.max(next, now + 1) : now + this.settings.minIntervalMs;
	}

	private async pause(ms: number) {
		const woken = new Promise<void>((resolve) => (this.wake = resolve));
		// A rejected sleep means the execution was cancelled; the loop checks that next.
		await Promise.race([this.settings.sleep(ms), woken]).then(
			() => undefined,
			() => undefined,
		);
		this.wake = undefined;
	}

	private async run() {
		while (this.waiters.length > 0) {
			if (this.settings.cancelled()) {
				for (const waiter of [...this.waiters]) this.settle(waiter, { state: 'cancelled' });
				return;
			}
			const now = Date.now();
			const due = this.due(now);
			if (due.length === 0) {
				await this.pause(this.nextWake(now) - now);
				continue;
			}
			const ordered = due.sort((a, b) => a.seq - b.seq);
			const finished = await Promise.all(ordered.map(async (waiter) => await this.ask(waiter)));
			const leading = finished.findIndex((f) => !f);
			if (leading === -1) {
				// Every answer was "finished": the queue moved, so ask more of the next ones at once.
				this.window = Math.min(this.settings.window, this.window * 2);
			} else {
				// Stop at the first record still running: the ones behind it are later in the queue.
				this.window = Math.max(1, leading);
			}
			if (finished[0]) {
				const soon = Date.now();
				for (const waiter of this.waiters) {
					if (waiter.pendingAnswers > 0) waiter.notBefore = Math.max(soon, waiter.retryUntil);
				}
			}
		}
	}
}
