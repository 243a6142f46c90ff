'use strict';
/**
 * Queue mode (scaled-out n8n): one main process, one worker and one webhook process sharing a
 * real Redis (Debian's redis-server, started here on a free loopback port with its own folder)
 * and one SQLite database, with this package installed as a community package.
 *
 *  - The scheduled-ingestion example (01) is activated: main's schedule fires it, main enqueues
 *    it, the WORKER runs it (the example's hourly rule is replaced by a cron a few seconds ahead,
 *    the only change). `n8n execute` is no use here: in queue mode it falls back to regular mode
 *    and runs the workflow in its own process.
 *  - The trigger example (07) and a record-everything trigger workflow receive signed deliveries
 *    from the emulator at the WEBHOOK PROCESS's URL (main serves no production webhooks): one
 *    execution each, run by the worker; a replayed one starts none, a forged one gets 401.
 *  - A second webhook process runs the same triggers; what the trigger's replay memory covers
 *    across webhook processes is measured and printed (it is per process: see the test).
 *  - No process log ever holds the API key or the webhook secret.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { request } = require('undici');

const rt = require('../../scripts/n8n-runtime');
const { createInstance, example, KEYS } = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const {
	recordEveryDelivery,
	expectOneRunPerEvent,
	expectDocxExports,
	fillInbox,
} = require('../e2e/scenarios');
const sign = require('../../emulator/sign.js');
const report = require('./report');

const SECRET = 'whsec_queue_7c41d2e98b0a4f36';
const EXAMPLE_HOOK = '5b0c4c2e-7d1a-4f6e-9a51-0d8c2f1e9b77'; // examples/07-*.json
const ALL_EVENTS_HOOK = '2e7b9c41-5d3a-4f8e-b6c2-1a0d9e8f7c65';

const allEvents = recordEveryDelivery({
	id: 'ocrQueueAllEvent',
	name: 'queue: every accepted delivery',
	webhookId: ALL_EVENTS_HOOK,
});

const { redisCommand, startRedis, stopRedis, portBelowEphemeralRange } = require('./services');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let redis;
let n8n;
let worker;
let webhook;
let webhook2;
let ingestId;
let cookie;
const figures = { processes: [], deliveries: {} };
const suiteStarted = Date.now();

/** The public API (the owner's key). */
async function api(method, route, body) {
	const response = await request(`${n8n.url}/api/v1${route}`, {
		method,
		headers: {
			'x-n8n-api-key': n8n.apiKey,
			accept: 'application/json',
			...(body ? { 'content-type': 'application/json' } : {}),
		},
		body: body ? JSON.stringify(body) : undefined,
	});
	const json = await response.body.json().catch(() => undefined);
	if (response.statusCode >= 300)
		throw new Error(`${method} ${route}: ${response.statusCode} ${JSON.stringify(json)}`);
	return json;
}

const read = (file) => fs.readFileSync(file, 'utf8');
const logLines = (handleOrFile) =>
	read(typeof handleOrFile === 'string' ? handleOrFile : handleOrFile.logFile).split('\n');
const serverLog = () => path.join(n8n.userFolder, 'server.log');

