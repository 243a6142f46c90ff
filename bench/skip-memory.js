'use strict';
/**
 * What "Skip Submitted Documents" adds per new document when the memory is full, in n8n-core's
 * engine (scripts/n8n-engine.js): the node's static data goes through n8n's real Workflow, which
 * wraps it in its ObservableObject proxy as n8n does for every execution. Each measured run
 * starts from the static data as n8n loads it from its database (a JSON copy of what the run
 * before saved), on a fresh Workflow; the executions of one memory are of one workflow, whose
 * node memory the process shares (batch/shared.ts): the first execution (`firstRunMs`) adopts
 * what it loaded, the measured ones use what the process holds. Two memories, in the same process and the same run:
 * `full` (MEMORY_LIMIT documents remembered) and `empty` (the baseline: nothing remembered);
 * the figure is (full − empty) / new documents, from the node's own execution time, with what
 * n8n's loading of the static data left to collect collected before each execution.
 *
 * Two shapes of use: N new documents in one execution, and one new document per execution.
 * `BENCH_DIST` measures another build (e.g. the one before a change; give it NODE_PATH to find
 * n8n-workflow). Env: BENCH_MEMORY_N (new documents per execution, default 300),
 * BENCH_MEMORY_SINGLE (executions of one document, default 30), BENCH_MEMORY_REPEAT (default 3).
 */
if (process.env.BENCH_DIST) process.env.OCR_DIST = process.env.BENCH_DIST;
const crypto = require('node:crypto');
const v8 = require('node:v8');
const vm = require('node:vm');
const engine = require('../scripts/n8n-engine');
const { submitParameters } = require('./engine');
const { rememberedStaticData } = require('./workflow-nodes');
const { startEmulator } = require('../emulator');
const { makePdf } = require('../emulator/documents');

const REMEMBERED = 10_000;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');

let counter = 0;
function newDocuments(n) {
	return Array.from({ length: n }, () => {
		const text = `New document ${++counter} ${crypto.randomUUID()}`;
		return {
			json: {},
			binary: {
				data: {
					base64: makePdf([text]).toString('base64'),
					fileName: `new-${counter}.pdf`,
					mimeType: 'application/pdf',
				},
			},
		};
	});
}

const parameters = { ...submitParameters({ wait: false }), options: { skipSubmitted: true } };

/**
 * One production execution of workflow `workflowId` from `saved` (JSON); returns the node's time
 * and what it saved. Executions of one workflow ID share the node's memory in this process, as
 * n8n's executions of one workflow do (issue 43): the first adopts the static data it loads.
 */
async function execute(emu, saved, items, workflowId) {
	const staticData = JSON.parse(saved);
	// What loading the static data leaves to collect is n8n's, not the node's.
	collectGarbage();
	const credentials = { apiKey: 'ocr_test_full', baseUrl: emu.url, apiUrl: '' };
	const { run, error } = await engine.runNode({
		parameters,
		items,
		credentials,
		staticData,
		workflowId,
		mode: 'trigger',
	}).promise;
	if (error) throw error;
	const ms = run.data.resultData.runData['Document OCR'][0].executionTime;
	return { ms, saved: JSON.stringify(staticData) };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main({
	n = Number(process.env.BENCH_MEMORY_N ?? 300),
	single = Number(process.env.BENCH_MEMORY_SINGLE ?? 30),
	repeat = Number(process.env.BENCH_MEMORY_REPEAT ?? 3),
} = {}) {
	const emu = await startEmulator({ workers: 2, msPerPage: 0, syncMsPerPage: 0 });
	try {
		// One warm-up execution per memory: the engine's first run, and whatever a build does to
		// the shape it loads (a migration) is done before anything is measured.
		const memories = {};
		for (const [name, count] of [
			['empty', 0],
			['full', REMEMBERED],
		]) {
			emu.setBalance('acme', 1_000_000);
			const first = await execute(
				emu,
				JSON.stringify(rememberedStaticData(count)),
				newDocuments(1),
				`bench-${name}`,
			);
			memories[name] = { saved: first.saved, firstMs: first.ms, batch: [], single: [] };
		}
		for (let r = 0; r < repeat; r++) {
			for (const name of ['empty', 'full']) {
				const memory = memories[name];
				const workflowId = `bench-${name}`;
				memory.batch.push((await execute(emu, memory.saved, newDocuments(n), workflowId)).ms);
				let total = 0;
				for (let i = 0; i < single; i++)
					total += (await execute(emu, memory.saved, newDocuments(1), workflowId)).ms;
				memory.single.push(total / single);
			}
		}
		const { empty, full } = memories;
		const perDocumentBatch = (median(full.batch) - median(empty.batch)) / n;
		const perDocumentSingle = median(full.single) - median(empty.single);
		return {
			remembered: REMEMBERED,
			n,
			single,
			repeat,
			batchMs: { empty: median(empty.batch), full: median(full.batch) },
			singleMs: { empty: +median(empty.single).toFixed(2), full: +median(full.single).toFixed(2) },
			firstRunMs: { empty: empty.firstMs, full: full.firstMs },
			addedMsPerDocumentInBatch: +perDocumentBatch.toFixed(3),
			addedMsPerSingleDocumentExecution: +perDocumentSingle.toFixed(2),
		};
	} finally {
		await emu.close();
	}
}

module.exports = { main };
if (require.main === module)
	main().then(
		(result) => console.log(JSON.stringify(result, null, 2)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
