'use strict';
const crypto = require('node:crypto');
const { request } = require('undici');
const h = require('./helpers');
const { startTriggerServer } = require('./harness');
const { signatureHeader } = require('../emulator/sign');

const SECRET = 'whsec_test_0123456789abcdef';
const emu = h.useEmulator();

let trigger;
async function startTrigger(parameters = {}, { secret = SECRET, staticData } = {}) {
	await trigger?.close();
	trigger = await startTriggerServer({
		parameters: {
			events: ['ocr.done', 'ocr.failed'],
			includeTaskDetails: false,
			options: {},
			...parameters,
		},
		credentials: { documentOcrWebhookApi: { secret }, documentOcrApi: h.credentials(emu) },
		staticData,
	});
	return trigger;
}
afterAll(async () => {
	await trigger?.close();
});

const nowSeconds = () => String(Math.floor(Date.now() / 1000));
const nonce = () => crypto.randomBytes(16).toString('hex');
const payload = (event = 'ocr.done', taskId = `tsk_${nonce().slice(0, 12)}`) =>
	JSON.stringify({
		id: `evt_${nonce()}`,
		event,
		createdAt: new Date().toISOString(),
		data: { taskId, status: event === 'ocr.done' ? 'done' : 'failed' },
	});

/** A correctly signed delivery, as headers + body. */
function signed(body = payload(), { secret = SECRET, timestamp = nowSeconds(), n = nonce() } = {}) {
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-webhook-timestamp': timestamp,
			'x-webhook-nonce': n,
			'x-webhook-signature': signatureHeader(secret, timestamp, n, body),
		},
	};
}

async function deliver({ body, headers }) {
	const response = await request(trigger.url, { method: 'POST', body, headers });
	return { status: response.statusCode, text: await response.body.text() };
}

