'use strict';
/**
 * The poll trigger in queue mode: main + TWO workers sharing a real Redis and one SQLite
 * database. n8n runs polling triggers on main only; each poll that finds finished tasks is
 * enqueued by main and run by a worker. Example 08 is active on its 1-minute poll while 30 tasks
 * finish (some fail) over two polls: every task must appear in exactly one execution's items,
 * every execution must have run on a worker, and the list must be read by one poller only.
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');

const { createInstance, example, KEYS } = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const { startRedis, stopRedis } = require('./services');
const report = require('./report');

const WORKFLOW = 'ocrExamplePollDone';
const TRIGGER = 'Every minute: finished tasks';

let redis;
let n8n;
const workers = [];
const figures = {};
const started = Date.now();

const lines = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : []);
function executionIds(file, pattern) {
	const ids = new Set();
	for (const line of lines(file)) {
		const match = pattern.exec(line);
		if (match) ids.add(match[1]);
	}
	return ids;
}

async function submit(texts) {
	const ids = [];
	for (const [i, text] of texts.entries()) {
		const response = await request(`${n8n.emu.url}/api/ocr`, {
			method: 'POST',
			body: JSON.stringify({
				imageBase64: documents.makePdf([text]).toString('base64'),
				filename: `queue-poll-${i}.pdf`,
			}),
			headers: { authorization: `Bearer ${KEYS.full}`, 'content-type': 'application/json' },
		});
		const answer = await response.body.json();
		if (response.statusCode !== 200) throw new Error(JSON.stringify(answer));
		ids.push(answer.taskId);
	}
	return ids;
}

async function items() {
	const executions = await n8n.executions(WORKFLOW);
	return {
		executions,
		items: executions.flatMap((e) =>
			(e.data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json),
		),
	};
}

beforeAll(async () => {
	redis = await startRedis();
	const queueEnv = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
	};
	n8n = await createInstance({
		label: 'queue-poll',
		extraEnv: queueEnv,
		emulator: { msPerPage: 5 },
	});
	await n8n.importCredential();
	await n8n.importWorkflows([example('08-poll-finished-tasks.json')]);
	await n8n.publish(WORKFLOW);
	await n8n.startServer();
	await n8n.setupOwner();
	workers.push(await n8n.startWorker());
	workers.push(await n8n.startWorker());
	figures.readySeconds = (Date.now() - started) / 1000;
});

afterAll(async () => {
	try {
		await n8n?.close();
	} finally {
		await stopRedis(redis);
	}
	report.figures('Queue mode: poll trigger', {
		'n8n version': n8n?.runtime.version,
		'Redis, main and two workers ready after (s)': figures.readySeconds?.toFixed(1),
		'tasks / executions / items': figures.counts,
		'executions run by worker 1 / worker 2 / main': figures.byProcess,
		'list reads (GET /api/tasks) during the test': figures.listReads,
		'suite time (s)': ((Date.now() - started) / 1000).toFixed(1),
	});
});

test('two workers: each finished task runs once, on a worker; only main polls', async () => {
	const { emu } = n8n;
	const readsAtStart = emu.stats().byRoute['GET /api/tasks'] ?? 0;
	const texts = Array.from({ length: 30 }, (_, i) =>
		i % 5 === 0 ? `Queue poll ${i} FAIL` : `Queue poll ${i}`,
	);
	const first = await submit(texts.slice(0, 15));
	for (const id of first) await emu.waitForTask(id);
	await emu.waitFor(async () => (await items()).items.length >= 15, {
		timeoutMs: 200_000,
		intervalMs: 1000,
	});
	const second = await submit(texts.slice(15));
	for (const id of second) await emu.waitForTask(id);
	await emu.waitFor(async () => (await items()).items.length >= 30, {
		timeoutMs: 200_000,
		intervalMs: 1000,
	});
	// One more poll that must start nothing: once its reads are over (no request for 3 s), what
	// it started, if anything, has settled.
	const before = emu.stats().byRoute['GET /api/tasks'] ?? 0;
	await emu.waitFor(() => (emu.stats().byRoute['GET /api/tasks'] ?? 0) > before, {
		timeoutMs: 150_000,
		intervalMs: 200,
	});
	await emu.requestsIdle(3_000);
	await n8n.settledExecutions(WORKFLOW, 1, { quietMs: 5_000 });

	const ids = [...first, ...second];
	const result = await items();
	const perTask = new Map();
	for (const item of result.items) perTask.set(item.taskId, (perTask.get(item.taskId) ?? 0) + 1);
	figures.counts = `${ids.length} / ${result.executions.length} / ${result.items.length}`;
	expect(result.items).toHaveLength(30);
	expect([...perTask.keys()].sort()).toEqual([...ids].sort());
	expect([...perTask.values()].every((n) => n === 1)).toBe(true);
	const failing = new Set(ids.filter((_, i) => i % 5 === 0));
	for (const item of result.items)
		expect(item.event).toBe(failing.has(item.taskId) ? 'ocr.failed' : 'ocr.done');
	expect(result.items.filter((i) => i.event === 'ocr.failed')).toHaveLength(6);

	// Every execution was enqueued by main and run by one of the workers.
	const onWorker = workers.map((w) =>
		executionIds(w.logFile, /Worker started execution (\d+) \(job/),
	);
	const enqueued = executionIds(
		path.join(n8n.userFolder, 'server.log'),
		/Enqueued execution (\d+) \(job/,
	);
	for (const e of result.executions) {
		expect(enqueued.has(String(e.id))).toBe(true);
		expect(onWorker.filter((set) => set.has(String(e.id)))).toHaveLength(1);
	}
	figures.byProcess = `${onWorker[0].size} / ${onWorker[1].size} / 0`;
	// One poller: a poll reads one page here (30 tasks at most over 2 pages of 20), so the list
	// reads stay within what one process polling once a minute makes, plus the pages of a catch-up.
	const reads = (emu.stats().byRoute['GET /api/tasks'] ?? 0) - readsAtStart;
	const minutes = (Date.now() - started) / 60_000;
	figures.listReads = reads;
	expect(reads).toBeLessThanOrEqual(Math.ceil(minutes + 1) * 3);
});
