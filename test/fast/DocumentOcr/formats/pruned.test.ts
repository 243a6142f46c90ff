/**
 * Pruned resources (formats/pruned.ts): a page whose content cannot be read keeps resources that
 * are its own whole, and is refused, named, where they are shared (no other page's image is ever
 * sent for want of reading); a pruned dictionary is written once for all the pages of a file that
 * draw the same names from the same dictionary; a dictionary of 100,000 names costs a page that
 * draws one of them the work of reading it once, and its copy holds that one.
 */
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import { selectPdfPages, splitPdf } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import {
	checkWritten,
	classic,
	image,
	inflated,
	joined,
	occurrences,
	pageResources,
	pagesUpTo,
	stream,
	text,
} from './copies';

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const MARKERS = ['IMAGE-A', 'IMAGE-B'];
const markers = (buf: Buffer) => MARKERS.filter((m) => inflated(buf).includes(m));
/** A content stream no filter here decodes (a scanner's JBIG2 filter on a page's content). */
const unreadable = (ops: string) => stream(ops, '/Filter /JBIG2Decode ');

/**
 * Two pages; page 1's /Resources is `resources` and its content `content`; page 2 draws /ImB of
 * the shared object 5. Images A (10) and B (11); objects from 20 on are `extra`.
 */
function pages(resources: string, content: string, extra: Record<number, string> = {}): Buffer {
	const objects = [
		CATALOG,
		'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 200] >>',
		`<< /Type /Page /Parent 2 0 R /Resources ${resources} /Contents 6 0 R >>`,
		'<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 7 0 R >>',
		'<< /XObject << /ImA 10 0 R /ImB 11 0 R /Fm1 20 0 R >> >>',
		content,
		stream('/ImB Do'),
		'<< /ImA 10 0 R /ImB 11 0 R >>',
		'null',
		image('IMAGE-A'),
		image('IMAGE-B'),
	];
	for (let num = 12; num <= Math.max(20, ...Object.keys(extra).map(Number)); num++)
		objects[num - 1] = extra[num] ?? 'null';
	return classic(objects);
}

describe('a page whose content cannot be read', () => {
	const OWN = '<< /XObject << /ImA 10 0 R /ImB 11 0 R >> /ProcSet [/PDF /ImageC] >>';

	test('its own direct resources are kept whole: nothing is lost from the page', async () => {
		const buf = await checkWritten(await selectPdfPages(pages(OWN, unreadable('/ImA Do')), [1]), 1);
		expect(pageResources(buf)).toMatch(
			/^<< \/XObject << \/ImA \d+ 0 R \/ImB \d+ 0 R >> \/ProcSet \[\/PDF \/ImageC\] >>$/,
		);
		expect(markers(buf)).toEqual(MARKERS);
	});

	test.each([
		['shared with page 2 (one indirect dictionary)', '5 0 R'],
		['direct, its /XObject an object of its own', '<< /XObject 8 0 R >>'],
	])('resources %s: refused, naming the page and why', async (_how, resources) => {
		const pdf = pages(resources, unreadable('/ImA Do'));
		const refusal = selectPdfPages(pdf, [1]);
		await expect(refusal).rejects.toThrow(FormatError);
		await expect(selectPdfPages(pdf, [1])).rejects.toThrow(
			/^the content of page 1 cannot be read \(a content stream is encoded with \/JBIG2Decode, which is not read here\), and the resources it draws from are shared/,
		);
		await expect(splitPdf(pdf, () => true)).rejects.toThrow(/the content of page 1 cannot be read/);
		// Page 2 alone reads fine: its copy is written.
		expect(markers(await checkWritten(await selectPdfPages(pdf, [2]), 1))).toEqual(['IMAGE-B']);
	});

	test('inherited from the tree node: refused, naming the page (the second of the selection)', async () => {
		const pdf = classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 200] /Resources << /XObject << /ImA 7 0 R /ImB 8 0 R >> >> >>',
			'<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>',
			'<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>',
			stream('/ImA Do'),
			unreadable('/ImB Do'),
			image('IMAGE-A'),
			image('IMAGE-B'),
		]);
		await expect(selectPdfPages(pdf, [1, 2])).rejects.toThrow(
			/^the content of page 2 cannot be read \(a content stream is encoded with \/JBIG2Decode/,
		);
		expect(markers(await checkWritten(await selectPdfPages(pdf, [1]), 1))).toEqual(['IMAGE-A']);
	});

	test('a form whose content cannot be read: its own resources whole, shared ones refused', async () => {
		const own = pages('5 0 R', stream('/Fm1 Do'), {
			20: unreadable('/ImA Do').replace(
				'<<',
				`<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources ${OWN}`,
			),
		});
		const buf = await checkWritten(await selectPdfPages(own, [1]), 1);
		expect(pageResources(buf)).toMatch(/^<< \/XObject << \/Fm1 \d+ 0 R >> >>$/);
		expect(markers(buf)).toEqual(MARKERS);
		const shared = pages('5 0 R', stream('/Fm1 Do'), {
			20: unreadable('/ImA Do').replace(
				'<<',
				'<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources 5 0 R',
			),
		});
		await expect(selectPdfPages(shared, [1])).rejects.toThrow(
			/^the content of object 20 cannot be read \(.*JBIG2Decode/,
		);
	});

	test('a form without resources whose content cannot be read makes its page unreadable', async () => {
		const pdf = pages('5 0 R', stream('/Fm1 Do'), {
			20: unreadable('/ImA Do').replace('<<', '<< /Type /XObject /Subtype /Form /BBox [0 0 1 1]'),
		});
		await expect(selectPdfPages(pdf, [1])).rejects.toThrow(/^the content of page 1 cannot be read/);
	});
});

