/**
 * The page count made before a document is sent (issue 31): the committed corpus made by real
 * producers (test/fixtures/pages, MANIFEST.json, make.sh), the emulator's own PDFs, hostile PDFs
 * built here, cross-reference and object streams stored plain or FlateDecode (with PNG
 * predictors, corrupt, bombs; the deflate data made by zlib in test/fixtures/pages/deflate.js),
 * and TIFF directory chains in both byte orders.
 */
import { detectKind } from '../../../../nodes/DocumentOcr/documents/check';
import { countPages, countWithWork, PAGE_LIMITS } from '../../../../nodes/DocumentOcr/formats';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const emulator = require('../../../../emulator/documents.js') as {
	makePdf(pages: string[]): Buffer;
	makePng(text?: string): Buffer;
	makeJpeg(text?: string): Buffer;
	makeWebp(text?: string): Buffer;
	makeTiff(text?: string): Buffer;
	makeGif(text?: string): Buffer;
	countPages(buf: Buffer): number;
};

interface Entry {
	file: string;
	producer: string;
	features: string;
	truePages: number;
	counted: number | null;
	bytes: Buffer;
}
interface Images {
	gif(frames: number): Buffer;
	apng(frames: number): Buffer;
	pngChunks(chunks: number): Buffer;
	webp(frames: number): Buffer;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const images = require('../../../fixtures/pages/crafted.js') as Images;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadCorpus, corpusFiles, reviewFile } = require('../../../fixtures/pages/load.js') as {
	loadCorpus(): Entry[];
	corpusFiles(): string[];
	reviewFile(name: string): Buffer;
};
const corpus = loadCorpus();
interface Deflate {
	deflate(bytes: Buffer): Buffer;
	bomb(megabytes: number): Buffer;
	deflateVariants(bytes: Buffer): Array<{ name: string; data: Buffer }>;
	zlibInflate(bytes: Buffer): { data: Buffer } | { error: string };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const helpers = require('../../../fixtures/pages/deflate.js') as Deflate;
const { deflate, bomb, deflateVariants, zlibInflate } = helpers;

/** What a count of `pages` says: a TIFF or an image of more than one counts with its assumption. */
function certainOr(kind: 'pdf' | 'tiff' | 'gif' | 'png' | 'webp', pages: number) {
	const what = {
		tiff: 'the directories (pages) of a multi-page TIFF are billed; counted as one page per directory',
		gif: 'the frames of an animated GIF are billed; counted as one page per frame',
		png: 'the frames of an animated PNG are billed; counted as one page per frame',
		webp: 'the frames of an animated WEBP are billed; counted as one page per frame',
	};
	return kind === 'pdf' || pages === 1
		? { pages }
		: { pages, assumed: `the service's spec does not say how ${what[kind]}` };
}

async function count(buf: Buffer) {
	const kind = detectKind(buf.subarray(0, 1024));
	if (!kind) throw new Error('not a document');
	return countPages(buf, kind);
}

/**
 * The work a PDF's count took, by the counter's meter: about a unit per byte read, inflated or
 * decoded, the same on any machine (a test of "quickly" holds the count to it, not to a clock;
 * loops.test.ts holds every loop of the readers to the meter).
 */
async function workOf(buf: Buffer) {
	return (await countWithWork(buf, 'pdf')).work;
}

describe('the corpus: every file counts its true pages', () => {
	test.each(corpus.map((e) => [e.file, e] as const))('%s', async (_file, entry) => {
		expect(entry.counted).toBe(entry.truePages);
		expect(await count(entry.bytes)).toEqual(
			certainOr(entry.file.endsWith('.pdf') ? 'pdf' : 'tiff', entry.truePages),
		);
	});

	test('MANIFEST.json lists every file of the corpus', async () => {
		expect(corpusFiles().sort()).toEqual(corpus.map((e) => e.file).sort());
	});

	test('the corpus stays small', async () => {
		const total = corpus.reduce((sum, e) => sum + e.bytes.length, 0);
		expect(total).toBeLessThan(500_000);
	});
});

describe("the emulator's PDFs: the same count as the emulator's own", () => {
	test.each([1, 2, 7, 40])('%i pages', async (n) => {
		const pdf = emulator.makePdf(Array.from({ length: n }, (_, i) => `page ${i + 1}`));
		expect(await count(pdf)).toEqual({ pages: n });
		expect(emulator.countPages(pdf)).toBe(n);
	});

	test.each(['makePng', 'makeJpeg', 'makeWebp', 'makeGif', 'makeTiff'] as const)(
		'%s: one page',
		async (make) => {
			const buf = emulator[make]('hello');
			expect(await count(buf)).toEqual({ pages: 1 });
			expect(emulator.countPages(buf)).toBe(1);
		},
	);
});

// ---------------------------------------------------------------- hostile PDFs

/** A PDF from object bodies (numbered from 1), with a correct classic xref table. */
function pdf(objects: string[], trailer = '/Root 1 0 R'): Buffer {
	let out = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((body, i) => {
		offsets.push(out.length);
		out += `${i + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = out.length;
	out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';

async function expectUnknown(buf: Buffer, reason: RegExp) {
	const result = await count(buf);
	expect(result.pages).toBeNull();
	expect((result as { reason: string }).reason).toMatch(reason);
}

/** A hybrid file: the table marks the page free, only the /XRefStm stream lists it. */
function hybrid(filter = '', encode = (row: Buffer) => row): Buffer {
	let out = '%PDF-1.5\n';
	const at: number[] = [];
	const add = (body: string) => {
		at.push(out.length);
		out += `${at.length} 0 obj\n${body}\nendobj\n`;
	};
	add('<< /Type /Catalog /Pages 2 0 R >>');
	add('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
	add('<< /Type /Page /Parent 2 0 R >>');
	const row = Buffer.from([1, 0, 0, 0, 0, 0]);
	row.writeUInt32BE(at[2], 1);
	const data = encode(row);
	const stmAt = out.length;
	out += `4 0 obj\n<< /Type /XRef /W [1 4 1] /Index [3 1] /Size 5 ${filter} /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\n`;
	const xref = out.length;
	const entry = (o: number) => `${String(o).padStart(10, '0')} 00000 n \n`;
	out += `xref\n0 5\n0000000000 65535 f \n${entry(at[0])}${entry(at[1])}0000000000 00000 f \n${entry(stmAt)}`;
	out += `trailer\n<< /Size 5 /Root 1 0 R /XRefStm ${stmAt} >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

describe('hybrid files (a table and an /XRefStm)', () => {
	test('an object listed only in the cross-reference stream is found there', async () => {
		expect(await count(hybrid())).toEqual({ pages: 1 });
	});

	test('a FlateDecode /XRefStm is inflated', async () => {
		expect(await count(hybrid('/Filter /FlateDecode', deflate))).toEqual({ pages: 1 });
	});

	test('an /XRefStm that is not deflate data: unknown, and the reason says why', async () => {
		await expectUnknown(
			hybrid('/Filter /FlateDecode'),
			/object 3 is free in the cross-reference \(the \/XRefStm was not read: the cross-reference stream is not valid FlateDecode data/,
		);
	});
});

describe('names with #xx escapes (ISO 32000 §7.3.5), as readers decode them', () => {
	test("the review's file: escaped /Kids and /Count after plain ones, the last wins (3, as pdfinfo, qpdf, mutool and pdf.js count)", async () => {
		expect(await count(reviewFile('08-name-escape-keys-3.pdf'))).toEqual({ pages: 3 });
	});

	test('escaped keys and names: /K#69ds, /Coun#74, /Type /Pag#65 and /P#61ges, /Ty#70e', async () => {
		const file = pdf([
			'<< /Typ#65 /C#61talog /P#61ges 2 0 R >>',
			'<< /Ty#70e /Page#73 /K#69ds [3 0 R 4 0 R] /Coun#74 2 >>',
			'<< /Type /Pag#65 /Parent 2 0 R >>',
			'<< /#54ype /#50#61#67#65 /Parent 2 0 R >>',
		]);
		expect(await count(file)).toEqual({ pages: 2 });
	});

	test('a # not followed by two hex digits stays a #: /K#6ids is not /Kids', async () => {
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /K#6ids [3 0 R] /Count 1 >>', PAGE]),
			/page tree node 2 has no \/Kids/,
		);
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Pag#6 >>']),
			/page tree object 3 is a \/Pag#6, neither a page nor pages/,
		);
	});

	test('a name escaping a delimiter or a space is one name', async () => {
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Pa#20ge >>']),
			/page tree object 3 is a \/Pa ge, neither/,
		);
	});
});

/**
 * An incremental update written as a cross-reference stream (no filter, /Index, /Prev) after
 * `base`: new objects from number 20, a new catalog (20) whose tree has `pages` pages. Offsets
 * count from `base`'s start less `prefix` bytes (the junk before its header).
 */
function xrefStreamUpdate(base: Buffer, pages: number, prefix = 0, root = '/Root 20 0 R'): Buffer {
	const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))![1];
	const kids = Array.from({ length: pages }, (_, i) => `${22 + i} 0 R`).join(' ');
	const bodies = [
		'<< /Type /Catalog /Pages 21 0 R >>',
		`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
		...Array.from({ length: pages }, () => '<< /Type /Page /Parent 21 0 R >>'),
	];
	let text = '';
	const offsets: number[] = [];
	bodies.forEach((body, i) => {
		offsets.push(base.length - prefix + text.length);
		text += `${20 + i} 0 obj\n${body}\nendobj\n`;
	});
	const xrefNum = 20 + bodies.length;
	const at = base.length - prefix + text.length;
	offsets.push(at);
	const rows = Buffer.alloc(offsets.length * 6);
	offsets.forEach((o, i) => {
		rows[i * 6] = 1;
		rows.writeUInt32BE(o, i * 6 + 1);
	});
	const head = `${xrefNum} 0 obj\n<< /Type /XRef /Size ${xrefNum + 1} /Index [20 ${offsets.length}] /W [1 4 1] ${root} /Prev ${prev} /Length ${rows.length} >>\nstream\n`;
	return Buffer.concat([
		base,
		Buffer.from(text + head, 'latin1'),
		rows,
		Buffer.from(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF\n`, 'latin1'),
	]);
}

