'use strict';
/**
 * The format room's PDF writers over files from real producers (issue 42): a corpus made at test
 * time (test/support/producers.js: npm's jsPDF, pdf-lib, PDFKit, pdfmake; Debian's Chromium,
 * Ghostscript, mutool, img2pdf, OCRmyPDF with Tesseract, LibreOffice; qpdf and cairo rewriting
 * another producer's file), and every file the built formats/ (dist/) writes from it checked
 * against its source (test/support/page-check.js): each page alone, the first and the last, and
 * the parts of a split forced into two or three. Every written page draws as its source page to
 * the pixel and reads the same text in poppler, the file holds nothing only unselected pages use
 * (their images' bytes, their markers), qpdf --check finds nothing, and pdfinfo counts the pages
 * written; a selection the writer refuses is a problem too. The corpus must cover each feature of
 * REQUIRED with at least one producer, and the checks must see a file that is wrong.
 *
 * The tools are Debian's, installed when missing (test/support/debian.js).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureDebian } = require('./support/debian');
const { DEBIAN, LANGUAGE, english, PRODUCERS, makeCorpus } = require('./support/producers');
const { readSource, checkWritten, lineOf } = require('./support/page-check');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../dist');
const formats = require(path.join(DIST, 'nodes/DocumentOcr/formats'));

/** The features the corpus must hold, each in the file of at least one producer. */
const REQUIRED = [
	'shared /Resources',
	'inherited /Resources',
	'form XObjects',
	'fields with appearances',
	'fields without appearances',
	'NeedAppearances',
	'layer off',
	'links between pages',
	'links out',
	'annotations',
	'scanned pages',
	'JPEGs passed through',
	'endstream in a stream',
	'object streams',
	'linearized',
];

const joined = (written) => Buffer.concat(written.chunks, written.length);
const every = (n) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * What is written from a source of `total` pages: each page alone, the first and the last, and
 * the parts of a split whose limit is the larger of the two halves' files (two parts, or three
 * when a part's pages weigh more together than apart). A selection or split the writer refuses
 * is a problem of its own (check: write).
 */
async function writtenFrom(source, bytes, total) {
	const out = [];
	const refused = [];
	const refuse = (selection, error) =>
		refused.push({
			file: source.name,
			selection,
			page: null,
			check: 'write',
			detail: error.message,
		});
	const chosen = every(total).map((page) => [page]);
	if (total > 1) chosen.push([1, total]);
	for (const pages of chosen) {
		const selection = `pages ${pages.join(',')}`;
		try {
			out.push({ selection, pages, bytes: joined(await formats.selectPages(bytes, 'pdf', pages)) });
		} catch (error) {
			refuse(selection, error);
		}
	}
	if (total > 1) {
		try {
			const half = Math.ceil(total / 2);
			const size = async (pages) => (await formats.selectPages(bytes, 'pdf', pages)).length;
			const limit = Math.max(
				await size(every(half)),
				await size(every(total - half).map((k) => half + k)),
			);
			const parts = await formats.splitPages(bytes, 'pdf', (length) => length <= limit);
			const split = parts.map((part) => part.pages);
			if (split.length < 2 || split.length > 3 || split.flat().join() !== every(total).join())
				refused.push({
					file: source.name,
					selection: 'split',
					page: null,
					check: 'split',
					detail: `parts ${JSON.stringify(split)}: not two or three parts of pages 1-${total} in order`,
				});
			parts.forEach((part, i) =>
				out.push({
					selection: `part ${i + 1} of ${parts.length} (pages ${part.first}-${part.last}, ≤ ${limit} bytes)`,
					pages: part.pages,
					bytes: joined(part),
				}),
			);
		} catch (error) {
			refuse('split', error);
		}
	}
	return { written: out, refused };
}

