/**
 * PDF pages copied into new PDFs (formats/pdf-write.ts): the committed corpus (every producer,
 * object streams, incremental updates, linearized files), the emulator's PDFs (whose text its
 * reader gives page by page) and a document built here with everything a copy must not carry
 * along or must make explicit: inherited attributes at two levels, shared fonts, links between
 * pages, an outline, a form whose widgets sit on several pages, a structure tree. Each written
 * file is read back by the package's own counter and checked for its cross-reference; the
 * engine tier (test/formats-readers.test.js) opens them in qpdf, pdfinfo and pdftotext.
 */
import { countPages } from '../../../../nodes/DocumentOcr/formats';
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import {
	selectPdfPages,
	splitPdf,
	type Written,
} from '../../../../nodes/DocumentOcr/formats/pdf-write';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const emulator = require('../../../../emulator/documents.js') as {
	makePdf(pages: string[]): Buffer;
	extractPages(buf: Buffer): string[];
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { classic, richPdf } = require('../../../fixtures/pages/crafted.js') as {
	classic(objects: string[], options?: { trailer?: string }): Buffer;
	richPdf(): Buffer;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadCorpus } = require('../../../fixtures/pages/load.js') as {
	loadCorpus(): Array<{ file: string; truePages: number; bytes: Buffer }>;
};

const joined = (written: Written) => Buffer.concat(written.chunks, written.length);
const text = (buf: Buffer) => buf.toString('latin1');
/** The page objects in a file (`/Type /Page`, not `/Pages`), as a service that bills by them finds them. */
const pageObjects = (buf: Buffer) => (text(buf).match(/\/Type\s*\/Page(?![A-Za-z])/g) ?? []).length;

/**
 * The file's cross-reference table holds: every entry in use points to its own `N 0 obj`, the
 * trailer's /Size is the table's, and startxref points to the table.
 */
function checkXref(buf: Buffer): void {
	const all = text(buf);
	const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(all)![1]);
	expect(all.slice(startxref, startxref + 5)).toBe('xref\n');
	const [, count] = /^xref\n0 (\d+)\n/.exec(all.slice(startxref))!.map(Number);
	const table = startxref + `xref\n0 ${count}\n`.length;
	for (let num = 1; num < count; num++) {
		const entry = all.slice(table + 20 * num, table + 20 * num + 20);
		expect(entry).toMatch(/^\d{10} 00000 n \n$/);
		const offset = Number(entry.slice(0, 10));
		expect(all.slice(offset, offset + `${num} 0 obj`.length)).toBe(`${num} 0 obj`);
	}
	expect(all).toContain(`trailer\n<< /Size ${count} /Root 1 0 R >>`);
}

/** Checks a written file: its length, its cross-reference, its pages by the package's counter. */
async function checkWritten(written: Written, pages: number): Promise<Buffer> {
	const buf = joined(written);
	expect(buf.length).toBe(written.length);
	checkXref(buf);
	expect(await countPages(buf, 'pdf')).toEqual({ pages });
	expect(pageObjects(buf)).toBe(pages);
	expect(text(buf)).not.toMatch(/\/ObjStm|\/XRef\b|\/Encrypt|\/Prev\b/);
	return buf;
}

/** The dictionary of object `num` in a written file. */
const objectOf = (buf: Buffer, num: number) =>
	new RegExp(`(?:^|\\n)${num} 0 obj\\n([\\s\\S]*?)\\nendobj`).exec(text(buf))![1];
/** The new numbers of the pages, from the written root's /Kids. */
const kidsOf = (buf: Buffer) =>
	[...objectOf(buf, 2).matchAll(/(\d+) 0 R/g)].map((match) => Number(match[1]));

