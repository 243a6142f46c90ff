'use strict';
/**
 * Real n8n 2.x receiving signed deliveries: an active Document OCR Trigger workflow, N distinct
 * signed events sent C at a time (plus every 10th sent again, as a replay), then executions
 * counted through n8n's public API: exactly one per distinct event.
 *   node bench/trigger.js   (env: BENCH_EVENTS=200, BENCH_CONCURRENCY=10)
 */
const { request } = require('undici');
const { createInstance, WEBHOOK_CREDENTIAL } = require('../scripts/n8n-instance');
const { signedDelivery } = require('../emulator/sign.js');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const SECRET = 'whsec_bench_trigger_000001';
const HOOK = '1f6b8c3e-2a4d-4b5c-9d7e-8f9a0b1c2d3e';

/** One Document OCR Trigger on both events, and nothing else: one execution per delivery it lets through. */
const workflow = {
	id: 'ocrBenchTrigger1',
	name: 'bench: trigger',
	active: false,
	settings: { executionOrder: 'v1' },
	connections: {},
	nodes: [
		{
			id: 'ocrBenchTrigger1-trigger',
			name: 'Document OCR Trigger',
			type: 'n8n-nodes-document-ocr.documentOcrTrigger',
			typeVersion: 1,
			position: [0, 0],
			webhookId: HOOK,
			credentials: { documentOcrWebhookApi: WEBHOOK_CREDENTIAL },
			parameters: { events: ['ocr.done', 'ocr.failed'], includeTaskDetails: false, options: {} },
		},
	],
};

function delivery(i) {
	const body = JSON.stringify({
		id: `evt_bench_${i}`,
		event: i % 5 === 0 ? 'ocr.failed' : 'ocr.done',
		data: { taskId: `tsk_${i}`, status: 'done' },
	});
	return signedDelivery(SECRET, body);
}

async function main() {
	const n8n = await createInstance({ label: 'bench-trigger' });
	try {
		await n8n.importWebhookCredential(SECRET);
		await n8n.importWorkflows([workflow]);
		await n8n.publish(workflow.id);
		await n8n.startServer();
		await n8n.setupOwner();
		const url = `${n8n.url}/webhook/${HOOK}/webhook`;
		const deliveries = Array.from({ length: EVENTS }, (_, i) => delivery(i));
		// Every 10th delivery is sent a second time, byte for byte (a replay / sender retry).
		const sends = [...deliveries, ...deliveries.filter((_, i) => i % 10 === 0)];
		const statuses = {};
		let next = 0;
		const started = Date.now();
		await Promise.all(
			Array.from({ length: CONCURRENCY }, async () => {
				while (next < sends.length) {
					const d = sends[next++];
					const response = await request(url, { method: 'POST', body: d.body, headers: d.headers });
					await response.body.text();
					statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
				}
			}),
		);
		const seconds = (Date.now() - started) / 1000;
		let executions = [];
		for (let i = 0; i < 120; i++) {
			executions = await n8n.executions(workflow.id);
			if (
				executions.length >= EVENTS &&
				executions.every((e) => e.finished || e.status === 'success')
			)
				break;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
		const ids = executions.map(
			(e) => e.data.resultData.runData['Document OCR Trigger'][0].data.main[0][0].json.eventId,
		);
		const distinct = new Set(ids).size;
		return {
			events: EVENTS,
			sent: sends.length,
			concurrency: CONCURRENCY,
			seconds,
			eventsPerSecond: +(sends.length / seconds).toFixed(1),
			statuses,
			executions: executions.length,
			distinctEvents: distinct,
			lost: EVENTS - distinct,
			runTwice: executions.length - distinct,
		};
	} finally {
		await n8n.close();
	}
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(r) => console.log(JSON.stringify(r)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
