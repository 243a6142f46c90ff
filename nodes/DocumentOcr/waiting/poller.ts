import { classifyStatus } from '../shared/records';
import type { Look } from './looks';
import { drawLook, finishedShare, pauseBeforeLook, rateAfter } from './looks';
import type { PollerSettings, PollFetch, PollOptions, PollOutcome, Waiter } from './poll';

// The poller's contract lives in ./poll.ts; its callers import it from here, with the Poller.
export type { PollerSettings, PollFetch, PollOptions, PollOutcome } from './poll';
export { DEFAULT_POLLER } from './poll';

/**
 * Waits for all the tasks (or jobs) of one execution together, asking the service as little as
 * possible, and assuming nothing about the order in which it finishes them (the spec does not
 * say; a service may run small documents first, or several workers at once).
 *
 * The node hands its output on only when every item has ended, so what a batch needs is that the
 * LAST record is noticed promptly, and that the others cost few status requests. Hence:
 *
 *  - Records are looked at together, in "looks" (./looks.ts). A look first asks a small sample
 *    of the waiting records (about √n of them, spread over the batch, never the oldest first).
 *    Its hit rate estimates, whatever the service's order, how many of all the waiting records
 *    are finished. Only when that is most of them (`sweepAt`, 80 %) are all the others asked too
 *    (a sweep). So a record costs about one request to be found finished, plus a share of the
 *    misses of samples and sweeps.
 *  - The next look is timed by the rate at which records finish (learnt from the looks so far):
 *    when that rate says `sweepAt` of the waiting records should be finished. Without a rate yet,
 *    the pause doubles. Near the end few records are left, so looks come quickly: the last one is
 *    noticed within about one pause of `minIntervalMs`–a few hundred ms.
 *  - A record with the service's own estimate (a v2 `estimatedSeconds`, a synchronous provider)
 *    is first asked at that time, on its own; after that it joins the looks.
 *
 * Answers may take seconds (a slow or busy service, requests queued for a slot). How long they
 * take is measured (`answerMs`): a look holds the next one until its answers are in, or for
 * twice that time at most; an answer that comes after that still counts for the look it belongs
 * to, so a slow service is learnt from like a fast one.
 *
 * Every waiter keeps its own deadline, and its wait ends then at the latest, never before. It is
 * asked one last time early enough for the answer to arrive before the deadline (`lead`: 1.5 times
 * the answer time plus the shortest pause), and a request of its own still under way at the
 * deadline (a Retry-After, a back-off) does not hold it past that. No request waits for another
 * one: answers come back in any order and each only wakes the loop. A Retry-After on a status
 * answer delays that record's next request only. Cancelling the execution, or another item
 * failing the node, ends every wait at once; no request is sent after it.
 */

export class Poller {
	/** In arrival order (a Set: a batch of thousands settles without rescanning an array). */
	private waiters = new Set<Waiter>();

	private seq = 0;

	private loop?: Promise<void>;

	private wake?: () => void;

	/** When the current pause ends (Infinity while the loop is not pausing). */
	private sleepingUntil = Infinity;

	/** An answer came in while the loop was not pausing: the next pause returns at once. */
	private dirty = false;

	/** The look under way, if any. */
	private look?: Look;

	/** When all the records in the looks were last asked (or the batch began). */
	private sweptAt = 0;

	private nextLookAt = 0;

	/** Records finishing per ms, as the last look measured it (0: not known yet). */
	private rate = 0;

	/** The rate the last complete sweep counted (0: none yet). */
	private sweptRate = 0;

	/** Records found finished since the last sweep (by samples and their own asks). */
	private found = 0;

	/** When the current batch began (the first record joined an empty poller). */
	private batchStart = 0;

	private looks = 0;

	/**
	 * How long an answer takes, from the ask to the answer (a slot's queue included): it rises at
	 * once to a slower answer and falls back by an eighth of the gap per faster one.
	 */
	private answerMs = 0;

	constructor(private readonly settings: PollerSettings) {}

	private now(): number {
		return this.settings.now ? this.settings.now() : Date.now();
	}

