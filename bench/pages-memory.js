'use strict';
/**
 * The page counter's peak live memory (issue 31: "no more memory than the file"), beyond the
 * input file itself, for every file of the corpus (test/fixtures/pages) and the large files of
 * bench/pages.js (a 20,000-page PDF with a classic xref table, the same with startxref broken,
 * the same rewritten by qpdf with Flate object streams, a 5,000-directory TIFF). Needs the build
 * (`npm run build`); `BENCH_DIST=<dir>` measures another build's dist/. Two hostile files of the
 * fast tier's kind too: a Flate bomb as an object stream, and a page tree whose kids alternate
 * between two padded object streams.
 *
 * How: each file is counted in a fresh process run with `--gc-global` (every collection is a
 * full one, so what survives it is exactly what is live), a 1 MB young generation (a collection
 * every MB the count allocates on the JS heap) and `--single-threaded-gc`. v8.GCProfiler records
 * the heap in use plus the external memory (ArrayBuffers: the file, typed arrays, inflated
 * streams) before and after every collection, taken by V8 inside the collection itself (no
 * sampler beside the count could see its peaks). A run is the whole count, its awaits included
 * (the inflate is DecompressionStream's since 9cd5db3). After a warm-up, the count runs 32 times,
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
const { pageFiles } = require('./page-files');
const { counterFile, PAUSE } = require('./page-counters');

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

/** How many of litter's arrays fill the young generation after two forced collections. */
function period() {
	const collects = (n) => {
		global.gc();
		global.gc();
		const profiler = new v8.GCProfiler();
		profiler.start();
		litter(n);
		return profiler.stop().statistics.length > 0;
	};
	let high = 64;
	while (!collects(high)) high *= 2;
	let low = 0;
	while (high - low > 1) {
		const mid = (low + high) >> 1;
		if (collects(mid)) high = mid;
		else low = mid;
	}
	return high;
}

/** In the child: the count of `file` measured at each phase of the young generation, as JSON. */
async function child(file, kind) {
	const { countPages } = require(counterFile(DIST));
	const bytes = fs.readFileSync(file);
	const inUse = (s) => s.usedHeapSize + s.externalMemory;
	const now = () => {
		const s = v8.getHeapStatistics();
		return inUse({ usedHeapSize: s.used_heap_size, externalMemory: s.external_memory });
	};
	await countPages(bytes, kind, undefined, PAUSE);
	await countPages(bytes, kind, undefined, PAUSE);
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
		// The whole count, its awaits included (the inflate is DecompressionStream's since 9cd5db3:
		// a count no longer ends when countPages returns its promise).
		const result = await countPages(bytes, kind, undefined, PAUSE);
		global.gc();
		const { statistics } = profiler.stop();
		pages = result.pages;
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

/**
 * A PDF 1.5 of object streams (`streams`: each a list of objects, stored as `encode` makes it)
 * and a plain cross-reference stream; objects are numbered in order, the streams after them.
 */
function objectStreams(streams, encode) {
	const n = streams.flat().length;
	const parts = [Buffer.from('%PDF-1.5\n', 'latin1')];
	let length = parts[0].length;
	const put = (b) => {
		const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
		parts.push(buf);
		length += buf.length;
	};
	const rows = [];
	const at = [];
	let num = 1;
	streams.forEach((objects, s) => {
		let header = '';
		let body = '';
		objects.forEach((o, i) => {
			rows[num++] = [2, n + 1 + s, i];
			header += `${num - 1} ${body.length} `;
			body += `${o}\n`;
		});
		const { data, dict } = encode(Buffer.from(header + body, 'latin1'), s);
		at.push(length);
		put(
			`${n + 1 + s} 0 obj\n<< /Type /ObjStm /N ${objects.length} /First ${header.length} ${dict} /Length ${data.length} >>\nstream\n`,
		);
		put(data);
		put('\nendstream\nendobj\n');
	});
	at.forEach((o, s) => (rows[n + 1 + s] = [1, o, 0]));
	const xrefNum = n + streams.length + 1;
	const xrefAt = length;
	rows[xrefNum] = [1, xrefAt, 0];
	rows[0] = [0, 0, 65535];
	const table = Buffer.alloc(rows.length * 7);
	rows.forEach(([t, a, b], i) => {
		table[i * 7] = t;
		table.writeUInt32BE(a, i * 7 + 1);
		table.writeUInt16BE(b, i * 7 + 5);
	});
	put(
		`${xrefNum} 0 obj\n<< /Type /XRef /W [1 4 2] /Size ${rows.length} /Root 1 0 R /Length ${table.length} >>\nstream\n`,
	);
	put(table);
	put(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`);
	return Buffer.concat(parts);
}

/** Hostile files of the fast tier's kind: a Flate bomb, and reads bouncing between two streams. */
function hostile() {
	const { deflate, bomb } = require('../test/fixtures/pages/deflate.js');
	const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
	const PAGE = '<< /Type /Page /Parent 2 0 R >>';
	const bombed = objectStreams([[CATALOG, '<< /Type /Pages /Kids [] /Count 0 >>']], () => ({
		data: bomb(64),
		dict: '/Filter /FlateDecode',
	}));
	const k = 200;
	const a = Array.from({ length: k }, (_, i) => 4 + i);
	const b = Array.from({ length: k }, (_, i) => 5 + k + i);
	let seed = 11;
	const letter = () =>
		String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 26));
	const pad = `(${'x'.repeat(100_000)}${Array.from({ length: 8000 }, letter).join('')})`;
	const kids = a.flatMap((x, i) => [`${x} 0 R`, `${b[i]} 0 R`]).join(' ');
	const bouncing = objectStreams(
		[
			[CATALOG, `<< /Type /Pages /Kids [${kids}] /Count ${2 * k} >>`, pad, ...a.map(() => PAGE)],
			[pad, ...b.map(() => PAGE)],
		],
		(data) => ({ data: deflate(data), dict: '/Filter /FlateDecode' }),
	);
	return [
		['hostile: a Flate bomb object stream (64 MB of zeros)', bombed],
		['hostile: reads bouncing between two padded streams', bouncing],
	];
}

function main() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-memory-'));
	try {
		const files = [];
		const put = (name, bytes, kind = 'pdf') => {
			const file = path.join(dir, name.replace(/\W+/g, '-') + (kind === 'tiff' ? '.tif' : '.pdf'));
			fs.writeFileSync(file, bytes);
			files.push({ name, file });
		};
		for (const { name, kind, bytes } of pageFiles()) put(name, bytes, kind);
		for (const [name, bytes] of hostile()) put(name, bytes);
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
