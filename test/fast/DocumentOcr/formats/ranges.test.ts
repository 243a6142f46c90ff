/**
 * Page selections as printing takes them (formats/ranges.ts): pages in document order, each once;
 * every wrong selection refused with what is wrong and the syntax accepted; the work linear.
 */
// First: the work counter starts before the product's code is compiled (support/work.js).
import '../../../support/work.js';
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import { parsePageSelection, SELECTION_SYNTAX } from '../../../../nodes/DocumentOcr/formats/ranges';

describe('a selection names pages in document order, each once', () => {
	test.each([
		['1-3, 5, 8-', 10, [1, 2, 3, 5, 8, 9, 10]],
		['1-3,5,8-', 10, [1, 2, 3, 5, 8, 9, 10]],
		['  2  ', 3, [2]],
		['last', 7, [7]],
		['LAST', 7, [7]],
		['4-last', 6, [4, 5, 6]],
		['last-', 6, [6]],
		['5, 1-2, 2-3, 1', 5, [1, 2, 3, 5]],
		['3 - 4 , 1', 5, [1, 3, 4]],
		['1\u20133', 4, [1, 2, 3]],
		['1-', 1, [1]],
		['1-1', 1, [1]],
		['2-2, 2', 3, [2]],
		['\t1 ,\n3\t', 3, [1, 3]],
	])('%j of %i pages', (selection, total, pages) => {
		expect(parsePageSelection(selection, total)).toEqual(pages);
	});

	test('every page of a large document', () => {
		const pages = parsePageSelection('1-', 100_000);
		expect(pages.length).toBe(100_000);
		expect(pages[99_999]).toBe(100_000);
	});
});

describe('a wrong selection is refused: what is wrong, and the syntax accepted', () => {
	test.each([
		['3-1', 5, /The range "3-1" runs backwards \(3 after 1\)/],
		['abc', 5, /"abc" is not a page number or a range/],
		['0', 5, /"0" names page 0; pages count from 1/],
		['0-2', 5, /"0-2" names page 0; pages count from 1/],
		['-', 5, /"-" is no range: a range begins with its first page/],
		['-3', 5, /"-3" is no range/],
		['', 5, /The page selection is empty/],
		['   ', 5, /The page selection is empty/],
		[',', 5, /"," has an empty part between commas/],
		['1,,2', 5, /"1,,2" has an empty part between commas/],
		['1,', 5, /has an empty part between commas/],
		['6', 5, /"6" names page 6, past the document's last page \(5\)/],
		['2-9', 5, /"2-9" names page 9, past the document's last page \(5\)/],
		['99999999999999999999', 5, /names page 999999999999…, past the document's last page/],
		['1.5', 5, /"1.5" is not a page number or a range/],
		['1 2', 5, /"1 2" is not a page number or a range/],
		['1-2-3', 5, /"1-2-3" is not a page number or a range/],
		['first', 5, /"first" is not a page number or a range/],
	])('%j', (selection, total, message) => {
		let error: unknown;
		try {
			parsePageSelection(selection, total);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(FormatError);
		expect((error as Error).message).toMatch(message);
		expect((error as Error).message.endsWith(SELECTION_SYNTAX)).toBe(true);
	});

	test('a long wrong part is shown cut short', () => {
		expect(() => parsePageSelection(`1, ${'x'.repeat(10_000)}`, 5)).toThrow(
			/"x{40}…" is not a page number/,
		);
	});

	test('a document of no pages has none to select', () => {
		expect(() => parsePageSelection('1', 0)).toThrow(FormatError);
	});
});

// The work counted block by block, not timed (support/work.ts): the same on a busy machine.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { workPerDoubling } = require('../../../support/work.js') as {
	workPerDoubling: (
		make: (size: number) => unknown,
		run: (input: unknown) => unknown,
		sizes: number[],
	) => Promise<{ counts: number[]; ratios: number[] }>;
};

describe('the work is linear in the selection', () => {
	test('eight times the parts, about eight times the work', async () => {
		const sizes = [10_000, 20_000, 40_000, 80_000];
		const { counts } = await workPerDoubling(
			(parts) =>
				Array.from({ length: parts }, (_, i) => `${(i % 500) + 1}-${(i % 500) + 3}`).join(', '),
			(selection) => parsePageSelection(selection as string, 1000),
			sizes,
		);
		// Linear work grows about 8x over three doublings, quadratic 64x.
		expect(counts[counts.length - 1] / Math.max(1, counts[0])).toBeLessThan(2.2 ** 3);
		expect(counts[0]).toBeGreaterThan(10_000);
	});
});
