/**
 * The retry policy as one pure decision: given what a request is, what came back and what has
 * been tried, retry (after how long, and whether the whole execution pauses) or fail. No I/O,
 * no clock of its own; tested on its own (test/fast/DocumentOcr/transport/retry.test.ts).
 *
 *  - 429 rate_limited: wait for Retry-After (bounded) and retry, for every kind of request: the
 *    service refused the request, so nothing was created or charged. The wait pauses the whole
 *    execution's requests (`gate`), not just this item's.
 *  - 429 daily_quota_exceeded, 402 insufficient_pages and other 4xx: never retried.
 *  - 5xx, connection reset, timeout: reads (and deletes) retry with exponential backoff and
 *    jitter, never sooner than a Retry-After. Submissions are NEVER resent after the request may
 *    have reached the service: the task may already exist and be charged.
 *  - Connection refused / DNS failure: the request never left, so submissions retry as reads do.
 *  - A submission whose task creation failed and whose pages were refunded is resent once:
 *    nothing was charged, so nothing can be charged twice.
 *  - A retried delete answered 404: its first attempt went through; the task is gone, as asked.
 *  - No wait goes past the request's deadline or `maxRetryAfterMs`: the request fails instead of
 *    stalling its item.
 */

export type RequestKind = 'read' | 'delete' | 'submit';

export interface RetrySettings {
	/** Retries of reads after 5xx / network errors. */
	maxReadRetries: number;
	/** Retries after 429 rate_limited. */
	maxRateLimitRetries: number;
	/** Longest Retry-After honoured; a longer one fails the item instead of stalling it. */
	maxRetryAfterMs: number;
	/** First backoff step of reads; doubles per retry, with jitter. */
	backoffBaseMs: number;
	backoffMaxMs: number;
}

export const DEFAULT_RETRY: RetrySettings = {
	maxReadRetries: 4,
	maxRateLimitRetries: 8,
	maxRetryAfterMs: 120_000,
	backoffBaseMs: 500,
	backoffMaxMs: 8_000,
};

/** What came back from one attempt (a 2xx never gets here). */
export type Failure =
	| { type: 'network'; code: string }
	| {
			type: 'status';
			statusCode: number;
			/** The service's error code, when the body names one. */
			errorCode?: string;
			/** The body says the creation failed after the deduction and was refunded. */
			refundedCreation?: boolean;
			retryAfterMs?: number;
	  };

/** Retries spent so far on this request. */
export interface Spent {
	read: number;
	rate: number;
	creation: number;
}

export type Decision =
	| { action: 'fail' }
	| {
			action: 'retry';
			waitMs: number;
			/** Which count the retry spends. */
			spends: keyof Spent;
			/** A 429: pause every request of the execution and send fewer at once. */
			gate: boolean;
			cause: string;
	  }
	/** A retried delete whose first attempt went through. */
	| { action: 'deleted' };

/** Connection failures where the request never left this machine: nothing reached the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export function neverSent(code: string): boolean {
	return NOT_SENT.has(code);
}

/** The `retry`-th exponential back-off step, with jitter (half fixed, half random). */
export function backoffMs(settings: RetrySettings, retry: number, random = Math.random): number {
	const exp = Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** retry);
	return Math.round(exp / 2 + random() * (exp / 2));
}

export function decide(
	request: { kind: RequestKind; deadline?: number },
	outcome: Failure,
	tried: Spent,
	settings: RetrySettings,
	now: number,
	random: () => number = Math.random,
): Decision {
	const submission = request.kind === 'submit';
	const fits = (waitMs: number) =>
		waitMs <= settings.maxRetryAfterMs &&
		(request.deadline === undefined || now + waitMs < request.deadline);
	const retry = (waitMs: number, spends: keyof Spent, cause: string, gate = false): Decision =>
		fits(waitMs) ? { action: 'retry', waitMs, spends, gate, cause } : { action: 'fail' };

	if (outcome.type === 'network') {
		// A submission that may have reached the service is never resent.
		if (submission && !neverSent(outcome.code)) return { action: 'fail' };
		if (tried.read >= settings.maxReadRetries) return { action: 'fail' };
		return retry(backoffMs(settings, tried.read, random), 'read', outcome.code);
	}

	const { statusCode, errorCode, retryAfterMs } = outcome;
	if (statusCode === 429) {
		if (errorCode === 'daily_quota_exceeded' || tried.rate >= settings.maxRateLimitRetries)
			return { action: 'fail' };
		const waitMs = retryAfterMs ?? backoffMs(settings, tried.rate + 1, random);
		return retry(waitMs, 'rate', 'HTTP 429 (rate limited)', true);
	}
	if (statusCode >= 500 && submission) {
		if (outcome.refundedCreation && tried.creation === 0)
			return retry(
				backoffMs(settings, 0, random),
				'creation',
				`HTTP ${statusCode} (creation failed, refunded)`,
			);
		return { action: 'fail' };
	}
	if (statusCode >= 500) {
		if (tried.read >= settings.maxReadRetries) return { action: 'fail' };
		const waitMs = Math.max(retryAfterMs ?? 0, backoffMs(settings, tried.read, random));
		return retry(waitMs, 'read', `HTTP ${statusCode}`);
	}
	if (statusCode === 404 && request.kind === 'delete' && tried.read > 0)
		return { action: 'deleted' };
	return { action: 'fail' };
}
