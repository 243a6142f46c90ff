/**
 * The page count made before a document is sent (issue 31): the committed corpus made by real
 * producers (test/fixtures/pages, MANIFEST.json, make.sh), the emulator's own PDFs, hostile PDFs
 * built here, and TIFF directory chains in both byte orders.
 */
import { detectKind } from '../../../../nodes/DocumentOcr/documents/check';
import { countPages, PAGE_LIMITS } from '../../../../nodes/DocumentOcr/documents/pages';

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
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadCorpus, corpusFiles } = require('../../../fixtures/pages/load.js') as {
	loadCorpus(): Entry[];
	corpusFiles(): string[];
};
const corpus = loadCorpus();

function count(buf: Buffer) {
	const kind = detectKind(buf.subarray(0, 1024));
	if (!kind) throw new Error('not a document');
	return countPages(buf, kind);
}

describe('the corpus: every file counts its true pages, or is unknown with a reason', () => {
	test.each(corpus.map((e) => [e.file, e] as const))('%s', (_file, entry) => {
		// By the file name: detectKind (check.ts) does not know BigTIFF's `II+` header yet.
		const kind = entry.file.endsWith('.pdf') ? 'pdf' : 'tiff';
		const result = countPages(entry.bytes, kind);
		if (entry.counted === null) {
			expect(result.pages).toBeNull();
			expect((result as { reason: string }).reason).toMatch(/\w/);
		} else {
			expect(entry.counted).toBe(entry.truePages);
			expect(result).toEqual({ pages: entry.truePages });
		}
	});

	test('MANIFEST.json lists every file of the corpus', () => {
		expect(corpusFiles().sort()).toEqual(corpus.map((e) => e.file).sort());
	});

	test('the corpus stays small', () => {
		const total = corpus.reduce((sum, e) => sum + e.bytes.length, 0);
		expect(total).toBeLessThan(500_000);
	});
});