describe('a selection of a document built with everything a copy must handle', () => {
	const rich = richPdf();

	test('the document itself counts 5 pages', async () => {
		expect(await countPages(rich, 'pdf')).toEqual({ pages: 5 });
	});

	test('page 1: inherited attributes made explicit, the catalog fresh, other pages null', async () => {
		const buf = await checkWritten(await selectPdfPages(rich, [1]), 1);
		const [page] = kidsOf(buf);
		const dict = objectOf(buf, page);
		expect(dict).toMatch(/\/MediaBox \[0 0 300 400\]/);
		expect(dict).toMatch(/\/CropBox \[10 10 290 390\]/);
		expect(dict).toMatch(/\/Rotate 90/);
		expect(dict).toMatch(/\/Resources \d+ 0 R/);
		expect(dict).toMatch(/\/Parent 2 0 R>>$/);
		expect(dict).not.toMatch(/StructParent/);
		expect(objectOf(buf, 1)).toBe('<< /Type /Catalog /Pages 2 0 R >>');
		const all = text(buf);
		expect(all).toContain('PAGE-ONE-WORDS');
		expect(all).toContain('NOTE-ON-ONE');
		for (const absent of [
			'PAGE-TWO',
			'PAGE-THREE',
			'PAGE-FOUR',
			'PAGE-FIVE',
			'OUTLINE-ITEM',
			'FIELD-NAME',
			'WIDGET',
			'StructTreeRoot',
			'/Outlines',
			'/AcroForm',
			'/Names',
			'Courier',
			'/Bead',
		])
			expect(all).not.toContain(absent);
		// The forward link to page 4 (not in the file) is null; the annotations' /P is the page.
		expect(all).toMatch(/\/Dest \[null \/XYZ 0 0 0\]/);
		expect(all).toContain(`/P ${page} 0 R`);
		expect(emulator.extractPages(buf)).toEqual(['PAGE-ONE-WORDS']);
	});

	test("page 2: its widget with the form's field, whose /Kids hold only the written widget", async () => {
		const buf = await checkWritten(await selectPdfPages(rich, [2]), 1);
		const all = text(buf);
		expect(all).toContain('WIDGET-TWO');
		// The field (its name, its value) travels with its widget; page 3's widget does not.
		const widget = Number(/(\d+) 0 obj\n<<[^\n]*WIDGET-TWO/.exec(all)![1]);
		const field = Number(/\/Parent (\d+) 0 R/.exec(objectOf(buf, widget))![1]);
		expect(objectOf(buf, field)).toMatch(new RegExp(`FIELD-NAME.*/Kids \\[${widget} 0 R\\]>>$`));
		expect(objectOf(buf, 1)).toContain(`/AcroForm << /Fields [${field} 0 R]`);
		expect(all).not.toMatch(/WIDGET-THREE|PAGE-THREE/);
		// The indirect /Length is written direct; the object that held it is not copied.
		expect(all).toMatch(
			/<<\s+\/Length 44>>\nstream\nBT \/F1 12 Tf 20 20 Td \(PAGE-TWO-WORDS\) Tj ET\nendstream/,
		);
		expect(emulator.extractPages(buf)).toEqual(['PAGE-TWO-WORDS']);
	});

	test("pages 4-5: of node 4's resources only the font page 4 draws, page 5's own attributes kept once", async () => {
		const buf = await checkWritten(await selectPdfPages(rich, [4, 5]), 2);
		const [four, five] = kidsOf(buf);
		// The inherited resources pruned to what the page draws (F2), an object of their own.
		const resources = Number(/\/Resources (\d+) 0 R/.exec(objectOf(buf, four))![1]);
		expect(objectOf(buf, resources)).toMatch(/^<< \/Font << \/F2 \d+ 0 R >> >>$/);
		const dict = objectOf(buf, five);
		expect(dict.match(/\/Rotate/g)).toEqual(['/Rotate']);
		expect(dict).toMatch(/\/Rotate 0/);
		expect(dict.match(/\/MediaBox/g)).toEqual(['/MediaBox']);
		expect(dict).toMatch(/\/MediaBox \[0 0 500 500\]/);
		// Inherited from the root, not from node 3.
		expect(dict).not.toMatch(/CropBox/);
		expect(dict).not.toMatch(/\/B /);
		expect(text(buf)).toContain('Courier');
		expect(text(buf)).not.toMatch(/PAGE-ONE|\/Bead|\/Thread/);
		// Page 4's link back to page 1, which is not in the file, is null.
		expect(text(buf)).toMatch(/\/D \[null \/Fit\]/);
		expect(emulator.extractPages(buf)).toEqual(['PAGE-FOUR-WORDS', 'PAGE-FIVE-WORDS']);
	});

	test('pages 1 and 4: the link back from page 4 to page 1 is kept, the one forward is null', async () => {
		const buf = await checkWritten(await selectPdfPages(rich, [1, 4]), 2);
		const [one] = kidsOf(buf);
		expect(text(buf)).toContain(`/D [${one} 0 R /Fit]`);
		expect(text(buf)).toMatch(/\/Dest \[null \/XYZ 0 0 0\]/);
		expect(emulator.extractPages(buf)).toEqual(['PAGE-ONE-WORDS', 'PAGE-FOUR-WORDS']);
	});

	test('every page: a font shared by pages written once', async () => {
		const buf = await checkWritten(await selectPdfPages(rich, [1, 2, 3, 4, 5]), 5);
		expect(text(buf).match(/\/BaseFont \/Helvetica/g)).toHaveLength(1);
		expect(emulator.extractPages(buf)).toEqual([
			'PAGE-ONE-WORDS',
			'PAGE-TWO-WORDS',
			'PAGE-THREE-WORDS',
			'PAGE-FOUR-WORDS',
			'PAGE-FIVE-WORDS',
		]);
	});

	test('a selection out of order, repeated, empty or past the end is refused', async () => {
		for (const pages of [[2, 1], [1, 1], [], [0], [6], [1.5]])
			await expect(selectPdfPages(rich, pages)).rejects.toThrow(FormatError);
	});
});

