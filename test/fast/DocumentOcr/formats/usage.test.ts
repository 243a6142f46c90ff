/**
 * What a page draws (formats/usage.ts), seen through its copy (selectPdfPages): of the resources
 * the page shares with another page (object 5, which the other page draws /ImC of), the copy keeps
 * the names the page's operators use, and those of every holder without resources of its own that
 * it draws (a form, a tiling pattern, a soft mask's group, a Type 3 font's glyphs, an annotation's
 * appearance), read in the page's context; a holder with resources of its own keeps its own,
 * pruned the same way. Cycles end; names of nothing are passed over. Each image's samples spell a
 * marker, searched for in the written file with its Flate streams inflated.
 */
import { selectPdfPages } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import {
	checkWritten,
	classic,
	flate,
	form,
	image,
	inflated,
	objectOf,
	pageResources,
	pagesUpTo,
	refIn,
	stream,
	text,
} from './copies';

const IMAGES = '/ImA 10 0 R /ImB 11 0 R /ImC 12 0 R';
const MARKERS = ['IMAGE-A', 'IMAGE-B', 'IMAGE-C'];

/**
 * Two pages sharing resources 5 (`resources`, inside its << >>): page 1 draws `ops` (with
 * `annots`), page 2 draws /ImC. Objects from 20 on are `extra` (by number).
 */
function twoPages(ops: string, resources: string, extra: Record<number, string> = {}, annots = '') {
	const objects: string[] = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 200] >>',
		`<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 6 0 R${annots} >>`,
		'<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 7 0 R >>',
		`<< ${resources} >>`,
		stream(ops),
		stream('q /ImC Do Q'),
		'null',
		'null',
		image('IMAGE-A'),
		image('IMAGE-B'),
		image('IMAGE-C'),
	];
	const last = Math.max(19, ...Object.keys(extra).map(Number));
	for (let num = 13; num <= last; num++) objects[num - 1] = extra[num] ?? 'null';
	return classic(objects);
}

/** Page 1 copied: its pruned resources, the markers the file holds, its text. */
async function pageOne(
	pdf: Buffer,
): Promise<{ resources: string; markers: string[]; all: string; buf: Buffer }> {
	const buf = await checkWritten(await selectPdfPages(pdf, [1]), 1);
	const all = inflated(buf);
	return {
		resources: pageResources(buf),
		markers: MARKERS.filter((m) => all.includes(m)),
		all,
		buf,
	};
}
/** A pruned dictionary: each category ('XObject Fm1 ImA') with its names, in the copy's order. */
function pruned(...categories: string[]): RegExp {
	const parts = categories.map((category) => {
		const [name, ...names] = category.split(' ');
		return `/${name} << ${names.map((n) => `/${n} \\d+ 0 R`).join(' ')} >>`;
	});
	return new RegExp(`^<< ${parts.join(' ')} >>$`);
}

