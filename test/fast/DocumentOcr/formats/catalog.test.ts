/**
 * The new catalog (formats/catalog.ts) and the form fields (form-fields.ts): the review's findings
 * 2 and 3 (../shared/notes/review-2026-12-02) as tests. A layer the document hides stays hidden in
 * a copy (/OCProperties with the groups the written pages use, /D's /OFF, /ON and /BaseState
 * limited to them; a group no written page uses is not in the file); a filled field without an
 * appearance keeps its value (the field chain of each written widget, /Kids limited to the written
 * widgets, the form's /DA, /DR, /NeedAppearances, /Q). In selections and in each part of a split.
 */
import { selectPdfPages, splitPdf } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import {
	checkWritten,
	classic,
	image,
	joined,
	kidsOf,
	objectOf,
	refIn,
	stream,
	text,
} from './copies';

/** The written catalog, object 1. */
const catalogOf = (buf: Buffer) => objectOf(buf, 1);
/** The new number of the object whose body contains `marker` (a name, a value). */
const numberOf = (buf: Buffer, marker: string) => {
	const escaped = marker.replace(/[()[\]/\\]/g, '\\$&');
	const found = new RegExp(`(\\d+) 0 obj\\n[^\\n]*${escaped}`).exec(text(buf));
	if (!found) throw new Error(`no object holds ${marker}`);
	return Number(found[1]);
};
const R = (...nums: number[]) => nums.map((num) => `${num} 0 R`).join(' ');

/**
 * Three pages. Page 1 marks content with /oc1 (group 10, hidden) and draws image 20, whose /OC is
 * group 11 (hidden); page 2 marks it with /mc1, a membership dictionary (12) of groups 13 (shown)
 * and 14 (hidden); page 3 uses none. Group 15 no page uses. `config` is the catalog's /D.
 */
function layered(
	config = '<< /Order [10 0 R 11 0 R 13 0 R 14 0 R 15 0 R] /ON [13 0 R] /OFF [10 0 R 11 0 R 14 0 R 15 0 R] >>',
) {
	const objects = [
		`<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [${R(10, 11, 13, 14, 15)}] /D ${config} >> >>`,
		'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 /MediaBox [0 0 300 200] /Resources 6 0 R >>',
		'<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>',
		'<< /Type /Page /Parent 2 0 R /Contents 8 0 R >>',
		'<< /Type /Page /Parent 2 0 R /Contents 9 0 R >>',
		'<< /Font << /F1 16 0 R >> /Properties << /oc1 10 0 R /mc1 12 0 R /oc5 15 0 R >> /XObject << /Im1 20 0 R >> >>',
		stream(
			'BT /F1 18 Tf 20 150 Td (VISIBLE TEXT) Tj ET\n/OC /oc1 BDC BT /F1 18 Tf 20 80 Td (HIDDEN LAYER TEXT) Tj ET EMC q /Im1 Do Q',
		),
		stream('/OC /mc1 BDC BT /F1 18 Tf (PAGE TWO) Tj ET EMC'),
		stream('BT /F1 18 Tf (PAGE THREE) Tj ET'),
		'<< /Type /OCG /Name (Internal notes) >>',
		'<< /Type /OCG /Name (Image layer) >>',
		'<< /Type /OCMD /OCGs [13 0 R 14 0 R] /P /AllOn >>',
		'<< /Type /OCG /Name (Shown group) >>',
		'<< /Type /OCG /Name (Hidden group) >>',
		'<< /Type /OCG /Name (Nobody uses this group) >>',
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
		'null',
		'null',
		'null',
		image('LAYERED-IMAGE').replace('/Type /XObject', '/Type /XObject /OC 11 0 R'),
	];
	return classic(objects);
}

