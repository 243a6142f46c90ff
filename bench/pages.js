'use strict';
/**
 * The page counter's cost (issue 31), in ms per MB of document, for the files of
 * bench/page-files.js (the corpus, a 20,000-page PDF three ways, a 5,000-directory TIFF); beside
 * the emulator's own count (a regex over the whole file), which reads no cross-reference. Needs
 * the build (`npm run build`): it runs dist/; `BENCH_DIST=<dir>` measures another build's dist/.
 */
const path = require('node:path');
const emulator = require('../emulator/documents.js');
const { pageFiles } = require('./page-files');
const { counterFile, PAUSE } = require('./page-counters');

const DIST = path.resolve(process.env.BENCH_DIST ?? path.join(__dirname, '../dist'));
const { countPages } = require(counterFile(DIST));

/** ms per call (median of `rounds`, after a warm-up), for a file of `bytes`. */
async function time(fn, rounds) {
	for (let i = 0; i < Math.min(rounds, 5); i++) await fn();
	const samples = [];
	for (let i = 0; i < rounds; i++) {
		const started = process.hrtime.bigint();
		await fn();
		samples.push(Number(process.hrtime.bigint() - started) / 1e6);
	}
	samples.sort((a, b) => a - b);
	return samples[Math.floor(samples.length / 2)];
}

async function main() {
	const files = pageFiles();
	const rows = [];
	for (const { name, kind, bytes } of files) {
		const mb = bytes.length / 1e6;
		const rounds = bytes.length > 1e6 ? 20 : 500;
		const ms = await time(() => countPages(bytes, kind, undefined, PAUSE), rounds);
		const emulatorMs = await time(() => emulator.countPages(bytes), rounds);
		rows.push({
			file: name,
			bytes: bytes.length,
			pages: (await countPages(bytes, kind, undefined, PAUSE)).pages,
			ms: +ms.toFixed(4),
			msPerMB: +(ms / mb).toFixed(2),
			emulatorMsPerMB: +(emulatorMs / mb).toFixed(2),
		});
	}
	return { rows, largest: rows.find((r) => r.file === 'makePdf 20,000 pages') };
}

module.exports = { main };
if (require.main === module) {
	main().then(({ rows }) => console.table(rows));
}
