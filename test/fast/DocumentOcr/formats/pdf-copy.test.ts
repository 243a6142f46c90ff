/**
 * The copier (formats/pdf-copy.ts) on the review's repros (../shared/notes/review-2026-12-02,
 * FINDINGS.md 1 and 4; issue 42): pages that share one /Resources, inherited from their tree node
 * or named by every page, each copied with its own image and no other page's (searched for in
 * the written file with its Flate streams inflated); the 30-page, 12 MB scan of that shape split
 * into parts that each fit; a stream whose data holds the bytes `endstream` copied whole when its
 * /Length says so, cut at the first one when nothing says otherwise. And a split's parts, on a
 * document with layers and a form across pages, each the selection of its pages byte for byte.
 */
import { randomBytes } from 'crypto';
import { selectPdfPages, splitPdf } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import {
	checkWritten,
	classic,
	flate,
	image,
	inflated,
	joined,
	pageResources,
	pagesUpTo,
	stream,
	text,
} from './copies';

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const draws = (name: string) => stream(`q 200 0 0 200 0 0 cm /${name} Do Q`);
const marker = (page: number) => `SCAN-OF-PAGE-${page}-`;
/** The pages whose marker a written file holds. */
const markersIn = (buf: Buffer, pages: number) => {
	const all = inflated(buf);
	return pagesUpTo(pages).filter((page) => all.includes(marker(page)));
};

/** Five pages, each drawing its image /Imi of the tree node's /Resources, which names all five. */
function inheritedResources(): Buffer {
	const objects = [CATALOG, ''];
	const names = pagesUpTo(5).map((i) => `/Im${i} ${7 + i} 0 R`);
	objects[1] = `<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R 6 0 R 7 0 R] /Count 5 /MediaBox [0 0 200 200] /Resources << /XObject << ${names.join(' ')} >> >> >>`;
	for (let i = 1; i <= 5; i++) {
		objects[1 + i] = `<< /Type /Page /Parent 2 0 R /Contents ${12 + i} 0 R >>`;
		objects[6 + i] = image(marker(i));
		objects[11 + i] = draws(`Im${i}`);
	}
	return classic(objects);
}

/** Three pages naming one indirect /Resources (object 6) of the three images. */
function sharedIndirect(): Buffer {
	const objects = [
		CATALOG,
		'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 /MediaBox [0 0 200 200] >>',
	];
	for (let i = 1; i <= 3; i++) {
		objects[1 + i] = `<< /Type /Page /Parent 2 0 R /Resources 6 0 R /Contents ${9 + i} 0 R >>`;
		objects[5 + i] = image(marker(i));
		objects[8 + i] = draws(`Im${i}`);
	}
	objects[5] = '<< /XObject << /Im1 7 0 R /Im2 8 0 R /Im3 9 0 R >> >>';
	return classic(objects);
}

describe('finding 1: pages that share /Resources, each copied with its own image alone', () => {
	test('inherited from the tree node: each page alone, and pages 2 and 4', async () => {
		const pdf = inheritedResources();
		for (const page of pagesUpTo(5)) {
			const out = await checkWritten(await selectPdfPages(pdf, [page]), 1);
			expect(markersIn(out, 5)).toEqual([page]);
			expect(pageResources(out)).toMatch(new RegExp(`^<< /XObject << /Im${page} \\d+ 0 R >> >>$`));
		}
		const out = await checkWritten(await selectPdfPages(pdf, [2, 4]), 2);
		expect(markersIn(out, 5)).toEqual([2, 4]);
		expect(pageResources(out, 0)).toMatch(/^<< \/XObject << \/Im2 \d+ 0 R >> >>$/);
		expect(pageResources(out, 1)).toMatch(/^<< \/XObject << \/Im4 \d+ 0 R >> >>$/);
	});

	test('one indirect dictionary every page names: page 2 without pages 1 and 3', async () => {
		const pdf = sharedIndirect();
		const out = await checkWritten(await selectPdfPages(pdf, [2]), 1);
		expect(markersIn(out, 3)).toEqual([2]);
		expect(pageResources(out)).toMatch(/^<< \/XObject << \/Im2 \d+ 0 R >> >>$/);
		const all = await checkWritten(await selectPdfPages(pdf, [1, 2, 3]), 3);
		expect(markersIn(all, 3)).toEqual([1, 2, 3]);
	});

	test('a split of either: each part holds the images of its own pages', async () => {
		for (const [pdf, pages] of [
			[inheritedResources(), 5],
			[sharedIndirect(), 3],
		] as const) {
			const parts = await splitPdf(pdf, (size) => size <= 1400);
			expect(parts.length).toBeGreaterThan(1);
			expect(parts.flatMap((part) => part.pages)).toEqual(pagesUpTo(pages));
			for (const part of parts) expect(markersIn(joined(part), pages)).toEqual(part.pages);
		}
	});
});

