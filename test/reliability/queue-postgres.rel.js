'use strict';
/**
 * Queue mode as n8n supports it in production: PostgreSQL (Debian's `postgresql`, a throw-away
 * cluster on loopback) + Redis, one main process, one worker and TWO webhook processes, this
 * package installed as a community package. One trigger workflow: Document OCR Trigger → Remove
 * Duplicates on `dedupeKey` (n8n's own deduplication, kept in PostgreSQL) → "Side effect".
 *
 * The same signed delivery goes to both webhook processes (each has its own replay memory), then
 * the service's retry of it with a fresh nonce, then — after restarting webhook process 1 — the
 * same bytes again; another event's two copies reach both processes at the same moment: every
 * path ends in exactly one side effect per event. Figures are printed.
 */
const { createInstance } = require('../../scripts/n8n-instance');
const { triggerWorkflow, sideEffects } = require('../e2e/scenarios');
const { signedDelivery } = require('../../emulator/sign.js');
const services = require('./services');
const report = require('./report');

const SECRET = 'whsec_pg_queue_3e9a71c2d0b84f65';
const CREDENTIAL = { id: 'ocrLocalWebhook1', name: 'Document OCR webhook secret (local emulator)' };
const HOOK = '6a1f0c3e-0000-4000-8000-00000000c0de';
const WORKFLOW = 'ocrPgQueueOnce1';

let pg;
let redis;
let n8n;
let worker;
const webhooks = [];
const figures = { processes: [], deliveries: [] };

const hookUrl = (p) => `${p.url}/webhook/${HOOK}/webhook`;

/** A delivery as the spec's service would send it: no event id, signed with a fresh nonce. */
const signed = (body) => signedDelivery(SECRET, body);

async function deliver(label, process, delivery) {
	const result = await n8n.emu.deliverRaw({ url: hookUrl(process), ...delivery });
	let answer = '';
	try {
		answer = JSON.parse(result.body ?? '{}').duplicate ? 'duplicate' : 'run started';
	} catch {
		answer = 'not JSON';
	}
	figures.deliveries.push([label, process.name, result.status, answer]);
	return result;
}

beforeAll(async () => {
	pg = await services.startPostgres();
	figures.processes.push([pg.version, pg.port, pg.seconds]);
	redis = await services.startRedis();
	figures.processes.push(['redis-server', redis.port, redis.seconds]);
	const webhookPort = await services.portBelowEphemeralRange();
	const env = {
		...services.postgresEnv(pg),
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
	};
	n8n = await createInstance({ label: 'pg-queue', extraEnv: env });
	await n8n.importWebhookCredential(SECRET, CREDENTIAL);
	await n8n.importWorkflows([triggerWorkflow(WORKFLOW, HOOK, CREDENTIAL, { dedupe: true })]);
	await n8n.publish(WORKFLOW);
	const main = await n8n.startServer({ env: { N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' } });
	figures.processes.push(['n8n start (main)', n8n.port, main.seconds]);
	await n8n.setupOwner();
	worker = await n8n.startWorker();
	figures.processes.push(['n8n worker', worker.healthPort, worker.seconds]);
	webhooks.push(await n8n.startWebhook({ port: webhookPort }));
	webhooks.push(await n8n.startWebhook());
	for (const w of webhooks) figures.processes.push([`n8n webhook (${w.name})`, w.port, w.seconds]);
});

afterAll(async () => {
	try {
		await n8n?.close();
	} finally {
		await services.stopRedis(redis);
		await services.stopPostgres(pg);
	}
	report.table(
		'Queue mode on PostgreSQL: processes',
		['process', 'port', 'ready after (s)'],
		figures.processes.map(([name, port, s]) => [name, port, s.toFixed(1)]),
	);
	report.table(
		'Queue mode on PostgreSQL: deliveries (one event each, no event id in the payload)',
		['delivery', 'to', 'HTTP', 'trigger said'],
		figures.deliveries,
	);
	report.figures('Queue mode on PostgreSQL: outcome', figures.outcome ?? {});
});

test('one event, one side effect: the same delivery to two webhook processes, a fresh-nonce retry, a restart', async () => {
	const body = JSON.stringify({ event: 'ocr.done', data: { taskId: 'tsk_pg_1', status: 'done' } });
	const delivery = signed(body);
	expect((await deliver('A', webhooks[0], delivery)).status).toBe(200);
	// The same bytes to the other webhook process: its own memory has not seen them.
	expect((await deliver('A again (same bytes)', webhooks[1], delivery)).status).toBe(200);
	// The service retrying the event: a fresh nonce and timestamp.
	expect((await deliver('A retried (fresh nonce)', webhooks[1], signed(body))).status).toBe(200);

	await n8n.stopProcess(webhooks[0]);
	webhooks[0] = await n8n.startWebhook({ port: webhooks[0].port });
	webhooks[0].name = 'webhook-1 (restarted)';
	expect((await deliver('A after restarting webhook-1', webhooks[0], delivery)).status).toBe(200);

	// A second event B, through the other process: runs once too.
	const b = signed(
		JSON.stringify({ event: 'ocr.done', data: { taskId: 'tsk_pg_2', status: 'done' } }),
	);
	expect((await deliver('B', webhooks[1], b)).status).toBe(200);

	// A third event C, its copies arriving at both webhook processes at the same moment.
	const c = signed(
		JSON.stringify({ event: 'ocr.done', data: { taskId: 'tsk_pg_3', status: 'done' } }),
	);
	const copies = await Promise.all([
		deliver('C (copy 1, at the same time)', webhooks[0], c),
		deliver('C (copy 2, at the same time)', webhooks[1], c),
	]);
	expect(copies.map((r) => r.status)).toEqual([200, 200]);

	const started = figures.deliveries.filter((d) => d[3] === 'run started').length;
	const executions = await n8n.settledExecutions(WORKFLOW, started, { quietMs: 3000 });
	const effects = await sideEffects(n8n, WORKFLOW, started);
	const ofTask = (taskId) =>
		executions.filter((e) =>
			(e.data?.resultData?.runData?.['Side effect']?.[0]?.data?.main?.[0] ?? []).some(
				(item) => item.json.taskId === taskId,
			),
		).length;
	figures.outcome = {
		processes: 'PostgreSQL, Redis, n8n main, 1 worker, 2 webhook processes',
		'deliveries sent': figures.deliveries.length,
		'runs started (executions)': executions.length,
		'side effects (distinct events: 3)': effects,
		'side effects of A / B (sequential copies, retry, restart)': `${ofTask('tsk_pg_1')} / ${ofTask('tsk_pg_2')}`,
		'side effects of C (two copies at the same moment; measured, see README)': ofTask('tsk_pg_3'),
		'executions by status': JSON.stringify(
			executions.reduce((acc, e) => ({ ...acc, [e.status]: (acc[e.status] ?? 0) + 1 }), {}),
		),
	};
	expect(executions.every((e) => e.status === 'success')).toBe(true);
	expect([ofTask('tsk_pg_1'), ofTask('tsk_pg_2')]).toEqual([1, 1]);
	// Simultaneous copies in two processes: n8n's deduplication reads, then writes (no lock), so
	// both runs may pass it. Measured and printed, not promised (README, queue mode).
	expect(ofTask('tsk_pg_3')).toBeGreaterThanOrEqual(1);
});
