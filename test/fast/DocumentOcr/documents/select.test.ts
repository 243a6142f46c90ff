/**
 * The Pages option as an item gives it (documents/select.ts): what means "all pages", what is an
 * item error naming the field, the refusals of a selection against the pages counted, and
 * pagesSent as ranges.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	allPages,
	buildSelection,
	pageSelectionOf,
	rangesOf,
	selectedPages,
} from '../../../../nodes/DocumentOcr/documents/select';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makePdf } = require('../../../../emulator/documents.js') as {
	makePdf(texts: string[]): Buffer;
};

/** A context whose Pages option gives `value`. */
const given = (value: unknown) =>
	({
		getNode: () => ({ name: 'Document OCR' }),
		getNodeParameter: (path: string, _item: number, fallback: unknown) =>
			path === 'options.pages' ? value : fallback,
	}) as unknown as IExecuteFunctions;

describe('the Pages option', () => {
	test.each([undefined, null, '', '   ', '\n\t'])('%p selects every page', (value) => {
		expect(pageSelectionOf(given(value), 0)).toBeUndefined();
	});

	test.each([
		['1-3, 5, 8-', '1-3, 5, 8-'],
		['last', 'last'],
		[3, '3'],
	])('%p is read as %p', (value, text) => {
		expect(pageSelectionOf(given(value), 0)).toBe(text);
	});

	test.each([[[1, 2]], [{ from: 1 }], [true], [Number.NaN]])(
		'%p is an item error naming the field',
		(value) => {
			let error: unknown;
			try {
				pageSelectionOf(given(value), 4);
			} catch (e) {
				error = e;
			}
			expect(error).toBeInstanceOf(NodeOperationError);
			expect((error as NodeOperationError).message).toMatch(/^Item 4: the "Pages" option/);
			expect((error as NodeOperationError).description).toMatch(/Nothing was sent or charged/);
		},
	);
});

describe('a selection against the pages counted', () => {
	const ctx = given('');
	test.each([
		['1', 7, [1]],
		['2-3', 7, [2, 3]],
		['last', 7, [7]],
		['5-, 1', 7, [1, 5, 6, 7]],
	])('%p of %p pages', (selection, pages, expected) => {
		expect(selectedPages(ctx, 0, selection, { pages })).toEqual(expected);
	});

	test.each([
		['3-1', /runs backwards/],
		['abc', /is not a page number/],
		['0', /page 0/],
		['8', /past the document's last page \(7\)/],
		[',', /empty/],
	])('%p is refused, with the syntax and what to do', (selection, why) => {
		expect(() => selectedPages(ctx, 2, selection, { pages: 7 })).toThrow(why);
		try {
			selectedPages(ctx, 2, selection, { pages: 7 });
		} catch (error) {
			expect((error as NodeOperationError).message).toMatch(/^Item 2: the "Pages" option: /);
			expect((error as NodeOperationError).message).toMatch(/selected as in printing/);
			expect((error as NodeOperationError).description).toMatch(/the document has 7 pages/);
		}
	});

	test('a document whose pages are unknown cannot be selected from', () => {
		expect(() => selectedPages(ctx, 0, '1', { pages: null, reason: 'no page tree' })).toThrow(
			/could not be counted \(no page tree\), so the "Pages" selection cannot be made/,
		);
	});
});

test('pagesSent: the pages as ranges', () => {
	expect(rangesOf([1, 2, 3, 5, 8, 9])).toBe('1-3, 5, 8-9');
	expect(rangesOf([4])).toBe('4');
	expect(allPages(1)).toBe('1');
	expect(allPages(7)).toBe('1-7');
});

describe('a selection built (review 37)', () => {
	const ctx = given('');

	test('its SHA-256 is that of the new file', async () => {
		const pdf = makePdf(['one', 'two']);
		const built = await buildSelection(ctx, 0, {
			whole: pdf,
			kind: 'pdf',
			pages: [2],
			count: { pages: 2 },
		});
		const bytes = Buffer.concat(built.chunks, built.size);
		expect(built.digest).toBe(createHash('sha256').update(bytes).digest('hex'));
	});

	test('past the 10 MB limit is an item error before it is hashed', async () => {
		const pdf = makePdf([randomBytes(5_100_000).toString('hex'), 'two']);
		let error: unknown;
		try {
			await buildSelection(ctx, 3, { whole: pdf, kind: 'pdf', pages: [1], count: { pages: 2 } });
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toMatch(
			/^Item 3: the pages selected by "Pages" make a document of [\d.]+ MB, over the service's 10.00 MB limit/,
		);
		expect((error as NodeOperationError).description).toMatch(/Nothing was sent or charged/);
	});
});