const THREE_PAGES = [
	CATALOG,
	'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>',
	PAGE,
	PAGE,
	PAGE,
];
const breakStartxref = (file: Buffer) =>
	Buffer.from(
		file.toString('latin1').replace(/startxref\n\d+\n%%EOF\n$/, 'startxref\n1\n%%EOF\n'),
		'latin1',
	);

describe('bytes before %PDF: offsets count from the header (as readers read them), else from the start', () => {
	const bom = Buffer.from([0xef, 0xbb, 0xbf]);

	test("the review's file: a BOM, a table, then an update as a cross-reference stream with a new catalog (5, as readers count)", async () => {
		expect(await count(reviewFile('22-bom-xrefstm-update-newcatalog-5.pdf'))).toEqual({
			pages: 5,
		});
	});

	test.each(corpus.filter((e) => e.file.endsWith('.pdf')).map((e) => [e.file, e] as const))(
		'%s with a BOM or 900 bytes before it',
		async (_file, entry) => {
			for (const junk of [bom, Buffer.from(`${'x'.repeat(899)}\n`, 'latin1')])
				expect(await count(Buffer.concat([junk, entry.bytes]))).toEqual({
					pages: entry.truePages,
				});
		},
	);

	test('offsets that count from the file start, junk included, are read too', async () => {
		const junk = Buffer.from('Content-Type: application/pdf\r\n\r\n', 'latin1');
		const file = Buffer.from(
			Buffer.concat([junk, pdf(THREE_PAGES)])
				.toString('latin1')
				.replace(
					/(\d{10}) 00000 n/g,
					(_m, o: string) => `${String(Number(o) + junk.length).padStart(10, '0')} 00000 n`,
				)
				.replace(/startxref\n(\d+)/, (_m, o: string) => `startxref\n${Number(o) + junk.length}`),
			'latin1',
		);
		expect(await count(file)).toEqual({ pages: 3 });
	});
});

