/** Every service error code maps to a message that says what to do, whatever the body's shape. */
import type { INode } from 'n8n-workflow';

import { KNOWN_CODES } from '../../../../nodes/DocumentOcr/transport/advice';
import {
	parseServiceError,
	quoteAnswer,
	refundedCreationFailure,
} from '../../../../nodes/DocumentOcr/transport/answers';
import { serviceError } from '../../../../nodes/DocumentOcr/transport/errors';

const node: INode = {
	id: 'n1',
	name: 'Document OCR',
	type: 'n8n-nodes-document-ocr.documentOcr',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const STATUS: Record<(typeof KNOWN_CODES)[number], number> = {
	missing_api_key: 401,
	invalid_api_key: 401,
	user_banned: 403,
	insufficient_scope: 403,
	insufficient_pages: 402,
	not_found: 404,
	payload_too_large: 413,
	unsupported_media_type: 415,
	rate_limited: 429,
	task_creation_failed: 500,
	daily_quota_exceeded: 429,
};

describe('error bodies of every plausible shape', () => {
	test.each([
		['flat', { error: 'insufficient_pages', message: 'No pages left' }],
		['nested', { error: { code: 'insufficient_pages', message: 'No pages left' } }],
		['code + message', { code: 'insufficient_pages', message: 'No pages left' }],
		['errors array', { errors: [{ code: 'insufficient_pages', message: 'No pages left' }] }],
		['text "code: message"', 'insufficient_pages: No pages left'],
		['JSON as text', '{"error":"insufficient_pages","message":"No pages left"}'],
		['a Buffer', Buffer.from('{"error":"insufficient_pages","message":"No pages left"}')],
	])('%s', (_label, body) => {
		expect(parseServiceError(body)).toEqual({
			code: 'insufficient_pages',
			serviceMessage: 'No pages left',
		});
	});

	test.each(KNOWN_CODES)('a plain text that names %s anywhere is read as that code', (code) => {
		expect(parseServiceError(`Upstream said ${code} for this request`).code).toBe(code);
	});

	test('an HTML page from a proxy keeps its heading only', () => {
		expect(parseServiceError('<html><title>502 Bad Gateway</title><body>…</body></html>')).toEqual({
			serviceMessage: '502 Bad Gateway',
		});
	});
});

/** Every code: HTTP status, what the message says, and what the description tells the user to do. */
const CODES: Array<[string, number, RegExp, RegExp]> = [
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
	['not_found', 404, /Task "tsk_1" was not found/, /Check the ID/],
	['payload_too_large', 413, /too large .*10 MB/, /Compress the file or split it/],
	['unsupported_media_type', 415, /does not accept this file type/, /Send a PDF or an image/],
	[
		'rate_limited',
		429,
		/throttling requests/,
		/retried 4 time\(s\)\. Lower the node's concurrency/,
	],
	[
		'task_creation_failed',
		500,
		/could not create the task, and refunded its pages/,
		/Nothing was charged for this document/,
	],
	['daily_quota_exceeded', 429, /daily quota/, /after the quota resets/],
	[
		'brand_new_code',
		418,
		/rejected the request \(HTTP 418, brand_new_code\)/,
		/Check the node parameters/,
	],
];

describe('every code the node knows, and one it does not', () => {
	test('the table covers every known code', () => {
		expect(CODES.map(([code]) => code)).toEqual(expect.arrayContaining([...KNOWN_CODES]));
		for (const code of KNOWN_CODES) expect(STATUS[code]).toBeGreaterThanOrEqual(400);
	});

	test.each(CODES)(
		'%s: a message that says what happened and advice that says what to do',
		(code, status, message, advice) => {
			const error = serviceError(
				node,
				status,
				{ error: code, message: `Service text for ${code}` },
				{ itemIndex: 3, scope: 'submit', subject: 'Task "tsk_1"', submission: true, retries: 4 },
			);
			expect(error.message).toMatch(message);
			expect(error.description).toMatch(advice);
			expect(error.description).toContain(`Service text for ${code}`);
			expect(String(error.httpCode)).toBe(String(status));
			expect(error.context.itemIndex).toBe(3);
		},
	);

	test('without a code the HTTP status decides; a 5xx after a submission warns a task may exist', () => {
		expect(serviceError(node, 401, '', { itemIndex: 0 }).message).toMatch(/API key/);
		const error = serviceError(node, 503, '', { itemIndex: 0, submission: true });
		expect(error.message).toMatch(/a task may have been created/);
		expect(error.description).toMatch(/does not resend submissions/);
	});

	test('the key never appears, even when the service echoes it', () => {
		const error = serviceError(
			node,
			401,
			{ error: 'invalid_api_key', message: 'Key ocr_live_abc123 is not valid' },
			{ itemIndex: 0, secrets: ['ocr_live_abc123'] },
		);
		expect(JSON.stringify({ m: error.message, d: error.description })).not.toContain(
			'ocr_live_abc123',
		);
	});
});

describe('money, and answers in messages', () => {
	test('a refunded creation failure is recognised, other 5xx are not', () => {
		expect(refundedCreationFailure(500, { error: 'task_creation_failed' })).toBe(true);
		expect(
			refundedCreationFailure(500, {
				error: 'internal_error',
				message: 'Task creation failed; 2 page(s) were refunded',
			}),
		).toBe(true);
		expect(refundedCreationFailure(500, { error: 'internal_error' })).toBe(false);
	});

	test('an answer is quoted on one line, shortened, without the key or a Bearer token', () => {
		expect(quoteAnswer({ authorization: 'Bearer other_token', url: '/x' })).toBe(
			'{"authorization":"Bearer [redacted]","url":"/x"}',
		);
		expect(quoteAnswer('a\n  b key_1234', ['key_1234'])).toBe('a b [redacted]');
		expect(quoteAnswer(Buffer.from([0x50, 0x4b, 0, 4]))).toBe('4 bytes');
		expect(quoteAnswer('x'.repeat(300), [], 10)).toBe(`${'x'.repeat(10)}…`);
	});
});