/** `Enqueued execution N` / `Worker started|finished execution N` lines of a log. */
function executionIds(file, pattern) {
	const ids = new Set();
	for (const line of logLines(file)) {
		const match = pattern.exec(line);
		if (match) ids.add(match[1]);
	}
	return ids;
}
const enqueuedBy = (file) => executionIds(file, /Enqueued execution (\d+) \(job/);
const startedOnWorker = () => executionIds(worker.logFile, /Worker started execution (\d+) \(job/);
const finishedOnWorker = () =>
	executionIds(worker.logFile, /Worker finished execution (\d+) \(job/);

/** A delivery signed as the service signs it (fresh id, nonce and timestamp). */
function signedDelivery(secret, data, event = 'ocr.done') {
	const body = JSON.stringify({
		id: `evt_${crypto.randomBytes(8).toString('hex')}`,
		event,
		createdAt: new Date().toISOString(),
		data,
	});
	return sign.signedDelivery(secret, body);
}

const seconds = (e) => (new Date(e.stoppedAt) - new Date(e.startedAt)) / 1000;
const countBy = (list, key) =>
	list.reduce((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

// ------------------------------------------------------------------------------------ setup

beforeAll(async () => {
	redis = await startRedis();
	figures.processes.push(['redis-server', redis.port, redis.seconds]);

	// Every process gets the same queue settings; WEBHOOK_URL is the webhook process's URL (in a
	// real deployment: the public address in front of the webhook processes).
	const webhookPort = await portBelowEphemeralRange();
	figures.queueEnv = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		// n8n 3.0's default: an execution started from the editor runs on a worker too.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
		N8N_WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
	};
	n8n = await createInstance({ label: 'queue', extraEnv: figures.queueEnv });
	await n8n.importCredential();
	await n8n.importWebhookCredential(SECRET);
	await n8n.importWorkflows([example('07-export-docx-on-ocr-done.json'), allEvents]);
	await n8n.publish('ocrExampleOnDone');
	await n8n.publish(allEvents.id);
	figures.setupSeconds = (Date.now() - suiteStarted) / 1000;

	// Main serves the editor and the API, holds the schedules and enqueues; no production webhooks.
	const main = await n8n.startServer({ env: { N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' } });
	figures.processes.push(['n8n start (main)', n8n.port, main.seconds]);
	({ cookie } = await n8n.setupOwner({
		scopes: [
			'execution:list',
			'execution:read',
			'workflow:read',
			'workflow:list',
			'workflow:create',
			'workflow:activate',
			'workflow:deactivate',
		],
	}));
	worker = await n8n.startWorker();
	figures.processes.push(['n8n worker', worker.healthPort, worker.seconds]);
	webhook = await n8n.startWebhook({ port: webhookPort });
	figures.processes.push(['n8n webhook', webhook.port, webhook.seconds]);
	figures.readySeconds = (Date.now() - suiteStarted) / 1000;
});

afterAll(async () => {
	try {
		if (redis)
			figures.redisCommands = /total_commands_processed:(\d+)/.exec(
				await redisCommand(redis.port, 'INFO', 'stats').catch(() => ''),
			)?.[1];
		await n8n?.close();
	} finally {
		await stopRedis(redis);
	}
	report.table(
		'Queue mode: processes',
		['process', 'port', 'ready after (s)'],
		figures.processes.map(([name, port, s]) => [name, port, s.toFixed(1)]),
	);
	report.figures('Queue mode: figures', {
		'n8n version': n8n?.runtime.version,
		'queue settings (all processes)': Object.entries(figures.queueEnv ?? {})
			.map(([k, v]) => `${k}=${v}`)
			.join(' '),
		database: 'SQLite (one file shared by all processes)',
		'Redis started, package packed + installed, credentials and workflows imported after (s)':
			figures.setupSeconds?.toFixed(1),
		'main, worker and webhook process ready after (s)': figures.readySeconds?.toFixed(1),
		'ingestion: executions (status)': JSON.stringify(figures.ingestStatus),
		'ingestion: activation → scheduled run started (s)': figures.ingestWait?.toFixed(1),
		'ingestion: run time on the worker (s)': figures.ingestRun?.toFixed(2),
		'manual execution offloaded to the worker: run time (s)': figures.manualRun?.toFixed(2),
		'trigger: executions by workflow and status': JSON.stringify(figures.triggerStatus),
		'trigger: run times on the worker, min/median/max (s)': figures.triggerRuns,
		'deliveries sent to webhook-1 (signed by the emulator, replayed, forged)':
			figures.deliveries.sent,
		'answered 200 / runs started / ignored event / duplicate (no run) / 401':
			figures.deliveries.sent === undefined
				? undefined
				: [
						figures.deliveries.ok,
						figures.deliveries.runs,
						figures.deliveries.ignored,
						figures.deliveries.duplicates,
						figures.deliveries.rejected,
					].join(' / '),
		'delivery to main (production webhooks off on main)': figures.deliveries.toMain,
		'replay to webhook-2 of a delivery webhook-1 accepted': figures.crossReplay,
		'same new delivery to webhook-1 and webhook-2 at once, runs started': figures.concurrentRuns,
		'executions enqueued by main / webhook-1 / webhook-2': figures.enqueued,
		'executions run by the worker': figures.workerRuns,
		'executions by mode': figures.executionModes,
		'`n8n execute` of the ingestion example (regular-mode fallback), wall time (s)':
			figures.cliExecute,
		'Redis commands processed': figures.redisCommands,
		'log lines scanned for the API key and webhook secret': figures.scannedLines,
		'suite time (s)': ((Date.now() - suiteStarted) / 1000).toFixed(1),
	});
});

// ------------------------------------------------------------------------------------ tests

test('scheduled ingestion: main enqueues the scheduled run, the worker writes the text files', async () => {
	fillInbox(n8n.inbox);
	const mark = n8n.emu.ledger('acme').length;

	// The example as shipped, except its hourly rule: a cron that fires a few seconds from now
	// (once a minute at that second; the workflow is deactivated after its first run).
	const workflow = JSON.parse(
		JSON.stringify(example('01-scheduled-ingestion.json')).split('/data/ocr-inbox').join(n8n.inbox),
	);
	const fireAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 6000);
	workflow.nodes.find((node) => node.name === 'Every hour').parameters.rule = {
		interval: [{ field: 'cronExpression', expression: `${fireAt.getSeconds()} * * * * *` }],
	};
	const created = await api('POST', '/workflows', {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings,
	});
	await api('POST', `/workflows/${created.id}/activate`);
	const activated = Date.now();
	const [run] = await n8n.settledExecutions(created.id, 1, { quietMs: 0 });
	await api('POST', `/workflows/${created.id}/deactivate`);
	ingestId = created.id;
	figures.ingestWait = (new Date(run.startedAt) - activated) / 1000;
	await sleep(1500); // nothing else may start
	const all = await n8n.executions(created.id);
	figures.ingestStatus = countBy(all, (e) => e.status);
	figures.ingestRun = seconds(run);

	expect(all).toHaveLength(1);
	expect(run).toMatchObject({ status: 'success', mode: 'trigger' });
	expect(run.data.resultData.error).toBeUndefined();
	const recognised = run.data.resultData.runData['Recognise text'][0].data.main[0];
	expect(recognised).toHaveLength(2);
	expect(recognised.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	recognised.forEach((item) => expect(item.json.status).toBe('done'));
	expect(read(path.join(n8n.inbox, 'letter.pdf.txt'))).toBe('Dear reader, this is a letter.');
	expect(read(path.join(n8n.inbox, 'report.pdf.txt'))).toContain('Page two of the report');
	expect(
		-n8n.emu
			.ledger('acme')
			.slice(mark)
			.reduce((sum, e) => sum + e.delta, 0),
	).toBe(3);

	// Main enqueued it (its schedule fired), the worker ran it.
	expect(enqueuedBy(serverLog()).has(String(run.id))).toBe(true);
	expect(startedOnWorker().has(String(run.id))).toBe(true);
	expect(finishedOnWorker().has(String(run.id))).toBe(true);
});

test('`n8n execute` bypasses the queue: it falls back to regular mode and runs in its own process', async () => {
	const onWorker = startedOnWorker().size;
	const started = Date.now();
	const run = await n8n.execute(ingestId);
	figures.cliExecute = ((Date.now() - started) / 1000).toFixed(1);
	expect(run.data.resultData.error).toBeUndefined();
	expect(run.data.resultData.runData['Recognise text'][0].data.main[0]).toHaveLength(2);
	const cliLog = n8n
		.logFiles()
		.filter((file) => /cli-\d+-execute\.log$/.test(file))
		.map(read)
		.join('\n');
	expect(cliLog).toMatch(/does not support queue mode\. Falling back to regular mode/);
	expect(startedOnWorker().size).toBe(onWorker);
});

test("a manual execution, as the editor starts it, is offloaded to the worker (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, n8n 3.0's default)", async () => {
	fillInbox(n8n.inbox);
	const mark = n8n.emu.ledger('acme').length;
	// What the editor's "Execute workflow" button sends (n8n 2.41: POST /rest/workflows/:id/run).
	const response = await request(`${n8n.url}/rest/workflows/${ingestId}/run`, {
		method: 'POST',
		headers: { cookie, 'browser-id': rt.BROWSER_ID, 'content-type': 'application/json' },
		body: JSON.stringify({ triggerToStartFrom: { name: "When clicking 'Execute workflow'" } }),
	});
	expect(response.statusCode).toBe(200);
	const executionId = String((await response.body.json()).data.executionId);
	let run;
	for (const started = Date.now(); !run && Date.now() - started < 300_000; await sleep(400))
		run = (await n8n.executions(ingestId)).find((e) => String(e.id) === executionId && e.stoppedAt);
	figures.manualRun = run && seconds(run);

	expect(run).toMatchObject({ mode: 'manual', status: 'success' });
	const recognised = run.data.resultData.runData['Recognise text'][0].data.main[0];
	expect(recognised).toHaveLength(2);
	recognised.forEach((item) => expect(item.json.status).toBe('done'));
	expect(n8n.chargedSince(mark)).toBe(3);
	// Main enqueued it, the worker ran it (binary data in the database, shared by both).
	expect(enqueuedBy(serverLog()).has(executionId)).toBe(true);
	expect(startedOnWorker().has(executionId)).toBe(true);
	expect(finishedOnWorker().has(executionId)).toBe(true);
});

test('trigger: signed deliveries to the webhook process run once each on the worker; replayed and forged ones never', async () => {
	const exampleHook = `${webhook.url}/webhook/${EXAMPLE_HOOK}/webhook`;
	const allHook = `${webhook.url}/webhook/${ALL_EVENTS_HOOK}/webhook`;
	n8n.emu.addWebhook({ url: exampleHook, secret: SECRET });
	n8n.emu.addWebhook({ url: allHook, secret: SECRET });
	fs.mkdirSync(path.join(n8n.inbox, 'by-webhook', 'exports'), { recursive: true });

	// Main does not answer production webhooks (N8N_DISABLE_PRODUCTION_MAIN_PROCESS).
	const toMain = await n8n.emu.deliverRaw({
		url: `${n8n.url}/webhook/${ALL_EVENTS_HOOK}/webhook`,
		...signedDelivery(SECRET, { taskId: 'tsk_to_main', status: 'done' }),
	});
	figures.deliveries.toMain = toMain.status;
	expect(toMain.status).toBe(404);

	// Three real tasks; the service signs and delivers ocr.done / ocr.failed for each.
	for (const [filename, text] of [
		['alpha.pdf', 'Alpha document'],
		['beta.pdf', 'Beta document'],
		['gamma.pdf', 'Gamma will FAIL'],
	]) {
		const response = await request(`${n8n.emu.url}/api/ocr`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEYS.full}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				imageBase64: documents.makePdf([text]).toString('base64'),
				filename,
			}),
		});
		expect(response.statusCode).toBeLessThan(300);
		await response.body.dump();
	}
	await n8n.emu.waitFor(() => n8n.emu.deliveries.filter((d) => d.status === 200).length >= 6, {
		timeoutMs: 120_000,
	});
	await n8n.emu.webhooksIdle();

	// Replayed byte for byte (same body, nonce, timestamp and signature), after everything else.
	const first = n8n.emu.deliveries.find((d) => d.event === 'ocr.done' && d.url === allHook);
	const replay = await n8n.emu.deliverRaw({
		url: allHook,
		body: first.body,
		headers: first.headers,
	});
	expect(replay.status).toBe(200);
	expect(JSON.parse(replay.body)).toEqual({ received: true, duplicate: true });
	// Forged: the right shape, signed with another secret.
	const forged = await n8n.emu.deliverRaw({
		url: allHook,
		...signedDelivery('wrong-secret', { taskId: 'tsk_forged', status: 'done' }),
	});
	expect(forged.status).toBe(401);
	await n8n.emu.webhooksIdle();

	const all = await expectOneRunPerEvent(n8n, allEvents.id);
	const exported = await expectDocxExports(
		n8n,
		'ocrExampleOnDone',
		path.join(n8n.inbox, 'by-webhook'),
	);

	// Each one was enqueued by the webhook process (not main) and run by the worker.
	const runs = [...all, ...exported];
	const byWebhook = enqueuedBy(webhook.logFile);
	const byMain = enqueuedBy(serverLog());
	const started = startedOnWorker();
	const finished = finishedOnWorker();
	for (const e of runs) {
		expect(e.mode).toBe('webhook');
		expect(byWebhook.has(String(e.id))).toBe(true);
		expect(byMain.has(String(e.id))).toBe(false);
		expect(started.has(String(e.id))).toBe(true);
		expect(finished.has(String(e.id))).toBe(true);
	}

	// 3 tasks × 2 endpoints, the replay and the forged one. 07 listens to ocr.done only: it
	// acknowledges gamma's ocr.failed without a run.
	// A delivery the webhook process answers too late (a loaded machine) is sent again, as the
	// service retries: its later attempts are attempts, not deliveries, and start no run.
	const attempts = n8n.emu.deliveries.filter((d) => d.url.startsWith(webhook.url));
	const sent = attempts.filter((d) => d.attempt === 1);
	figures.deliveries = {
		...figures.deliveries,
		sent: sent.length,
		retried: attempts.length - sent.length,
		ok: attempts.filter((d) => d.status === 200).length,
		runs: runs.length,
		ignored: 1,
		duplicates: 1,
		rejected: attempts.filter((d) => d.status === 401).length,
	};
	expect(figures.deliveries).toMatchObject({ sent: 8, ok: 7, runs: 5, rejected: 1 });
	figures.triggerStatus = {
		[allEvents.id]: countBy(all, (e) => e.status),
		ocrExampleOnDone: countBy(exported, (e) => e.status),
	};
	const times = runs.map(seconds).sort((a, b) => a - b);
	figures.triggerRuns = [times[0], times[Math.floor(times.length / 2)], times.at(-1)]
		.map((t) => t.toFixed(2))
		.join(' / ');
});

test('a second webhook process runs the same triggers; what the replay memory covers across processes', async () => {
	webhook2 = await n8n.startWebhook();
	figures.processes.push(['n8n webhook (second)', webhook2.port, webhook2.seconds]);
	const hook = (process) => `${process.url}/webhook/${ALL_EVENTS_HOOK}/webhook`;
	const before = (await n8n.executions(allEvents.id)).length;
	const taskOf = (e) =>
		e.data.resultData.runData['On any OCR event'][0].data.main[0][0].json.taskId;
	// The trigger's own answers: {received, duplicate} for a duplicate, {received} for a run.
	const kind = (answer) => {
		const body = JSON.parse(answer.body);
		if (body.duplicate === true) return 'duplicate';
		expect(body).toEqual({ received: true });
		return 'accepted';
	};
	const answers = [];

	// A new delivery to webhook-2: one run, enqueued by webhook-2, run by the worker.
	const fresh = await n8n.emu.deliverRaw({
		url: hook(webhook2),
		...signedDelivery(SECRET, { taskId: 'tsk_second_process', status: 'done' }),
	});
	expect(fresh.status).toBe(200);
	expect(kind(fresh)).toBe('accepted');
	answers.push(fresh);

	// The delivery webhook-1 accepted first, replayed byte for byte to webhook-2 (measured: the
	// trigger remembers accepted deliveries in its process's memory; n8n does not save the static
	// data of a webhook call that starts a run, so webhook-2 has nothing to compare with).
	const first = n8n.emu.deliveries.find((d) => d.event === 'ocr.done' && d.url === hook(webhook));
	const crossReplay = await n8n.emu.deliverRaw({
		url: hook(webhook2),
		body: first.body,
		headers: first.headers,
	});
	expect(crossReplay.status).toBe(200);
	answers.push(crossReplay);
	figures.crossReplay =
		kind(crossReplay) === 'duplicate'
			? 'refused as a duplicate (no run)'
			: 'accepted: a second run for the same event';

	// The same new delivery to both processes at the same moment (measured).
	const both = signedDelivery(SECRET, { taskId: 'tsk_concurrent', status: 'done' });
	const concurrent = await Promise.all(
		[webhook, webhook2].map((p) => n8n.emu.deliverRaw({ url: hook(p), ...both })),
	);
	concurrent.forEach((answer) => expect(answer.status).toBe(200));
	answers.push(...concurrent);

	// Whatever was accepted started exactly one run; whatever was refused started none.
	const accepted = answers.filter((answer) => kind(answer) === 'accepted').length;
	const after = await n8n.settledExecutions(allEvents.id, before + accepted);
	expect(after).toHaveLength(before + accepted);
	figures.concurrentRuns = `${after.filter((e) => taskOf(e) === 'tsk_concurrent').length} (answers: ${concurrent.map(kind).join(', ')})`;
	const mine = after.filter((e) => taskOf(e) === 'tsk_second_process');
	expect(mine).toHaveLength(1);
	expect(enqueuedBy(webhook2.logFile).has(String(mine[0].id))).toBe(true);
	expect(finishedOnWorker().has(String(mine[0].id))).toBe(true);
	after.forEach((e) => expect(e.status).toBe('success'));
});

test('every execution ran on the worker; no log holds the API key or the webhook secret', async () => {
	const ids = new Set();
	const modes = [];
	for (const workflow of await api('GET', '/workflows?limit=250').then((r) => r.data))
		for (const e of await n8n.executions(workflow.id)) {
			modes.push(e.mode);
			if (e.mode !== 'cli') ids.add(String(e.id)); // `n8n execute` (previous test)
		}
	figures.executionModes = JSON.stringify(countBy(modes, (mode) => mode));
	const finished = finishedOnWorker();
	expect([...ids].filter((id) => !finished.has(id))).toEqual([]);
	const byMain = enqueuedBy(serverLog());
	const byWebhook = enqueuedBy(webhook.logFile);
	const byWebhook2 = webhook2 ? enqueuedBy(webhook2.logFile) : new Set();
	figures.enqueued = `${byMain.size} / ${byWebhook.size} / ${byWebhook2.size}`;
	figures.workerRuns = `${finished.size} of ${ids.size} executions`;
	expect(byMain.size + byWebhook.size + byWebhook2.size).toBe(ids.size);
	// Main ran nothing itself; the webhook processes ran nothing themselves.
	for (const file of [
		serverLog(),
		...n8n.processes.filter((p) => p.kind === 'webhook').map((p) => p.logFile),
	])
		expect(read(file)).not.toMatch(/Worker (started|finished) execution/);

	let scanned = 0;
	for (const file of n8n.logFiles()) {
		const lines = logLines(file);
		scanned += lines.length;
		const leaks = lines.filter((line) => line.includes(KEYS.full) || line.includes(SECRET));
		expect({ file: path.basename(file), leaks }).toEqual({ file: path.basename(file), leaks: [] });
	}
	figures.scannedLines = scanned;
	expect(scanned).toBeGreaterThan(50);
});
