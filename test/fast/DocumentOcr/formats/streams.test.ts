/**
 * The end of a zlib stream inside bytes that go on after it (formats/streams.ts): where
 * the runtime refuses bytes after a stream's end (Node 24 and later), the stream is inflated again
 * up to the end found here, from its Adler-32.
 */
import { streamEnd } from '../../../../nodes/DocumentOcr/formats/streams';
import { Work } from '../../../../nodes/DocumentOcr/formats/limits';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { deflate } = require('../../../fixtures/pages/deflate.js') as {
	deflate(bytes: Buffer): Buffer;
};

describe('streamEnd', () => {
	const data = Buffer.from('1 0 2 57 << /Type /Page /Parent 2 0 R >> '.repeat(500), 'latin1');
	const stream = deflate(data);

	test('the end of the stream, whatever follows it', () => {
		for (const after of ['', '\n', '\r\n', 'endstream\nendobj\n'])
			expect(
				streamEnd(Buffer.concat([stream, Buffer.from(after, 'latin1')]), [data], new Work(1e6)),
			).toBe(stream.length);
		// The inflated bytes in chunks of any size give the same sum.
		const chunks = [data.subarray(0, 7), data.subarray(7, 9000), data.subarray(9000)];
		expect(streamEnd(stream, chunks, new Work(1e6))).toBe(stream.length);
	});

	test('-1 when the bytes are not what the stream inflates to (some of them lost)', () => {
		expect(streamEnd(stream, [data.subarray(0, data.length - 1)], new Work(1e6))).toBe(-1);
	});

	test('the bytes read are charged to the work', () => {
		const work = new Work(1e6);
		streamEnd(stream, [data], work);
		expect(work.done).toBe(data.length + stream.length);
	});
});
