'use strict';
/**
 * What "Skip Submitted Documents" adds per new document when the memory is full, in a real n8n
 * 2.x (scripts/n8n-instance.js), measured black-box: two workflows that differ only in their
 * node's static data — `full` (10,000 documents remembered, in the shape saved before issue 29,
 * as an existing workflow has it) and `empty` (the baseline) — each run with `n8n execute` (a
 * production mode: n8n loads the static data from its database, wraps it in its proxy and saves
 * it after the run). Each round writes N new PDFs into each workflow's folder and runs both; the
 * figure is (full − empty) / N from the Document OCR node's execution time in n8n's run data.
 * The first round of `full` converts the old shape and is reported apart.
 *
 * Env: BENCH_MEMORY_N (new documents per run, default 300), BENCH_MEMORY_ROUNDS (default 3),
 * BENCH_PACKAGE_TGZ (measure another packed build, e.g. the one before a change).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { createInstance, CREDENTIAL } = require('../scripts/n8n-instance');
const { makePdf } = require('../emulator/documents');
const { node, chain, rememberedStaticData } = require('./workflow-nodes');

const N = Number(process.env.BENCH_MEMORY_N ?? 300);
const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3);
const REMEMBERED = 10_000;
const MANUAL = "When clicking 'Execute workflow'";

function workflow(id, folder, count) {
	return {
		id,
		name: `bench: Skip memory ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		staticData: count ? rememberedStaticData(count) : undefined,
		nodes: [
			node(`${id}1`, MANUAL, 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node(`${id}2`, 'Read PDFs', 'n8n-nodes-base.readWriteFile', 1, [200, 0], {
				fileSelector: `${folder}/*.pdf`,
				options: {},
			}),
			node(
				`${id}3`,
				'Document OCR',
				'n8n-nodes-document-ocr.documentOcr',
				1,
				[400, 0],
				{
					resource: 'task',
					operation: 'submit',
					waitForCompletion: false,
					options: { skipSubmitted: true },
				},
				{ credentials: { documentOcrApi: CREDENTIAL } },
			),
		],
		connections: chain(MANUAL, 'Read PDFs', 'Document OCR'),
	};
}

let counter = 0;
function fill(folder) {
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder, { recursive: true });
	for (let i = 0; i < N; i++) {
		const text = `New document ${++counter} ${crypto.randomUUID()}`;
		fs.writeFileSync(path.join(folder, `new-${counter}.pdf`), makePdf([text]));
	}
}

function nodeMs(run) {
	const [r] = run.data.resultData.runData['Document OCR'];
	if (r.error) throw new Error(`Document OCR failed: ${r.error.message}`);
	const out = r.data.main[0].length;
	if (out !== N) throw new Error(`expected ${N} items, got ${out}`);
	return r.executionTime;
}

async function main() {
	const n8n = await createInstance({
		label: 'bench-skip',
		emulator: { workers: 8, msPerPage: 1 },
		packageTarball: process.env.BENCH_PACKAGE_TGZ,
	});
	try {
		n8n.emu.setBalance('acme', 1_000_000);
		await n8n.importCredential();
		const full = path.join(n8n.inbox, 'full');
		const empty = path.join(n8n.inbox, 'empty');
		await n8n.importWorkflows([
			workflow('ocrBenchSkipFull', full, REMEMBERED),
			workflow('ocrBenchSkipNone', empty, 0),
		]);
		const rounds = [];
		for (let round = 0; round <= ROUNDS; round++) {
			fill(full);
			fill(empty);
			const fullMs = nodeMs(await n8n.execute('ocrBenchSkipFull'));
			const emptyMs = nodeMs(await n8n.execute('ocrBenchSkipNone'));
			rounds.push({ round, fullMs, emptyMs, msPerDocument: (fullMs - emptyMs) / N });
			process.stdout.write(
				`${round === 0 ? 'first run (converts the stored memory)' : `round ${round}`}: full ${fullMs} ms, empty ${emptyMs} ms, ${((fullMs - emptyMs) / N).toFixed(2)} ms per new document\n`,
			);
		}
		const measured = rounds.slice(1).map((r) => r.msPerDocument);
		const result = {
			remembered: REMEMBERED,
			newPerRun: N,
			msPerNewDocument: measured.map((v) => Number(v.toFixed(2))),
			firstRun: Number(rounds[0].msPerDocument.toFixed(2)),
		};
		process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
		return result;
	} finally {
		await n8n.close();
	}
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(`${error.stack}\n`);
		process.exit(1);
	});
}
module.exports = { main };