describe('a pruned dictionary is written once per file for the pages that draw the same from it', () => {
	/** `n` pages under one node whose /Resources names both images: odd pages draw A, even B. */
	function alternating(n: number): Buffer {
		const objects = [
			CATALOG,
			`<< /Type /Pages /Kids [${pagesUpTo(n)
				.map((i) => `${5 + i} 0 R`)
				.join(
					' ',
				)}] /Count ${n} /MediaBox [0 0 200 200] /Resources << /XObject << /ImA 3 0 R /ImB 4 0 R >> /Font << /F1 5 0 R >> >> >>`,
			image('IMAGE-A'),
			image('IMAGE-B'),
			'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
		];
		for (let i = 1; i <= n; i++)
			objects.push(`<< /Type /Page /Parent 2 0 R /Contents ${5 + n + (i % 2) + 1} 0 R >>`);
		objects.push(
			stream('BT /F1 9 Tf (even) Tj ET /ImB Do'),
			stream('BT /F1 9 Tf (odd) Tj ET /ImA Do'),
		);
		return classic(objects);
	}

	test('fifty pages: two pruned dictionaries, each image and the font once', async () => {
		const buf = await checkWritten(await selectPdfPages(alternating(50), pagesUpTo(50)), 50);
		const all = text(buf);
		expect(
			all.match(/<< \/XObject << \/ImA \d+ 0 R >> \/Font << \/F1 \d+ 0 R >> >>/g),
		).toHaveLength(1);
		expect(
			all.match(/<< \/XObject << \/ImB \d+ 0 R >> \/Font << \/F1 \d+ 0 R >> >>/g),
		).toHaveLength(1);
		expect(occurrences(all, '/BaseFont /Helvetica')).toBe(1);
		expect(occurrences(inflated(buf), 'IMAGE-A')).toBe(20);
		const odd = await checkWritten(await selectPdfPages(alternating(50), [1, 3, 5, 7]), 4);
		expect(markers(odd)).toEqual(['IMAGE-A']);
		expect(text(odd).match(/<< \/XObject << \/ImA \d+ 0 R >>/g)).toHaveLength(1);
	});

	test('a split: once in each part that has a page drawing them', async () => {
		const parts = await splitPdf(alternating(50), (size) => size <= 3000);
		expect(parts.length).toBeGreaterThan(2);
		for (const part of parts) {
			const all = text(joined(part));
			const odd = part.pages.some((page) => page % 2 === 1);
			const even = part.pages.some((page) => page % 2 === 0);
			expect(occurrences(all, '<< /XObject << /ImA')).toBe(odd ? 1 : 0);
			expect(occurrences(all, '<< /XObject << /ImB')).toBe(even ? 1 : 0);
		}
	});
});