describe('finding 2: a layer the document hides stays hidden', () => {
	test('page 1: its groups (content and image) in /OCGs and /OFF, no other group', async () => {
		const buf = await checkWritten(await selectPdfPages(layered(), [1]), 1);
		const [notes, image] = [numberOf(buf, '(Internal notes)'), numberOf(buf, '(Image layer)')];
		expect(catalogOf(buf)).toBe(
			`<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [${R(notes, image)}] /D << /ON [] /OFF [${R(notes, image)}] >> >> >>`,
		);
		expect(text(buf)).not.toMatch(/Shown group|Hidden group|Nobody uses/);
	});

	test('page 2: the groups of a membership dictionary, each with its state', async () => {
		const buf = await checkWritten(await selectPdfPages(layered(), [2]), 1);
		const [shown, hidden] = [numberOf(buf, '(Shown group)'), numberOf(buf, '(Hidden group)')];
		expect(catalogOf(buf)).toContain(
			`/OCGs [${R(shown, hidden)}] /D << /ON [${R(shown)}] /OFF [${R(hidden)}] >>`,
		);
		expect(text(buf)).not.toMatch(/Internal notes|Image layer|Nobody uses/);
	});

	test('page 3 uses no group: no /OCProperties', async () => {
		const buf = await checkWritten(await selectPdfPages(layered(), [3]), 1);
		expect(catalogOf(buf)).toBe('<< /Type /Catalog /Pages 2 0 R >>');
		expect(text(buf)).not.toContain('/OCG');
	});

	test('/BaseState /OFF with /ON, and the configuration, its arrays and /OCGs indirect', async () => {
		const pdf = layered('<< /BaseState /OFF /ON [13 0 R] >>');
		const buf = await checkWritten(await selectPdfPages(pdf, [2]), 1);
		const shown = numberOf(buf, '(Shown group)');
		expect(catalogOf(buf)).toContain(`/D << /BaseState /OFF /ON [${R(shown)}] /OFF [] >>`);
		const indirect = Buffer.from(
			text(layered('17 0 R'))
				.replace(/\n17 0 obj\nnull/, '\n17 0 obj\n<< /ON [13 0 R] /OFF 18 0 R >>')
				.replace(/\n18 0 obj\nnull/, '\n18 0 obj\n[10 0 R 11 0 R 14 0 R 15 0 R]')
				.replace(/\n19 0 obj\nnull/, '\n19 0 obj\n[10 0 R 11 0 R 13 0 R 14 0 R 15 0 R]')
				.replace(
					/\/OCGs \[10 0 R 11 0 R 13 0 R 14 0 R 15 0 R\] \/D 17 0 R/,
					'/OCGs 19 0 R /D 17 0 R',
				),
			'latin1',
		);
		// The offsets moved: the file is read by its objects (a broken table is rebuilt by a scan).
		const again = await checkWritten(await selectPdfPages(rebuilt(indirect), [1, 2]), 2);
		const [notes, image, s, h] = [
			'(Internal notes)',
			'(Image layer)',
			'(Shown group)',
			'(Hidden group)',
		].map((m) => numberOf(again, m));
		expect(catalogOf(again)).toContain(
			`/OCGs [${R(notes, image, s, h)}] /D << /ON [${R(s)}] /OFF [${R(notes, image, h)}] >>`,
		);
	});

	test('a split: each part lists the groups of its own pages', async () => {
		// Parts of at most the largest page alone: one page a part (two pages pass the limit).
		const alone = await Promise.all(
			[1, 2, 3].map(async (p) => (await selectPdfPages(layered(), [p])).length),
		);
		const parts = await splitPdf(layered(), (size) => size <= Math.max(...alone));
		expect(parts.map((part) => part.pages)).toEqual([[1], [2], [3]]);
		const catalogs = parts.map((part) => catalogOf(joined(part)));
		expect(catalogs[0]).toMatch(
			/\/OCGs \[\d+ 0 R \d+ 0 R\] \/D << \/ON \[\] \/OFF \[\d+ 0 R \d+ 0 R\] >>/,
		);
		expect(catalogs[1]).toMatch(
			/\/OCGs \[\d+ 0 R \d+ 0 R\] \/D << \/ON \[\d+ 0 R\] \/OFF \[\d+ 0 R\] >>/,
		);
		expect(catalogs[2]).toBe('<< /Type /Catalog /Pages 2 0 R >>');
	});
});

/** The objects of `buf` written again with a cross-reference table that says where they are. */
function rebuilt(buf: Buffer): Buffer {
	const bodies: string[] = [];
	for (const match of text(buf).matchAll(/(\d+) 0 obj\n([\s\S]*?)\nendobj/g))
		bodies[Number(match[1]) - 1] = match[2];
	return classic(bodies);
}

/**
 * Four pages of a filled form without appearances (/NeedAppearances true). Field "name" (20) has a
 * widget on page 1 (22) and page 2 (23); "address" (24) has "street" (26, widget 25 on page 1)
 * and "city" (29, widget 31 on page 3); "other" (21) a widget on page 3 (28); page 2 also holds a
 * widget that is its own field, "signed" (27); page 4 holds none.
 */
