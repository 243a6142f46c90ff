'use strict';
/**
 * The trigger fails closed and causes one side effect per event, in real n8n 2.x: a weak secret
 * refuses activation and every delivery; a replay after re-activation, a retry with a fresh nonce
 * and a replay after restarting n8n (same database) run the side effect once — the trigger's own
 * memory, then n8n's persistent Remove Duplicates step on `dedupeKey` (as in example 07).
 */
const { createInstance } = require('../../scripts/n8n-instance');
const { triggerWorkflow, sideEffects: countSideEffects } = require('./scenarios');
const { signedDelivery } = require('../../emulator/sign.js');

const SECRET = 'whsec_e2e_once_7d3b4e215f1c0c9a';
const STRONG = { id: 'ocrLocalWebhook1', name: 'Document OCR webhook secret (local emulator)' };
const EMPTY = { id: 'ocrEmptySecret1', name: 'Webhook secret left empty' };
const SWAPPED = { id: 'ocrSwappedSecret', name: 'Webhook secret emptied after activation' };
const HOOKS = {
	empty: '1b2c3d4e-0000-4000-8000-00000000e001',
	swapped: '1b2c3d4e-0000-4000-8000-00000000e002',
	once: '1b2c3d4e-0000-4000-8000-00000000e003',
};

let n8n;
const hook = (name) => `${n8n.url}/webhook/${HOOKS[name]}/webhook`;

/** A delivery signed with `secret`: the exact bytes can be sent again (a replay). */
const signed = (body, secret = SECRET) => signedDelivery(secret, body);

const deliver = async (name, delivery) =>
	await n8n.emu.deliverRaw({ url: hook(name), ...delivery });

async function publicApi(method, route) {
	const response = await fetch(`${n8n.url}/api/v1${route}`, {
		method,
		headers: { 'X-N8N-API-KEY': n8n.apiKey, accept: 'application/json' },
	});
	return { status: response.status, body: await response.text() };
}

const sideEffects = async (workflowId, min) => await countSideEffects(n8n, workflowId, min);

beforeAll(async () => {
	n8n = await createInstance({ label: 'trigger-safety' });
	await n8n.importWebhookCredential(SECRET, STRONG);
	await n8n.importWebhookCredential('', EMPTY);
	await n8n.importWebhookCredential(SECRET, SWAPPED);
	await n8n.importWorkflows([
		triggerWorkflow('ocrE2eEmptySecret', HOOKS.empty, EMPTY),
		triggerWorkflow('ocrE2eSwapped', HOOKS.swapped, SWAPPED),
		triggerWorkflow('ocrE2eOnce', HOOKS.once, STRONG, { dedupe: true }),
	]);
	await n8n.publish('ocrE2eSwapped');
	await n8n.publish('ocrE2eOnce');
	await n8n.startServer();
	await n8n.setupOwner({
		scopes: [
			'execution:list',
			'execution:read',
			'workflow:read',
			'workflow:activate',
			'workflow:deactivate',
		],
	});
});

afterAll(async () => {
	await n8n?.close();
});

test('an empty secret: activation is refused with the reason, and a delivery signed with it starts nothing', async () => {
	const activation = await publicApi('POST', '/workflows/ocrE2eEmptySecret/publish');
	expect(activation.status).toBeGreaterThanOrEqual(400);
	expect(activation.body).toMatch(/signing secret is empty/);
	const forged = await deliver(
		'empty',
		signed(JSON.stringify({ event: 'ocr.done', data: { taskId: 'tsk_x' } }), ''),
	);
	expect(forged.status).toBe(404); // not registered: the workflow is not active
	expect(await n8n.executions('ocrE2eEmptySecret')).toHaveLength(0);
});

test('a secret emptied while the workflow is active: a delivery signed with the empty key gets 401, nothing runs', async () => {
	await n8n.importWebhookCredential('', SWAPPED);
	const body = JSON.stringify({
		event: 'ocr.done',
		data: { taskId: 'tsk_forged', status: 'done' },
	});
	const forged = await deliver('swapped', signed(body, ''));
	expect(forged.status).toBe(401);
	expect(await n8n.executions('ocrE2eSwapped')).toHaveLength(0);
});

test('one event, one side effect: after re-activation, a fresh-nonce retry, and a restart of n8n', async () => {
	// The spec shows no payload: like the emulator's default, no event id.
	const body = JSON.stringify({
		event: 'ocr.done',
		data: { taskId: 'tsk_once_1', status: 'done' },
	});
	const first = signed(body);
	expect((await deliver('once', first)).status).toBe(200);
	expect(await sideEffects('ocrE2eOnce', 1)).toBe(1);

	// Deactivate and activate again, then the same bytes: the trigger still remembers them.
	expect((await publicApi('POST', '/workflows/ocrE2eOnce/unpublish')).status).toBe(200);
	expect((await publicApi('POST', '/workflows/ocrE2eOnce/publish')).status).toBe(200);
	const replay = await deliver('once', first);
	expect(replay.status).toBe(200);
	expect(JSON.parse(replay.body)).toMatchObject({ duplicate: true });
	// The service retrying the event with a fresh nonce (and timestamp): the task key catches it.
	const retry = await deliver('once', signed(body));
	expect(JSON.parse(retry.body)).toMatchObject({ duplicate: true });
	expect(await sideEffects('ocrE2eOnce', 1)).toBe(1);

	// Another event B, not replayed before the restart.
	const bodyB = JSON.stringify({
		event: 'ocr.done',
		data: { taskId: 'tsk_once_2', status: 'done' },
	});
	const deliveryB = signed(bodyB);
	expect((await deliver('once', deliveryB)).status).toBe(200);
	expect(await sideEffects('ocrE2eOnce', 2)).toBe(2);
	const before = (await n8n.executions('ocrE2eOnce')).length;

	// Restart n8n on the same database. n8n did not save the trigger's memory of B (it saves a
	// webhook's static data only when the delivery starts no run), so B's replay starts a run —
	// and n8n's own deduplication (Remove Duplicates on dedupeKey, in its database) stops it
	// before the side effect. A's replay: stopped by the trigger or by that step.
	await n8n.stopServer();
	await n8n.startServer();
	expect((await deliver('once', deliveryB)).status).toBe(200);
	expect((await deliver('once', first)).status).toBe(200);
	const runs = await n8n.settledExecutions('ocrE2eOnce', before + 1, { quietMs: 2000 });
	expect(runs.length).toBeGreaterThan(before);
	expect(await sideEffects('ocrE2eOnce', runs.length)).toBe(2);
});
