'use strict';
const h = require('./helpers');

const emu = h.useEmulator();
afterEach(() => {
	emu.clearFaults();
	emu.options.shapes.error = 'flat';
});

/** Every service error code: HTTP status, and what the message and description must say. */
const CODES = [
	['missing_api_key', 401, /No API key was sent/, /enter the API key/],
	['invalid_api_key', 401, /refused the API key/, /Create a new key/],
	['user_banned', 403, /account is banned/, /Contact the service/],
	['insufficient_scope', 403, /lacks the "submit" scope/, /Create a key with the "submit" scope/],
	[
		'insufficient_pages',
		402,
		/no page balance left/,
		/Top up the page balance.*Nothing was charged/,
	],
	['not_found', 404, /was not found/, /Check the ID/],
	['payload_too_large', 413, /too large .*10 MB/, /Compress the file or split it/],
	['unsupported_media_type', 415, /does not accept this file type/, /Send a PDF or an image/],
	['rate_limited', 429, /throttling requests/, /Lower the node's concurrency/],
	['daily_quota_exceeded', 429, /daily quota/, /after the quota resets/],
	[
		'brand_new_code',
		418,
		/rejected the request \(HTTP 418, brand_new_code\)/,
		/Check the node parameters/,
	],
];

describe('every service error code maps to a message that says what to do, in every body shape', () => {
	for (const shape of ['flat', 'nested', 'code', 'text']) {
		test.each(CODES)(`${shape}: %s`, async (code, status, message, description) => {
			emu.options.shapes.error = shape;
			// rate_limited is retried; make it persist past the bounded retries with a long Retry-After.
			const rule = {
				method: 'POST',
				path: '/api/ocr',
				kind: 'status',
				status,
				code,
				message: `Service text for ${code}`,
				times: 1,
			};
			if (code === 'rate_limited') Object.assign(rule, { kind: 'rateLimit', retryAfter: 3600 });
			emu.fault(rule);
			const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
			expect(error.name).toBe('NodeApiError');
			expect(error.message).toMatch(message);
			expect(error.description).toMatch(description);
			expect(error.httpCode).toBe(String(status));
			expect(error.context.itemIndex).toBe(0);
			if (code !== 'rate_limited') expect(error.description).toContain(`Service text for ${code}`);
			const everything = JSON.stringify({
				message: error.message,
				description: error.description,
				context: error.context,
			});
			expect(everything).not.toContain(h.FULL_KEY);
		});
	}

	test('a real wrong key (from the emulator, not a fault) is reported as such, without the key', async () => {
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()], { apiKey: 'ocr_wrong_key_123' });
		expect(error.message).toBe('The OCR service refused the API key');
		expect(JSON.stringify(error)).not.toContain('ocr_wrong_key_123');
	});

	test('an HTML error page yields its heading, not the markup', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'html', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/HTTP 502/);
		expect(error.description).toMatch(/502 Bad Gateway/);
		expect(error.description).not.toMatch(/<h1>/);
	});

	test('truncated JSON on a 200 is an unexpected answer, not a crash', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'truncatedJson', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(
			/Unexpected answer from the OCR service for the submission \(a task may have been created\)/,
		);
	});

	test('a key without the read scope can submit but Get names the missing scope', async () => {
		const { output } = await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem()], {
			apiKey: 'ocr_test_submit_only',
		});
		const { error } = await h.run(
			emu,
			h.task('get', { taskId: output[0].json.taskId }),
			undefined,
			{ apiKey: 'ocr_test_submit_only' },
		);
		expect(error.message).toBe('The API key lacks the "read" scope this operation needs');
	});

	test("a team member uses the owner's balance", async () => {
		const before = emu.balance('acme');
		const { error } = await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem()], {
			apiKey: 'ocr_test_member',
		});
		expect(error).toBeUndefined();
		expect(before - emu.balance('acme')).toBe(1);
	});
});