function filled(): Buffer {
	const objects: string[] = [];
	const set = (num: number, body: string) => (objects[num - 1] = body);
	set(
		1,
		`<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${R(20, 21, 24, 27)}] /NeedAppearances true /DR << /Font << /Helv 9 0 R /ZaDb 10 0 R >> >> /DA (/Helv 0 Tf 0 g) /Q 1 /SigFlags 3 >> >>`,
	);
	set(
		2,
		'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R 12 0 R] /Count 4 /MediaBox [0 0 300 200] /Resources << /Font << /F1 9 0 R >> >> >>',
	);
	set(3, '<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Annots [22 0 R 25 0 R] >>');
	set(4, '<< /Type /Page /Parent 2 0 R /Contents 7 0 R /Annots [23 0 R 27 0 R] >>');
	set(5, '<< /Type /Page /Parent 2 0 R /Contents 8 0 R /Annots [28 0 R 31 0 R] >>');
	set(12, '<< /Type /Page /Parent 2 0 R /Contents 11 0 R >>');
	[6, 7, 8, 11].forEach((num, i) =>
		set(num, stream(`BT /F1 14 Tf 20 112 Td (Label ${i + 1}:) Tj ET`)),
	);
	set(9, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
	set(10, '<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>');
	set(20, `<< /FT /Tx /T (name) /V (JANE DOE 1234) /DA (/Helv 14 Tf 0 g) /Kids [${R(22, 23)}] >>`);
	set(21, '<< /FT /Tx /T (other) /V (PAGE THREE VALUE) /Kids [28 0 R] >>');
	set(24, `<< /T (address) /Kids [${R(26, 29)}] >>`);
	set(26, '<< /FT /Tx /T (street) /Parent 24 0 R /V (1 MAIN STREET) /Kids [25 0 R] >>');
	set(29, '<< /FT /Tx /T (city) /Parent 24 0 R /V (SPRINGFIELD) /Kids [31 0 R] >>');
	const widget = (parent: number, page: number, y: number) =>
		`<< /Type /Annot /Subtype /Widget /Rect [100 ${y} 280 ${y + 30}] /Parent ${parent} 0 R /P ${page} 0 R /F 4 >>`;
	set(22, widget(20, 3, 100));
	set(23, widget(20, 4, 100));
	set(25, widget(26, 3, 40));
	set(28, widget(21, 5, 100));
	set(31, widget(29, 5, 40));
	set(
		27,
		'<< /Type /Annot /Subtype /Widget /FT /Btn /T (signed) /V /Yes /AS /Yes /Rect [0 0 9 9] /P 4 0 R >>',
	);
	for (let num = 1; num <= 31; num++) objects[num - 1] ??= 'null';
	return classic(objects);
}

/** The body of the written field whose /T is `name`, and its /Kids' numbers. */
const field = (buf: Buffer, name: string) => {
	const body = objectOf(buf, numberOf(buf, `/T (${name})`));
	return { body, kids: refs(/\/Kids \[([^\]]*)\]/.exec(body)?.[1] ?? '') };
};
const FORM = '/NeedAppearances true /DA (/Helv 0 Tf 0 g) /Q 1 >>';

