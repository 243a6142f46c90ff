/**
 * The page counter's inflate (documents/pages/flate.ts) against zlib: every shape of deflate data
 * zlib makes (stored, fixed and dynamic blocks, every strategy, small windows, many flushed
 * blocks; made in test/fixtures/pages/deflate.js) inflates to the same bytes; the cap stops the
 * output as soon as it would pass; data zlib refuses is refused, changed bytes included.
 */
import { FlateError, inflateZlib } from '../../../../../nodes/DocumentOcr/documents/pages/flate';

interface Helpers {
	deflate(bytes: Buffer): Buffer;
	bomb(megabytes: number): Buffer;
	deflateVariants(bytes: Buffer): Array<{ name: string; data: Buffer }>;
	zlibInflate(bytes: Buffer): { data: Buffer } | { error: string };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const helpers = require('../../../../fixtures/pages/deflate.js') as Helpers;
const { deflate, bomb, deflateVariants, zlibInflate } = helpers;

let seed = 31;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const randomBytes = (n: number, alphabet = 256) =>
	Buffer.from(Array.from({ length: n }, () => Math.floor(random() * alphabet)));

/** Data of many shapes: empty, tiny, random, text, runs, far repeats, PDF-like object streams. */
function shapes(): Array<[string, Buffer]> {
	const text = Buffer.from(
		Array.from({ length: 3000 }, (_, i) => `${i + 1} 0 obj << /Type /Page /Parent 3 0 R >>`).join(
			'\n',
		),
	);
	const far = randomBytes(20_000);
	return [
		['empty', Buffer.alloc(0)],
		['one byte', Buffer.from([0x41])],
		['random, 1 kB', randomBytes(1000)],
		['random, 70 kB (more than a stored block)', randomBytes(70_000)],
		['four letters, 50 kB', randomBytes(50_000, 4)],
		['zeros, 300 kB', Buffer.alloc(300_000)],
		[
			'one byte repeated, then another',
			Buffer.concat([Buffer.alloc(1000, 7), Buffer.alloc(1000, 9)]),
		],
		['PDF-like text, 150 kB', text],
		['repeats 20 kB back', Buffer.concat([far, randomBytes(5000), far])],
		['every byte value', Buffer.from(Array.from({ length: 256 * 4 }, (_, i) => i & 255))],
	];
}

const blockType = (zlibStream: Buffer) => (zlibStream[2] >> 1) & 3;

describe('inflateZlib reads what zlib writes', () => {
	for (const [shape, bytes] of shapes())
		test(shape, () => {
			for (const { name, data } of deflateVariants(bytes)) {
				const out = inflateZlib(data, bytes.length);
				expect([name, out && Buffer.from(out).equals(bytes)]).toEqual([name, true]);
			}
		});

	test('stored, fixed-code and dynamic blocks are all among them', () => {
		const types = new Set(deflateVariants(shapes()[7][1]).map((v) => blockType(v.data)));
		expect([...types].sort()).toEqual([0, 1, 2]);
	});
});

describe('the cap', () => {
	const bytes = shapes()[7][1];
	test('output of exactly the cap is read; one byte less is refused (null)', () => {
		for (const { name, data } of deflateVariants(bytes)) {
			expect([name, inflateZlib(data, bytes.length)?.length]).toEqual([name, bytes.length]);
			expect([name, inflateZlib(data, bytes.length - 1)]).toEqual([name, null]);
		}
	});

	test('a bomb (1 GB of zeros) stops at the cap, quickly', () => {
		const started = Date.now();
		expect(inflateZlib(bomb(1024), 8_000_000)).toBeNull();
		expect(Date.now() - started).toBeLessThan(1_000);
	});
});

describe('data zlib refuses is refused', () => {
	const good = deflate(shapes()[7][1]);
	test.each([
		['empty', Buffer.alloc(0), /unexpected end of file/],
		['a raw deflate stream (no zlib header)', good.subarray(2), /incorrect header check/],
		['a preset dictionary', Buffer.from([0x78, 0xbb, 0, 0, 0, 0]), /preset dictionary/],
		['cut before the checksum', good.subarray(0, good.length - 4), /unexpected end of file/],
		['cut in the middle', good.subarray(0, good.length >> 1), /unexpected end of file/],
		[
			'a wrong checksum',
			Buffer.concat([good.subarray(0, -1), Buffer.from([good.at(-1)! ^ 1])]),
			/incorrect data check/,
		],
		['block type 3', Buffer.from([0x78, 0x9c, 0x07, 0, 0, 0, 0, 0]), /invalid block type/],
		[
			'stored lengths that disagree',
			Buffer.from([0x78, 0x9c, 0x01, 5, 0, 5, 0]),
			/invalid stored block lengths/,
		],
	])('%s', (_name, data, reason) => {
		expect(() => inflateZlib(data, 1e9)).toThrow(FlateError);
		expect(() => inflateZlib(data, 1e9)).toThrow(reason);
		expect(zlibInflate(data)).toHaveProperty('error');
	});

	test('bytes changed at random: refused exactly when zlib refuses, else the same bytes', () => {
		const sources = [shapes()[7][1], shapes()[4][1].subarray(0, 5000), randomBytes(3000, 16)];
		let refused = 0;
		for (const source of sources)
			for (const { data } of deflateVariants(source))
				for (let i = 0; i < 150; i++) {
					const bad = Buffer.from(data);
					const changes = 1 + Math.floor(random() * 3);
					for (let k = 0; k < changes; k++)
						bad[Math.floor(random() * Math.min(bad.length, 400))] = Math.floor(random() * 256);
					const expected = zlibInflate(bad);
					let ours: { data: Buffer } | { error: string };
					try {
						ours = { data: Buffer.from(inflateZlib(bad, 1e9)!) };
					} catch (error) {
						expect(error).toBeInstanceOf(FlateError);
						ours = { error: 'refused' };
					}
					if ('error' in expected) {
						refused++;
						expect(ours).toEqual({ error: 'refused' });
					} else expect(ours).toEqual(expected);
				}
		expect(refused).toBeGreaterThan(100);
	});
});