describe('the object scan takes the root of the newest revision', () => {
	test('a table, then an update as a cross-reference stream with a new catalog: the stream is newer', async () => {
		const file = xrefStreamUpdate(pdf(THREE_PAGES), 5);
		expect(await count(file)).toEqual({ pages: 5 });
		// The cross-reference unreadable: the scan stands in, and the newer dictionary names the root.
		expect(await count(breakStartxref(file))).toEqual({ pages: 5 });
	});

	test('a cross-reference stream, then an update as a table with its trailer: the trailer is newer', async () => {
		const first = xrefStreamUpdate(pdf(THREE_PAGES), 5);
		const at = first.length;
		const update = `2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>\nendobj\n`;
		const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(first.toString('latin1'))![1];
		const xref = at + update.length;
		const file = Buffer.concat([
			first,
			Buffer.from(
				`${update}xref\n2 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 30 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`,
				'latin1',
			),
		]);
		expect(await count(file)).toEqual({ pages: 2 });
		// Object 2 is defined twice, so the scan cannot say which holds: unknown, not 5.
		const scanned = await count(breakStartxref(file));
		expect(scanned.pages).toBeNull();
	});

	test('the newest revision names no root: unknown, not the older root', async () => {
		const file = breakStartxref(xrefStreamUpdate(pdf(THREE_PAGES), 5, 0, ''));
		await expectUnknown(
			file,
			/the newest trailer or cross-reference stream names no document catalog/,
		);
	});
});