describe('finding 3: a filled field without an appearance keeps its value', () => {
	test('page 1: the value, its field chains, /Kids only the written widgets, the form', async () => {
		const buf = await checkWritten(await selectPdfPages(filled(), [1]), 1);
		const [name, address, street] = ['name', 'address', 'street'].map((n) => field(buf, n));
		expect(name.body).toContain('/V (JANE DOE 1234) /DA (/Helv 14 Tf 0 g)');
		expect(street.body).toContain('/V (1 MAIN STREET)');
		const annots = annotsOf(buf, kidsOf(buf)[0]);
		expect(name.kids).toEqual([annots[0]]);
		expect(street.kids).toEqual([annots[1]]);
		expect(address.kids).toEqual([numberOf(buf, '/T (street)')]);
		expect(refIn(objectOf(buf, annots[0]), 'Parent')).toBe(numberOf(buf, '/T (name)'));
		const dr = refIn(catalogOf(buf), 'DR');
		expect(catalogOf(buf)).toBe(
			`<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${R(numberOf(buf, '/T (name)'), numberOf(buf, '/T (address)'))}] /DR ${dr} 0 R ${FORM} >>`,
		);
		expect(objectOf(buf, dr)).toMatch(/^<< \/Font << \/Helv \d+ 0 R \/ZaDb \d+ 0 R >> >>$/);
		expect(text(buf)).not.toMatch(
			/PAGE THREE VALUE|SPRINGFIELD|\(city\)|\(other\)|\(signed\)|SigFlags/,
		);
	});

	test('pages 1 and 2: the field on both pages has both widgets, in page order', async () => {
		const buf = await checkWritten(await selectPdfPages(filled(), [1, 2]), 2);
		const [one, two] = kidsOf(buf).map((page) => annotsOf(buf, page)[0]);
		expect(field(buf, 'name').kids).toEqual([one, two]);
		const roots = ['name', 'address', 'signed'].map((n) => numberOf(buf, `/T (${n})`));
		expect(catalogOf(buf)).toContain(`/AcroForm << /Fields [${R(...roots)}]`);
		// A widget that is its own field keeps its value and has no /Kids.
		expect(objectOf(buf, roots[2])).toMatch(/\/T \(signed\) \/V \/Yes .*>>$/);
		expect(objectOf(buf, roots[2])).not.toContain('/Kids');
	});

	test('page 3: the other chain of "address", no widget of page 1', async () => {
		const buf = await checkWritten(await selectPdfPages(filled(), [3]), 1);
		expect(field(buf, 'address').kids).toEqual([numberOf(buf, '/T (city)')]);
		expect(field(buf, 'other').body).toContain('/V (PAGE THREE VALUE)');
		expect(text(buf)).not.toMatch(/JANE DOE|MAIN STREET|\(street\)/);
	});

	test('page 4 has no widget: no /AcroForm, no field', async () => {
		const buf = await checkWritten(await selectPdfPages(filled(), [4]), 1);
		expect(catalogOf(buf)).toBe('<< /Type /Catalog /Pages 2 0 R >>');
		expect(text(buf)).not.toMatch(/\/T \(|\/FT|\/DR|ZapfDingbats/);
	});

	test('a split, one page a part: each part its own fields and widgets', async () => {
		const pdf = filled();
		const alone = await Promise.all(
			[1, 2, 3, 4].map(async (p) => (await selectPdfPages(pdf, [p])).length),
		);
		const parts = await splitPdf(pdf, (size) => size <= Math.max(...alone));
		expect(parts.map((part) => part.pages)).toEqual([[1], [2], [3], [4]]);
		const [one, two] = parts.map((part) => joined(part));
		expect(field(one, 'name').kids).toHaveLength(1);
		expect(field(two, 'name').kids).toHaveLength(1);
		expect(text(two)).not.toMatch(/MAIN STREET|\(address\)/);
	});

	test("a button's ResetForm and SubmitForm actions naming fields of other pages: their values are not sent", async () => {
		// A "Clear form" or "Submit" button lists the fields it acts on, on every page of the form
		// (as Acrobat records them): a reference to another page's field is no reason to send its
		// value, nor the appearance showing it.
		const pdf = classic([
			'<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 6 0 R 9 0 R 10 0 R] /NeedAppearances true >> >>',
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 300 200] >>',
			'<< /Type /Page /Parent 2 0 R /Annots [7 0 R 9 0 R 12 0 R] >>',
			'<< /Type /Page /Parent 2 0 R /Annots [8 0 R 10 0 R] >>',
			'<< /FT /Tx /T (one) /V (PAGE ONE VALUE) /Kids [7 0 R] >>',
			'<< /FT /Tx /T (two) /V (PAGE TWO SECRET VALUE) /Kids [8 0 R] >>',
			'<< /Type /Annot /Subtype /Widget /Rect [0 0 9 9] /Parent 5 0 R /P 3 0 R >>',
			'<< /Type /Annot /Subtype /Widget /Rect [0 0 9 9] /Parent 6 0 R /P 4 0 R >>',
			'<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (clear) /Rect [0 0 9 9] /P 3 0 R /A << /S /ResetForm /Fields [5 0 R 6 0 R 10 0 R] >> >>',
			'<< /Type /Annot /Subtype /Widget /FT /Tx /T (merged) /V (MERGED PAGE TWO SECRET) /Rect [0 0 9 9] /P 4 0 R /AP << /N 11 0 R >> >>',
			stream(
				'BT (MERGED PAGE TWO SECRET) Tj ET',
				'/Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources << >> ',
			),
			'<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (send) /Rect [0 0 9 9] /P 3 0 R /A << /S /SubmitForm /F << /FS /URL /F (https://example.com) >> /Fields [6 0 R 5 0 R] >> >>',
		]);
		const buf = await checkWritten(await selectPdfPages(pdf, [1]), 1);
		expect(text(buf)).toContain('PAGE ONE VALUE');
		expect(text(buf)).not.toMatch(
			/PAGE TWO SECRET VALUE|MERGED PAGE TWO SECRET|\(two\)|\(merged\)/,
		);
	});

	test("a Hide action naming another page's annotation: its note is not sent", async () => {
		const pdf = classic([
			'<< /Type /Catalog /Pages 2 0 R >>',
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 300 200] >>',
			'<< /Type /Page /Parent 2 0 R /Annots [5 0 R] >>',
			'<< /Type /Page /Parent 2 0 R /Annots [6 0 R] >>',
			'<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << /S /Hide /T 6 0 R >> >>',
			'<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /Contents (PAGE TWO PRIVATE NOTE) /P 4 0 R >>',
		]);
		const buf = await checkWritten(await selectPdfPages(pdf, [1]), 1);
		expect(text(buf)).toContain('/S /Hide');
		expect(text(buf)).not.toContain('PAGE TWO PRIVATE NOTE');
	});

	test('a field chain that loops: the page is written, the loop not followed forever', async () => {
		const pdf = classic([
			'<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] >> >>',
			'<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 10 10] >>',
			'<< /Type /Page /Parent 2 0 R /Annots [4 0 R] >>',
			'<< /Type /Annot /Subtype /Widget /Rect [0 0 1 1] /Parent 5 0 R >>',
			'<< /T (a) /V (LOOPED VALUE) /Parent 6 0 R /Kids [4 0 R] >>',
			'<< /T (b) /Parent 5 0 R /Kids [5 0 R] >>',
		]);
		const buf = await checkWritten(await selectPdfPages(pdf, [1]), 1);
		expect(text(buf)).toContain('LOOPED VALUE');
	});
});

