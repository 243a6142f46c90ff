'use strict';
/**
 * Executions of one workflow that overlap, in real n8n (issue 43). One published workflow: Webhook
 * → Read PDFs (six documents of 1–2 pages) → Document OCR Task → Submit with Skip Submitted
 * Documents and Wait for Completion; each task takes seconds at the emulator, so executions
 * started together are inside the node together.
 *
 *  - Regular mode (one n8n): three executions at once bill each document once, every item is done
 *    (its own task or the one another execution sent, `previouslySubmittedBy` naming it); a fourth
 *    after them bills nothing.
 *  - Queue mode (Redis; SQLite, then PostgreSQL), one worker with --concurrency=4: the same —
 *    the worker's executions share the node's memory.
 *  - Queue mode with a second worker (each worker execution starts from empty static data; the
 *    workers share n8n's deduplication table, where the node claims what it sends): four
 *    executions one after the other bill each document once, a document the other worker sent
 *    fails its item saying so; three at the same moment are measured (two claims inside n8n's
 *    read-then-write of the row can both pass: at most once per worker), and a later execution
 *    on either worker bills nothing.
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');

const { createInstance, KEYS } = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const { startRedis, stopRedis, startPostgres, stopPostgres, postgresEnv } = require('./services');
const report = require('./report');

const WORKFLOW_ID = 'ocrOverlapSkip';
const HOOK_PATH = 'ocr-overlap';
const COPIES = 3;

/** Six PDFs, nine pages, each text its own (the ledger tells documents apart by it). */
const PDFS = Array.from({ length: 6 }, (_, i) => ({
	name: `doc-${i + 1}.pdf`,
	pages: i % 2 === 0 ? [`Overlap document ${i + 1}`] : [`Overlap document ${i + 1}`, 'page two'],
}));

function workflow(inbox) {
	return {
		id: WORKFLOW_ID,
		name: 'overlap: webhook → read PDFs → submit (Skip Submitted Documents)',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'hook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
				parameters: {
					httpMethod: 'POST',
					path: HOOK_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				id: 'read',
				name: 'Read PDFs',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fileSelector: `${inbox}/*.pdf`, options: {} },
			},
			{
				id: 'ocr',
				name: 'Submit',
				type: 'n8n-nodes-document-ocr.documentOcr',
				typeVersion: 1,
				position: [400, 0],
				// An item refused (claimed by another worker) is an item with its error.
				onError: 'continueRegularOutput',
				parameters: {
					resource: 'task',
					operation: 'submit',
					documentSource: 'binary',
					binaryPropertyName: 'data',
					fileName: '',
					provider: 'provider-async',
					documentType: 'general',
					waitForCompletion: true,
					options: { skipSubmitted: true },
				},
				credentials: {
					documentOcrApi: { id: 'ocrLocalEmulator', name: 'Document OCR (local emulator)' },
				},
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Read PDFs', type: 'main', index: 0 }]] },
			'Read PDFs': { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
		},
	};
}

/** Charges (pages) per document text since ledger position `mark`, net of refunds. */
function billsPerDocument(emu, mark) {
	const entries = emu.ledger('acme').slice(mark);
	const refunded = new Set(entries.filter((e) => e.reason === 'refund').map((e) => e.taskId));
	const bills = new Map();
	for (const e of entries) {
		if (e.delta >= 0 || refunded.has(e.taskId)) continue;
		const name = PDFS.find((pdf) => String(e.document).includes(pdf.pages[0]))?.name ?? '?';
		bills.set(name, (bills.get(name) ?? 0) + 1);
	}
	return bills;
}

/** The Submit node's items of each execution (finished, with data). */
function submitItems(executions) {
	return executions.map((e) => e.data?.resultData?.runData?.Submit?.[0]?.data?.main?.[0] ?? []);
}

/** Calls the webhook `count` times at once (`base`: the process serving production webhooks). */
async function callTogether(base, count) {
	const answers = await Promise.all(
		Array.from({ length: count }, () =>
			request(`${base}/webhook/${HOOK_PATH}`, {
				method: 'POST',
				body: '{}',
				headers: { 'content-type': 'application/json' },
			}),
		),
	);
	for (const answer of answers) {
		await answer.body.text();
		expect(answer.statusCode).toBe(200);
	}
}

/** The figures printed at the end: `regular`, and each database's. */
const allFigures = {};

/** New texts for the six documents (a round of its own: nothing remembers them yet). */
function newDocuments(n8n, round) {
	for (const pdf of PDFS) {
		pdf.pages[0] = `Overlap document ${pdf.name} (${round})`;
		fs.writeFileSync(path.join(n8n.inbox, pdf.name), documents.makePdf(pdf.pages));
	}
}

