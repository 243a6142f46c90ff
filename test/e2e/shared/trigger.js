'use strict';
/**
 * The trigger in real n8n 2.x: active workflows behind n8n's own webhook server, deliveries
 * signed and sent by the emulator for real tasks, executions counted through n8n's public API.
 * A suite of the shared n8n (test/e2e/shared.e2e.js): its emulator webhooks are removed at its end,
 * so that the other suites' tasks start none of its workflows.
 */
const fs = require('node:fs');
const path = require('node:path');
const { example } = require('../../../scripts/n8n-instance');
const {
	recordEveryDelivery,
	seedWebhookInbox,
	expectOneRunPerEvent,
	expectDocxExports,
} = require('../scenarios');

const SECRET = 'whsec_e2e_5f1c0c9a7d3b4e21';
const ALL_EVENTS_HOOK = '9d2f7a10-3c4b-4e5f-8a6b-7c8d9e0f1a2b';

const allEvents = recordEveryDelivery({
	id: 'ocrE2eAllEvents1',
	name: 'e2e: every accepted delivery',
	webhookId: ALL_EVENTS_HOOK,
});

let n8n;

/** Before the shared instance's one import: its webhook secret queued, its workflows, published. */
async function prepare(instance) {
	n8n = instance;
	await n8n.importWebhookCredential(SECRET);
	return {
		workflows: [
			example('06-submit-without-waiting.json'),
			example('07-export-docx-on-ocr-done.json'),
			allEvents,
		],
		publish: ['ocrExampleOnDone', allEvents.id],
	};
}

function describeTests() {
	afterAll(async () => {
		// Its deliveries end with it: later suites' tasks must not start its (still active) workflows.
		n8n?.emu.clearWebhooks();
		await n8n?.emu.webhooksIdle();
	});

	test('signed ocr.done / ocr.failed for real tasks run once each; forged, replayed and duplicate ones never', async () => {
		const exampleHook = `${n8n.url}/webhook/5b0c4c2e-7d1a-4f6e-9a51-0d8c2f1e9b77/webhook`;
		const allHook = `${n8n.url}/webhook/${ALL_EVENTS_HOOK}/webhook`;
		n8n.emu.addWebhook({ url: exampleHook, secret: SECRET });
		n8n.emu.addWebhook({ url: allHook, secret: SECRET });

		const inbox = seedWebhookInbox(n8n);

		// Submit without waiting (example 06): the results come back by webhook.
		const run = await n8n.execute('ocrExampleNoWait');
		expect(run.data.resultData.error).toBeUndefined();
		await n8n.emu.waitFor(() => n8n.emu.deliveries.filter((d) => d.status === 200).length >= 6, {
			timeoutMs: 120_000,
		});
		await n8n.emu.webhooksIdle();
		// n8n answers each accepted delivery with the trigger's own JSON (not n8n's default text).
		const answers = new Set(
			n8n.emu.deliveries.filter((d) => d.status === 200).map((d) => d.response),
		);
		for (const answer of answers) expect(JSON.parse(answer)).toMatchObject({ received: true });

		// Out of order and duplicated: the first ocr.done delivered again after everything else.
		const firstDone = n8n.emu.deliveries.findIndex(
			(d) => d.event === 'ocr.done' && d.url === allHook,
		);
		await n8n.emu.redeliver(firstDone);
		// Forged: the right shape, a signature made with another secret.
		const body = JSON.stringify({
			id: 'evt_forged',
			event: 'ocr.done',
			data: { taskId: 'tsk_forged', status: 'done' },
		});
		const timestamp = String(Math.floor(Date.now() / 1000));
		const forged = await n8n.emu.deliverRaw({
			url: allHook,
			body,
			headers: {
				'content-type': 'application/json',
				'x-webhook-timestamp': timestamp,
				'x-webhook-nonce': 'forged-nonce-1',
				'x-webhook-signature': require('../../../emulator/sign.js').signatureHeader(
					'wrong-secret',
					timestamp,
					'forged-nonce-1',
					body,
				),
			},
		});
		expect(forged.status).toBe(401);
		await n8n.emu.webhooksIdle();

		const all = await expectOneRunPerEvent(n8n, allEvents.id);

		await expectDocxExports(n8n, 'ocrExampleOnDone', inbox);
	});
}

module.exports = { name: 'trigger', prepare, describeTests };