describe('hostile PDFs: unknown (or the certain count), never a throw or a hang', () => {
	test('a well-formed control counts', async () => {
		expect(
			await count(pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE])),
		).toEqual({ pages: 2 });
	});

	test('a two-level tree (intermediate /Pages nodes, /Count and /Kids indirect)', async () => {
		expect(
			await count(
				pdf([
					CATALOG,
					'<< /Type /Pages /Kids 9 0 R /Count 10 0 R >>',
					'<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >>',
					'<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R] /Count 2 >>',
					PAGE,
					PAGE,
					PAGE,
					PAGE,
					'[3 0 R 4 0 R]',
					'4',
				]),
			),
		).toEqual({ pages: 4 });
	});

	test('values nothing reads are passed over: strings, nested dictionaries, references, /__proto__', async () => {
		const pages =
			'<< /__proto__ << /Count 7 >> /Type /Pages /X (a (nested) string, an escaped \\) and \\( ) ' +
			'/Y << /Z [1 0 R <abcd> 2.5 -3 true null] /R 4 0 R >> /Kids [3 0 R 4 0 R] /Count 2 >>';
		expect(await count(pdf([CATALOG, pages, PAGE, PAGE]))).toEqual({ pages: 2 });
	});

	test('circular /Kids', async () => {
		await expectUnknown(
			pdf([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
				'<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>',
			]),
			/twice \(a cycle/,
		);
	});

	test('a page listed twice', async () => {
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>', PAGE]),
			/twice/,
		);
	});

	test('a 10,000-deep tree', async () => {
		const depth = 10_000;
		const objects = [CATALOG];
		for (let i = 0; i < depth; i++)
			objects.push(`<< /Type /Pages /Kids [${i + 3} 0 R] /Count 1 >>`);
		objects.push(PAGE);
		await expectUnknown(pdf(objects), new RegExp(`deeper than ${PAGE_LIMITS.maxTreeDepth}`));
	});

	test('/Count 999999999', async () => {
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>', PAGE]),
			/claims 999999999 pages/,
		);
	});

	test.each(['-3', '2.5', '(two)', '/Two'])('/Count %s', async (value) => {
		await expectUnknown(
			pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count ${value} >>`, PAGE]),
			/no valid \/Count/,
		);
	});

	test('a /Count that contradicts the kids', async () => {
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 >>', PAGE, PAGE]),
			/\/Count \(5\) contradicts its pages \(2\)/,
		);
	});

	test('a truncated file (no startxref): a scan stands in only because it is certain', async () => {
		const whole = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE]);
		const cut = whole.subarray(0, whole.indexOf('xref'));
		expect(await count(cut)).toEqual({ pages: 2 });
		await expectUnknown(whole.subarray(0, 60), /no startxref/);
	});

	test('the scan reads object headers with any white space, and only whole numbers before obj', async () => {
		const objects = [CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE];
		const text = pdf(objects)
			.toString('latin1')
			.replace(/startxref\n\d+/, 'startxref\n1');
		const spaced = (headers: string[]) =>
			Buffer.from(
				headers.reduce((t, header, i) => t.replace(`\n${i + 1} 0 obj\n`, header), text),
				'latin1',
			);
		// Tabs, CR LF, form feeds, several spaces, a large generation; each header still found.
		expect(
			await count(
				spaced(['\n1 0 obj\n', '\n2\t0\tobj ', '\r\n3 \r\n 00000\x0cobj\n', '\n4  99999  obj\n']),
			),
		).toEqual({ pages: 2 });
		// A header not standing alone: glued to a word, a 6-digit generation, an 11-digit number.
		for (const bad of ['\nx4 0 obj\n', '\n4 000000 obj\n', '\n00000000004 0 obj\n', '\n4 0obj\n'])
			await expectUnknown(spaced(['\n1 0 obj\n', '\n2 0 obj\n', '\n3 0 obj\n', bad]), /object 4/);
	});

	test('an xref pointing nowhere: the scan, or unknown when an object is defined twice', async () => {
		const good = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]);
		const broken = Buffer.from(
			good.toString('latin1').replace(/startxref\n\d+/, 'startxref\n999999'),
			'latin1',
		);
		expect(await count(broken)).toEqual({ pages: 1 });
		// An object table that points into the middle of objects.
		const shifted = Buffer.from(
			good
				.toString('latin1')
				.replace(
					/(\d{10}) 00000 n/g,
					(_m, o: string) => `${String(Number(o) + 3).padStart(10, '0')} 00000 n`,
				),
			'latin1',
		);
		expect(await count(shifted)).toEqual({ pages: 1 });
		// Two definitions of the page tree root and no readable xref: which one holds is not certain.
		const twice = Buffer.concat([
			broken.subarray(0, broken.indexOf('xref')),
			Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>\nendobj\n', 'latin1'),
		]);
		await expectUnknown(twice, /not in the cross-reference/);
	});

	test('a cross-reference stream that is not deflate data: no scan stands in (object streams)', async () => {
		const junk = Buffer.alloc(4096, 0x78);
		const body = `%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${junk.length} >>\nstream\n`;
		const head = Buffer.from(body, 'latin1');
		const xrefAt = head.length + junk.length + 20;
		const tail = Buffer.from(
			`\nendstream\nendobj\n`.padEnd(20, ' ') +
				`2 0 obj\n<< /Type /XRef /W [1 2 1] /Size 3 /Root 3 0 R /Filter /FlateDecode /Length 4 >>\nstream\nxxxx\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`,
			'latin1',
		);
		await expectUnknown(
			Buffer.concat([head, junk, tail]),
			/cross-reference stream is not valid FlateDecode data.*no scan can stand in/,
		);
	});

	test('a cross-reference /Prev loop', async () => {
		let text = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]).toString('latin1');
		const xrefAt = /startxref\n(\d+)/.exec(text)![1];
		text = text.replace('/Root 1 0 R', `/Root 1 0 R /Prev ${xrefAt}`);
		// A loop makes the table unreadable; the scan then finds the one certain answer.
		expect(await count(Buffer.from(text, 'latin1'))).toEqual({ pages: 1 });
	});

	test('values nothing reads are passed over whole: brackets in strings, hex strings and comments', async () => {
		const resources =
			'/Resources << /X (a >> string \\) with ] and [ ( nested ) ) /Y [ (]) <3E3E> [ << >> ] ] ' +
			'% a comment >> ] with brackets\n /Z << /Deep [ [ [ 1 2 R ] ] ] >> >>';
		const page = `<< /Type /Page /Parent 2 0 R ${resources} /MediaBox [0 0 612 792] >>`;
		const pages = '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>';
		expect(await count(pdf([CATALOG, pages, page, page]))).toEqual({ pages: 2 });
		expect(await count(compressed([CATALOG, pages, page, page]))).toEqual({ pages: 2 });
	});

	test('a stray or mismatched bracket in a value nothing reads: unknown, and where', async () => {
		for (const value of ['[ 1 >> ]', '<< /A [ 1 >> ]', '[ ) ]', '<< /A { >>'])
			await expectUnknown(
				pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count 1 /X ${value} >>`, PAGE]),
				/an unexpected "[>)}{]" at byte \d+/,
			);
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 /X [ (never closed ] >>', PAGE]),
			/string is not closed|ends inside/,
		);
	});

	test('a long number that is not one: unknown at once, its digits read once', async () => {
		const file = pdf([
			CATALOG,
			`<< /Type /Pages /Kids [3 0 R] /Count 1${'1'.repeat(200_000)}x >>`,
			PAGE,
		]);
		await expectUnknown(file, /an unreadable number "1{20}" at byte \d+/);
		// Read once: a few units of work per byte of the file (digits read again at each one would
		// be billions).
		expect(await workOf(file)).toBeLessThan(4 * file.length);
		for (const number of ['+.5', '-3.', '2.5', '.5'])
			expect(
				await count(
					pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count 1 /Size ${number} >>`, PAGE]),
				),
			).toEqual({ pages: 1 });
		for (const number of ['1.2.3', '-', '.', '+-1', '1e5'])
			await expectUnknown(
				pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count 1 /Size ${number} >>`, PAGE]),
				/an unreadable number/,
			);
	});

	test('/Kids holding arrays of /Kids that are not references: each read once, the reason the kid', async () => {
		let nested = '1';
		for (let i = 0; i < 15; i++) nested = `<< /Kids [3 0 R ${nested}] >>`;
		await expectUnknown(
			pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R ${nested}] /Count 1 >>`, PAGE]),
			/page tree node 2 has a kid that is not a reference/,
		);
	});

	test('an object larger than is read of one object: unknown, and why', async () => {
		const big = `<< /Type /Page /Parent 2 0 R /X (${'x'.repeat(50_000)}) >>`;
		const file = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', big]);
		expect(await count(file)).toEqual({ pages: 1 });
		await withLimits({ maxObjectBytes: 10_000 }, () =>
			expectUnknown(file, /an object is larger than 10000 bytes, more than is read of one object/),
		);
	});

	test('deeply nested arrays inside an object', async () => {
		await expectUnknown(
			pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count 1 /X ${'['.repeat(100_000)} >>`, PAGE]),
			/nested too deeply/,
		);
	});

	test('an xref that points thousands of kids at one large object: each read stops at its header', async () => {
		const n = 20_000;
		const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ');
		const big = `<< /Type /Page /Parent 2 0 R /Pad (${'x'.repeat(200_000)}) >>`;
		let text = pdf([CATALOG, `<< /Type /Pages /Kids [${kids}] /Count ${n} >>`, big]).toString(
			'latin1',
		);
		const entry = /\n(\d{10} 00000 n \n)trailer/.exec(text)![1]; // object 3's entry
		text = text.replace(/xref\n0 4\n/, `xref\n0 ${n + 3}\n`).replace(entry, entry.repeat(n));
		const result = await count(Buffer.from(text, 'latin1'));
		expect(result.pages).toBeNull();
		expect((result as { reason: string }).reason).toMatch(/where it is not/);
	});

	test.each([
		['garbage', Buffer.from('%PDF-1.4\n' + '\u0000\u00ff<<[(/'.repeat(5000), 'latin1')],
		['a header alone', Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1')],
		[
			'random bytes',
			Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 256)).fill(0x25, 0, 1),
		],
	])('%s', async (_label, buf) => {
		const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), buf]);
		const result = await countPages(bytes, 'pdf');
		expect(result.pages).toBeNull();
		expect((result as { reason: string }).reason).toMatch(/\w/);
	});
});

// ---------------------------------------------------------------- compressed streams