/** `n` pages of a scan, each an image of `bytes` bytes (its marker, then noise) the pages share. */
function scan(n: number, bytes: number, shape: 'inherited' | 'indirect'): Buffer {
	const objects = [CATALOG, '', '', ''];
	const names: string[] = [];
	const kids: string[] = [];
	const resources = shape === 'inherited' ? '' : '/Resources 3 0 R ';
	for (let i = 1; i <= n; i++) {
		const page = objects.length + 1;
		kids.push(`${page} 0 R`);
		names.push(`/Im${i} ${page + 1} 0 R`);
		objects.push(`<< /Type /Page /Parent 2 0 R ${resources}/Contents ${page + 2} 0 R >>`);
		const samples = marker(i) + text(randomBytes(bytes - marker(i).length));
		objects.push(
			stream(
				samples,
				'/Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode ',
			),
		);
		objects.push(draws(`Im${i}`));
	}
	const shared = `<< /XObject << ${names.join(' ')} >> >>`;
	const inherited = shape === 'inherited' ? `/Resources ${shared} ` : '';
	objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${n} /MediaBox [0 0 200 200] ${inherited}>>`;
	objects[2] = shape === 'indirect' ? shared : 'null';
	objects[3] = 'null';
	return classic(objects);
}

describe('finding 1: a 30-page, 12 MB scan whose pages share /Resources is split into parts that fit', () => {
	const LIMIT = 10 * 1024 * 1024;

	test.each(['inherited', 'indirect'] as const)('%s', async (shape) => {
		const pdf = scan(30, 400_000, shape);
		expect(pdf.length).toBeGreaterThan(12_000_000);
		const parts = await splitPdf(pdf, (size) => size <= LIMIT);
		// As few as fit: 30 pages of 400 kB make two parts of at most 10 MiB.
		expect(parts.map((part) => [part.first, part.last])).toEqual([
			[1, 26],
			[27, 30],
		]);
		for (const part of parts) {
			expect(part.length).toBeLessThanOrEqual(LIMIT);
			const all = text(joined(part));
			const held = pagesUpTo(30).filter((page) => all.includes(marker(page)));
			expect(held).toEqual(part.pages);
		}
		// One page alone is its own image and little more.
		const one = await selectPdfPages(pdf, [30]);
		expect(one.length).toBeLessThan(401_000);
	});
});

describe('finding 4: a stream whose data holds the bytes `endstream`', () => {
	const TEACHING =
		'BT /F1 12 Tf 20 150 Td (A stream ends with the keyword endstream.) Tj ET /Im1 Do';
	/** Page 1's content is object 6 (`body`, a stream); object 9 holds the teaching text's length. */
	const pdf = (body: string, im1 = image(marker(1))) =>
		classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 400 200] >>',
			'<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 6 0 R >>',
			'<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 7 0 R >>',
			'<< /Font << /F1 8 0 R >> /XObject << /Im1 10 0 R /Im2 11 0 R >> >>',
			body,
			stream('BT /F1 12 Tf 20 150 Td (Page two) Tj ET /Im2 Do'),
			'<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
			`${TEACHING.length}`,
			im1,
			image(marker(2)),
		]);
	const written = (data: string) => `/Length ${data.length}>>\nstream\n${data}\nendstream`;

	test.each([
		['a direct /Length', stream(TEACHING)],
		['a /Length in an object of its own', `<< /Length 9 0 R >>\nstream\n${TEACHING}\nendstream`],
		[
			'CR LF before endstream',
			`<< /Length ${TEACHING.length} >>\nstream\n${TEACHING}\r\nendstream`,
		],
	])('page content, %s: copied whole, what follows the word drawn', async (_how, body) => {
		const source = pdf(body);
		const out = await checkWritten(await selectPdfPages(source, [1]), 1);
		expect(text(out)).toContain(written(TEACHING));
		expect(markersIn(out, 2)).toEqual([1]);
		const parts = await splitPdf(source, (size) => size <= 1300);
		expect(parts.map((part) => part.pages)).toEqual([[1], [2]]);
		expect(text(joined(parts[0]))).toContain(written(TEACHING));
	});

	test("an image's samples holding the word, with a right /Length: copied whole", async () => {
		const samples = `${marker(1)} endstream\nendobj\n99 0 obj ${text(randomBytes(300))}`;
		const im1 = stream(
			samples,
			'/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode ',
		);
		const out = text(await checkWritten(await selectPdfPages(pdf(stream(TEACHING), im1), [1]), 1));
		expect(out).toContain(`${written(samples)}`);
	});

	test.each([
		['no /Length', '<< >>'],
		['a /Length that ends at no endstream', '<< /Length 5 >>'],
		['a /Length naming no object', '<< /Length 99 0 R >>'],
	])(
		'%s: the data ends at the first `endstream`, nothing after it read or written',
		async (_how, dict) => {
			const first = 'BT /F1 12 Tf 20 150 Td (before) Tj ET';
			const body = `${dict}\nstream\n${first}\nendstream\nq /Im1 Do Q (after)\nendstream`;
			const out = await checkWritten(await selectPdfPages(pdf(body), [1]), 1);
			expect(text(out)).toContain(written(first));
			expect(text(out)).not.toContain('(after)');
			expect(markersIn(out, 2)).toEqual([]);
			expect(pageResources(out)).toMatch(/^<< \/Font << \/F1 \d+ 0 R >> >>$/);
		},
	);
});

/**
 * Four pages sharing one /Resources (object 7): each draws its image and words; pages 2-4 mark
 * content with a layer (oc1, oc2 hidden; oc3 shown); a field whose widgets are on pages 1 and 3,
 * another on page 4.
 */
function layersAndForm(): Buffer {
	const objects: string[] = [];
	const set = (num: number, body: string) => (objects[num - 1] = body);
	set(
		1,
		'<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [20 0 R 21 0 R 22 0 R] /D << /OFF [20 0 R 21 0 R] >> >> /AcroForm << /Fields [30 0 R 31 0 R] /NeedAppearances true /DR << /Font << /Helv 8 0 R >> >> /DA (/Helv 0 Tf 0 g) >> >>',
	);
	set(2, '<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R 6 0 R] /Count 4 /MediaBox [0 0 300 200] >>');
	const annots: Record<number, string> = {
		1: ' /Annots [32 0 R]',
		3: ' /Annots [33 0 R]',
		4: ' /Annots [34 0 R]',
	};
	for (let i = 1; i <= 4; i++) {
		set(
			2 + i,
			`<< /Type /Page /Parent 2 0 R /Resources 7 0 R /Contents ${12 + i} 0 R${annots[i] ?? ''} >>`,
		);
		set(8 + i, image(marker(i)));
		const layer = i > 1 ? `/OC /oc${i - 1} BDC BT /F1 9 Tf (LAYER-${i}) Tj ET EMC` : '';
		set(12 + i, flate(`BT /F1 12 Tf 20 150 Td (PAGE-${i}) Tj ET q /Im${i} Do Q ${layer}`));
	}
	set(
		7,
		'<< /Font << /F1 8 0 R >> /XObject << /Im1 9 0 R /Im2 10 0 R /Im3 11 0 R /Im4 12 0 R >> /Properties << /oc1 20 0 R /oc2 21 0 R /oc3 22 0 R >> >>',
	);
	set(8, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
	for (let i = 17; i <= 34; i++) objects[i - 1] ??= 'null';
	for (const [num, name] of [
		[20, 'one'],
		[21, 'two'],
		[22, 'three'],
	] as const)
		set(num, `<< /Type /OCG /Name (${name}) >>`);
	set(30, '<< /FT /Tx /T (name) /V (JANE DOE) /DA (/Helv 12 Tf 0 g) /Kids [32 0 R 33 0 R] >>');
	set(31, '<< /FT /Tx /T (other) /V (PAGE FOUR VALUE) /Kids [34 0 R] >>');
	set(32, '<< /Type /Annot /Subtype /Widget /Rect [100 100 280 130] /Parent 30 0 R /P 3 0 R >>');
	set(33, '<< /Type /Annot /Subtype /Widget /Rect [100 100 280 130] /Parent 30 0 R /P 5 0 R >>');
	set(34, '<< /Type /Annot /Subtype /Widget /Rect [100 10 280 30] /Parent 31 0 R /P 6 0 R >>');
	return classic(objects);
}

describe("a split's parts are the selections of their pages, byte for byte", () => {
	test('layers and a form across pages, at every limit from one page a part to all in one', async () => {
		const pdf = layersAndForm();
		const whole = (await selectPdfPages(pdf, pagesUpTo(4))).length;
		const largest = Math.max(
			...(await Promise.all(
				pagesUpTo(4).map(async (page) => (await selectPdfPages(pdf, [page])).length),
			)),
		);
		let splits = 0;
		for (let limit = largest; limit <= whole; limit += 97) {
			const parts = await splitPdf(pdf, (size) => size <= limit);
			expect(parts.flatMap((part) => part.pages)).toEqual(pagesUpTo(4));
			for (const part of parts) {
				const buf = await checkWritten(part, part.pages.length);
				expect(markersIn(buf, 4)).toEqual(part.pages);
				expect(text(buf)).toEqual(text(joined(await selectPdfPages(pdf, part.pages))));
			}
			splits += parts.length > 1 ? 1 : 0;
		}
		expect(splits).toBeGreaterThan(5);
	});
});

describe('what a page holds but does not draw stays out when it holds other pages', () => {
	test("Illustrator's /PieceInfo: its private data (every artboard of the document) is not sent with a page", async () => {
		// Illustrator saves a multi-artboard PDF with "Preserve Illustrator Editing Capabilities" on
		// by default: each page's /PieceInfo names one private dictionary whose streams hold the whole
		// document, every artboard. A copy of page 1 must not carry page 2's artwork in it.
		const pdf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 200] >>',
			'<< /Type /Page /Parent 2 0 R /Contents 5 0 R /PieceInfo << /Illustrator 7 0 R >> /LastModified (D:20261201) >>',
			'<< /Type /Page /Parent 2 0 R /Contents 6 0 R /PieceInfo << /Illustrator 7 0 R >> /LastModified (D:20261201) >>',
			stream('BT /F1 9 Tf (ARTBOARD ONE) Tj ET'),
			stream('BT /F1 9 Tf (ARTBOARD TWO) Tj ET'),
			'<< /LastModified (D:20261201) /Private 8 0 R >>',
			'<< /AIMetaData 9 0 R /AIPrivateData1 10 0 R /ContainerVersion 11 /CreatorVersion 24 /NumBlock 1 /RoundtripVersion 24 >>',
			stream('%!PS-Adobe-3.0\n%%Creator: Adobe Illustrator(R) 24.0\n%%AI8_CreatorVersion: 24.0.0'),
			flate(
				'%AI24_ArtboardsBegin\n(ARTBOARD ONE) text\n(ARTBOARD TWO SECRET) text\n%AI24_ArtboardsEnd',
			),
		]);
		const out = inflated(await checkWritten(await selectPdfPages(pdf, [1]), 1));
		expect(out).toContain('(ARTBOARD ONE) Tj');
		expect(out).not.toContain('ARTBOARD TWO');
	});
});