describe('every selection and split of real producers’ PDFs, against its source', () => {
	let dir;
	let corpus;
	let seconds;
	const found = [];
	beforeAll(async () => {
		const started = Date.now();
		await ensureDebian(DEBIAN, { packages: [LANGUAGE], present: english });
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'producers-'));
		corpus = await makeCorpus(path.join(dir, 'corpus'));
		fs.mkdirSync(path.join(dir, 'written'));
		seconds = (Date.now() - started) / 1000;
	}, 900_000);
	afterAll(() => {
		if (corpus) {
			console.log(
				[
					`the corpus (${seconds.toFixed(1)} s with the tools' check):`,
					...corpus.documents.map(
						(d) =>
							`  ${d.name} | ${d.producer} | ${d.pages} pages, made in ${d.seconds.toFixed(1)} s | ${d.features.join(', ')} | ${d.checked ?? 0} written files checked; byte scan: ${d.scanned?.images ?? 0} image objects, markers ${d.scanned?.markers.join(', ') || 'none readable'}`,
					),
					`${corpus.documents.length} files, ${corpus.documents.reduce((n, d) => n + (d.checked ?? 0), 0)} written files checked`,
					...corpus.failed.map((f) => `  ${f.name} | FAILED | ${f.error}`),
					`${found.length} problems${found.length ? ', by check and producer:' : ''}`,
					...summary(found),
				].join('\n'),
			);
		}
		if (dir) fs.rmSync(dir, { recursive: true, force: true });
	});

	test('every producer made its file', () => {
		expect(corpus.failed).toEqual([]);
	});

	test('the corpus holds every feature, each from a producer', () => {
		const held = new Set(corpus.documents.flatMap((d) => d.features));
		expect(REQUIRED.filter((feature) => !held.has(feature))).toEqual([]);
	});

	test('the checks see a wrong file: another page, the whole file for one page, a file cut short', async () => {
		const document = corpus.documents.find((d) => d.name === 'mutool');
		if (!document) throw new Error('mutool made no file to check the checks on');
		const bytes = fs.readFileSync(document.file);
		const work = fs.mkdtempSync(path.join(dir, 'written', 'wrong-'));
		const source = await readSource(document.file, work);
		const first = joined(await formats.selectPages(bytes, 'pdf', [1]));
		const checks = async (selection, pages, written) =>
			[
				...new Set(
					(await checkWritten(source, selection, pages, written, work)).map((p) => p.check),
				),
			].sort();
		expect(await checks('page 1 given as page 2', [2], first)).toEqual(['bytes', 'render', 'text']);
		expect(await checks('the whole file given as page 1', [1], bytes)).toEqual(['bytes', 'pages']);
		expect(await checks('page 1 cut short', [1], first.subarray(0, first.length - 300))).toContain(
			'qpdf',
		);
	});

	test.each(PRODUCERS.map((p) => p.name))('%s', async (name) => {
		const document = corpus.documents.find((d) => d.name === name);
		if (!document)
			throw new Error(`${name} made no file: ${corpus.failed.find((f) => f.name === name)?.error}`);
		const bytes = fs.readFileSync(document.file);
		const work = fs.mkdtempSync(path.join(dir, 'written', `${name.replace(/\W+/g, '-')}-`));
		const source = await readSource(document.file, work);
		const total = (await formats.countPages(bytes, 'pdf')).pages;
		expect([total, source.pages]).toEqual([document.pages, document.pages]);
		const { written, refused } = await writtenFrom(source, bytes, total);
		const problems = [...refused];
		const checked = await Promise.all(
			written.map((w) => checkWritten(source, w.selection, w.pages, w.bytes, work)),
		);
		problems.push(...checked.flat());
		found.push(...problems.map((p) => ({ ...p, producer: name, features: document.features })));
		document.checked = written.length;
		document.scanned = {
			images: source.images.length,
			markers: [...new Set(source.markers.flat().map((m) => m.replace(/\d+/, '<n>')))],
		};
		expect(problems.map(lineOf)).toEqual([]);
	});
});

/** The problems counted by check and producer, with the producer's features. */
function summary(problems) {
	const groups = new Map();
	for (const p of problems) {
		const key = `${p.check} | ${p.producer}`;
		const group = groups.get(key) ?? { count: 0, files: new Set(), features: p.features };
		group.count++;
		group.files.add(p.selection);
		groups.set(key, group);
	}
	return [...groups].map(
		([key, g]) =>
			`  ${key} | ${g.count} in ${g.files.size} written files | ${g.features.join(', ')}`,
	);
}
