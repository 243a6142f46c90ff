/** A verified delivery read as an event (trigger/delivery.ts): pure, no n8n. */
import {
	EVENT_MEMORY_MS,
	parseDelivery,
	weakSecret,
} from '../../../../nodes/DocumentOcr/trigger/delivery';

const signed = { nonce: 'n-1', timestampMs: Date.UTC(2026, 10, 25, 12) };
const NOW = signed.timestampMs + 1000;
const parse = (body: unknown) =>
	parseDelivery(
		Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
		signed,
		300_000,
		NOW,
	);

describe('parseDelivery', () => {
	test.each([
		['not JSON', '{"event":'],
		['an array', [1, 2]],
		['a string', '"ocr.done"'],
		['null', 'null'],
	])('a body that is %s is no delivery', (_name, body) => {
		expect(parse(body)).toBeUndefined();
	});

	test('event and task from `event` and `data.taskId`; the task event is the key without an event id', () => {
		const delivery = parse({ event: 'ocr.done', data: { taskId: 'tsk_1', status: 'done' } })!;
		expect(delivery.event).toBe('ocr.done');
		expect(delivery.taskId).toBe('tsk_1');
		expect(delivery.dedupeKey).toBe('task:ocr.done:tsk_1');
		expect(delivery.output).toMatchObject({
			event: 'ocr.done',
			taskId: 'tsk_1',
			status: 'done',
			verified: true,
			nonce: 'n-1',
			timestamp: new Date(signed.timestampMs).toISOString(),
		});
		expect(delivery.keys).toEqual([
			['nonce:n-1', NOW + 600_000],
			['task:ocr.done:tsk_1', NOW + EVENT_MEMORY_MS],
		]);
	});

	test('the other plausible shapes: `type`, a top-level `taskId` (a number), `eventId`', () => {
		const delivery = parse({ type: 'ocr.failed', taskId: 42, eventId: 'evt_9', status: 'failed' })!;
		expect(delivery.event).toBe('ocr.failed');
		expect(delivery.taskId).toBe('42');
		expect(delivery.dedupeKey).toBe('event:evt_9');
		expect(delivery.output.eventId).toBe('evt_9');
		expect(delivery.keys.map(([key]) => key)).toEqual([
			'nonce:n-1',
			'event:evt_9',
			'task:ocr.failed:42',
		]);
	});

	test('a delivery naming neither event nor task is told apart by its nonce alone', () => {
		const delivery = parse({ hello: 'world' })!;
		expect(delivery.event).toBeUndefined();
		expect(delivery.taskId).toBe('');
		expect(delivery.dedupeKey).toBe('nonce:n-1');
		expect(delivery.keys).toHaveLength(1);
	});
});

describe('weakSecret: a trigger fails closed', () => {
	test.each([
		[undefined, /empty/],
		['', /empty/],
		[' padded-secret', /space/],
		['short', /shorter than 8/],
	])('%p is refused', (secret, why) => {
		expect(weakSecret(secret)).toMatch(why);
	});

	test('a secret of 8 characters or more without spaces around it is accepted', () => {
		expect(weakSecret('whsec_12345678')).toBeUndefined();
	});
});
