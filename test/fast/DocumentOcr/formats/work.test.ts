/**
 * The page counter's work is linear in the file (issue 35): for every crafted family of
 * test/fixtures/pages/crafted.js (one-entry subsections, many tiny objects, the object scan, a
 * wide /Kids, deep arrays, long names, strings and numbers, comments, many /Prev sections and
 * object streams, predictors, TIFF directories, GIF and APNG frames, WEBP frames, PNG chunks),
 * the file doubled three times: the work the count reports (its meter, the same on any machine)
 * grows at most 2.2 times per doubling, and the count is the one expected at every size.
 */
import type { DocumentKind } from '../../../../nodes/DocumentOcr/formats';
import { countWithWork } from '../../../../nodes/DocumentOcr/formats';

interface Family {
	name: string;
	kind: DocumentKind;
	base: number;
	make(n: number): Buffer;
	pages(n: number): number | null;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { FAMILIES } = require('../../../fixtures/pages/crafted.js') as { FAMILIES: Family[] };

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
