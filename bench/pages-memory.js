'use strict';
/**
 * The page counter's peak live memory (issue 31: "no more memory than the file"), beyond the
 * input file itself, for every file of the corpus (test/fixtures/pages) and the large files of
 * bench/pages.js (a 20,000-page PDF with a classic xref table, the same with startxref broken,
 * the same rewritten by qpdf with Flate object streams, a 5,000-directory TIFF). Needs the build
 * (`npm run build`); `BENCH_DIST=<dir>` measures another build's dist/.
 *
 * How: each file is counted in a fresh process run with `--gc-global` (every collection is a
 * full one, so what survives it is exactly what is live), a 1 MB young generation (a collection
 * every MB the count allocates on the JS heap) and `--single-threaded-gc`. v8.GCProfiler records
 * the heap in use plus the external memory (ArrayBuffers: the file, typed arrays, inflated
 * streams) before and after every collection, taken by V8 inside the collection itself (the
 * count is synchronous: no sampler could run beside it). After a warm-up, the count runs 32 times,
 * each after two forced collections and 0, 1/32, 2/32 ... 31/32 of the young generation filled
 * with garbage, so that its collections fall at other points of its work each time; a forced
 * collection ends each run.
 * The baseline is the lower of the state before the run and the state after that collection.
 * - `peak ≥`: the most live memory any collection during a run found, minus the baseline: the
 *   peak, to within what the count holds for less than 1/32 MB of its allocation (a lower bound).
 * - `peak ≤`: the run without garbage: the most memory in use just before any of its
 *   collections, the final one included, minus the baseline (an upper bound: it counts the
 *   garbage made since the collection before, and V8's own allocations on the way).
 * `collections`: during the 32 runs.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');

const DIST = path.resolve(process.env.BENCH_DIST ?? path.join(__dirname, '../dist'));
/** Runs per file, each started at another point of the young generation's MB. */
const PHASES = 32;
const FLAGS = [
	'--expose-gc',
	'--gc-global',
	'--single-threaded-gc',
	'--min-semi-space-size=1',
	'--max-semi-space-size=1',
];

/** Garbage on the young generation: `n` small arrays, none kept. */
function litter(n) {
	let last = [];
	for (let i = 0; i < n; i++) last = new Array(120).fill(i);
	return last.length;
}

/** How many of litter's arrays fill the young generation: litter until a collection comes. */
function period() {
	global.gc();
	let used = v8.getHeapStatistics().used_heap_size;
	for (let n = 1; ; n++) {
		litter(1);
		const now = v8.getHeapStatistics().used_heap_size;
		if (now < used) return n;
		used = now;
	}
}

/** In the child: the count of `file` measured at each phase of the young generation, as JSON. */
async function child(file, kind) {
	const { countPages } = require(path.join(DIST, 'nodes/DocumentOcr/documents/pages.js'));
	const bytes = fs.readFileSync(file);
	const inUse = (s) => s.usedHeapSize + s.externalMemory;
	const now = () => {
		const s = v8.getHeapStatistics();
		return inUse({ usedHeapSize: s.used_heap_size, externalMemory: s.external_memory });
	};
	await countPages(bytes, kind);
	await countPages(bytes, kind);
	const full = period();
	let pages;
	let low = 0;
	let high = Infinity;
	let collections = 0;
	for (let shift = 0; shift < PHASES; shift++) {
		global.gc();
		global.gc();
		const before = now();
		litter(Math.round((shift * full) / PHASES));
		const profiler = new v8.GCProfiler();
		profiler.start();
		const result = countPages(bytes, kind); // synchronous inside: done when this returns
		global.gc();
		const { statistics } = profiler.stop();
		pages = (await result).pages;
		// What V8 still had to free of earlier runs is not the count's: the lower of the two.
		const base = Math.min(before, inUse(statistics.at(-1).afterGC.heapStatistics));
		const during = statistics.slice(0, -1); // the last is the forced collection after it
		collections += during.length;
		for (const s of during) low = Math.max(low, inUse(s.afterGC.heapStatistics) - base);
		// Only the run without litter gives an upper bound: the others' include the litter.
		if (shift === 0)
			high = Math.max(0, ...statistics.map((s) => inUse(s.beforeGC.heapStatistics) - base));
	}
	console.log(JSON.stringify({ pages, low, high, collections }));
}

function bigTiff(pages) {
	const buf = Buffer.alloc(8 + pages * 18);
	buf.write('II', 0, 'latin1');
	buf.writeUInt16LE(42, 2);
	buf.writeUInt32LE(8, 4);
	for (let i = 0; i < pages; i++) {
		const at = 8 + i * 18;
		buf.writeUInt16LE(1, at);
		buf.writeUInt16LE(256, at + 2);
		buf.writeUInt16LE(3, at + 4);
		buf.writeUInt32LE(1, at + 6);
		buf.writeUInt32LE(i === pages - 1 ? 0 : at + 18, at + 14);
	}
	return buf;
}

function main() {
	const corpus = path.join(__dirname, '../test/fixtures/pages');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-memory-'));
	try {
		const files = fs
			.readdirSync(corpus)
			.filter((f) => /\.(pdf|tif)$/.test(f))
			.map((f) => ({ name: f, file: path.join(corpus, f) }));
		const put = (name, bytes) => {
			const file = path.join(dir, name.replace(/\W+/g, '-') + (name.includes('TIFF') ? '.tif' : '.pdf'));
			fs.writeFileSync(file, bytes);
			files.push({ name, file });
			return file;
		};
		const emulator = require('../emulator/documents.js');
		const large = emulator.makePdf(Array.from({ length: 20_000 }, (_, i) => `page ${i + 1}`));
		const classic = put('makePdf 20,000 pages', large);
		put(
			'the same, startxref broken (scan)',
			Buffer.from(large.toString('latin1').replace(/startxref\n\d+/, 'startxref\n1'), 'latin1'),
		);
		try {
			const out = path.join(dir, 'objstm.pdf');
			execFileSync('qpdf', ['--object-streams=generate', classic, out]);
			files.push({ name: 'the same, qpdf object streams (Flate)', file: out });
		} catch (error) {
			console.log(`qpdf could not make the object-stream PDF, skipped: ${error.message}`);
		}
		put('TIFF, 5,000 directories', bigTiff(5000));
		const rows = files.map(({ name, file }) => {
			const bytes = fs.statSync(file).size;
			const kind = /\.tif$/.test(file) ? 'tiff' : 'pdf';
			const out = execFileSync(process.execPath, [...FLAGS, __filename, '--child', file, kind], {
				encoding: 'utf8',
			});
			const m = JSON.parse(out.trim().split('\n').at(-1));
			const kB = (n) => Math.round(n / 1024);
			return {
				file: name,
				kB: kB(bytes),
				pages: m.pages,
				'peak ≥ kB': kB(m.low),
				'peak ≤ kB': kB(m.high),
				'≤ / file': +(m.high / bytes).toFixed(2),
				collections: m.collections,
			};
		});
		return { rows };
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

module.exports = { main };
if (require.main === module) {
	if (process.argv[2] === '--child') child(process.argv[3], process.argv[4]);
	else console.table(main().rows);
}
