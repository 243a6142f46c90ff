/** Every service error code maps to a message that says what to do, whatever the body's shape. */
import type { INode } from 'n8n-workflow';

import {
	KNOWN_CODES,
	parseServiceError,
	redact,
	refundedCreationFailure,
	serviceError,
} from '../../../../nodes/DocumentOcr/transport/errors';

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

	test('an HTML page from a proxy keeps its heading only', () => {
		expect(parseServiceError('<html><title>502 Bad Gateway</title><body>…</body></html>')).toEqual({
			serviceMessage: '502 Bad Gateway',
		});
	});
});

describe('every code the spec lists', () => {
	test.each(KNOWN_CODES.map((code) => [code]))('%s: a message, advice, the HTTP code', (code) => {
		const status = STATUS[code];
		const error = serviceError(
			node,
			status,
			{ error: code, message: 'said the service' },
			{
				itemIndex: 3,
			},
		);
		expect(error.message.length).toBeGreaterThan(10);
		expect(error.description ?? '').toMatch(/\S{3,}/);
		expect(String(error.httpCode)).toBe(String(status));
		expect(error.context.itemIndex).toBe(3);
	});
});

describe('money and secrets', () => {
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

	test('secrets are redacted from any text', () => {
		expect(redact('Bearer ocr_live_abc123 failed', ['ocr_live_abc123'])).not.toContain(
			'ocr_live_abc123',
		);
	});
});