/** Sets up an instance with the workflow published and the inbox filled; `queue`: Redis env. */
async function instanceWith(label, extraEnv = {}) {
	const n8n = await createInstance({ label, extraEnv, emulator: { msPerPage: 1500, workers: 4 } });
	for (const pdf of PDFS)
		fs.writeFileSync(path.join(n8n.inbox, pdf.name), documents.makePdf(pdf.pages));
	await n8n.importCredential({ apiKey: KEYS.full });
	await n8n.importWorkflows([workflow(n8n.inbox)]);
	await n8n.publish(WORKFLOW_ID);
	return n8n;
}

/**
 * Three executions at once, then a fourth: returns the bills per document of the three and of
 * the fourth, and the executions.
 */
async function overlapThenOnceMore(n8n, webhookBase) {
	const mark = n8n.emu.ledger('acme').length;
	const started = Date.now();
	await callTogether(webhookBase, COPIES);
	const together = await n8n.settledExecutions(WORKFLOW_ID, COPIES);
	const seconds = (Date.now() - started) / 1000;
	const afterThree = n8n.emu.ledger('acme').length;
	await callTogether(webhookBase, 1);
	const all = await n8n.settledExecutions(WORKFLOW_ID, COPIES + 1);
	const later = all.filter((e) => !together.some((t) => t.id === e.id));
	return {
		together: billsPerDocument(n8n.emu, mark),
		later: billsPerDocument(n8n.emu, afterThree),
		executions: together,
		laterExecutions: later,
		seconds,
	};
}

function expectEachBilledOnce(result) {
	expect(Object.fromEntries(result.together)).toEqual(
		Object.fromEntries(PDFS.map((pdf) => [pdf.name, 1])),
	);
	expect(result.later.size).toBe(0);
	for (const e of [...result.executions, ...result.laterExecutions])
		expect(e.status).toBe('success');
	for (const items of submitItems(result.executions)) {
		expect(items).toHaveLength(PDFS.length);
		for (const item of items) expect(item.json.status).toBe('done');
	}
	const reused = submitItems(result.executions)
		.flat()
		.filter((item) => item.json.previouslySubmitted);
	// Two of three executions reused each document: from the one sending it (named) or from memory.
	expect(reused).toHaveLength((COPIES - 1) * PDFS.length);
	for (const item of reused) expect(item.json.previouslySubmittedBy.executionId).toMatch(/^\d+$/);
	for (const items of submitItems(result.laterExecutions))
		for (const item of items) expect(item.json.previouslySubmitted).toBe(true);
}

describe('regular mode: executions that overlap', () => {
	let n8n;
	beforeAll(async () => {
		n8n = await instanceWith('overlap-regular');
		await n8n.startServer();
		await n8n.setupOwner();
	}, 900_000);
	afterAll(async () => {
		await n8n?.close();
	});

	test(`${COPIES} executions of six documents at once bill each once; a fourth bills nothing`, async () => {
		const result = await overlapThenOnceMore(n8n, n8n.url);
		allFigures.regular = result;
		expectEachBilledOnce(result);
	}, 300_000);
});