describe('forms', () => {
	test('a form without resources: its names kept on the page, read in its context', async () => {
		const pdf = twoPages('q /Fm1 Do Q', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
			20: form('/ImA Do'),
		});
		const { resources, markers, buf } = await pageOne(pdf);
		expect(resources).toMatch(pruned('XObject Fm1 ImA'));
		expect(markers).toEqual(['IMAGE-A']);
		const fm1 = objectOf(buf, refIn(resources, 'Fm1'));
		expect(fm1).toMatch(/\/Subtype \/Form .*\/Length 7>>\nstream\n\/ImA Do\nendstream$/);
		expect(fm1).not.toContain('/Resources');
	});

	test('a form with its own resources, direct or the dictionary the pages share: its own pruned', async () => {
		for (const own of [`<< /XObject << /ImA 10 0 R /ImB 11 0 R >> >>`, '5 0 R']) {
			const pdf = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
				20: form('/ImA Do', own),
			});
			const { resources, markers, buf } = await pageOne(pdf);
			expect(resources).toMatch(pruned('XObject Fm1'));
			const fm1 = refIn(resources, 'Fm1');
			expect(objectOf(buf, refIn(objectOf(buf, fm1), 'Resources'))).toMatch(pruned('XObject ImA'));
			expect(markers).toEqual(['IMAGE-A']);
		}
	});

	test("a form with resources of its own lacking a name it draws: the page's keeps it (poppler looks it up there; review 42, b1)", async () => {
		const pdf = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
			20: form('/ImA Do', '<< /ProcSet [/PDF] >>'),
		});
		const { resources, markers } = await pageOne(pdf);
		expect(resources).toMatch(pruned('XObject Fm1 ImA'));
		expect(markers).toEqual(['IMAGE-A']);
	});

	test('a form drawing itself, and two forms drawing each other: the reading ends', async () => {
		const self = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
			20: form('/Fm1 Do /ImB Do'),
		});
		expect((await pageOne(self)).resources).toMatch(pruned('XObject Fm1 ImB'));
		const pair = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R /Fm2 21 0 R ${IMAGES} >>`, {
			20: form('/Fm2 Do'),
			21: form('/Fm1 Do /ImA Do'),
		});
		const { resources, markers } = await pageOne(pair);
		expect(resources).toMatch(pruned('XObject Fm1 Fm2 ImA'));
		expect(markers).toEqual(['IMAGE-A']);
		const owned = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
			20: form('/Fm1 Do /ImA Do', '<< /XObject << /Fm1 20 0 R /ImA 10 0 R /ImB 11 0 R >> >>'),
		});
		expect((await pageOne(owned)).markers).toEqual(['IMAGE-A']);
	});

	test("a form whose /Resources is null or names a free object has none (ISO 32000 7.3.7): read in the page's context", async () => {
		// As the copy reads a page's own null /Resources (pdf-write.test.ts): the value is absent.
		for (const none of ['21 0 R', 'null']) {
			const pdf = twoPages('/Fm1 Do', `/XObject << /Fm1 20 0 R ${IMAGES} >>`, {
				20: form('/ImA Do', none),
				21: 'null',
			});
			const free = Buffer.from(
				text(pdf).replace(/(xref\n0 \d+\n(?:.{20}){21}).{20}/s, '$10000000000 00001 f \n'),
				'latin1',
			);
			const { resources, markers } = await pageOne(free);
			expect({ none, resources }).toEqual({
				none,
				resources: expect.stringMatching(pruned('XObject Fm1 ImA')),
			});
			expect(markers).toEqual(['IMAGE-A']);
		}
	});

	test('forms without resources nested 20 deep: the innermost image kept', async () => {
		const extra: Record<number, string> = {};
		for (let i = 0; i < 20; i++) extra[20 + i] = form(i < 19 ? `/Fm${i + 1} Do` : '/ImB Do');
		const names = Array.from({ length: 20 }, (_, i) => `/Fm${i} ${20 + i} 0 R`).join(' ');
		const { markers } = await pageOne(
			twoPages('/Fm0 Do', `/XObject << ${names} ${IMAGES} >>`, extra),
		);
		expect(markers).toEqual(['IMAGE-B']);
	});
});

describe('names of nothing', () => {
	test('names no dictionary holds, and categories the resources lack: passed over', async () => {
		const ops =
			'/Nope Do /NoFont 12 Tf /NoSh sh /NoGS gs /NoCS cs /NoP scn /OC /NoOC BDC EMC /ImA Do';
		const { resources, markers } = await pageOne(twoPages(ops, `/XObject << ${IMAGES} >>`));
		expect(resources).toMatch(pruned('XObject ImA'));
		expect(markers).toEqual(['IMAGE-A']);
	});

	test('a page drawing nothing of them: empty resources', async () => {
		expect((await pageOne(twoPages('0 0 m 10 10 l S', `/XObject << ${IMAGES} >>`))).resources).toBe(
			'<< >>',
		);
	});
});

describe('patterns, shadings, soft masks, Type 3 fonts, appearances, inline images, layers', () => {
	const TILING =
		'/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 10 10] /XStep 10 /YStep 10 ';

	test('a tiling pattern (scn) without resources: its image kept on the page', async () => {
		const pdf = twoPages(
			'/Pattern cs /P1 scn 0 0 10 10 re f',
			`/Pattern << /P1 20 0 R /P2 21 0 R >> /XObject << ${IMAGES} >>`,
			{
				20: stream('/ImA Do', TILING),
				21: stream('/ImB Do', TILING),
			},
		);
		const { resources, markers } = await pageOne(pdf);
		expect(resources).toMatch(pruned('Pattern P1', 'XObject ImA'));
		expect(markers).toEqual(['IMAGE-A']);
	});

	test('a tiling pattern (SCN) with resources of its own: its own pruned', async () => {
		const pdf = twoPages('/P1 SCN', `/Pattern << /P1 20 0 R >> /XObject << ${IMAGES} >>`, {
			20: stream('/ImB Do', `${TILING}/Resources << /XObject << /ImA 10 0 R /ImB 11 0 R >> >> `),
		});
		const { resources, markers, buf } = await pageOne(pdf);
		expect(resources).toMatch(pruned('Pattern P1'));
		expect(objectOf(buf, refIn(objectOf(buf, refIn(resources, 'P1')), 'Resources'))).toMatch(
			pruned('XObject ImB'),
		);
		expect(markers).toEqual(['IMAGE-B']);
	});

	test('a shading (sh) and a colour space (cs): only the one drawn', async () => {
		const shading = (c: number) =>
			`<< /ShadingType 2 /ColorSpace /DeviceGray /Coords [0 0 1 1] /Function << /FunctionType 2 /Domain [0 1] /C0 [${c}] /C1 [1] /N 1 >> >>`;
		const pdf = twoPages(
			'/CS2 cs /Sh1 sh',
			'/Shading << /Sh1 20 0 R /Sh2 21 0 R >> /ColorSpace << /CS1 [/CalGray << /WhitePoint [1 1 1] >>] /CS2 /DeviceRGB >>',
			{
				20: shading(0),
				21: shading(0.5),
			},
		);
		const { resources } = await pageOne(pdf);
		expect(resources).toMatch(
			/^<< \/ColorSpace << \/CS2 \/DeviceRGB >> \/Shading << \/Sh1 \d+ 0 R >> >>$/,
		);
	});

	test("an ExtGState's soft mask whose group has no resources: the group's image kept", async () => {
		const pdf = twoPages(
			'/GS1 gs 0 0 10 10 re f',
			`/ExtGState << /GS1 20 0 R /GS2 << /CA 0.5 >> >> /XObject << ${IMAGES} >>`,
			{
				20: '<< /Type /ExtGState /SMask << /S /Luminosity /G 21 0 R >> >>',
				21: form('/ImA Do', undefined).replace(
					'/BBox',
					'/Group << /S /Transparency /CS /DeviceGray >> /BBox',
				),
			},
		);
		const { resources, markers } = await pageOne(pdf);
		expect(resources).toMatch(pruned('ExtGState GS1', 'XObject ImA'));
		expect(markers).toEqual(['IMAGE-A']);
	});

	test("a Type 3 font without resources: its glyphs' images kept; with its own: pruned", async () => {
		const type3 = (resources: string) =>
			`<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [1 0 0 1 0 0] /CharProcs << /a 21 0 R /b 22 0 R >> /Encoding << /Differences [97 /a /b] >> /FirstChar 97 /LastChar 98 /Widths [1 1] ${resources}>>`;
		const glyphs = { 21: stream('1 0 0 0 1 1 d1 /ImA Do'), 22: stream('1 0 0 0 1 1 d1 /ImB Do') };
		const bare = twoPages(
			'BT /T3 12 Tf (a) Tj ET',
			`/Font << /T3 20 0 R >> /XObject << ${IMAGES} >>`,
			{ 20: type3(''), ...glyphs },
		);
		const one = await pageOne(bare);
		// Every glyph of the font is read: which ones a string shows is not told apart.
		expect(one.resources).toMatch(pruned('XObject ImA ImB', 'Font T3'));
		expect(one.markers).toEqual(['IMAGE-A', 'IMAGE-B']);
		const own = twoPages(
			'BT /T3 12 Tf (a) Tj ET',
			`/Font << /T3 20 0 R >> /XObject << ${IMAGES} >>`,
			{
				20: type3('/Resources << /XObject << /ImA 10 0 R /ImB 11 0 R /ImC 12 0 R >> >> '),
				...glyphs,
			},
		);
		const two = await pageOne(own);
		expect(two.resources).toMatch(pruned('Font T3'));
		expect(
			objectOf(two.buf, refIn(objectOf(two.buf, refIn(two.resources, 'T3')), 'Resources')),
		).toMatch(pruned('XObject ImA ImB'));
		expect(two.markers).toEqual(['IMAGE-A', 'IMAGE-B']);
	});

	test("an annotation's appearance streams without resources, one or a state's", async () => {
		const pdf = twoPages(
			'q Q',
			`/XObject << ${IMAGES} >>`,
			{
				20: '<< /Type /Annot /Subtype /Stamp /Rect [0 0 50 50] /AP << /N 21 0 R >> >>',
				21: form('/ImA Do'),
				22: '<< /Type /Annot /Subtype /Widget /Rect [0 0 9 9] /AS /Off /AP << /N << /On 23 0 R /Off 24 0 R >> /D 25 0 R >> >>',
				23: form('/ImB Do'),
				24: form('q Q'),
				25: form('/ImC Do', '<< /XObject << /ImC 12 0 R >> >>'),
			},
			' /Annots [20 0 R 22 0 R]',
		);
		const { resources, markers } = await pageOne(pdf);
		expect(resources).toMatch(pruned('XObject ImA ImB'));
		// The /D appearance has resources of its own: its image is its own (copied with it).
		expect(markers).toEqual(MARKERS);
	});

	test("an inline image's colour space, and a layer's properties", async () => {
		const ops = 'BI /W 1 /H 1 /CS /CS1 /BPC 8 ID x EI /OC /oc1 BDC EMC';
		const pdf = twoPages(
			ops,
			'/ColorSpace << /CS1 [/CalRGB << /WhitePoint [1 1 1] >>] /CS2 /DeviceGray >> /Properties << /oc1 20 0 R /oc2 21 0 R >>',
			{
				20: '<< /Type /OCG /Name (one) >>',
				21: '<< /Type /OCG /Name (two) >>',
			},
		);
		const { resources, all } = await pageOne(pdf);
		expect(resources).toMatch(
			/^<< \/ColorSpace << \/CS1 \[\/CalRGB << \/WhitePoint \[1 1 1\] >>\] >> \/Properties << \/oc1 \d+ 0 R >> >>$/,
		);
		expect(all).toContain('(one)');
		expect(all).not.toContain('(two)');
	});
});

test('default colour spaces, which device colours use without naming them (ISO 32000 8.6.5.6), are kept', async () => {
	// A PDF/A converter calibrates device colours this way: /DefaultRGB replaces DeviceRGB for
	// every rg, RG and RGB image of the page; without it the page is drawn in other colours.
	const pdf = twoPages(
		'1 0 0 rg 0 0 10 10 re f /ImA Do',
		`/ColorSpace << /DefaultRGB [/CalRGB << /WhitePoint [0.9505 1 1.089] /Gamma [2.2 2.2 2.2] >>] /CS9 /DeviceGray >> /XObject << ${IMAGES} >>`,
	);
	const { resources } = await pageOne(pdf);
	expect(resources).toMatch(
		/^<< \/ColorSpace << \/DefaultRGB \[\/CalRGB << \/WhitePoint \[0\.9505 1 1\.089\] \/Gamma \[2\.2 2\.2 2\.2\] >>\] >> \/XObject << \/ImA \d+ 0 R >> >>$/,
	);
});

test('the copy of every page of the document holds all three images', async () => {
	const pdf = twoPages('/ImA Do /ImB Do', `/XObject << ${IMAGES} >>`);
	const buf = await checkWritten(await selectPdfPages(pdf, [1, 2]), 2);
	expect(MARKERS.filter((m) => inflated(buf).includes(m))).toEqual(MARKERS);
	expect(text(buf)).toContain('/Type /Pages');
});

describe('a content stream many pages share', () => {
	/**
	 * `n` pages under one node that gives them /Resources; each page's /Contents is [5 0 R, its own
	 * words]: object 5 a template every page draws (a letterhead of 300 kB of paths and a logo),
	 * compressed as producers compress drawings (about 3.7 to 1).
	 */
	function letterhead(n: number): Buffer {
		let state = 1;
		const next = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) % 6000;
		const paths: string[] = [];
		for (let length = 0; length < 300_000; length += paths[paths.length - 1].length)
			paths.push(`${next() / 10} ${next() / 10} m ${next() / 10} ${next() / 10} l S\n`);
		const objects = [
			'<< /Type /Catalog /Pages 2 0 R >>',
			`<< /Type /Pages /Kids [${pagesUpTo(n)
				.map((i) => `${6 + i} 0 R`)
				.join(
					' ',
				)}] /Count ${n} /MediaBox [0 0 600 800] /Resources << /XObject << /Logo 3 0 R >> /Font << /F1 4 0 R >> >> >>`,
			image('IMAGE-A'),
			'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
			flate(`q /Logo Do Q ${paths.join('')}`),
			'null',
		];
		for (let i = 1; i <= n; i++)
			objects.push(`<< /Type /Page /Parent 2 0 R /Contents [5 0 R ${6 + n + i} 0 R] >>`);
		for (let i = 1; i <= n; i++) objects.push(stream(`BT /F1 12 Tf 72 700 Td (PAGE ${i}) Tj ET`));
		return classic(objects);
	}

	test('sixty pages drawing one 300 kB template: every page copied (the template read once, or its reading not charged again)', async () => {
		// The content budget (32 times the file and 8 MB) bounds the bytes the file's content
		// decodes to; a stream read again for each page that draws it is not more of the file.
		const thirty = letterhead(30);
		await checkWritten(await selectPdfPages(thirty, pagesUpTo(30)), 30);
		const pdf = letterhead(60);
		const buf = await checkWritten(await selectPdfPages(pdf, pagesUpTo(60)), 60);
		expect(inflated(buf)).toContain('IMAGE-A');
		expect(text(buf).match(/\/Contents \[\d+ 0 R \d+ 0 R\]/g)).toHaveLength(60);
	});
});