describe('Document OCR Trigger in the real engine (WebhookContext, real HTTP requests)', () => {
	beforeAll(async () => {
		await startTrigger();
	});

	test('a valid delivery starts the workflow once, with the event, task, payload and delivery data', async () => {
		const delivery = signed(payload('ocr.done', 'tsk_valid'));
		const before = trigger.executions.length;
		const first = await deliver(delivery);
		expect(first.status).toBe(200);
		expect(trigger.executions.length).toBe(before + 1);
		const [[item]] = trigger.executions.at(-1);
		expect(item.json).toMatchObject({
			event: 'ocr.done',
			taskId: 'tsk_valid',
			status: 'done',
			dedupeKey: `event:${JSON.parse(delivery.body).id}`,
			verified: true,
			nonce: delivery.headers['x-webhook-nonce'],
			payload: JSON.parse(delivery.body),
		});
		expect(new Date(item.json.timestamp).getTime()).toBe(
			Number(delivery.headers['x-webhook-timestamp']) * 1000,
		);

		// The same delivery again (a replay, or the sender retrying): acknowledged, nothing started.
		const again = await deliver(delivery);
		expect(again.status).toBe(200);
		expect(JSON.parse(again.text)).toEqual({ received: true, duplicate: true });
		expect(trigger.executions.length).toBe(before + 1);
	});

	test.each([
		['milliseconds', () => String(Date.now())],
		['ISO-8601', () => new Date().toISOString()],
	])('accepts a timestamp in %s', async (_name, timestamp) => {
		const before = trigger.executions.length;
		expect((await deliver(signed(payload(), { timestamp: timestamp() }))).status).toBe(200);
		expect(trigger.executions.length).toBe(before + 1);
	});

	const tamper = (fn) => () => {
		const delivery = signed(payload('ocr.done', 'tsk_attack'));
		fn(delivery);
		return delivery;
	};
	const ATTACKS = [
		[
			'a bad signature',
			tamper(
				(d) =>
					(d.headers['x-webhook-signature'] = `sha256=${crypto.randomBytes(32).toString('hex')}`),
			),
		],
		['a signature made with another secret', () => signed(payload(), { secret: 'not-the-secret' })],
		[
			'a stale timestamp (301 s old)',
			() => signed(payload(), { timestamp: String(Math.floor(Date.now() / 1000) - 301) }),
		],
		[
			'a future timestamp (301 s ahead)',
			() => signed(payload(), { timestamp: String(Math.floor(Date.now() / 1000) + 301) }),
		],
		[
			'a body tampered by one byte',
			tamper((d) => (d.body = d.body.replace('tsk_attack', 'tsk_attacK'))),
		],
		['no signature header', tamper((d) => delete d.headers['x-webhook-signature'])],
		['no timestamp header', tamper((d) => delete d.headers['x-webhook-timestamp'])],
		['no nonce header', tamper((d) => delete d.headers['x-webhook-nonce'])],
		[
			'a signature without the sha256= prefix',
			tamper((d) => (d.headers['x-webhook-signature'] = d.headers['x-webhook-signature'].slice(7))),
		],
		[
			'a signature in upper-case hex',
			tamper(
				(d) =>
					(d.headers['x-webhook-signature'] =
						`sha256=${d.headers['x-webhook-signature'].slice(7).toUpperCase()}`),
			),
		],
		[
			'a signature of another length',
			tamper(
				(d) => (d.headers['x-webhook-signature'] = d.headers['x-webhook-signature'].slice(0, 40)),
			),
		],
		['an empty body under a valid signature of the real one', tamper((d) => (d.body = ''))],
		[
			'the body re-serialised (whitespace changed)',
			tamper((d) => (d.body = JSON.stringify(JSON.parse(d.body), null, 2))),
		],
		['a malformed timestamp', tamper((d) => (d.headers['x-webhook-timestamp'] = 'yesterday'))],
		['the signature of another nonce', tamper((d) => (d.headers['x-webhook-nonce'] = nonce()))],
	];

	test.each(ATTACKS)(
		'refuses %s: 401, nothing started, nothing about the secret',
		async (_name, make) => {
			const before = trigger.executions.length;
			const { status, text } = await deliver(make());
			expect(status).toBe(401);
			expect(text).toBe('{"error":"unauthorized"}');
			expect(text).not.toContain(SECRET);
			expect(trigger.executions.length).toBe(before);
		},
	);

	test('a replayed nonce with a new body (and new event id) starts nothing', async () => {
		const n = nonce();
		const timestamp = nowSeconds();
		expect((await deliver(signed(payload(), { n, timestamp }))).status).toBe(200);
		const before = trigger.executions.length;
		const replay = await deliver(signed(payload('ocr.failed'), { n, timestamp }));
		expect(replay.status).toBe(200);
		expect(trigger.executions.length).toBe(before);
	});

	test('the same event re-sent with a fresh nonce starts nothing (event id remembered)', async () => {
		const body = payload('ocr.done', 'tsk_resent');
		expect((await deliver(signed(body))).status).toBe(200);
		const before = trigger.executions.length;
		expect((await deliver(signed(body))).status).toBe(200);
		expect(trigger.executions.length).toBe(before);
	});

	test('a retry of the same task event with a fresh nonce and no event id starts nothing (task key)', async () => {
		// The spec does not show the payload: the emulator's default sends no event id.
		const body = () =>
			JSON.stringify({ event: 'ocr.done', data: { taskId: 'tsk_retried', status: 'done' } });
		const before = trigger.executions.length;
		expect((await deliver(signed(body()))).status).toBe(200);
		expect(trigger.executions.length).toBe(before + 1);
		expect(trigger.executions.at(-1)[0][0].json.dedupeKey).toBe('task:ocr.done:tsk_retried');
		const retry = await deliver(signed(body()));
		expect(JSON.parse(retry.text)).toEqual({ received: true, duplicate: true });
		expect(trigger.executions.length).toBe(before + 1);
		// The other event of the same task is another event.
		const failed = JSON.stringify({ event: 'ocr.failed', data: { taskId: 'tsk_retried' } });
		expect((await deliver(signed(failed))).status).toBe(200);
		expect(trigger.executions.length).toBe(before + 2);
	});

	test('a signed body that is not a JSON object is refused with 400', async () => {
		const before = trigger.executions.length;
		expect((await deliver(signed('not json'))).status).toBe(400);
		expect(trigger.executions.length).toBe(before);
	});
});

describe('fail closed: a weak secret starts nothing', () => {
	test.each([
		['empty', ''],
		['short', 'abc1234'],
		['padded with spaces', ' whsec_test_0123456789 '],
	])('%s secret: a delivery signed with it gets 401 and starts nothing', async (_label, secret) => {
		await startTrigger({}, { secret });
		const response = await deliver(signed(payload(), { secret }));
		expect(response.status).toBe(401);
		expect(trigger.executions).toHaveLength(0);
	});

	test('the replay memory outlives a restart of the trigger on the same static data', async () => {
		// Deactivate + activate keeps the workflow's static data: the same object, a new trigger.
		const staticData = {};
		await startTrigger({}, { staticData });
		const delivery = signed(payload('ocr.done', 'tsk_reactivated'));
		expect((await deliver(delivery)).status).toBe(200);
		expect(trigger.executions).toHaveLength(1);
		await startTrigger({}, { staticData });
		const replay = await deliver(delivery);
		expect(JSON.parse(replay.text)).toEqual({ received: true, duplicate: true });
		expect(trigger.executions).toHaveLength(0);
	});
});

