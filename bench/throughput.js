'use strict';
/**
 * Throughput and polling cost in real n8n 2.x, against the emulator (W workers, t ms per page):
 * N documents read from disk (one page each, or a seeded mix of 1–20 pages), then
 *   - this package: Document OCR → Submit with Wait for Completion (default settings), against the
 *     emulator's default (tasks finish out of order) and, optionally, with tasks finishing in order;
 *   - the baseline a user would build without it: Extract From File (Base64) → HTTP Request
 *     (POST /api/ocr) → Wait 1 s → HTTP Request (GET the task) → If done, else back to Wait;
 *   - optionally the same loop one document at a time (Loop Over Items).
 * All run with `n8n execute` in the same instance. Times are taken from n8n's own run data
 * (first OCR request node start → last node end), beside the physical bound: ceil(N/W)·t for
 * one-page documents, max(Σpages·t/W, max pages·t) for a mix.
 *   node bench/throughput.js   (env: BENCH_N, BENCH_W, BENCH_T, BENCH_PAGES=mixed,
 *                               BENCH_IN_ORDER=0, BENCH_PER_ITEM=0)
 */
const fs = require('node:fs');
const path = require('node:path');
const { createInstance, KEYS, CREDENTIAL: OCR_CREDENTIAL } = require('../scripts/n8n-instance');
const documents = require('../emulator/documents');

const CREDENTIAL = { documentOcrApi: OCR_CREDENTIAL };
const MANUAL = "When clicking 'Execute workflow'";
const { node, chain, BEARER, bearerCredential, withoutPackage } = require('./workflow-nodes');

function withPackage(inbox) {
	return {
		id: 'ocrBenchPackage1',
		name: 'bench: Document OCR node',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('p1', MANUAL, 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('p2', 'Read PDFs', 'n8n-nodes-base.readWriteFile', 1, [200, 0], {
				fileSelector: `${inbox}/*.pdf`,
				options: {},
			}),
			node(
				'p3',
				'Document OCR',
				'n8n-nodes-document-ocr.documentOcr',
				1,
				[400, 0],
				{ resource: 'task', operation: 'submit', waitForCompletion: true, options: {} },
				{ credentials: CREDENTIAL },
			),
		],
		connections: chain(MANUAL, 'Read PDFs', 'Document OCR'),
	};
}

