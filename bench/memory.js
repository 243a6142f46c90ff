'use strict';
/**
 * Memory: peak RSS growth of ONE submission at the service's 10 MB request-body limit — a 7.4 MB
 * PDF, sent as Base64 in a 9.9 MB JSON body — by the node (streamed) beside the naive
 * read-then-Base64-then-JSON path; of a 25 MB, 40-page scan sent in parts by the node (Split
 * Large Documents: `split`); and of the count of the 7.4 MB stored PDF (Count Pages: `count`).
 * Each is measured in a fresh process; the emulator runs in its own process so its copy of the
 * upload is not counted.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const documents = require('../emulator/documents');

const FILE_BYTES = 7_400_000;

async function startEmulatorProcess() {
	const child = spawn(
		process.execPath,
		[path.join(__dirname, '../emulator/cli.js'), '--port', '0', '--ms-per-page', '5'],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const line = await new Promise((resolve) =>
		child.stdout.once('data', (chunk) => resolve(String(chunk))),
	);
	return { child, url: JSON.parse(line.split('\n')[0]).url };
}

function measure(mode, file, url) {
	const run = spawnSync(
		process.execPath,
		['--expose-gc', path.join(__dirname, 'memory-child.js'), mode, file, url],
		{
			encoding: 'utf8',
		},
	);
	if (run.status !== 0) throw new Error(`${mode}: ${run.stderr}`);
	return JSON.parse(run.stdout.trim().split('\n').pop());
}

async function main() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-bench-mem-'));
	const file = path.join(dir, 'big.pdf');
	// A valid PDF padded to 7.4 MB (one page): its Base64 JSON body is just under 10,000,000 bytes.
	const pdf = documents.makePdf(['Ten megabytes']);
	// Padded inside (a comment line after the header), so the file still ends with %%EOF.
	const header = pdf.indexOf('\n') + 1;
	const padding = Buffer.alloc(FILE_BYTES - pdf.length, 0x20);
	padding[0] = 0x25; // '%': a PDF comment
	padding[padding.length - 1] = 0x0a;
	fs.writeFileSync(file, Buffer.concat([pdf.subarray(0, header), padding, pdf.subarray(header)]));
	const emulator = await startEmulatorProcess();
	try {
		const node = measure('node', file, emulator.url);
		const naive = measure('naive', file, emulator.url);
		// Issue 37: a 25 MB, 40-page scan sent in parts (Split Large Documents), and the count of a
		// stored PDF under the limit (Count Pages, the 7.4 MB file).
		const scan = path.join(dir, 'scan.pdf');
		const pages = Array.from({ length: 40 }, (_, i) => `Scan page ${i + 1}`);
		fs.writeFileSync(scan, documents.makePdf(pages, { imageBytes: 625_000 }));
		const split = measure('split', scan, emulator.url);
		const count = measure('count', file, emulator.url);
		const rows = [node, naive, split, count].map((r) => ({
			...r,
			ratio: +(r.growth / r.size).toFixed(2),
			nodeRatio: r.nodeGrowth === undefined ? undefined : +(r.nodeGrowth / r.size).toFixed(2),
		}));
		return rows;
	} finally {
		emulator.child.kill('SIGTERM');
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(rows) => {
			for (const r of rows)
				console.log(
					`${r.mode.padEnd(6)} file ${(r.size / 1e6).toFixed(1)} MB  peak RSS growth ${(r.growth / 1e6).toFixed(1)} MB  = ${r.ratio}x the file` +
						(r.nodeGrowth === undefined
							? ''
							: `  (storing the input ${(r.inputGrowth / 1e6).toFixed(1)} MB; the submission from the binary store ${(r.nodeGrowth / 1e6).toFixed(1)} MB = ${r.nodeRatio}x)`),
				);
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
