'use strict';
const h = require('./helpers');

const emu = h.useEmulator({ perTest: true });

describe('retries: Retry-After honoured, submissions never repeated', () => {
	test('429 rate_limited on submit waits for Retry-After, then retries once', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'rateLimit', retryAfter: 0.6, times: 1 });
		const started = Date.now();
		const { output, error } = await h.run(emu, h.submit({ waitForCompletion: false }), [
			h.pdfItem(),
		]);
		expect(error).toBeUndefined();
		expect(Date.now() - started).toBeGreaterThanOrEqual(600);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
		expect(output[0].json.taskId).toMatch(/\S/);
		expect(h.netCharged(emu)).toBe(1);
	});

	test('429 rate_limited on a poll is retried as well', async () => {
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'rateLimit', retryAfter: 0.2, times: 2 });
		const { output, error } = await h.run(emu, h.submit(), [h.pdfItem('rate limited poll')]);
		expect(error).toBeUndefined();
		expect(output[0].json.resultText).toContain('rate limited poll');
	});

	test('throttling slows the whole pool: every item succeeds, fewer 429s than successes', async () => {
		emu.options.rateLimit = { perSecond: 10, burst: 5 };
		emu.resetStats();
		const items = Array.from({ length: 30 }, (_, i) => h.pdfItem(`Throttled ${i}`));
		const { output, error } = await h.run(
			emu,
			h.submit({ waitForCompletion: false, options: { concurrency: 5 } }),
			items,
		);
		expect(error).toBeUndefined();
		expect(output.map((o) => o.pairedItem.item)).toEqual(items.map((_, i) => i));
		output.forEach((o) => expect(o.json.taskId).toMatch(/^tsk_/));
		const { rateLimited, maxInFlight } = emu.stats();
		// Each item retrying on its own (no shared gate, no slowing down) drew 70 429s here.
		expect(rateLimited).toBeLessThan(30);
		expect(maxInFlight).toBeLessThanOrEqual(5);
		expect(h.netCharged(emu)).toBe(30);
	});

	test('daily_quota_exceeded is never retried', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'quota', times: 5 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/daily quota/);
		expect(error.description).toMatch(/does not retry/);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
	});

	test('insufficient_pages is never retried and charges nothing', async () => {
		emu.setBalance('acme', 0);
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/no page balance left/);
		expect(error.httpCode).toBe('402');
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
		expect(Math.abs(h.netCharged(emu))).toBe(0);
		expect(emu.ledger('acme')).toEqual([]);
	});

	test('a lost response after the task was created is not resent: exactly one charge', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/a task may have been created/);
		expect(error.description).toMatch(/does not resend submissions/);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
		expect(emu.ledger('acme').filter((e) => e.reason === 'submit')).toHaveLength(1);
		expect(emu.tasks).toHaveLength(1);
	});

	test('a 5xx on submit is not resent and says a task may exist', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'status', status: 503, times: 3 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/HTTP 503.*a task may have been created/);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
	});

	test('a connection reset on submit is not resent', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'reset', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(
			/^The connection to the OCR service broke after the document was sent \(connection reset\): a task may have been created$/,
		);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
		expect(Math.abs(h.netCharged(emu))).toBe(0);
	});

	test('reads retry 5xx and resets with backoff, then succeed', async () => {
		const { output: submitted } = await h.run(emu, h.submit({ waitForCompletion: false }), [
			h.pdfItem('read retry'),
		]);
		const { taskId } = submitted[0].json;
		const fired = emu.stats().faultsFired;
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'status', status: 500, times: 1 });
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'reset', times: 1 });
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'html', times: 1 });
		const { output, error } = await h.run(emu, h.task('get', { taskId }));
		expect(error).toBeUndefined();
		expect(output[0].json.taskId).toBe(taskId);
		expect(emu.stats().faultsFired - fired).toBe(3);
	});

	test('reads give up after bounded retries with a clear error', async () => {
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'status', status: 503, times: 20 });
		const { error } = await h.run(emu, h.task('getMany', { returnAll: false, limit: 5 }));
		expect(error.message).toBe('The OCR service failed (HTTP 503)');
		expect(error.description).toMatch(/retried 4 time\(s\)/);
		expect(h.hits(emu, 'GET /api/tasks')).toBe(5);
	});

	test('a refused connection names the host and says nothing was charged', async () => {
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()], {
			creds: { apiKey: h.FULL_KEY, baseUrl: 'http://127.0.0.1:9', apiUrl: '' },
		});
		expect(error.message).toMatch(
			/^Could not reach the OCR service at 127\.0\.0\.1:9 \(connection refused\)$/,
		);
	});
});
