/**
 * The lexer (formats/lexer.ts): where each token ends, and streamExtent, the room's one rule for
 * where a stream's data ends, which the object reader and the copier both follow (issue 42): a
 * /Length that ends at `endstream` is the data's length, whatever the data holds; without a usable
 * one, the first `endstream`; spaces after the `stream` keyword are no data.
 */
import {
	containerEnd,
	literalEnd,
	refEnd,
	streamExtent,
	stringBytes,
} from '../../../../nodes/DocumentOcr/formats/lexer';

const L = (text: string) => Buffer.from(text, 'latin1');
/** The extent of the stream whose dictionary ends where `<<>>` does in `text`, as text. */
function data(text: string, length?: number, limit?: number): string | 'open' | null {
	const bytes = L(text);
	const extent = streamExtent(bytes, text.indexOf('>>') + 2, length, limit ?? bytes.length);
	return extent === null || extent === 'open' ? extent : text.slice(extent.start, extent.end);
}

describe('streamExtent: where a stream ends', () => {
	test('a /Length that ends at `endstream` is trusted, also over the word endstream in the data', () => {
		const body = 'BT (a page about endstream) Tj ET';
		expect(data(`<<>>\nstream\n${body}\nendstream`, body.length)).toBe(body);
		expect(data(`<<>>\r\nstream\r\n${body}\r\nendstream`, body.length)).toBe(body);
	});

	test('without a usable /Length the first `endstream` ends it, its end of line left out', () => {
		expect(data('<<>>\nstream\nq Q\r\nendstream\nmore endstream')).toBe('q Q');
		// A /Length that runs past the limit (the next object) or ends elsewhere is no length.
		expect(data('<<>>\nstream\nq Q\nendstream', 999)).toBe('q Q');
		expect(data('<<>>\nstream\nq Q\nendstream', 1)).toBe('q Q');
		// The search stops at the limit (where the next object begins).
		expect(data('<<>>\nstream\nq Q\n1 0 obj\nendstream', undefined, 16)).toBe('open');
	});

	test('spaces after `stream` are passed over, as readers do (review 42, b2)', () => {
		expect(data('<<>>\nstream \r\nx\nendstream', 1)).toBe('x');
		expect(data('<<>>\nstream\t \nx\nendstream')).toBe('x');
		// Spaces that are the data's own, with no end of line after them, stay data.
		expect(data('<<>>\nstream\n  x\nendstream', 3)).toBe('  x');
	});

	test('no stream keyword: null; not closed before the limit: open', () => {
		expect(data('<<>> 3 0 obj')).toBeNull();
		expect(data('<<>>\nstreamer\n')).toBeNull();
		expect(data('<<>>\nstream\nq Q', undefined)).toBe('open');
	});
});

describe('tokens', () => {
	test('references, strings, containers', () => {
		expect(refEnd(L('12 0 R '), 0)).toBe(6);
		expect(refEnd(L('12 0 Rx'), 0)).toBe(-1);
		expect(refEnd(L('12.5 0 R'), 0)).toBe(-1);
		expect(literalEnd(L('(a (b) \\) c) d'), 0)).toBe(12);
		expect(stringBytes(L('(a\\nb\\101\\\n)'), 0, 12).toString('latin1')).toBe('a\nbA');
		expect(stringBytes(L('<4142 4>'), 0, 8).toString('latin1')).toBe('AB@');
		const open = new Uint8Array(40);
		expect(containerEnd(L('<< /A [1 (]) <5d>] >> x'), 0, 23, 2, 32, open)).toEqual({ end: 21 });
		expect(containerEnd(L('[ [ [ ] ] ]'), 0, 11, 1, 2, open)).toMatchObject({ problem: 'nested' });
	});
});
