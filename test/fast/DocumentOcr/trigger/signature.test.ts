/** The trigger's pure modules: signature (parse, verify) and replay memory. */
import { createHmac } from 'crypto';

import { recordDelivery } from '../../../../nodes/DocumentOcr/trigger/replay';
import { parseTimestamp, verify } from '../../../../nodes/DocumentOcr/trigger/signature';
import type { Headers } from '../../../../nodes/DocumentOcr/trigger/signature';

/** `sha256=<hex>` as the service signs a delivery, written here from the interface. */
const sign = (secret: string, timestamp: string, nonce: string, body: string | Buffer) =>
	`sha256=${createHmac('sha256', secret).update(`${timestamp}.${nonce}.${body}`).digest('hex')}`;

const KEYED_WITH = 'test-hmac-key-for-signature-checks';

describe('signature', () => {
	test.each([
		['unix seconds', '1700000000', 1700000000000],
		['unix milliseconds', '1700000000123', 1700000000123],
		['ISO-8601', '2023-11-14T22:13:20Z', 1700000000000],
		['ISO-8601 with offset', '2023-11-14T23:13:20+01:00', 1700000000000],
	])('parses a timestamp in %s', (_n, value, ms) => {
		expect(parseTimestamp(value)).toBe(ms);
	});

	test.each(['yesterday', '', '17e8', '2023-11-14', '-5'])(
		'refuses the timestamp "%s"',
		(value) => {
			expect(parseTimestamp(value)).toBeUndefined();
		},
	);

	test('verify tells apart each reason', () => {
		const body = Buffer.from('{"x":1}');
		const ts = String(Math.floor(Date.now() / 1000));
		const good: Headers = {
			'x-webhook-timestamp': ts,
			'x-webhook-nonce': 'n',
			'x-webhook-signature': sign(KEYED_WITH, ts, 'n', body),
		};
		const v = (headers: Headers, extra: { secret?: string; now?: number } = {}) =>
			verify({ secret: KEYED_WITH, headers, rawBody: body, toleranceMs: 300_000, ...extra });
		expect(v(good).ok).toBe(true);
		const reason = (r: ReturnType<typeof v>) => (r.ok ? 'ok' : r.reason);
		expect(reason(v({ ...good, 'x-webhook-signature': undefined }))).toBe('missing_signature');
		expect(reason(v({ ...good, 'x-webhook-signature': ['a', 'b'] }))).toBe('malformed_signature');
		expect(reason(v(good, { secret: 'other' }))).toBe('signature_mismatch');
		expect(reason(v(good, { now: Date.now() + 301_000 }))).toBe('timestamp_outside_tolerance');
	});
});

describe('replay memory', () => {
	const NOW = 1_000_000;

	test('a key seen before refuses the delivery and records nothing new', () => {
		const stored = {};
		expect(recordDelivery('s1', [['nonce:a', NOW + 600_000]], stored, NOW)).toBe(true);
		expect(
			recordDelivery(
				's1',
				[
					['nonce:b', NOW + 600_000],
					['nonce:a', NOW + 600_000],
				],
				stored,
				NOW,
			),
		).toBe(false);
		expect(recordDelivery('s1', [['nonce:b', NOW + 600_000]], stored, NOW)).toBe(true);
	});

	test('keys expire on their own; scopes are apart', () => {
		const stored = {};
		recordDelivery(
			's2',
			[
				['nonce:x', NOW + 10],
				['task:ocr.done:t1', NOW + 86_400_000],
			],
			stored,
			NOW,
		);
		expect(recordDelivery('s3', [['nonce:x', NOW + 10]], {}, NOW)).toBe(true);
		expect(recordDelivery('s2', [['nonce:x', NOW + 100]], stored, NOW + 20)).toBe(true);
		expect(recordDelivery('s2', [['task:ocr.done:t1', NOW + 100]], stored, NOW + 20)).toBe(false);
	});

	test('what another process saved in static data is honoured', () => {
		const persisted = { seen: { 'event:e1': NOW + 60_000 } };
		expect(recordDelivery('s4', [['event:e1', NOW + 60_000]], persisted, NOW)).toBe(false);
	});
});