	async wait(fetch: PollFetch, options: PollOptions): Promise<PollOutcome> {
		return await new Promise<PollOutcome>((settle) => {
			const now = this.now();
			if (this.waiters.size === 0) {
				// A new batch: its first look after the shortest pause, then doubling.
				this.batchStart = now;
				this.sweptAt = now;
				this.nextLookAt = now + this.settings.minIntervalMs;
			}
			const expected = options.expectedAfterMs;
			const waiter: Waiter = {
				seq: this.seq++,
				fetch,
				deadline: options.deadline,
				notBefore: 0,
				askAt: expected === undefined ? Infinity : now + Math.max(0, expected),
				lastAsked: false,
				inLooks: expected === undefined,
				busy: false,
				settle,
			};
			this.waiters.add(waiter);
			// The loop re-plans only if this waiter is due before its pause ends (a batch of
			// thousands joining costs no wake each).
			if (Math.min(waiter.askAt, this.lastAskAt(waiter)) < this.sleepingUntil) this.wake?.();
			this.loop ??= this.run().finally(() => (this.loop = undefined));
		});
	}

	/** Ends the current pause at once (the settings' `cancelled()` may have turned true). */
	interrupt() {
		this.dirty = true;
		this.wake?.();
	}

	private settle(waiter: Waiter, outcome: PollOutcome) {
		this.waiters.delete(waiter);
		waiter.settle(outcome);
	}

	/**
	 * How long before its deadline a waiter is asked for the last time: its answer then arrives
	 * before the deadline, and a record finished by then is not reported as timed out.
	 */
	private lead(): number {
		return 1.5 * this.answerMs + this.settings.minIntervalMs;
	}

	private lastAskAt(waiter: Waiter): number {
		return waiter.lastAsked ? Infinity : waiter.deadline - this.lead();
	}

	/** When the waiter is next due on its own (an estimate, a deferred sweep, its last ask). */
	private ownAskAt(waiter: Waiter): number {
		return Math.min(Math.max(waiter.askAt, waiter.notBefore), this.lastAskAt(waiter));
	}

	/** When the look under way stops holding the next one. */
	private holdUntil(look: Look): number {
		return look.startedAt + Math.max(this.settings.slowMs, 2 * this.answerMs);
	}

	private inLooks(): Waiter[] {
		return [...this.waiters].filter((w) => w.inLooks);
	}

	/** When the next look is due: when `sweepAt` of the records should be finished. */
	private scheduleLook(now: number) {
		const { rate, found, sweptAt, batchStart } = this;
		const waiting = this.inLooks().length;
		const plan = { rate, waiting, found, sweptAt, batchStart };
		this.nextLookAt = now + pauseBeforeLook(this.settings, now, plan);
	}

	/** Starts a look: a sample of the records in the looks, or all of them (a sweep). */
	private startLook(now: number, sweep: boolean) {
		const all = this.inLooks();
		const look = drawLook(all, now, this.looks, sweep, this.found, this.sweptAt);
		this.looks++;
		const { members } = look;
		if (look.everyone) {
			// Those held back by a Retry-After are asked as soon as it allows (the loop re-plans).
			for (const w of all) if (!members.has(w) && !w.busy) w.askAt = Math.min(w.askAt, w.notBefore);
			this.sweptAt = now;
			this.found = 0;
			this.interrupt();
		}
		if (members.size === 0) return this.scheduleLook(now);
		this.look = look;
		this.launch([...members], look);
	}

	/**
	 * The look under way stops holding the next one: its answers are in, or they are slow (they
	 * carry on for their own records and still count for the look when they come).
	 */
	private releaseLook(look: Look, now: number) {
		if (look.released) return;
		look.released = true;
		if (this.look === look) this.look = undefined;
		if (!look.closed) this.scheduleLook(now);
	}

	/**
	 * Every member of a look has answered: what it found gives the rate at which records finish,
	 * and decides whether all the others are asked now.
	 */
	private closeLook(look: Look, now: number) {
		if (look.closed) return;
		look.closed = true;
		const held = !look.released;
		look.released = true;
		if (this.look === look) this.look = undefined;
		const share = finishedShare(look);
		const learnt = rateAfter(look, share, this.rate, this.sweptRate);
		this.rate = learnt.rate;
		this.sweptRate = learnt.sweptRate;
		// A sweep is started only from the newest look: an older one's answers are out of date.
		const newest = this.look === undefined || this.look.startedAt <= look.startedAt;
		if (!look.everyone && newest && share >= this.settings.sweepAt && this.inLooks().length > 0)
			return this.startLook(now, true);
		if (held || this.look === undefined) this.scheduleLook(now);
	}