/** How a stream's bytes are stored: the bytes and the dictionary entries that say so. */
type Encoding = (data: Buffer) => { data: Buffer; dict: string };

const plain: Encoding = (data) => ({ data, dict: '' });
const flate: Encoding = (data) => ({ data: deflate(data), dict: '/Filter /FlateDecode' });

/** The PNG predictor of `columns`-byte rows (one byte per sample), row r with type types[r % n]. */
function predict(data: Buffer, columns: number, types: number[]): Buffer {
	const rows = data.length / columns;
	const out = Buffer.alloc(rows * (columns + 1));
	const at = (r: number, i: number) => (r >= 0 && i >= 0 ? data[r * columns + i] : 0);
	for (let r = 0; r < rows; r++) {
		const type = types[r % types.length];
		out[r * (columns + 1)] = type;
		for (let i = 0; i < columns; i++) {
			const [x, a, b, c] = [at(r, i), at(r, i - 1), at(r - 1, i), at(r - 1, i - 1)];
			const p = a + b - c;
			const paeth =
				Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
					? a
					: Math.abs(p - b) <= Math.abs(p - c)
						? b
						: c;
			const base = [0, a, b, (a + b) >> 1, paeth][type];
			out[r * (columns + 1) + 1 + i] = (x - base) & 0xff;
		}
	}
	return out;
}

/** FlateDecode over a PNG predictor (/Predictor 12, the usual one, unless given). */
const png =
	(columns: number, types = [2], params = `/Predictor 12 /Columns ${columns}`): Encoding =>
	(data) => ({
		data: deflate(predict(data, columns, types)),
		dict: `/Filter /FlateDecode /DecodeParms << ${params} >>`,
	});

/**
 * A PDF 1.5 with no table: objects 1..n in object streams of `perStream` objects each (numbered
 * after them), and a cross-reference stream (/W [1 4 2], rows of 7 bytes) after those.
 */