describe('100,000 resource names, one drawn', () => {
	/** One page drawing /N7 of a shared dictionary of `n` names (object 3), all but N7 naming B. */
	const many = (n: number) => {
		const names = pagesUpTo(n).map((i) => `/N${i - 1} ${i - 1 === 7 ? 4 : 5} 0 R`);
		return classic([
			CATALOG,
			'<< /Type /Pages /Kids [6 0 R 7 0 R] /Count 2 /MediaBox [0 0 200 200] >>',
			`<< /XObject << ${names.join(' ')} >> >>`,
			image('IMAGE-A'),
			image('IMAGE-B'),
			'<< /Type /Page /Parent 2 0 R /Resources 3 0 R /Contents 8 0 R >>',
			'<< /Type /Page /Parent 2 0 R /Resources 3 0 R /Contents 9 0 R >>',
			stream('q /N7 Do Q /Nothing Do'),
			stream('/N8 Do'),
		]);
	};

	test('the copy holds one name, and the work grows with the file, no faster', async () => {
		const works: number[] = [];
		const sizes: number[] = [];
		for (const n of [10_000, 100_000]) {
			const pdf = many(n);
			let work = 0;
			const buf = await checkWritten(
				await selectPdfPages(pdf, [1], { measured: (w) => (work = w) }),
				1,
			);
			expect(pageResources(buf)).toMatch(/^<< \/XObject << \/N7 \d+ 0 R >> >>$/);
			expect(markers(buf)).toEqual(['IMAGE-A']);
			expect(buf.length).toBeLessThan(1500);
			works.push(work);
			sizes.push(pdf.length);
		}
		expect(works[1] / works[0]).toBeLessThan(1.2 * (sizes[1] / sizes[0]));
	});
});

describe('many pages sharing a dictionary of many names', () => {
	/** `n` pages naming one dictionary (object 3) of `n` names; each page draws /N0 of it. */
	const square = (n: number) => {
		const names = pagesUpTo(n).map((i) => `/N${i - 1} 4 0 R`);
		const objects = [
			CATALOG,
			`<< /Type /Pages /Kids [${pagesUpTo(n)
				.map((i) => `${5 + i} 0 R`)
				.join(' ')}] /Count ${n} /MediaBox [0 0 200 200] >>`,
			`<< /XObject << ${names.join(' ')} >> >>`,
			image('IMAGE-A'),
			stream('q /N0 Do Q'),
		];
		for (let i = 1; i <= n; i++)
			objects.push('<< /Type /Page /Parent 2 0 R /Resources 3 0 R /Contents 5 0 R >>');
		return classic(objects);
	};

	test('every page copied: the work grows with the file, no faster (the dictionary is not read again for each page)', async () => {
		// A file twice as large (twice the pages, twice the names) may cost twice the work, not four
		// times: a 5 MB file of this shape would otherwise hold a worker for many minutes.
		const works: number[] = [];
		for (const n of [250, 500, 1000]) {
			let work = 0;
			await selectPdfPages(square(n), pagesUpTo(n), { measured: (w) => (work = w) });
			works.push(work);
		}
		const ratios = works.slice(1).map((work, i) => +(work / works[i]).toFixed(2));
		expect({ works, ratios }).toEqual({
			works,
			ratios: ratios.map((r) => (r <= 2.2 ? r : 'at most 2.2')),
		});
	});
});
