import type { IDataObject } from 'n8n-workflow';

/**
 * What a wait with the Poller (./poller.ts) is: how a record is read (`PollFetch`), what a waiter
 * asks (`PollOptions`) and gets (`PollOutcome`), the poller's settings, and the record it keeps of
 * each waiter. Its callers import it from ./poller.ts, with the Poller.
 */

export type PollFetch = (
	deadline: number,
) => Promise<{ record: IDataObject; retryAfterMs?: number }>;

export interface PollOptions {
	/** Epoch ms after which the waiter gives up (after one last look). */
	deadline: number;
	/**
	 * When the service said how long the record needs (ms from now; 0 for a synchronous provider),
	 * it is first asked then. Without it, the record joins the shared looks.
	 */
	expectedAfterMs?: number;
}

export type PollOutcome =
	| { state: 'done' | 'failed'; record: IDataObject }
	| { state: 'timeout'; record?: IDataObject }
	| { state: 'cancelled' }
	/** Another item failed the node: every wait ends. */
	| { state: 'halted' }
	| { state: 'error'; error: Error };

export interface PollerSettings {
	/** Shortest pause between two looks. */
	minIntervalMs: number;
	/**
	 * A look holds the next one until its answers are in, for at most this long or twice the
	 * answer time measured, whichever is longer.
	 */
	slowMs: number;
	/** Longest pause between two looks. */
	maxIntervalMs: number;
	/** Share of the waiting records that a sample must find finished before all are asked. */
	sweepAt: number;
	/** Resolves after `ms`; rejects at once when `signal` aborts or the execution is cancelled. */
	sleep: (ms: number, signal: AbortSignal) => Promise<void>;
	cancelled: () => boolean;
	halted?: () => boolean;
	now?: () => number;
}

export const DEFAULT_POLLER: Pick<
	PollerSettings,
	'minIntervalMs' | 'maxIntervalMs' | 'sweepAt' | 'slowMs'
> = { minIntervalMs: 250, maxIntervalMs: 10_000, sweepAt: 0.8, slowMs: 1_000 };

export interface Waiter {
	seq: number;
	fetch: PollFetch;
	deadline: number;
	/** Not asked before this (a Retry-After). */
	notBefore: number;
	/** Asked on its own at this time (its estimate, a sweep deferred by Retry-After). */
	askAt: number;
	/** It was asked the last time before its deadline (see `lead`). */
	lastAsked: boolean;
	/** Part of the shared looks (false until a record with an estimate was first asked). */
	inLooks: boolean;
	busy: boolean;
	/** The last record seen (for a timeout while a request is under way). */
	last?: IDataObject;
	settle: (outcome: PollOutcome) => void;
}