/** Queue mode on `database` ('SQLite' or 'PostgreSQL'): one worker, then two. */
const queueMode = (database) => () => {
	let n8n;
	let redis;
	let pg;
	let webhookBase;
	let first;
	const figures = (allFigures[database] = {});
	beforeAll(async () => {
		redis = await startRedis();
		if (database === 'PostgreSQL') pg = await startPostgres();
		n8n = await instanceWith(`overlap-${database.toLowerCase()}`, {
			...(pg ? postgresEnv(pg) : {}),
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		});
		// Documents of this database's own: nothing any earlier instance sent.
		newDocuments(n8n, database);
		await n8n.startServer();
		await n8n.setupOwner();
		webhookBase = n8n.url;
		first = await n8n.startWorker({ concurrency: 4 });
	}, 900_000);
	afterAll(async () => {
		try {
			await n8n?.close();
		} finally {
			await stopRedis(redis);
			await stopPostgres(pg);
		}
		const bills = (map) => [...map.values()].reduce((a, b) => a + b, 0);
		const line = (result) =>
			result &&
			[
				`${bills(result.together)} bills for ${PDFS.length} documents (${JSON.stringify(Object.fromEntries(result.together))})`,
				result.later && `then ${bills(result.later)}`,
				result.seconds && `${result.seconds.toFixed(1)} s`,
				result.perWorker && `executions per worker ${result.perWorker.join(' / ')}`,
				result.outcomes && `items: ${result.outcomes.map((o) => `[${o}]`).join(' ')}`,
			]
				.filter(Boolean)
				.join('; ');
		report.figures(
			`Executions that overlap (Skip Submitted Documents), queue mode on ${database}`,
			{
				...(database === 'SQLite'
					? { [`regular mode, ${COPIES} at once, then one more`]: line(allFigures.regular) }
					: {}),
				[`queue mode, one worker (--concurrency=4), ${COPIES} at once, then one more`]: line(
					figures.oneWorker,
				),
				'queue mode, two workers, four executions one after the other': line(figures.inTurn),
				[`queue mode, two workers, ${COPIES} at once (claims at the same moment, checked by a token)`]:
					line(figures.twoWorkers),
			},
		);
	});

	test(`one worker: ${COPIES} executions at once bill each document once; a fourth bills nothing`, async () => {
		const result = await overlapThenOnceMore(n8n, webhookBase);
		figures.oneWorker = result;
		expectEachBilledOnce(result);
	}, 300_000);

	test('two workers: executions one after the other bill each document once; at the same moment, measured', async () => {
		const second = await n8n.startWorker({ concurrency: 4 });
		const workers = [first, second];
		const started = () =>
			workers.map(
				(w) =>
					fs.readFileSync(w.logFile, 'utf8').match(/Worker started execution \d+/g)?.length ?? 0,
			);
		const before = started();
		const count = async () => (await n8n.executions(WORKFLOW_ID, { includeData: false })).length;

		// One after the other: each execution on either worker, from empty static data.
		newDocuments(n8n, `${database}, in turn`);
		let mark = n8n.emu.ledger('acme').length;
		const known = await count();
		for (let i = 1; i <= 4; i++) {
			await callTogether(webhookBase, 1);
			await n8n.settledExecutions(WORKFLOW_ID, known + i, { quietMs: 500 });
		}
		const inTurn = billsPerDocument(n8n.emu, mark);
		const perWorker = started().map((n, w) => n - before[w]);
		figures.inTurn = { together: inTurn, perWorker };
		expect(Object.fromEntries(inTurn)).toEqual(
			Object.fromEntries(PDFS.map((pdf) => [pdf.name, 1])),
		);
		const later = (await n8n.executions(WORKFLOW_ID))
			.sort((a, b) => Number(a.id) - Number(b.id))
			.slice(-3);
		for (const items of submitItems(later)) {
			expect(items).toHaveLength(PDFS.length);
			// Reused from this worker's memory, or refused as claimed by the other worker.
			for (const { json } of items)
				if (json.previouslySubmitted !== true)
					expect(json.error).toMatch(/submitted the same document before from another n8n process/);
		}

		// At the same moment on both workers: claims inside n8n's read-then-write of the
		// deduplication row can both see a document new. Measured; at most once per worker.
		newDocuments(n8n, `${database}, at once`);
		mark = n8n.emu.ledger('acme').length;
		const known2 = await count();
		await callTogether(webhookBase, COPIES);
		await n8n.settledExecutions(WORKFLOW_ID, known2 + COPIES);
		const together = billsPerDocument(n8n.emu, mark);
		const atOnce = (await n8n.executions(WORKFLOW_ID))
			.sort((a, b) => Number(a.id) - Number(b.id))
			.slice(-COPIES);
		// What each item of each execution ended with: sent, reused, or refused (why).
		const outcomes = submitItems(atOnce).map((items) =>
			items
				.map(({ json }) =>
					json.error
						? `error: ${String(json.error).slice(0, 60)}`
						: json.previouslySubmitted
							? 'reused'
							: String(json.status),
				)
				.join(', '),
		);
		figures.twoWorkers = { together, perWorker: started().map((n, w) => n - before[w]), outcomes };
		for (const pdf of PDFS) expect(together.get(pdf.name)).toBeGreaterThanOrEqual(1);
		for (const pdf of PDFS) expect(together.get(pdf.name)).toBeLessThanOrEqual(2);
		// And a later execution, on either worker, bills nothing.
		const afterwards = n8n.emu.ledger('acme').length;
		await callTogether(webhookBase, 2);
		await n8n.settledExecutions(WORKFLOW_ID, known2 + COPIES + 2);
		expect(billsPerDocument(n8n.emu, afterwards).size).toBe(0);
	}, 300_000);
};

describe('queue mode on SQLite: executions that overlap on workers', queueMode('SQLite'));
describe('queue mode on PostgreSQL: executions that overlap on workers', queueMode('PostgreSQL'));