	private async ask(waiter: Waiter): Promise<boolean> {
		waiter.busy = true;
		const askedAt = this.now();
		if (askedAt >= this.lastAskAt(waiter)) waiter.lastAsked = true;
		try {
			const { record, retryAfterMs } = await waiter.fetch(waiter.deadline);
			const now = this.now();
			const took = now - askedAt;
			this.answerMs = took > this.answerMs ? took : this.answerMs + (took - this.answerMs) / 8;
			// Ended meanwhile (its deadline passed while this request was under way): nothing to do.
			if (!this.waiters.has(waiter)) return false;
			waiter.last = record;
			const state = classifyStatus(record.status);
			if (state !== 'pending') {
				this.settle(waiter, { state, record });
				return true;
			}
			if (now >= waiter.deadline) {
				this.settle(waiter, { state: 'timeout', record });
				return false;
			}
			waiter.notBefore = now + (retryAfterMs ?? 0);
			// From now on it is asked in the looks (and one last time before its deadline).
			waiter.inLooks = true;
			waiter.askAt = Infinity;
			return false;
		} catch (error) {
			if (this.waiters.has(waiter)) this.settle(waiter, { state: 'error', error: error as Error });
			return false;
		} finally {
			waiter.busy = false;
		}
	}

	/**
	 * Asks `waiters` without waiting for the answers. An answer wakes the loop only when it
	 * brings something forward (the last waiter gone, a look due sooner, this waiter's own next
	 * ask or deadline): a sweep of hundreds of answers costs one wake, not hundreds.
	 */
	private launch(waiters: Waiter[], look?: Look) {
		for (const waiter of waiters) {
			void this.ask(waiter).then((finished) => {
				// Found by a sweep: it finished before the sweep began, so not counted since then.
				if (finished && !look?.everyone) this.found++;
				if (look && !look.closed) {
					look.answered++;
					if (finished) look.hits++;
					if (look.answered === look.members.size) this.closeLook(look, this.now());
				}
				let due = this.look ? this.holdUntil(this.look) : this.nextLookAt;
				if (this.waiters.has(waiter)) due = Math.min(due, waiter.deadline, this.ownAskAt(waiter));
				if (this.waiters.size === 0 || due < this.sleepingUntil) {
					this.dirty = true;
					this.wake?.();
				}
			});
		}
	}

	private nextWake(now: number): number {
		let next = this.look ? this.holdUntil(this.look) : this.nextLookAt;
		for (const waiter of this.waiters) {
			next = Math.min(next, waiter.deadline);
			if (!waiter.busy) next = Math.min(next, this.ownAskAt(waiter));
		}
		return Math.max(next, now + 1);
	}

	private async pause(ms: number) {
		if (this.dirty) {
			this.dirty = false;
			return;
		}
		// Woken early (an answer, a new waiter, a halt): the sleep is aborted, so no timer is left.
		const stop = new AbortController();
		this.wake = () => stop.abort();
		this.sleepingUntil = this.now() + ms;
		try {
			await this.settings.sleep(ms, stop.signal);
		} catch {
			// Woken, or the execution was cancelled: the loop checks which next.
		}
		this.wake = undefined;
		this.sleepingUntil = Infinity;
	}

	private async run() {
		while (this.waiters.size > 0) {
			if (this.settings.cancelled()) {
				for (const waiter of [...this.waiters]) this.settle(waiter, { state: 'cancelled' });
				return;
			}
			if (this.settings.halted?.()) {
				for (const waiter of [...this.waiters]) this.settle(waiter, { state: 'halted' });
				return;
			}
			const now = this.now();
			// The deadline ends the wait, whether a request of its own is still under way or not.
			for (const waiter of [...this.waiters].filter((w) => now >= w.deadline))
				this.settle(waiter, { state: 'timeout', record: waiter.last });
			// A look whose answers are slow no longer holds the others.
			if (this.look && now >= this.holdUntil(this.look)) this.releaseLook(this.look, now);
			// Asked on their own: an estimate come due, a deferred sweep, the last ask before the deadline.
			const own = [...this.waiters].filter((w) => !w.busy && now >= this.ownAskAt(w));
			if (own.length > 0) this.launch(own);
			if (!this.look && now >= this.nextLookAt && this.inLooks().some((w) => !w.busy))
				this.startLook(now, false);
			if (this.waiters.size > 0) await this.pause(this.nextWake(this.now()) - this.now());
		}
	}
}
