'use strict';
/**
 * Issue 37: the time to build a selection (Pages) and a split (Split Large Documents) with the
 * format room, in ms per MB of the document, beside the baseline of one SHA-256 over the same
 * bytes (what the check phase does to every document anyway). Files: a 25 MB, 40-page scan (625 kB
 * of image per page, emulator/documents.js makePdf) and a 10 MB, 100-page one. Rounds interleave
 * the three measurements; the medians are printed. Needs the build (`npm run build`).
 *
 *   node bench/split.js            (BENCH_ROUNDS, 15 by default)
 */
const { createHash } = require('node:crypto');
const path = require('node:path');
const documents = require('../emulator/documents');

const formats = require(path.join(__dirname, '../dist/nodes/DocumentOcr/formats'));
const ROUNDS = Number(process.env.BENCH_ROUNDS || 15);
const BASE64_LIMIT = (size) => 4 * Math.ceil(size / 3) + 200 <= 10_000_000;

function scan(pages, imageBytes) {
	const texts = Array.from({ length: pages }, (_, i) => `Scan page ${i + 1}`);
	return documents.makePdf(texts, { imageBytes });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(work) {
	const started = process.hrtime.bigint();
	await work();
	return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main() {
	const files = [
		['25 MB, 40 pages', scan(40, 625_000)],
		['10 MB, 100 pages', scan(100, 100_000)],
	];
	const rows = [];
	for (const [name, bytes] of files) {
		const mb = bytes.length / 1e6;
		const total = (await formats.countPages(bytes, 'pdf')).pages;
		const selection = Array.from({ length: Math.ceil(total / 2) }, (_, i) => 2 * i + 1);
		const times = { hash: [], select: [], split: [] };
		let parts = 0;
		for (let round = 0; round < ROUNDS + 1; round++) {
			const hash = await timed(async () => createHash('sha256').update(bytes).digest('hex'));
			const select = await timed(async () => await formats.selectPages(bytes, 'pdf', selection));
			const split = await timed(async () => {
				parts = (await formats.splitPages(bytes, 'pdf', BASE64_LIMIT)).length;
			});
			if (round === 0) continue; // a warm-up round
			times.hash.push(hash / mb);
			times.select.push(select / mb);
			times.split.push(split / mb);
		}
		rows.push({
			name,
			mb: +mb.toFixed(1),
			parts,
			selected: selection.length,
			hashMsPerMb: +median(times.hash).toFixed(2),
			selectMsPerMb: +median(times.select).toFixed(2),
			splitMsPerMb: +median(times.split).toFixed(2),
		});
	}
	return rows;
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(rows) => {
			for (const r of rows)
				console.log(
					`${r.name} (${r.mb} MB): a selection of ${r.selected} pages ${r.selectMsPerMb} ms/MB; the split into ${r.parts} parts ${r.splitMsPerMb} ms/MB; baseline SHA-256 ${r.hashMsPerMb} ms/MB`,
				);
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
