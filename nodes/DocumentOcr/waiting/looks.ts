import type { PollerSettings, Waiter } from './poll';

/**
 * A look, the Poller's round of status requests (./poller.ts says when and why): which records
 * it asks — a sample spread over the batch, or all of them (a sweep) — and what its answers teach
 * the poller: the rate at which records finish, and so when the next look is due. Pure: the
 * poller keeps the state and passes it in.
 */

export interface Look {
	members: Set<Waiter>;
	startedAt: number;
	answered: number;
	hits: number;
	/** Records in the looks when it started, those found finished since the last sweep then,
	 * and the time since that sweep. */
	waiting: number;
	found: number;
	exposureMs: number;
	/** All records were asked: no sweep follows it. */
	everyone: boolean;
	/** It follows a sample (whose hits already gave the rate). */
	sweep: boolean;
	/** It no longer holds the next look (its answers are in, or are slow). */
	released: boolean;
	/** Every member has answered: what it found was counted. */
	closed: boolean;
}

/**
 * Spreads a sample over the batch whatever its order (never the oldest first): the golden-ratio
 * scramble of a waiter's number, turned a little further for each look so that consecutive
 * samples take different records.
 */
const scramble = (seq: number, look: number) => (seq * 0.6180339887 + look * 0.4142135624) % 1;

/**
 * The look started at `now`, the poller's `count`-th: all of `all` (the records in the looks) for
 * a sweep or when they are four or fewer, else a sample of about √n of them; its members are
 * those not under way and not held back by a Retry-After. `found` and `sweptAt` are the poller's:
 * the records found finished since the last sweep, and when that was.
 */
export function drawLook(
	all: Waiter[],
	now: number,
	count: number,
	sweep: boolean,
	found: number,
	sweptAt: number,
): Look {
	const everyone = sweep || all.length <= 4;
	const candidates = all
		.filter((w) => !w.busy && now >= w.notBefore)
		.sort((a, b) => scramble(a.seq, count) - scramble(b.seq, count));
	const size = everyone ? all.length : Math.max(4, Math.ceil(Math.sqrt(all.length)));
	return {
		members: new Set(candidates.slice(0, size)),
		startedAt: now,
		answered: 0,
		hits: 0,
		waiting: all.length,
		found,
		exposureMs: now - sweptAt,
		everyone,
		sweep,
		released: false,
		closed: false,
	};
}

/**
 * The share of the waiting records a closed look says are finished, leaning towards "more" when
 * the sample is small (a late look costs the batch's end; an early one a few requests).
 */
export function finishedShare(look: Look): number {
	return (look.hits + 1) / (look.answered + 2);
}

/**
 * The rate at which records finish (per ms) after a closed look, and the rate the last complete
 * sweep counted (`sweptRate`; 0 while none has): from `rate` and `sweptRate` before it, and the
 * look's `share` (finishedShare).
 */
export function rateAfter(
	look: Look,
	share: number,
	rate: number,
	sweptRate: number,
): { rate: number; sweptRate: number } {
	if (look.everyone && look.exposureMs > 0 && look.hits > 0) {
		// Everyone was asked: exactly how many finished since the last sweep.
		const counted = (look.found + look.hits) / look.exposureMs;
		return { rate: counted, sweptRate: counted };
	}
	// Nothing finished: the rate was too high; the next pauses grow (by 1.25×) until one does.
	if (look.hits === 0) return { rate: rate * 0.8, sweptRate };
	if (!look.everyone && look.exposureMs > 0) {
		// A sample: those found since the last sweep, and what it says of the rest. A small
		// sample is noisy, so it is averaged with what the last sweep counted.
		const measured = (look.found + share * look.waiting) / look.exposureMs;
		return { rate: sweptRate > 0 ? (sweptRate + measured) / 2 : measured, sweptRate };
	}
	return { rate, sweptRate };
}

/** What the poller knows when it plans the next look (see `pauseBeforeLook`). */
export interface LookPlan {
	/** Records finishing per ms (0: not known yet). */
	rate: number;
	/** Records in the looks now. */
	waiting: number;
	/** Records found finished since the last sweep. */
	found: number;
	/** When the last sweep was (or the batch began). */
	sweptAt: number;
	/** When the batch began. */
	batchStart: number;
}

/**
 * How long after `now` the next look is due: when the rate says `sweepAt` of the records should
 * be finished, within the shortest and the longest pause.
 */
export function pauseBeforeLook(
	settings: Pick<PollerSettings, 'minIntervalMs' | 'maxIntervalMs' | 'sweepAt'>,
	now: number,
	{ rate, waiting, found, sweptAt, batchStart }: LookPlan,
): number {
	const { minIntervalMs, maxIntervalMs, sweepAt } = settings;
	// Finished since the last sweep = rate × time; `found` of them are known already. A rate
	// learnt from samples of a dozen records can be half the true one, and a pause planned on
	// it ends seconds after the batch did: no pause is longer than a third of the time the rate
	// gives the last record (the virtual-clock rows of test/fast/DocumentOcr/waiting/poller.test.ts
	// hold it to the end noticed within 1.5 s).
	const gap =
		rate > 0
			? Math.min(
					sweptAt + (sweepAt * waiting + found) / rate - now,
					(sweptAt + (waiting + found) / rate - now) / 3,
				)
			: // Nothing learnt yet: half the time the batch has waited (the pause grows by 1.5×).
				(now - batchStart) / 2;
	return Math.min(maxIntervalMs, Math.max(minIntervalMs, gap));
}