describe("the emulator's PDFs: the same count as the emulator's own", () => {
	test.each([1, 2, 7, 40])('%i pages', (n) => {
		const pdf = emulator.makePdf(Array.from({ length: n }, (_, i) => `page ${i + 1}`));
		expect(count(pdf)).toEqual({ pages: n });
		expect(emulator.countPages(pdf)).toBe(n);
	});

	test.each(['makePng', 'makeJpeg', 'makeWebp', 'makeGif', 'makeTiff'] as const)(
		'%s: one page',
		(make) => {
			const buf = emulator[make]('hello');
			expect(count(buf)).toEqual({ pages: 1 });
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

function expectUnknown(buf: Buffer, reason: RegExp) {
	const result = count(buf);
	expect(result.pages).toBeNull();
	expect((result as { reason: string }).reason).toMatch(reason);
}

/** A hybrid file: the table marks the page free, only the /XRefStm stream lists it. */
function hybrid(filter: string): Buffer {
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
	const stmAt = out.length;
	out += `4 0 obj\n<< /Type /XRef /W [1 4 1] /Index [3 1] /Size 5 ${filter} /Length 6 >>\nstream\n${row.toString('latin1')}\nendstream\nendobj\n`;
	const xref = out.length;
	const entry = (o: number) => `${String(o).padStart(10, '0')} 00000 n \n`;
	out += `xref\n0 5\n0000000000 65535 f \n${entry(at[0])}${entry(at[1])}0000000000 00000 f \n${entry(stmAt)}`;
	out += `trailer\n<< /Size 5 /Root 1 0 R /XRefStm ${stmAt} >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

describe('hybrid files (a table and an /XRefStm)', () => {
	test('an object listed only in the cross-reference stream is found there', () => {
		expect(count(hybrid(''))).toEqual({ pages: 1 });
	});

	test('a compressed /XRefStm: unknown, and the reason says why', () => {
		expectUnknown(
			hybrid('/Filter /FlateDecode'),
			/object 3 is free in the cross-reference \(the \/XRefStm was not read: the cross-reference stream is compressed/,
		);
	});
});

describe('hostile PDFs: unknown (or the certain count), never a throw or a hang', () => {
	test('a well-formed control counts', () => {
		expect(
			count(pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE])),
		).toEqual({ pages: 2 });
	});

	test('a two-level tree (intermediate /Pages nodes, /Count and /Kids indirect)', () => {
		expect(
			count(
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

	test('values nothing reads are passed over: strings, nested dictionaries, references, /__proto__', () => {
		const pages =
			'<< /__proto__ << /Count 7 >> /Type /Pages /X (a (nested) string, an escaped \\) and \\( ) ' +
			'/Y << /Z [1 0 R <abcd> 2.5 -3 true null] /R 4 0 R >> /Kids [3 0 R 4 0 R] /Count 2 >>';
		expect(count(pdf([CATALOG, pages, PAGE, PAGE]))).toEqual({ pages: 2 });
	});

	test('circular /Kids', () => {
		expectUnknown(
			pdf([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
				'<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>',
			]),
			/twice \(a cycle/,
		);
	});

	test('a page listed twice', () => {
		expectUnknown(pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>', PAGE]), /twice/);
	});

	test('a 10,000-deep tree', () => {
		const depth = 10_000;
		const objects = [CATALOG];
		for (let i = 0; i < depth; i++)
			objects.push(`<< /Type /Pages /Kids [${i + 3} 0 R] /Count 1 >>`);
		objects.push(PAGE);
		expectUnknown(pdf(objects), new RegExp(`deeper than ${PAGE_LIMITS.maxTreeDepth}`));
	});

	test('/Count 999999999', () => {
		expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>', PAGE]),
			/claims 999999999 pages/,
		);
	});

	test.each(['-3', '2.5', '(two)', '/Two'])('/Count %s', (value) => {
		expectUnknown(
			pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count ${value} >>`, PAGE]),
			/no valid \/Count/,
		);
	});

	test('a /Count that contradicts the kids', () => {
		expectUnknown(
			pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 >>', PAGE, PAGE]),
			/\/Count \(5\) contradicts its pages \(2\)/,
		);
	});

	test('a truncated file (no startxref): a scan stands in only because it is certain', () => {
		const whole = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, PAGE]);
		const cut = whole.subarray(0, whole.indexOf('xref'));
		expect(count(cut)).toEqual({ pages: 2 });
		expectUnknown(whole.subarray(0, 60), /no startxref/);
	});

	test('an xref pointing nowhere: the scan, or unknown when an object is defined twice', () => {
		const good = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]);
		const broken = Buffer.from(
			good.toString('latin1').replace(/startxref\n\d+/, 'startxref\n999999'),
			'latin1',
		);
		expect(count(broken)).toEqual({ pages: 1 });
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
		expect(count(shifted)).toEqual({ pages: 1 });
		// Two definitions of the page tree root and no readable xref: which one holds is not certain.
		const twice = Buffer.concat([
			broken.subarray(0, broken.indexOf('xref')),
			Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>\nendobj\n', 'latin1'),
		]);
		expectUnknown(twice, /not in the cross-reference/);
	});

	test('a FlateDecode bomb as the cross-reference stream is not inflated', () => {
		const bomb = Buffer.alloc(4096, 0x78);
		const body = `%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`;
		const head = Buffer.from(body, 'latin1');
		const xrefAt = head.length + bomb.length + 20;
		const tail = Buffer.from(
			`\nendstream\nendobj\n`.padEnd(20, ' ') +
				`2 0 obj\n<< /Type /XRef /W [1 2 1] /Size 3 /Root 3 0 R /Filter /FlateDecode /Length 4 >>\nstream\nxxxx\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`,
			'latin1',
		);
		expectUnknown(Buffer.concat([head, bomb, tail]), /compressed \(FlateDecode\)/);
	});

	test('a cross-reference /Prev loop', () => {
		let text = pdf([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]).toString('latin1');
		const xrefAt = /startxref\n(\d+)/.exec(text)![1];
		text = text.replace('/Root 1 0 R', `/Root 1 0 R /Prev ${xrefAt}`);
		// A loop makes the table unreadable; the scan then finds the one certain answer.
		expect(count(Buffer.from(text, 'latin1'))).toEqual({ pages: 1 });
	});

	test('deeply nested arrays inside an object', () => {
		expectUnknown(
			pdf([CATALOG, `<< /Type /Pages /Kids [3 0 R] /Count 1 /X ${'['.repeat(100_000)} >>`, PAGE]),
			/nested too deeply/,
		);
	});

	test('an xref that points thousands of kids at one large object: each read stops at its header', () => {
		const n = 20_000;
		const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(' ');
		const big = `<< /Type /Page /Parent 2 0 R /Pad (${'x'.repeat(200_000)}) >>`;
		let text = pdf([CATALOG, `<< /Type /Pages /Kids [${kids}] /Count ${n} >>`, big]).toString(
			'latin1',
		);
		const entry = /\n(\d{10} 00000 n \n)trailer/.exec(text)![1]; // object 3's entry
		text = text.replace(/xref\n0 4\n/, `xref\n0 ${n + 3}\n`).replace(entry, entry.repeat(n));
		const result = count(Buffer.from(text, 'latin1'));
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
	])('%s', (_label, buf) => {
		const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), buf]);
		const result = countPages(bytes, 'pdf');
		expect(result.pages).toBeNull();
		expect((result as { reason: string }).reason).toMatch(/\w/);
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
	])('%i directories, little endian %s', (pages, le) => {
		expect(count(tiff(pages, le))).toEqual({ pages });
	});

	test('a loop of directories', () => {
		expect(count(tiff(3, true, true))).toEqual({
			pages: null,
			reason: 'the TIFF image directories form a loop',
		});
	});

	test('a directory past the end, and one cut off', () => {
		const t = tiff(2, false);
		expect(count(t.subarray(0, 20)).pages).toBeNull();
		const far = Buffer.from(t);
		far.writeUInt32BE(1 << 30, 4);
		expect(count(far).pages).toBeNull();
	});
});
