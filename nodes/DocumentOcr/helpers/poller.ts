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
 * Every waiter keeps its own deadline (a last look, then timeout) — also while a request of its
 * own is still under way (a Retry-After, a back-off): it ends at its deadline all the same. Looks
 * do not wait for each other: a slow status request holds only its own record, and a head whose
 * request has been under way for a while (`slowMs`) stops setting the pace for the others.
 * Cancelling the execution ends every wait at once; no request is sent after it.
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
	/** Another item failed the node: every wait ends. */
	| { state: 'halted' }
	| { state: 'error'; error: Error };

export interface PollerSettings {
	minIntervalMs: number;
	maxIntervalMs: number;
	/** Most records asked in parallel. */
	window: number;
	/** Ask the next-oldest too when nothing finished for this long (and for 4× the pace). */
	stallMs: number;
	/** A head whose status request has been under way this long no longer gates the others. */
	slowMs: number;
	/** Resolves after `ms`; rejects at once when `signal` aborts or the execution is cancelled. */
	sleep: (ms: number, signal: AbortSignal) => Promise<void>;
	cancelled: () => boolean;
	halted?: () => boolean;
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
	/** When the request under way started (while busy). */
	busySince: number;
	/** The last record seen (for a timeout while a request is under way). */
	last?: IDataObject;
	settle: (outcome: PollOutcome) => void;
}

export class Poller {
	private waiters: Waiter[] = [];

	private seq = 0;

	private loop?: Promise<void>;

	private wake?: () => void;

	/** An answer came in while the loop was not pausing: the next pause returns at once. */
	private dirty = false;

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
				busySince: 0,
				settle,
			});
			if (this.waiters.length === 1) this.lastProgress = Date.now();
			this.wake?.();
			this.loop ??= this.run().finally(() => (this.loop = undefined));
		});
	}

	/** Ends the current pause at once (the settings' `cancelled()` may have turned true). */
	interrupt() {
		this.dirty = true;
		this.wake?.();
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
		waiter.busySince = Date.now();
		try {
			const { record, retryAfterMs } = await waiter.fetch(waiter.deadline);
			// Ended meanwhile (its deadline passed while this request was under way): nothing to do.
			if (!this.waiters.includes(waiter)) return false;
			waiter.last = record;
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
			if (this.waiters.includes(waiter))
				this.settle(waiter, { state: 'error', error: error as Error });
			return false;
		} finally {
			waiter.busy = false;
		}
	}

	/** Which waiters to ask now. */
	/** The record that sets the pace: the oldest one, unless its request is slow to come back. */
	private head(now: number): Waiter | undefined {
		const { slowMs } = this.settings;
		return [...this.waiters]
			.sort((a, b) => a.seq - b.seq)
			.find((w) => !w.busy || now - w.busySince < slowMs);
	}

	private due(now: number): Waiter[] {
		const idle = this.waiters.filter((w) => !w.busy).sort((a, b) => a.seq - b.seq);
		const picked = new Set<Waiter>();
		const head = this.head(now);
		// A head with a request under way: wait for its answer before asking the ones behind it.
		if (head && !head.busy && now >= head.notBefore) {
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
		const head = this.head(now);
		if (head && !head.busy) next = Math.min(next, head.notBefore);
		// A busy head turns slow at busySince + slowMs: then the next one takes over.
		const { slowMs } = this.settings;
		for (const waiter of this.waiters) {
			if (!waiter.busy) continue;
			next = Math.min(next, waiter.deadline);
			if (waiter.busySince + slowMs > now) next = Math.min(next, waiter.busySince + slowMs);
		}
		for (const waiter of idle) next = Math.min(next, waiter.deadline);
		if (idle.length > 1)
			next = Math.min(
				next,
				this.lastProgress + Math.max(this.settings.stallMs, 4 * (this.pace() ?? 0)),
			);
		return Number.isFinite(next) ? Math.max(next, now + 1) : now + this.settings.minIntervalMs;
	}

	private async pause(ms: number) {
		if (this.dirty) {
			this.dirty = false;
			return;
		}
		// Woken early (an answer, a new waiter, a halt): the sleep is aborted, so no timer is left.
		const stop = new AbortController();
		this.wake = () => stop.abort();
		try {
			await this.settings.sleep(ms, stop.signal);
		} catch {
			// Woken, or the execution was cancelled: the loop checks which next.
		}
		this.wake = undefined;
	}

	private async run() {
		while (this.waiters.length > 0) {
			if (this.settings.cancelled()) {
				for (const waiter of [...this.waiters]) this.settle(waiter, { state: 'cancelled' });
				return;
			}
			if (this.settings.halted?.()) {
				for (const waiter of [...this.waiters]) this.settle(waiter, { state: 'halted' });
				return;
			}
			const now = Date.now();
			// A request still under way at its waiter's deadline does not hold the waiter.
			for (const waiter of this.waiters.filter((w) => w.busy && now >= w.deadline))
				this.settle(waiter, { state: 'timeout', record: waiter.last });
			const due = this.due(now).sort((a, b) => a.seq - b.seq);
			if (due.length > 0) this.launch(due);
			if (this.waiters.length > 0) await this.pause(this.nextWake(Date.now()) - Date.now());
		}
	}

	/**
	 * Asks `round` (oldest first) without waiting for the answers; the loop goes on, and each
	 * answer wakes it. What a round's answers say tunes the next ones: all finished — the queue
	 * moved, ask more of the next ones at once; one still running — the ones behind it are later
	 * in the queue, so stop there.
	 */
	private launch(round: Waiter[]) {
		const answers: Array<boolean | undefined> = new Array(round.length);
		let open = round.length;
		round.forEach((waiter, i) => {
			void this.ask(waiter).then((finished) => {
				answers[i] = finished;
				if (--open === 0) {
					const leading = answers.findIndex((f) => !f);
					this.window =
						leading === -1 ? Math.min(this.settings.window, this.window * 2) : Math.max(1, leading);
				}
				if (finished && i === 0) {
					const soon = Date.now();
					for (const w of this.waiters)
						if (!w.busy && w.pendingAnswers > 0) w.notBefore = Math.max(soon, w.retryUntil);
				}
				this.dirty = true;
				this.wake?.();
			});
		});
	}
}