function compressed(
	objects: string[],
	{ objStm = flate, xref = png(7), perStream = objects.length } = {} as {
		objStm?: Encoding;
		xref?: Encoding;
		perStream?: number;
	},
): Buffer {
	const n = objects.length;
	const streams = Math.ceil(n / perStream);
	const parts: Buffer[] = [];
	let length = 0;
	const put = (b: Buffer | string) => {
		const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
		parts.push(buf);
		length += buf.length;
	};
	put('%PDF-1.5\n');
	const offsets: number[] = [];
	for (let s = 0; s < streams; s++) {
		const group = objects.slice(s * perStream, (s + 1) * perStream);
		let header = '';
		let body = '';
		group.forEach((o, i) => {
			header += `${s * perStream + i + 1} ${body.length} `;
			body += `${o}\n`;
		});
		const stored = objStm(Buffer.from(header + body, 'latin1'));
		offsets.push(length);
		put(
			`${n + s + 1} 0 obj\n<< /Type /ObjStm /N ${group.length} /First ${header.length} ${stored.dict} /Length ${stored.data.length} >>\nstream\n`,
		);
		put(stored.data);
		put('\nendstream\nendobj\n');
	}
	const xrefNum = n + streams + 1;
	const xrefAt = length;
	const rows = Buffer.alloc((xrefNum + 1) * 7);
	const row = (num: number, type: number, a: number, b: number) => {
		rows[num * 7] = type;
		rows.writeUInt32BE(a, num * 7 + 1);
		rows.writeUInt16BE(b, num * 7 + 5);
	};
	row(0, 0, 0, 65535);
	for (let i = 1; i <= n; i++) row(i, 2, n + Math.ceil(i / perStream), (i - 1) % perStream);
	offsets.forEach((o, s) => row(n + s + 1, 1, o, 0));
	row(xrefNum, 1, xrefAt, 0);
	const stored = xref(rows);
	put(
		`${xrefNum} 0 obj\n<< /Type /XRef /W [1 4 2] /Size ${xrefNum + 1} /Root 1 0 R ${stored.dict} /Length ${stored.data.length} >>\nstream\n`,
	);
	put(stored.data);
	put(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`);
	return Buffer.concat(parts);
}

const TWO_PAGES = [CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE];

describe('compressed cross-reference and object streams (FlateDecode)', () => {
	test.each([
		['a PNG-predicted cross-reference stream, a Flate object stream', {}],
		['nothing compressed', { objStm: plain, xref: plain }],
		['no predictor', { xref: flate }],
		[
			'/Predictor 1',
			{
				xref: (data: Buffer) => ({
					data: deflate(data),
					dict: '/Filter /FlateDecode /DecodeParms << /Predictor 1 /Columns 7 >>',
				}),
			},
		],
		[
			'every PNG row type (/Predictor 15)',
			{ xref: png(7, [0, 1, 2, 3, 4], '/Predictor 15 /Columns 7') },
		],
		[
			'the filter and its parameters as arrays',
			{
				xref: (data: Buffer) => ({
					data: deflate(predict(data, 7, [4])),
					dict: '/Filter [/FlateDecode] /DecodeParms [<< /Predictor 12 /Columns 7 >>]',
				}),
			},
		],
		[
			'/Colors 1 /BitsPerComponent 8 said',
			{ xref: png(7, [3], '/Predictor 12 /Colors 1 /BitsPerComponent 8 /Columns 7') },
		],
	])('%s', async (_label, options) => {
		expect(await count(compressed(TWO_PAGES, options))).toEqual({ pages: 2 });
	});

	test('300 pages in 30 object streams, each inflated once', async () => {
		const n = 300;
		const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ');
		const objects = [
			CATALOG,
			`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`,
			...Array.from({ length: n }, () => PAGE),
		];
		// As many inflations as streams: the cross-reference stream and one per object stream.
		const saved = PAGE_LIMITS.maxInflatedStreams;
		PAGE_LIMITS.maxInflatedStreams = 1 + Math.ceil((n + 2) / 10);
		try {
			expect(await count(compressed(objects, { perStream: 10 }))).toEqual({ pages: n });
		} finally {
			PAGE_LIMITS.maxInflatedStreams = saved;
		}
	});

	test('one corrupt object stream among many: unknown, and no stray rejection', async () => {
		const n = 100;
		const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ');
		const objects = [
			CATALOG,
			`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`,
			...Array.from({ length: n }, () => PAGE),
		];
		let streams = 0;
		const sometimesBroken: Encoding = (data) => {
			const stored = flate(data);
			if (++streams === 5) stored.data.fill(0x41, 4, 12);
			return stored;
		};
		await expectUnknown(
			compressed(objects, { perStream: 5, objStm: sometimesBroken }),
			/object stream \d+ is not valid FlateDecode data/,
		);
	});

	test('wrong /Columns for the predictor', async () => {
		await expectUnknown(
			compressed(TWO_PAGES, { xref: png(7, [2], '/Predictor 12 /Columns 5') }),
			/predictor rows \(\/Columns 5\) do not divide its 56 bytes/,
		);
		// Rows that divide the data but are not its rows: the offsets they give are wrong.
		const result = await count(
			compressed(TWO_PAGES, { xref: png(7, [2], '/Predictor 12 /Columns 6') }),
		);
		expect(result.pages).toBeNull();
	});

	test('an unknown PNG row type, a TIFF predictor, an unknown filter', async () => {
		const badType: Encoding = (data) => {
			const predicted = predict(data, 7, [2]);
			predicted[8] = 9;
			return {
				data: deflate(predicted),
				dict: '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>',
			};
		};
		await expectUnknown(
			compressed(TWO_PAGES, { xref: badType }),
			/unknown PNG predictor type 9 in row 1/,
		);
		await expectUnknown(
			compressed(TWO_PAGES, { xref: png(7, [2], '/Predictor 2 /Columns 7') }),
			/uses \/Predictor 2, which is not read here/,
		);
		await expectUnknown(
			compressed(TWO_PAGES, { objStm: (data) => ({ data, dict: '/Filter /LZWDecode' }) }),
			/object stream 5 is encoded with LZWDecode, which is not read here/,
		);
		await expectUnknown(
			compressed(TWO_PAGES, {
				objStm: (data) => ({ data: deflate(data), dict: '/Filter [/ASCIIHexDecode /FlateDecode]' }),
			}),
			/encoded with ASCIIHexDecode, FlateDecode/,
		);
	});

	test('every shape of deflate data zlib makes (blocks stored, fixed, dynamic; flushed; small windows)', async () => {
		const pages = Array.from({ length: 60 }, () => PAGE);
		const objects = [
			CATALOG,
			`<< /Type /Pages /Kids [${pages.map((_, i) => `${i + 3} 0 R`).join(' ')}] /Count 60 >>`,
			...pages,
		];
		const shapes = deflateVariants(Buffer.from('x'));
		for (const { name } of shapes) {
			const shaped: Encoding = (data) => ({
				data: deflateVariants(data).find((v) => v.name === name)!.data,
				dict: '/Filter /FlateDecode',
			});
			expect([name, await count(compressed(objects, { objStm: shaped, xref: shaped }))]).toEqual([
				name,
				{ pages: 60 },
			]);
		}
	});

	test('bytes after the end of the deflate data within /Length (an end of line, a word): still read', async () => {
		for (const after of ['\n', '\r\n', ' \r\n\r\n', 'endstream']) {
			const trailing: Encoding = (data) => ({
				data: Buffer.concat([deflate(data), Buffer.from(after, 'latin1')]),
				dict: '/Filter /FlateDecode',
			});
			expect(await count(compressed(TWO_PAGES, { objStm: trailing, xref: trailing }))).toEqual({
				pages: 2,
			});
		}
	});

	test('one bit changed in a deflate stream: unknown where zlib refuses it, never another count', async () => {
		let seed = 5;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		const seen = { refused: 0, same: 0, other: 0 };
		for (let i = 0; i < 150; i++) {
			// Set by the encoding below, when the file is made.
			let zlib = { error: '' } as { data: Buffer } | { error: string };
			let original = Buffer.alloc(0) as Buffer;
			const corrupted: Encoding = (data) => {
				const bad = deflate(data);
				bad[2 + Math.floor(random() * (bad.length - 2))] ^= 1 << Math.floor(random() * 8);
				zlib = zlibInflate(bad);
				original = data;
				return { data: bad, dict: '/Filter /FlateDecode' };
			};
			const result = await count(compressed(TWO_PAGES, { objStm: corrupted }));
			if ('error' in zlib) {
				seen.refused++;
				expect(result.pages).toBeNull();
			} else if (zlib.data.equals(original)) {
				seen.same++;
				expect(result).toEqual({ pages: 2 });
			} else {
				seen.other++;
				expect([null, 2]).toContain(result.pages);
			}
		}
		expect(seen.refused).toBeGreaterThan(100);
	});

	test('corrupt and cut-off deflate data', async () => {
		const corrupt: Encoding = (data) => {
			const stored = flate(data);
			stored.data.fill(0xff, 2, 10);
			return stored;
		};
		await expectUnknown(
			compressed(TWO_PAGES, { objStm: corrupt }),
			/object stream 5 is not valid FlateDecode data/,
		);
		const cut: Encoding = (data) => {
			const stored = flate(data);
			return { ...stored, data: stored.data.subarray(0, stored.data.length - 6) };
		};
		await expectUnknown(
			compressed(TWO_PAGES, { objStm: cut }),
			/object stream 5 is not valid FlateDecode data/,
		);
		await expectUnknown(
			compressed(TWO_PAGES, { objStm: (data) => ({ ...flate(data), data: Buffer.alloc(0) }) }),
			/not valid FlateDecode data/,
		);
	});

	test('a Flate bomb (1 GB of zeros) as the object stream: cancelled at the cap, quickly', async () => {
		const file = compressed(TWO_PAGES, {
			objStm: () => ({ data: bomb(1024), dict: '/Filter /FlateDecode' }),
		});
		expect(file.length).toBeLessThan(1_200_000);
		// Cancelled at the stream's share of memory: half the file's size and 128 kB.
		const share = Math.floor(file.length / 2) + 131_072;
		await expectUnknown(
			file,
			new RegExp(
				`object stream 5 inflates to more than ${share} bytes, more than a file of this size may hold in memory`,
			),
		);
		// Quickly: the work of reading the file and inflating its share, not the gigabyte.
		expect(await workOf(file)).toBeLessThan(4 * file.length);
		// With no share of memory below it, at the absolute cap of one stream.
		await withLimits({ inflatedStreamFactor: 1000 }, () =>
			expectUnknown(
				file,
				new RegExp(`inflates to more than ${PAGE_LIMITS.maxInflatedStream} bytes`),
			),
		);
	});

	test('a Flate bomb as the cross-reference stream: unknown, no scan', async () => {
		await expectUnknown(
			compressed(TWO_PAGES, { xref: () => ({ data: bomb(1024), dict: '/Filter /FlateDecode' }) }),
			/cross-reference stream inflates to more than \d+ bytes, more than a file of this size may hold in memory/,
		);
	});

	test('bytes changed at random in a compressed file: a count or a reason, never a rejection', async () => {
		const good = compressed(TWO_PAGES);
		let seed = 7;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		for (let i = 0; i < 200; i++) {
			const bad = Buffer.from(good);
			for (let k = 0; k < 3; k++)
				bad[Math.floor(random() * bad.length)] = Math.floor(random() * 256);
			const result = await countPages(bad, 'pdf');
			if (result.pages === null) expect(result.reason).toMatch(/\w/);
			else expect(result.pages).toBe(2);
		}
	});

	test('a small file whose streams inflate to far more than its size: the file total', async () => {
		const file = compressed(TWO_PAGES, {
			objStm: () => ({ data: bomb(4), dict: '/Filter /FlateDecode' }),
		});
		await expectUnknown(file, /object stream 5 inflates to more than \d+ bytes, more than a file/);
		// Streams within their share of memory still meet the total of the file.
		await withLimits({ inflatedStreamFactor: 1000 }, () =>
			expectUnknown(file, /inflate to more bytes than a file of this size allows/),
		);
	});

	test('the number of streams inflated is bounded', async () => {
		const saved = PAGE_LIMITS.maxInflatedStreams;
		PAGE_LIMITS.maxInflatedStreams = 3;
		try {
			const n = 20;
			const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ');
			const objects = [
				CATALOG,
				`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`,
				...Array.from({ length: n }, () => PAGE),
			];
			await expectUnknown(compressed(objects, { perStream: 2 }), /more than 3 compressed streams/);
		} finally {
			PAGE_LIMITS.maxInflatedStreams = saved;
		}
	});
});

/** PAGE_LIMITS changed for one test, put back after it. */
async function withLimits(limits: Partial<typeof PAGE_LIMITS>, run: () => Promise<void>) {
	const saved = { ...PAGE_LIMITS };
	Object.assign(PAGE_LIMITS, limits);
	try {
		await run();
	} finally {
		Object.assign(PAGE_LIMITS, saved);
	}
}

/**
 * Two object streams of `k` pages each, the first also holding the catalog and the page tree
 * root, each padded with a string of `pad` bytes; /Kids takes a page of each stream in turn, so
 * the walk reads the streams alternately.
 */
function bouncing(k: number, pad: number): Buffer {
	const a = Array.from({ length: k }, (_, i) => 4 + i); // objects 4 .. 3 + k
	const b = Array.from({ length: k }, (_, i) => 5 + k + i); // after the second pad, 4 + k
	const kids = a.flatMap((num, i) => [`${num} 0 R`, `${b[i]} 0 R`]).join(' ');
	// Letters at random (a few kB however it is deflated) after `pad` bytes that deflate to little.
	let seed = 11;
	const letter = () =>
		String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 26));
	const padding = `(${'x'.repeat(pad)}${Array.from({ length: 8000 }, letter).join('')})`;
	const objects = [
		CATALOG,
		`<< /Type /Pages /Kids [${kids}] /Count ${2 * k} >>`,
		padding,
		...a.map(() => PAGE),
		padding,
		...b.map(() => PAGE),
	];
	return compressed(objects, { perStream: k + 3 });
}

describe('inflated object streams kept within a share of the file (memory)', () => {
	const n = 300;
	const inOrder = () =>
		compressed(
			[
				CATALOG,
				`<< /Type /Pages /Kids [${Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${n} >>`,
				...Array.from({ length: n }, () => PAGE),
			],
			{ perStream: 10 },
		);

	test('none kept but the one being read: read in order, each stream is still inflated once', async () => {
		await withLimits(
			{ streamCacheFactor: 0, maxInflatedStreams: 1 + Math.ceil((n + 2) / 10) },
			async () => expect(await count(inOrder())).toEqual({ pages: n }),
		);
	});

	test('a walk that bounces between two streams inflates them again, each read counted against the streams it may inflate', async () => {
		const file = bouncing(20, 0);
		// Kept: each stream inflated once (the cross-reference stream, then the two).
		await withLimits({ streamCacheFactor: 1000, maxInflatedStreams: 3 }, async () =>
			expect(await count(file)).toEqual({ pages: 40 }),
		);
		// Let go: the first stream for the catalog, the root and the first kid, then one per kid
		// after it (39), and the cross-reference stream.
		await withLimits({ streamCacheFactor: 0, maxInflatedStreams: 1 + 1 + 39 }, async () =>
			expect(await count(file)).toEqual({ pages: 40 }),
		);
		await withLimits({ streamCacheFactor: 0, maxInflatedStreams: 40 }, () =>
			expectUnknown(file, /more than 40 compressed streams to inflate/),
		);
	});

	test('a hostile file whose streams are larger than its share and read alternately: a reason, within the inflate limit', async () => {
		// 100 kB of padding per stream deflates to a few hundred bytes: each inflation costs far
		// more than the file, so the file's inflate limit ends the walk after a few of them.
		const file = bouncing(200, 100_000);
		expect(file.length).toBeLessThan(40_000);
		await expectUnknown(file, /inflate to more bytes than a file of this size allows/);
		// Within the inflate limit: twice the bytes the file may inflate to, at most (inflating
		// every stream at each bounce would be 400 × 100 kB).
		const limit = PAGE_LIMITS.inflateFactor * file.length + 1_000_000;
		expect(await workOf(file)).toBeLessThan(2 * limit);
		// With every stream kept it counts: the reads bounced, nothing else was wrong.
		await withLimits({ streamCacheFactor: 1000 }, async () =>
			expect(await count(file)).toEqual({ pages: 400 }),
		);
	});

	test('/Kids with a kid that is not a reference after references: refused as before', async () => {
		await expectUnknown(
			compressed([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R 7] /Count 3 >>', PAGE, PAGE]),
			/page tree node 2 has a kid that is not a reference/,
		);
		await expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R /Foo] /Count 1 >>', PAGE]),
			/page tree node 2 has a kid that is not a reference/,
		);
	});
});

// ---------------------------------------------------------------- TIFF

/** A TIFF of `pages` directories of one entry each, in either byte order (or a loop). */
function tiff(pages: number, le: boolean, loop = false): Buffer {
	const buf = Buffer.alloc(8 + pages * 18);
	const u16 = (v: number, o: number) => (le ? buf.writeUInt16LE(v, o) : buf.writeUInt16BE(v, o));
	const u32 = (v: number, o: number) => (le ? buf.writeUInt32LE(v, o) : buf.writeUInt32BE(v, o));
	buf.write(le ? 'II' : 'MM', 0, 'latin1');
	u16(42, 2);
	u32(8, 4);
	for (let i = 0; i < pages; i++) {
		const at = 8 + i * 18;
		u16(1, at);
		u16(256, at + 2); // ImageWidth
		u16(3, at + 4);
		u32(1, at + 6);
		u16(1, at + 10);
		const last = i === pages - 1;
		u32(last ? (loop ? 8 : 0) : at + 18, at + 14);
	}
	return buf;
}

describe('TIFF: the image directory chain', () => {
	test.each([
		[1, true],
		[3, true],
		[1, false],
		[4, false],
	])('%i directories, little endian %s', async (pages, le) => {
		expect(await count(tiff(pages, le))).toEqual(certainOr('tiff', pages));
	});

	test('a loop of directories', async () => {
		expect(await count(tiff(3, true, true))).toEqual({
			pages: null,
			reason: 'the TIFF image directories form a loop',
		});
	});

	test('a directory past the end, and one cut off', async () => {
		const t = tiff(2, false);
		expect((await count(t.subarray(0, 20))).pages).toBeNull();
		const far = Buffer.from(t);
		far.writeUInt32BE(1 << 30, 4);
		expect((await count(far)).pages).toBeNull();
	});
});

// ---------------------------------------------------------------- frames of images

describe('images of several frames: one page per frame, and the count says it assumes so', () => {
	test("the review's 3-frame GIF and 3-directory TIFF", async () => {
		expect(await count(reviewFile('23-animated-3frames.gif'))).toEqual(certainOr('gif', 3));
		expect(await count(reviewFile('24-tiff-3.tif'))).toEqual(certainOr('tiff', 3));
	});

	test.each([
		['GIF', images.gif, 'gif'],
		['APNG', images.apng, 'png'],
		['animated WEBP', images.webp, 'webp'],
	] as const)('%s of 1, 2 and 40 frames (one frame: a certain page)', async (_name, make, kind) => {
		for (const frames of [1, 2, 40])
			expect(await count(make(frames))).toEqual(certainOr(kind, frames));
	});

	test('still images: one page, certain; a PNG read no further than its image data', async () => {
		expect(await count(images.pngChunks(500))).toEqual({ pages: 1 });
		const still = images.pngChunks(1);
		// Chunks after the image data are not read: a file cut after it is still one page.
		expect(await count(still.subarray(0, still.length - 12))).toEqual({ pages: 1 });
		const webp = images.webp(3);
		webp[20] = 0; // VP8X without the animation flag
		expect(await count(webp)).toEqual({ pages: 1 });
	});

	test('a GIF without its trailer counts the frames it holds; cut inside a frame, unknown', async () => {
		const gif = images.gif(3);
		expect(await count(gif.subarray(0, gif.length - 1))).toEqual(certainOr('gif', 3));
		await expectUnknown(gif.subarray(0, gif.length - 5), /the GIF is cut off/);
		const odd = Buffer.from(gif);
		odd[odd.length - 1] = 0x99;
		await expectUnknown(odd, /the GIF has an unknown block \(0x99\)/);
		await expectUnknown(gif.subarray(0, 30), /the GIF is cut off/);
	});

	test('an APNG whose acTL disagrees with its fcTL chunks, or cut before IEND: unknown', async () => {
		const apng = images.apng(3);
		const acTL = apng.indexOf('acTL', 0, 'latin1');
		const wrong = Buffer.from(apng);
		wrong.writeUInt32BE(5, acTL + 4);
		await expectUnknown(wrong, /the animated PNG declares 5 frames \(acTL\) and has 3 \(fcTL\)/);
		await expectUnknown(apng.subarray(0, apng.length - 12), /the PNG is cut off/);
		const huge = Buffer.from(apng);
		huge.writeUInt32BE(0xffffff00, apng.indexOf('fdAT', 0, 'latin1') - 4);
		await expectUnknown(huge, /the PNG chunk at byte \d+ is cut off/);
	});

	test('an animated WEBP cut off, or without frames: unknown', async () => {
		const webp = images.webp(3);
		await expectUnknown(webp.subarray(0, webp.length - 10), /the WEBP is cut off/);
		await expectUnknown(images.webp(0), /the animated WEBP has no frame/);
	});

	test('more frames than the limit: unknown', async () => {
		await withLimits({ maxImages: 10 }, async () => {
			await expectUnknown(images.gif(11), /more than 10 GIF frames/);
			await expectUnknown(images.apng(11), /more than 10 PNG frames/);
			await expectUnknown(images.webp(11), /more than 10 WEBP frames/);
			await expectUnknown(tiff(11, true), /more than 10 TIFF image directories/);
		});
	});
});
