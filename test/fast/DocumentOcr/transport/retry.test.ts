/** The retry policy as a table (transport/retry.ts): no server, no clock. */

import type { Failure, RequestKind, Spent } from '../../../../nodes/DocumentOcr/transport/retry';
import { DEFAULT_RETRY, decide } from '../../../../nodes/DocumentOcr/transport/retry';

const NOW = 1_000_000;
const fresh = (): Spent => ({ read: 0, rate: 0, creation: 0 });
const status = (statusCode: number, extra: Partial<Extract<Failure, { type: 'status' }>> = {}) =>
	({ type: 'status', statusCode, ...extra }) as Failure;
const network = (code: string) => ({ type: 'network', code }) as Failure;
const run = (kind: RequestKind, outcome: Failure, tried = fresh(), deadline?: number) =>
	decide({ kind, deadline }, outcome, tried, DEFAULT_RETRY, NOW, () => 0.5);

describe('what is retried, by request kind', () => {
	test.each([
		['read', status(500), 'retry'],
		['delete', status(503), 'retry'],
		['submit', status(500), 'fail'], // the task may exist and be charged
		['submit', status(502), 'fail'],
		['read', network('ECONNRESET'), 'retry'],
		['submit', network('ECONNRESET'), 'fail'], // may have arrived
		['submit', network('ETIMEDOUT'), 'fail'],
		['submit', network('ECONNREFUSED'), 'retry'], // never left this machine
		['submit', network('ENOTFOUND'), 'retry'],
		['submit', status(429, { errorCode: 'rate_limited' }), 'retry'], // refused: nothing charged
		['read', status(429, { errorCode: 'rate_limited' }), 'retry'],
		['submit', status(429, { errorCode: 'daily_quota_exceeded' }), 'fail'],
		['submit', status(402, { errorCode: 'insufficient_pages' }), 'fail'],
		['read', status(401, { errorCode: 'invalid_api_key' }), 'fail'],
		['read', status(403, { errorCode: 'insufficient_scope' }), 'fail'],
		['read', status(404, { errorCode: 'not_found' }), 'fail'],
		['submit', status(413, { errorCode: 'payload_too_large' }), 'fail'],
		['submit', status(415, { errorCode: 'unsupported_media_type' }), 'fail'],
		['submit', status(500, { refundedCreation: true }), 'retry'], // refunded: safe to resend
	] as Array<[RequestKind, Failure, string]>)('%s after %j: %s', (kind, outcome, action) => {
		expect(run(kind, outcome).action).toBe(action);
	});
});

describe('how long, and how often', () => {
	test('a refunded creation is resent once only', () => {
		const outcome = status(500, { refundedCreation: true });
		expect(run('submit', outcome, { read: 0, rate: 0, creation: 1 }).action).toBe('fail');
	});

	test('a 429 waits for Retry-After and pauses the whole execution', () => {
		const d = run('submit', status(429, { errorCode: 'rate_limited', retryAfterMs: 7_000 }));
		expect(d).toEqual(expect.objectContaining({ action: 'retry', waitMs: 7_000, gate: true }));
	});

	test('a 5xx on a read waits at least its Retry-After, and the back-off grows', () => {
		const waitOf = (d: ReturnType<typeof run>) => (d.action === 'retry' ? d.waitMs : NaN);
		expect(waitOf(run('read', status(503, { retryAfterMs: 3_000 })))).toBe(3_000);
		const first = waitOf(run('read', status(503)));
		const third = waitOf(run('read', status(503), { read: 2, rate: 0, creation: 0 }));
		expect(third).toBeGreaterThan(first);
		expect(third).toBeLessThanOrEqual(DEFAULT_RETRY.backoffMaxMs);
	});

	test('no wait goes past the deadline or the longest Retry-After honoured', () => {
		expect(run('read', status(503, { retryAfterMs: 3_600_000 })).action).toBe('fail');
		const rate = status(429, { errorCode: 'rate_limited', retryAfterMs: 3_600_000 });
		expect(run('read', rate).action).toBe('fail');
		const soon = status(503, { retryAfterMs: 5_000 });
		expect(run('read', soon, fresh(), NOW + 10_000).action).toBe('retry');
		expect(run('read', soon, fresh(), NOW + 4_000).action).toBe('fail');
	});

	test('retries run out', () => {
		const spent = { read: DEFAULT_RETRY.maxReadRetries, rate: 0, creation: 0 };
		expect(run('read', status(500), spent).action).toBe('fail');
		const throttled = { read: 0, rate: DEFAULT_RETRY.maxRateLimitRetries, creation: 0 };
		expect(run('read', status(429, { errorCode: 'rate_limited' }), throttled).action).toBe('fail');
	});

	test('a retried delete answered 404 went through the first time', () => {
		expect(run('delete', status(404), { read: 1, rate: 0, creation: 0 }).action).toBe('deleted');
		expect(run('delete', status(404)).action).toBe('fail');
	});
});