function baseline(inbox, serviceUrl) {
	const user = withoutPackage(serviceUrl);
	const connections = chain(
		MANUAL,
		'Read PDFs',
		'To Base64',
		'Submit (HTTP Request)',
		'Wait 1 s',
		'Get task (HTTP Request)',
		'Done?',
	);
	connections['Done?'] = {
		main: [
			[{ node: 'Finished', type: 'main', index: 0 }],
			[{ node: 'Wait 1 s', type: 'main', index: 0 }],
		],
	};
	return {
		id: 'ocrBenchBaseline',
		name: 'bench: HTTP Request + Wait loop',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('b1', MANUAL, 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('b2', 'Read PDFs', 'n8n-nodes-base.readWriteFile', 1, [200, 0], {
				fileSelector: `${inbox}/*.pdf`,
				options: {},
			}),
			node('b3', 'To Base64', 'n8n-nodes-base.extractFromFile', 1, [400, 0], user.toBase64),
			node(
				'b4',
				'Submit (HTTP Request)',
				'n8n-nodes-base.httpRequest',
				4.2,
				[600, 0],
				user.submit,
				BEARER,
			),
			node('b5', 'Wait 1 s', 'n8n-nodes-base.wait', 1.1, [800, 0], {
				resume: 'timeInterval',
				amount: 1,
				unit: 'seconds',
			}),
			node(
				'b6',
				'Get task (HTTP Request)',
				'n8n-nodes-base.httpRequest',
				4.2,
				[1000, 0],
				user.getTask,
				BEARER,
			),
			node('b7', 'Done?', 'n8n-nodes-base.if', 2.2, [1200, 0], {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
					conditions: [
						{
							id: 'c1',
							leftValue: '={{ $json.status }}',
							rightValue: 'done',
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			}),
			node('b8', 'Finished', 'n8n-nodes-base.noOp', 1, [1400, 0], {}),
		],
		connections,
	};
}

/** The same loop, one document at a time (Loop Over Items, batch size 1), as in n8n#36466. */
function perItemBaseline(inbox, serviceUrl) {
	const flow = baseline(inbox, serviceUrl);
	flow.id = 'ocrBenchPerItem1';
	flow.name = 'bench: one document at a time (Loop Over Items)';
	flow.nodes.push(
		node('b9', 'Loop Over Items', 'n8n-nodes-base.splitInBatches', 3, [500, 200], {
			batchSize: 1,
			options: {},
		}),
	);
	const c = flow.connections;
	c['To Base64'] = { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] };
	c['Loop Over Items'] = {
		main: [
			[{ node: 'Finished', type: 'main', index: 0 }],
			[{ node: 'Submit (HTTP Request)', type: 'main', index: 0 }],
		],
	};
	c['Done?'] = {
		main: [
			[{ node: 'Loop Over Items', type: 'main', index: 0 }],
			[{ node: 'Wait 1 s', type: 'main', index: 0 }],
		],
	};
	return flow;
}

/** First start → last end (ms) over the given nodes' runs in n8n's run data. */
function span(run, from, nodes) {
	const runData = run.data.resultData.runData;
	const start = runData[from][0].startTime;
	let end = 0;
	for (const name of nodes)
		for (const r of runData[name] ?? []) end = Math.max(end, r.startTime + r.executionTime);
	return end - start;
}

function count(run, name) {
	return (run.data.resultData.runData[name] ?? []).reduce(
		(sum, r) => sum + (r.data?.main?.[0]?.length ?? 0),
		0,
	);
}

/** A seeded mix of page counts, 1–`max` (xorshift32): the same documents on every run. */
function mixedPages(n, max, seed = 1) {
	let state = seed >>> 0 || 1;
	const random = () => {
		state ^= state << 13;
		state ^= state >>> 17;
		state ^= state << 5;
		return (state >>> 0) / 4294967296;
	};
	return Array.from({ length: n }, () => 1 + Math.floor(random() * max));
}

const env = (name, fallback) => (process.env[name] === undefined ? fallback : process.env[name]);

/**
 * One scenario. `pages`: 'one' (one-page documents) or 'mixed' (1–20 pages, seeded);
 * `inOrder`: also run the package against a service finishing tasks in the order sent;
 * `perItem`: also run the one-document-at-a-time loop.
 */
async function main({
	N = Number(env('BENCH_N', 200)),
	W = Number(env('BENCH_W', 4)),
	T = Number(env('BENCH_T', 250)),
	pages = env('BENCH_PAGES', 'one'),
	inOrder = env('BENCH_IN_ORDER', '1') !== '0',
	perItem = env('BENCH_PER_ITEM', '1') !== '0',
} = {}) {
	const counts = pages === 'mixed' ? mixedPages(N, 20) : Array(N).fill(1);
	const totalPages = counts.reduce((a, b) => a + b, 0);
	const n8n = await createInstance({
		label: 'bench',
		emulator: { workers: W, msPerPage: T },
		packageTarball: process.env.BENCH_PACKAGE_TGZ,
	});
	try {
		await n8n.importCredential();
		// The baseline's key, in n8n's own Bearer Auth credential.
		await n8n.importOtherCredential(bearerCredential(KEYS.full), KEYS.full);
		// Pages for every run of this benchmark (up to four runs of every document, with room).
		n8n.emu.setBalance('acme', 5 * totalPages + 1000);
		const inbox = path.join(n8n.inbox, 'bench');
		fs.mkdirSync(inbox, { recursive: true });
		counts.forEach((k, i) =>
			fs.writeFileSync(
				path.join(inbox, `doc-${String(i).padStart(4, '0')}.pdf`),
				documents.makePdf(Array.from({ length: k }, (_, p) => `Document ${i} page ${p + 1}`)),
			),
		);
		await n8n.importWorkflows([
			withPackage(inbox),
			baseline(inbox, n8n.emu.url),
			perItemBaseline(inbox, n8n.emu.url),
		]);
		const bound =
			(pages === 'mixed'
				? Math.max((totalPages * T) / W, Math.max(...counts) * T)
				: Math.ceil(N / W) * T) / 1000;

		// The service's side of a run: when it accepted the first task and finished the last one.
		const serviceSpan = () => {
			const tasks = [...n8n.emu.taskMap.values()];
			return {
				firstSubmit: Math.min(...tasks.map((t) => Date.parse(t.createdAt))),
				lastDone: Math.max(...tasks.map((t) => Date.parse(t.completedAt))),
			};
		};

		// The package against the emulator's default (tasks finish out of order: a free worker takes
		// any queued task), then against a service that finishes them in the order sent.
		const runPackage = async (order) => {
			n8n.emu.options.completionOrder = order;
			n8n.emu.resetStats();
			n8n.emu.taskMap.clear();
			const ours = await n8n.execute('ocrBenchPackage1');
			if (ours.data.resultData.error)
				throw new Error(`package workflow failed: ${ours.data.resultData.error.message}`);
			const stats = n8n.emu.stats();
			const [r] = ours.data.resultData.runData['Document OCR'];
			const { firstSubmit, lastDone } = serviceSpan();
			return {
				seconds: span(ours, 'Document OCR', ['Document OCR']) / 1000,
				// Where the time goes: node start → first submission accepted, and the service's
				// last finish → the node's end (how late the end of the batch was noticed).
				startMs: firstSubmit - r.startTime,
				lateMs: r.startTime + r.executionTime - lastDone,
				done: count(ours, 'Document OCR'),
				pollsPerTask: (stats.byRoute['GET /api/tasks/:id'] ?? 0) / N,
				maxInFlight: stats.maxInFlight,
			};
		};
		const outOfOrder = await runPackage('random');
		const inOrderRun = inOrder ? await runPackage('fifo') : undefined;
		n8n.emu.options.completionOrder = 'random';

		// A failing baseline is reported beside the package's figures, not instead of them.
		let baselineRun;
		n8n.emu.resetStats();
		n8n.emu.taskMap.clear();
		try {
			const base = await n8n.execute('ocrBenchBaseline');
			if (base.data.resultData.error) throw new Error(base.data.resultData.error.message);
			const baseStats = n8n.emu.stats();
			const ends = base.data.resultData.runData;
			const lastEnd = Math.max(
				...['Finished', 'Done?'].flatMap((name) =>
					(ends[name] ?? []).map((r) => r.startTime + r.executionTime),
				),
			);
			baselineRun = {
				seconds: span(base, 'To Base64', ['Finished', 'Done?', 'Get task (HTTP Request)']) / 1000,
				lateMs: lastEnd - serviceSpan().lastDone,
				done: count(base, 'Finished'),
				pollsPerTask: (baseStats.byRoute['GET /api/tasks/:id'] ?? 0) / N,
				maxInFlight: baseStats.maxInFlight,
			};
		} catch (error) {
			baselineRun = { error: `baseline workflow failed: ${String(error.message).slice(0, 200)}` };
		}

		let perItemRun;
		if (perItem) {
			n8n.emu.resetStats();
			const one = await n8n.execute('ocrBenchPerItem1');
			if (one.data.resultData.error)
				throw new Error(`per-item baseline failed: ${one.data.resultData.error.message}`);
			const oneStats = n8n.emu.stats();
			perItemRun = {
				seconds:
					span(one, 'To Base64', [
						'Finished',
						'Done?',
						'Get task (HTTP Request)',
						'Loop Over Items',
					]) / 1000,
				done: (one.data.resultData.runData['Finished']?.[0]?.data?.main?.[0] ?? []).length,
				pollsPerTask: (oneStats.byRoute['GET /api/tasks/:id'] ?? 0) / N,
			};
		}

		return {
			N,
			W,
			t: T,
			pages,
			totalPages,
			bound,
			package: outOfOrder,
			packageInOrder: inOrderRun,
			baseline: baselineRun,
			perItem: perItemRun,
		};
	} finally {
		await n8n.close();
	}
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(r) => console.log(JSON.stringify(r, null, 2)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