describe('what cannot be copied exactly is refused, never written with a wrong page', () => {
	const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>';
	const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';

	test('an encrypted PDF', async () => {
		const buf = classic(
			[CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, '<< /Filter /Standard >>'],
			{
				trailer: '/Encrypt 4 0 R ',
			},
		);
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(/the PDF is encrypted/);
		await expect(splitPdf(buf, () => true)).rejects.toThrow(/the PDF is encrypted/);
	});

	test('a reference to an object the cross-reference does not list', async () => {
		const buf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			'<< /Type /Page /Parent 2 0 R /Contents 99 0 R >>',
		]);
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(
			/cannot be copied page by page \(object 99 is not in the cross-reference\); nothing is written rather than a wrong page/,
		);
	});

	test('a page tree whose /Count contradicts its pages', async () => {
		const buf = classic([CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 2 >>', PAGE]);
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(/the PDF's pages cannot be read/);
	});

	test('a stream that is not closed', async () => {
		const buf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			'<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>',
			'<< /Length 999999 >>\nstream\nBT ET',
		]);
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(/the stream of object 4 is not closed/);
	});

	test("a stream's /Length in an object stream, and one naming no object", async () => {
		// Objects 1-3 and 5 in the clear, object 4 (the length) in object stream 6, a
		// cross-reference stream (7) listing them.
		const ops = 'BT /F1 9 Tf (LENGTH-IN-A-STREAM) Tj ET';
		let out = '%PDF-1.5\n';
		const at: number[] = [];
		const put = (num: number, body: string) => {
			at[num] = out.length;
			out += `${num} 0 obj\n${body}\nendobj\n`;
		};
		put(1, CATALOG);
		put(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
		put(3, '<< /Type /Page /Parent 2 0 R /Contents [5 0 R 8 0 R] >>');
		put(5, `<< /Length 4 0 R >>\nstream\n${ops}\nendstream`);
		const inside = `4 0 ${ops.length}`;
		put(
			6,
			`<< /Type /ObjStm /N 1 /First 4 /Length ${inside.length} >>\nstream\n${inside}\nendstream`,
		);
		put(8, `<< /Length 99 0 R >>\nstream\n${ops}\nendstream`);
		const rows = Buffer.alloc(9 * 6);
		const row = (num: number, type: number, a: number, b: number) => {
			rows[num * 6] = type;
			rows.writeUInt32BE(a, num * 6 + 1);
			rows[num * 6 + 5] = b;
		};
		row(0, 0, 0, 255);
		for (const num of [1, 2, 3, 5, 6, 8]) row(num, 1, at[num], 0);
		row(4, 2, 6, 0);
		row(7, 1, out.length, 0);
		const xref = out.length;
		const head = `7 0 obj\n<< /Type /XRef /Size 9 /W [1 4 1] /Root 1 0 R /Length ${rows.length} >>\nstream\n`;
		const buf = Buffer.concat([
			Buffer.from(out + head, 'latin1'),
			rows,
			Buffer.from(`\nendstream\nendobj\nstartxref\n${xref}\n%%EOF\n`, 'latin1'),
		]);
		expect(await countPages(buf, 'pdf')).toEqual({ pages: 1 });
		const copy = text(await checkWritten(await selectPdfPages(buf, [1]), 1));
		expect(copy.match(new RegExp(`/Length ${ops.length}>>\\nstream\\n`, 'g'))).toHaveLength(2);
		expect(copy.match(/LENGTH-IN-A-STREAM/g)).toHaveLength(2);
	});

	test('a page without /Type is written with it', async () => {
		const buf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			'<< /Parent 2 0 R /MediaBox [0 0 5 5] >>',
		]);
		const out = await checkWritten(await selectPdfPages(buf, [1]), 1);
		expect(objectOf(out, kidsOf(out)[0])).toMatch(/\/Type \/Page \/Parent 2 0 R>>$/);
	});

	test('a free object referred to is null', async () => {
		const objects = [
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			'<< /Type /Page /Parent 2 0 R /Thumb 4 0 R >>',
			'null',
		];
		const buf = Buffer.from(
			text(classic(objects)).replace(/(xref\n0 5\n(?:.{20}){4}).{20}/s, '$10000000000 00001 f \n'),
			'latin1',
		);
		const out = await checkWritten(await selectPdfPages(buf, [1]), 1);
		expect(text(out)).toContain('/Thumb null');
	});
});