/** The numbers of the references in `list`. */
function refs(list: string): number[] {
	return [...list.matchAll(/(\d+) 0 R/g)].map((match) => Number(match[1]));
}
/** The new numbers of the annotations of the written page `page`. */
function annotsOf(buf: Buffer, page: number): number[] {
	return refs(/\/Annots \[([^\]]*)\]/.exec(objectOf(buf, page))![1]);
}

describe('the new catalog costs work linear in the file', () => {
	/** `n` pages, each marking content with a layer of its own (all `n` in /OCGs and /OFF). */
	const layers = (n: number) => {
		const groups = Array.from({ length: n }, (_, i) => `${4 + n + i} 0 R`).join(' ');
		const objects = [
			`<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [${groups}] /D << /OFF [${groups}] >> >> >>`,
			`<< /Type /Pages /Kids [${Array.from({ length: n }, (_, i) => `${4 + i} 0 R`).join(' ')}] /Count ${n} /MediaBox [0 0 10 10] >>`,
			stream('/OC /oc BDC EMC'),
		];
		for (let i = 0; i < n; i++)
			objects.push(
				`<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Properties << /oc ${4 + n + i} 0 R >> >> >>`,
			);
		for (let i = 0; i < n; i++) objects.push('<< /Type /OCG /Name (g) >>');
		return classic(objects);
	};
	/** `n` pages, each with a widget that is a field of its own (all `n` in /Fields). */
	const fields = (n: number) => {
		const objects = [
			`<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${Array.from({ length: n }, (_, i) => `${3 + n + i} 0 R`).join(' ')}] >> >>`,
			`<< /Type /Pages /Kids [${Array.from({ length: n }, (_, i) => `${3 + i} 0 R`).join(' ')}] /Count ${n} /MediaBox [0 0 10 10] >>`,
		];
		for (let i = 0; i < n; i++)
			objects.push(`<< /Type /Page /Parent 2 0 R /Annots [${3 + n + i} 0 R] >>`);
		for (let i = 0; i < n; i++)
			objects.push(`<< /Type /Annot /Subtype /Widget /FT /Tx /T (f${i}) /Rect [0 0 1 1] >>`);
		return classic(objects);
	};

	test.each([
		['every page of a document whose pages each use a layer of their own', layers],
		['every page of a form whose pages each hold a field of their own', fields],
	])('%s: twice the file, at most 2.2 times the work', async (_what, make) => {
		// The catalog is sized again after each page (catalogText over every group and field).
		const works: number[] = [];
		for (const n of [500, 1000, 2000]) {
			let work = 0;
			await selectPdfPages(
				make(n),
				Array.from({ length: n }, (_, i) => i + 1),
				{
					measured: (w) => (work = w),
				},
			);
			works.push(work);
		}
		const ratios = works.slice(1).map((work, i) => +(work / works[i]).toFixed(2));
		expect({ works, ratios }).toEqual({
			works,
			ratios: ratios.map((r) => (r <= 2.2 ? r : 'at most 2.2')),
		});
	});
});