describe('event selection, tolerance and task details', () => {
	test('an event that is not selected is acknowledged and starts nothing', async () => {
		await startTrigger({ events: ['ocr.done'] });
		const ignored = await deliver(signed(payload('ocr.failed')));
		expect(ignored.status).toBe(200);
		expect(JSON.parse(ignored.text)).toEqual({ received: true, ignored: true });
		expect(trigger.executions).toHaveLength(0);
	});

	test('the timestamp tolerance is configurable', async () => {
		await startTrigger({ options: { toleranceSeconds: 10 } });
		const old = String(Math.floor(Date.now() / 1000) - 30);
		expect((await deliver(signed(payload(), { timestamp: old }))).status).toBe(401);
		expect((await deliver(signed(payload()))).status).toBe(200);
	});

	test('Include Task Details fetches the task; a failed fetch is reported in the output', async () => {
		await startTrigger({ includeTaskDetails: true });
		const { output } = await h.run(emu, h.submit(), [h.pdfItem('Details please')]);
		const { taskId } = output[0].json;
		const first = await deliver(signed(payload('ocr.done', taskId)));
		expect(JSON.parse(first.text)).toEqual({ received: true });
		// The sender is answered first; the run starts once the task was fetched.
		await emu.waitFor(() => trigger.executions.length === 1);
		expect(trigger.executions[0][0][0].json.task).toMatchObject({
			taskId,
			status: 'done',
			resultText: 'Details please',
		});

		expect((await deliver(signed(payload('ocr.done', 'tsk_gone')))).status).toBe(200);
		await emu.waitFor(() => trigger.executions.length === 2);
		expect(trigger.executions[1][0][0].json.taskDetailsError).toBe('Task "tsk_gone" was not found');
	});

	test('Include Task Details answers the sender first, and makes one attempt only', async () => {
		await startTrigger({ includeTaskDetails: true });
		const { output } = await h.run(emu, h.submit(), [h.pdfItem('Slow details')]);
		const { taskId } = output[0].json;
		// The status request is answered 3 s late (the sender's answer comes long before; the
		// node's own 5 s limit on the read is not reached), then with a 429 and a Retry-After of 20 s.
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'latency', ms: 3000, times: 1 });
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'rateLimit', retryAfter: 20, times: 1 });
		const before = h.hits(emu, 'GET /api/tasks/:id');
		let answeredAt;
		const delivered = deliver(signed(payload('ocr.done', taskId))).then((r) => {
			answeredAt = trigger.executions.length;
			return r;
		});
		const response = await delivered;
		expect(JSON.parse(response.text)).toEqual({ received: true });
		// The answer came before the run was handed over (which waits for the task request).
		expect(answeredAt).toBe(0);
		await emu.waitFor(() => trigger.executions.length === 1);
		const [[item]] = trigger.executions[0];
		expect(item.json.taskDetailsError).toMatch(/rate|429|throttl/i);
		expect(h.hits(emu, 'GET /api/tasks/:id') - before).toBe(1);
	});
});

describe('deliveries from the emulator, for real tasks', () => {
	test('ocr.done and ocr.failed start one run each; a redelivery starts none', async () => {
		await startTrigger();
		emu.addWebhook({ url: trigger.url, secret: SECRET });
		const { output } = await h.run(
			emu,
			h.submit(),
			[h.pdfItem('Webhook me'), h.pdfItem('Webhook FAIL')],
			{ continueOnFail: true },
		);
		const doneId = output[0].json.taskId;
		await emu.waitFor(() => trigger.executions.length >= 2);
		await emu.webhooksIdle();
		const runs = trigger.executions.map((run) => run[0][0].json);
		expect(runs.map((r) => r.event).sort()).toEqual(['ocr.done', 'ocr.failed']);
		expect(runs.find((r) => r.event === 'ocr.done').taskId).toBe(doneId);

		const index = emu.deliveries.findIndex((d) => d.event === 'ocr.done');
		await emu.redeliver(index);
		await emu.webhooksIdle();
		expect(trigger.executions).toHaveLength(2);
		emu.clearWebhooks();
	});
});

test('the emulator sends the events the triggers offer, and no other', () => {
	// emulator/surfaces/webhooks.js lists them on its own (the emulator uses no product code).
	const { EVENTS } = require('../dist/nodes/DocumentOcr/trigger/events');
	const emulated = require('../emulator/surfaces/webhooks').EVENTS;
	expect([...emulated].sort()).toEqual([...EVENTS].sort());
});