describe('the corpus: every page alone, every page together, a file of every producer', () => {
	test.each(
		loadCorpus()
			.filter((entry) => entry.file.endsWith('.pdf'))
			.map((e) => [e.file, e] as const),
	)('%s', async (_file, entry) => {
		const all = Array.from({ length: entry.truePages }, (_, i) => i + 1);
		await checkWritten(await selectPdfPages(entry.bytes, all), entry.truePages);
		for (const page of all) await checkWritten(await selectPdfPages(entry.bytes, [page]), 1);
	});

	test("the emulator's PDF: each page's text, in order", async () => {
		const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
		const pdf = emulator.makePdf(words);
		const buf = await checkWritten(await selectPdfPages(pdf, [2, 4, 5]), 3);
		expect(emulator.extractPages(buf)).toEqual(['bravo', 'delta', 'echo']);
	});
});

describe('a split: in page order, as few parts as fit, each a selection', () => {
	const words = Array.from({ length: 40 }, (_, i) => `words of page ${i + 1}`);
	const pdf = emulator.makePdf(words);

	test.each([2000, 3000, 5000, 1_000_000])('parts of at most %i bytes', async (limit) => {
		const parts = await splitPdf(pdf, (size) => size <= limit);
		let next = 1;
		for (const [i, part] of parts.entries()) {
			expect(part.first).toBe(next);
			next = part.last + 1;
			expect(part.length).toBeLessThanOrEqual(limit);
			const buf = await checkWritten(part, part.last - part.first + 1);
			expect(emulator.extractPages(buf)).toEqual(words.slice(part.first - 1, part.last));
			// As few as possible: the part with the next page would not fit.
			if (i < parts.length - 1) {
				const pages = Array.from({ length: part.last - part.first + 2 }, (_, k) => part.first + k);
				expect((await selectPdfPages(pdf, pages)).length).toBeGreaterThan(limit);
			}
			// Each part is the selection of its pages, byte for byte.
			const pages = Array.from({ length: part.last - part.first + 1 }, (_, k) => part.first + k);
			expect(joined(await selectPdfPages(pdf, pages))).toEqual(buf);
		}
		expect(next).toBe(41);
		if (limit === 1_000_000) expect(parts).toHaveLength(1);
	});

	test('a limit on the Base64 body (4/3 of the file): each part fits as sent', async () => {
		const base64 = (size: number) => 4 * Math.ceil(size / 3);
		const parts = await splitPdf(pdf, (size) => base64(size) <= 4000);
		for (const part of parts)
			expect(joined(part).toString('base64').length).toBeLessThanOrEqual(4000);
		expect(parts.length).toBeGreaterThan(1);
	});

	test('a font shared by the pages of a part is counted once', async () => {
		const one = (await selectPdfPages(pdf, [1])).length;
		const [first] = await splitPdf(pdf, (size) => size <= 4000);
		const pages = first.last - first.first + 1;
		expect(text(joined(first)).match(/\/BaseFont/g)).toHaveLength(1);
		expect(first.length).toBeLessThan(pages * one);
	});

	test('a page that does not fit alone is refused, named', async () => {
		await expect(splitPdf(pdf, (size) => size <= 300)).rejects.toThrow(
			/page 1 alone makes a PDF of \d+ bytes, more than the limit allows/,
		);
		const big = emulator.makePdf(['short', 'short', 'x'.repeat(5000), 'short']);
		await expect(splitPdf(big, (size) => size <= 3000)).rejects.toThrow(/^page 3 alone/);
	});
});

