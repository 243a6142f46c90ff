/**
 * The page counter's work is linear in the file (issue 35): for every crafted family of
 * test/fixtures/pages/crafted.js (one-entry subsections, many tiny objects, the object scan, a
 * wide /Kids, deep arrays, long names, strings and numbers, comments, many /Prev sections and
 * object streams, predictors, TIFF directories, GIF and APNG frames, WEBP frames, PNG chunks),
 * the file doubled three times: the work the count reports (its meter, the same on any machine)
 * grows at most 2.2 times per doubling, and the count is the one expected at every size. The same
 * for the copies of formats/pdf-write.ts and tiff-write.ts: every page of a tree whose root gives
 * each page its resources (narrow and flat), every page of object streams, every other page, every
 * page of a TIFF, a split of each into parts of a fixed size.
 */
import type { FileKind } from '../../../../nodes/DocumentOcr/formats';
import { countWithWork } from '../../../../nodes/DocumentOcr/formats';
import { selectPdfPages, splitPdf } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import { selectTiffPages, splitTiff } from '../../../../nodes/DocumentOcr/formats/tiff-write';

interface Family {
	name: string;
	kind: FileKind;
	base: number;
	make(n: number): Buffer;
	pages(n: number): number | null;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { FAMILIES, inheritedTree, pagedTiff } = require('../../../fixtures/pages/crafted.js') as {
	FAMILIES: Family[];
	inheritedTree(n: number, fan?: number): Buffer;
	pagedTiff(texts: string[], options?: { strips?: number }): Buffer;
};

describe('the work of a count grows with the file, no faster', () => {
	test.each(FAMILIES.map((family) => [family.name, family] as const))(
		'%s',
		async (_name, family) => {
			const works: number[] = [];
			for (const k of [1, 2, 4, 8]) {
				const n = family.base * k;
				const { count, work } = await countWithWork(family.make(n), family.kind);
				expect(count.pages).toBe(family.pages(n));
				works.push(work);
			}
			const ratios = works.slice(1).map((work, i) => +(work / works[i]).toFixed(2));
			expect({ works, ratios }).toEqual({
				works,
				ratios: ratios.map((ratio) => (ratio <= 2.2 ? ratio : 'at most 2.2')),
			});
		},
	);
});

/** A copy of a crafted file: its work, and the pages it wrote. */
interface Copy {
	name: string;
	base: number;
	make(n: number): Buffer;
	copy(bytes: Buffer, n: number, measured: (work: number) => void): Promise<number>;
}

const family = (name: string) => FAMILIES.find((f) => f.name === name)!;
const every = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const pagesOf = async (written: Promise<{ length: number }>) =>
	(await written).length > 0 ? 1 : 0;

const COPIES: Copy[] = [
	{
		name: 'every page of a tree whose root gives each its resources',
		base: 500,
		make: (n) => inheritedTree(n),
		copy: async (bytes, n, measured) =>
			await pagesOf(selectPdfPages(bytes, every(n), { measured })),
	},
	{
		name: 'every page of a flat tree (one /Kids) whose root gives each its resources',
		base: 500,
		make: (n) => inheritedTree(n, n + 1),
		copy: async (bytes, n, measured) =>
			await pagesOf(selectPdfPages(bytes, every(n), { measured })),
	},
	{
		name: 'every other page',
		base: 500,
		make: (n) => inheritedTree(n),
		copy: async (bytes, n, measured) =>
			await pagesOf(
				selectPdfPages(
					bytes,
					every(n).filter((page) => page % 2 === 0),
					{ measured },
				),
			),
	},
	{
		name: 'every page of many objects in one object stream',
		base: 500,
		make: (n) => family('many objects in one object stream').make(n),
		copy: async (bytes, n, measured) =>
			await pagesOf(selectPdfPages(bytes, every(n), { measured })),
	},
	{
		name: 'a split into parts of 8 kB',
		base: 500,
		make: (n) => inheritedTree(n),
		copy: async (bytes, _n, measured) =>
			(await splitPdf(bytes, (size) => size <= 8000, { measured })).length,
	},
	{
		name: 'every page of a TIFF',
		base: 500,
		make: (n) =>
			pagedTiff(
				every(n).map((page) => `page ${page}`),
				{ strips: 4 },
			),
		copy: async (bytes, n, measured) =>
			await pagesOf(selectTiffPages(bytes, every(n), { measured })),
	},
	{
		name: 'a split of a TIFF into parts of 8 kB',
		base: 500,
		make: (n) =>
			pagedTiff(
				every(n).map((page) => `page ${page}`),
				{ strips: 4 },
			),
		copy: async (bytes, _n, measured) =>
			(await splitTiff(bytes, (size) => size <= 8000, { measured })).length,
	},
];

describe('the work of a copy grows with the file, no faster', () => {
	test.each(COPIES.map((copy) => [copy.name, copy] as const))('%s', async (_name, copy) => {
		const works: number[] = [];
		for (const k of [1, 2, 4, 8]) {
			let work = 0;
			const wrote = await copy.copy(copy.make(copy.base * k), copy.base * k, (w) => (work = w));
			expect(wrote).toBeGreaterThan(0);
			works.push(work);
		}
		const ratios = works.slice(1).map((work, i) => +(work / works[i]).toFixed(2));
		expect({ works, ratios }).toEqual({
			works,
			ratios: ratios.map((ratio) => (ratio <= 2.2 ? ratio : 'at most 2.2')),
		});
	});
});
