'use strict';
/**
 * The time to build a selection (Pages) and a split (Split Large Documents) with the format room,
 * in ms per MB of the document, beside the baseline of one SHA-256 over the same bytes (what the
 * check phase does to every document anyway), and beside the format room of `BENCH_BEFORE`
 * (default 3929295, before issue 42: a copy then took what a page reaches, not what it draws;
 * compiled from git; `0` skips it). Since issue 42 a copy reads each selected page's content
 * streams: the difference is their cost. Files:
 * - a 25 MB, 40-page scan and a 10 MB, 100-page one (625 and 100 kB of image a page,
 *   emulator/documents.js makePdf);
 * - a real 10 MB scan: 10 JPEG pages Ghostscript renders from PostScript (text and noise at
 *   150 dpi), made into a PDF by img2pdf (skipped without gs and img2pdf);
 * - a 200-page text document from PDFKit (its content streams Flate-compressed, one font shared:
 *   DejaVu Sans embedded where the machine has it, else Helvetica).
 * The selection is every other page; the split is under the 10 MB Base64 limit. Rounds
 * interleave the measurements; the medians are printed. Needs the build (`npm run build`).
 *
 *   node bench/split.js            (BENCH_ROUNDS, 15 by default; BENCH_BEFORE=<commit>|0)
 */
const { createHash } = require('node:crypto');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const documents = require('../emulator/documents');
const { counterAt } = require('./page-counters');

const formats = require(path.join(__dirname, '../dist/nodes/DocumentOcr/formats'));
const ROUNDS = Number(process.env.BENCH_ROUNDS || 15);
const BEFORE = process.env.BENCH_BEFORE ?? '3929295';
const BASE64_LIMIT = (size) => 4 * Math.ceil(size / 3) + 200 <= 10_000_000;

function scan(pages, imageBytes) {
	const texts = Array.from({ length: pages }, (_, i) => `Scan page ${i + 1}`);
	return documents.makePdf(texts, { imageBytes });
}

/** 10 scanned pages: Ghostscript's JPEGs of text and noise, made a PDF by img2pdf; null without them. */
function realScan() {
	const found = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
	if (!found('gs') || !found('img2pdf')) return null;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'split-bench-'));
	try {
		const ps = path.join(dir, 'page.ps');
		// A page of text over grey noise, as a scanner's JPEG of a printed page holds.
		fs.writeFileSync(
			ps,
			`%!PS
/Times-Roman findfont 11 scalefont setfont
1 1 10 { /p exch def
  0 1 780 { /y exch def 0 1 600 { /x exch def rand 1000 mod 1000 div 0.12 mul 0.86 add setgray x y 1.2 1.2 rectfill } for } for
  0 setgray 60 740 moveto (Page ) show p 3 string cvs show
  720 -14 60 { 60 exch moveto (The quick brown fox jumps over the lazy dog; scanned invoice line item 0042.) show } for
  showpage } for
`,
		);
		execFileSync('gs', [
			'-q',
			'-dNOPAUSE',
			'-dBATCH',
			'-sDEVICE=jpeggray',
			'-r150',
			'-dJPEGQ=92',
			`-sOutputFile=${dir}/p%02d.jpg`,
			ps,
		]);
		const jpegs = fs
			.readdirSync(dir)
			.filter((name) => name.endsWith('.jpg'))
			.sort();
		execFileSync('img2pdf', [
			'-o',
			`${dir}/scan.pdf`,
			...jpegs.map((name) => path.join(dir, name)),
		]);
		return fs.readFileSync(`${dir}/scan.pdf`);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** 200 pages of text from PDFKit: Flate content streams, one font for all. */
async function textDocument() {
	const PDFDocument = require('pdfkit');
	const doc = new PDFDocument({ size: 'A4', compress: true, autoFirstPage: false });
	const chunks = [];
	doc.on('data', (chunk) => chunks.push(chunk));
	const done = new Promise((resolve) => doc.on('end', resolve));
	const line =
		'Section %d of the agreement: the parties agree to the terms set out below, and to the schedule of payments. ';
	const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
	for (let page = 1; page <= 200; page++) {
		doc.addPage();
		if (fs.existsSync(font)) doc.font(font);
		doc
			.fontSize(10)
			.text(
				Array.from({ length: 30 }, (_, i) => line.replace('%d', `${page}.${i}`)).join(''),
				50,
				50,
			);
	}
	doc.end();
	await done;
	return Buffer.concat(chunks);
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
		['a real scan, 10 pages (img2pdf)', realScan()],
		['a text document, 200 pages (PDFKit)', await textDocument()],
	].filter(([, bytes]) => bytes !== null);
	const before = BEFORE === '0' ? null : counterAt(BEFORE);
	const builds = [['after', formats], ...(before ? [['before', before.module]] : [])];
	const rows = [];
	try {
		for (const [name, bytes] of files) {
			const mb = bytes.length / 1e6;
			const total = (await formats.countPages(bytes, 'pdf')).pages;
			const selection = Array.from({ length: Math.ceil(total / 2) }, (_, i) => 2 * i + 1);
			const times = { hash: [] };
			let parts = 0;
			for (let round = 0; round < ROUNDS + 1; round++) {
				const hash = await timed(async () => createHash('sha256').update(bytes).digest('hex'));
				if (round > 0) times.hash.push(hash / mb);
				for (const [build, module] of builds) {
					const select = await timed(async () => await module.selectPages(bytes, 'pdf', selection));
					const split = await timed(async () => {
						parts = (await module.splitPages(bytes, 'pdf', BASE64_LIMIT)).length;
					});
					if (round === 0) continue; // a warm-up round
					(times[`${build}Select`] ??= []).push(select / mb);
					(times[`${build}Split`] ??= []).push(split / mb);
				}
			}
			const ms = (key) => (times[key] ? +median(times[key]).toFixed(2) : undefined);
			rows.push({
				name,
				mb: +mb.toFixed(1),
				pages: total,
				parts,
				selected: selection.length,
				hashMsPerMb: ms('hash'),
				selectMsPerMb: ms('afterSelect'),
				splitMsPerMb: ms('afterSplit'),
				beforeSelectMsPerMb: ms('beforeSelect'),
				beforeSplitMsPerMb: ms('beforeSplit'),
			});
		}
	} finally {
		before?.remove();
	}
	return rows;
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(rows) => {
			const then = (value) => (value === undefined ? '' : ` (before: ${value})`);
			for (const r of rows)
				console.log(
					`${r.name} (${r.mb} MB, ${r.pages} pages): a selection of ${r.selected} pages ${r.selectMsPerMb} ms/MB${then(r.beforeSelectMsPerMb)}, ${((r.selectMsPerMb * r.mb) / r.selected).toFixed(2)} ms a page; the split into ${r.parts} parts ${r.splitMsPerMb} ms/MB${then(r.beforeSplitMsPerMb)}; baseline SHA-256 ${r.hashMsPerMb} ms/MB`,
				);
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