describe('a selection carries nothing of a page it does not hold', () => {
	const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
	const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
	const content = (words: string) => {
		const ops = `BT /F1 12 Tf 72 712 Td (${words}) Tj ET`;
		return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
	};
	const RES = '/MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >>';

	test('a link to a page no longer in the tree (an orphan page object) is null, the page not copied', async () => {
		const buf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 5 0 R /Annots [8 0 R] >>`,
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 6 0 R >>`,
			content('page one'),
			content('page two'),
			FONT,
			'<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /Dest [9 0 R /Fit] /P 10 0 R >>',
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 11 0 R >>`,
			'<< /Type /Catalog /Pages 12 0 R >>',
			content('deleted page secret'),
			'<< /Type /Pages /Kids [9 0 R] /Count 1 >>',
		]);
		expect(await countPages(buf, 'pdf')).toEqual({ pages: 2 });
		const out = await checkWritten(await selectPdfPages(buf, [1]), 1);
		expect(text(out)).not.toContain('deleted page secret');
		expect(pageObjects(out)).toBe(1);
		expect(text(out)).not.toMatch(/\/Type\s*\/Catalog \/Pages (?!2 0 R)/);
	});

	test('an object stream reached by a reference is refused', async () => {
		const buf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			'<< /Type /Page /Parent 2 0 R /Thumb 4 0 R >>',
			'<< /Type /ObjStm /N 0 /First 0 /Length 0 >>\nstream\n\nendstream',
		]);
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(/object stream or cross-reference/);
	});
});

describe("a stream's data never runs past the next object", () => {
	const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
	const TWO = 'BT /F1 12 Tf 72 712 Td (page two) Tj ET';
	const ONE = 'BT /F1 12 Tf 72 712 Td (page one) Tj ET';

	/** Page 1's content (5) has a /Length that runs over page 2's objects (4, 6) to their end. */
	function lyingLength(): Buffer {
		const inside =
			`${ONE}\nendstream\nendobj\n` +
			'4 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>\nendobj\n' +
			`6 0 obj\n<< /Length ${TWO.length} >>\nstream\n${TWO}`;
		let out = '%PDF-1.4\n';
		const at: number[] = [];
		const put = (num: number, body: string) => {
			at[num] = out.length;
			out += `${num} 0 obj\n${body}\nendobj\n`;
		};
		put(1, CATALOG);
		put(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>');
		put(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>');
		put(7, '<< >>');
		at[5] = out.length;
		out += `5 0 obj\n<< /Length ${inside.length} >>\nstream\n`;
		at[4] = out.length + inside.indexOf('4 0 obj');
		at[6] = out.length + inside.indexOf('6 0 obj');
		out += `${inside}\nendstream\nendobj\n`;
		const xref = out.length;
		out += 'xref\n0 8\n0000000000 65535 f \n';
		for (let num = 1; num < 8; num++) out += `${String(at[num]).padStart(10, '0')} 00000 n \n`;
		out += `trailer\n<< /Size 8 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
		return Buffer.from(out, 'latin1');
	}

	test("a /Length over page 2's objects is no length: page 1's data ends at its first `endstream`, page 2 never travels in it", async () => {
		const buf = lyingLength();
		expect(await countPages(buf, 'pdf')).toEqual({ pages: 2 });
		const one = await checkWritten(await selectPdfPages(buf, [1]), 1);
		expect(text(one)).toContain(`/Length ${ONE.length}>>\nstream\n${ONE}\nendstream`);
		expect(text(one)).not.toContain('page two');
		for (const part of await splitPdf(buf, () => true))
			expect(text(joined(part)).match(/page two/g) ?? []).toHaveLength(
				part.pages.includes(2) ? 1 : 0,
			);
		// Page 2 alone does not reach object 5: it is copied.
		const two = await checkWritten(await selectPdfPages(buf, [2]), 1);
		expect(text(two)).toContain('page two');
		expect(text(two)).not.toContain('page one');
	});

	test('nested form XObjects whose /Lengths all run to the end are refused, not written over and over', async () => {
		const k = 50;
		const objects = [
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			`<< /Type /Page /Parent 2 0 R /Contents ${4 + k} 0 R /Resources << /XObject << ${Array.from({ length: k }, (_, i) => `/X${i} ${4 + i} 0 R`).join(' ')} >> >> >>`,
		];
		// Every stream's data runs to the last stream's `endstream`, past all the objects after it.
		let out = '%PDF-1.4\n';
		const at: number[] = [];
		objects.slice(0, 3).forEach((body, i) => {
			at[i + 1] = out.length;
			out += `${i + 1} 0 obj\n${body}\nendobj\n`;
		});
		const heads: number[] = [];
		for (let i = 0; i < k; i++) {
			at[4 + i] = out.length;
			out += `${4 + i} 0 obj\n<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length LLLLLLLLLL >>\nstream\n`;
			heads.push(out.length);
		}
		const end = out.length;
		out += '\nendstream\nendobj\n';
		for (const start of heads) {
			const spot = out.lastIndexOf('LLLLLLLLLL', start);
			out = out.slice(0, spot) + String(end - start).padStart(10, '0') + out.slice(spot + 10);
		}
		// The page draws every form.
		const draws = Array.from({ length: k }, (_, i) => `/X${i} Do`).join(' ');
		at[4 + k] = out.length;
		out += `${4 + k} 0 obj\n<< /Length ${draws.length} >>\nstream\n${draws}\nendstream\nendobj\n`;
		const xref = out.length;
		out += `xref\n0 ${5 + k}\n0000000000 65535 f \n`;
		for (let num = 1; num < 5 + k; num++) out += `${String(at[num]).padStart(10, '0')} 00000 n \n`;
		out += `trailer\n<< /Size ${5 + k} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
		const buf = Buffer.from(out, 'latin1');
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(
			/not closed before the next object begins/,
		);
	});

	test('streams without /Length: each `endstream` is searched for no further than the next object (linear work)', async () => {
		const make = (k: number, closed: boolean) =>
			classic([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
				`<< /Type /Page /Parent 2 0 R /Contents [${Array.from({ length: k }, (_, i) => `${4 + i} 0 R`).join(' ')}] >>`,
				...Array.from(
					{ length: k },
					() => `<< >>\nstream\n${'q Q '.repeat(20)}${closed ? '\nendstream' : ''}`,
				),
				'<< >>\nstream\nq Q\nendstream',
			]);
		const measure = async (buf: Buffer) => {
			let work = 0;
			const written = await selectPdfPages(buf, [1], { measured: (done) => (work = done) });
			await checkWritten(written, 1);
			return work;
		};
		const small = make(200, true);
		const large = make(2000, true);
		const ratio = (await measure(large)) / (await measure(small));
		expect(ratio).toBeLessThan((1.5 * large.length) / small.length);
		// No `endstream` until the very end: the search stops at the next object, and refuses.
		await expect(selectPdfPages(make(2000, false), [1])).rejects.toThrow(
			/the stream of object 4 is not closed before the next object begins/,
		);
	});
});

describe('a selection is never much larger than its file', () => {
	/** `pages` pages under one node whose direct /Resources is about `kb` kB: every page inherits it. */
	function inheritedResources(pages: number, kb: number): Buffer {
		const states: string[] = [];
		for (let i = 0, size = 0; size < kb * 1000; i++) {
			const entry = `/G${i} << /Type /ExtGState /CA 1 /ca 1 >> `;
			states.push(entry);
			size += entry.length;
		}
		const ops = 'BT /F1 12 Tf 72 712 Td (shared page) Tj ET';
		const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`);
		return classic([
			'<< /Type /Catalog /Pages 2 0 R >>',
			`<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /ExtGState << ${states.join('')}>> >> >>`,
			`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`,
			'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
			...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>'),
		]);
	}

	test("a node's long direct /Resources: what the pages draw of it written once per file, the rest not at all", async () => {
		const buf = inheritedResources(2000, 200);
		const all = Array.from({ length: 1999 }, (_, i) => i + 2);
		const out = await checkWritten(await selectPdfPages(buf, all), 1999);
		expect(out.length).toBeLessThan(buf.length);
		expect(text(out)).not.toContain('/G0 ');
		expect(text(out).match(/<< \/Font << \/F1 \d+ 0 R >> >>/g)).toHaveLength(1);
		const parts = await splitPdf(buf, (size) => size <= 30_000);
		expect(parts.length).toBeGreaterThan(1);
		for (const part of parts)
			expect(text(joined(part)).match(/<< \/Font << \/F1 \d+ 0 R >> >>/g)).toHaveLength(1);
	});

	test('maxBytes: a selection that passes it stops, a FormatError', async () => {
		const buf = inheritedResources(50, 5);
		const all = Array.from({ length: 50 }, (_, i) => i + 1);
		const whole = (await selectPdfPages(buf, all)).length;
		expect((await selectPdfPages(buf, all, { maxBytes: whole })).length).toBe(whole);
		const refusal = selectPdfPages(buf, all, { maxBytes: whole - 1 });
		await expect(refusal).rejects.toThrow(FormatError);
		await expect(selectPdfPages(buf, all, { maxBytes: 1000 })).rejects.toThrow(
			/more than 1000 bytes/,
		);
		await expect(splitPdf(buf, () => true, { maxBytes: 1000 })).rejects.toThrow(
			/more than the limit of 1000 allows/,
		);
	});
});

describe("an object stream's own numbers", () => {
	/** Pages 3 and 4 in object stream 10, whose pairs say index 0 is 3; the xref stream swaps them. */
	function objectStreamSwapped(): Buffer {
		let out = '%PDF-1.5\n';
		const at: number[] = [];
		const put = (num: number, body: string) => {
			at[num] = out.length;
			out += `${num} 0 obj\n${body}\nendobj\n`;
		};
		const content = (words: string) => {
			const ops = `BT /F1 12 Tf 72 712 Td (${words}) Tj ET`;
			return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
		};
		put(1, '<< /Type /Catalog /Pages 2 0 R >>');
		put(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>');
		put(5, content('page one'));
		put(6, content('page two'));
		const p3 = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>';
		const p4 = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>';
		const pairs = `3 0 4 ${p3.length + 1} `;
		const data = `${pairs}${p3}\n${p4}\n`;
		put(
			10,
			`<< /Type /ObjStm /N 2 /First ${pairs.length} /Length ${data.length} >>\nstream\n${data}\nendstream`,
		);
		const xref = out.length;
		const rows: Buffer[] = [];
		const row = (type: number, a: number, b: number) => {
			const r = Buffer.alloc(7);
			r[0] = type;
			r.writeUInt32BE(a, 1);
			r.writeUInt16BE(b, 5);
			rows.push(r);
		};
		row(0, 0, 65535);
		row(1, at[1], 0);
		row(1, at[2], 0);
		row(2, 10, 1); // object 3 at index 1, where the stream's pair says object 4 is
		row(2, 10, 0);
		row(1, at[5], 0);
		row(1, at[6], 0);
		row(0, 0, 0);
		row(0, 0, 0);
		row(0, 0, 0);
		row(1, at[10], 0);
		row(1, xref, 0);
		const body = Buffer.concat(rows);
		const head = `11 0 obj\n<< /Type /XRef /Size 12 /W [1 4 2] /Root 1 0 R /Length ${body.length} >>\nstream\n`;
		return Buffer.concat([
			Buffer.from(out + head, 'latin1'),
			body,
			Buffer.from(`\nendstream\nendobj\nstartxref\n${xref}\n%%EOF\n`, 'latin1'),
		]);
	}

	test('a pair that names another object than the cross-reference: the count is unknown, the copy refused', async () => {
		const buf = objectStreamSwapped();
		expect(await countPages(buf, 'pdf')).toEqual({
			pages: null,
			reason: expect.stringMatching(
				/puts object 3 at index 1 of object stream 10, where the stream has object 4/,
			),
		});
		await expect(selectPdfPages(buf, [1])).rejects.toThrow(FormatError);
	});
});

describe('a null inherited value is absent (ISO 32000 7.3.7): the page inherits', () => {
	test("a page's /MediaBox null and /Resources naming a free object: its node's are written", async () => {
		const objects = [
			'<< /Type /Catalog /Pages 2 0 R >>',
			'<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 300] /Resources << /Font << /F1 4 0 R >> >> >>',
			'<< /Type /Page /Parent 2 0 R /MediaBox null /Resources 5 0 R /Rotate 90 >>',
			'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
			'null',
		];
		const buf = Buffer.from(
			text(classic(objects)).replace(/(xref\n0 6\n(?:.{20}){5}).{20}/s, '$10000000000 00001 f \n'),
			'latin1',
		);
		const out = await checkWritten(await selectPdfPages(buf, [1]), 1);
		const page = objectOf(out, kidsOf(out)[0]);
		expect(page).not.toMatch(/null/);
		expect(page.match(/\/MediaBox/g)).toHaveLength(1);
		expect(page).toMatch(/\/MediaBox \[0 0 200 300\]/);
		expect(page).toMatch(/\/Rotate 90/);
		// The inherited resources, pruned to what the page draws (nothing: it has no content).
		const resources = Number(/\/Resources (\d+) 0 R/.exec(page)![1]);
		expect(objectOf(out, resources)).toBe('<< >>');
	});

	test("a node's /MediaBox null: the page inherits the root's", async () => {
		const buf = classic([
			'<< /Type /Catalog /Pages 2 0 R >>',
			'<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 300] >>',
			'<< /Type /Pages /Parent 2 0 R /Kids [4 0 R] /Count 1 /MediaBox null >>',
			'<< /Type /Page /Parent 3 0 R >>',
		]);
		const out = await checkWritten(await selectPdfPages(buf, [1]), 1);
		expect(objectOf(out, kidsOf(out)[0])).toMatch(/\/MediaBox \[0 0 200 300\]/);
	});
});
