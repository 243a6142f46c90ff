/**
 * A TIFF page of many small strips (review B1: RowsPerStrip 1, 600,000 one-byte strips) copied by
 * formats/tiff-write.ts: the chunks written are few whatever the strips' layout (back to back,
 * apart, listed out of file order), the strips read back the same, the loops over a page's strips
 * let the event loop run within the page, strips out of file order are checked for shared bytes
 * in work linear in the file (pages of two strips at either end of it included), and a split's
 * parts come one at a time (tiffParts).
 */
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import type { Written } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import {
	selectTiffPages,
	splitTiff,
	tiffParts,
} from '../../../../nodes/DocumentOcr/formats/tiff-write';

interface Tall {
	strips: number;
	pages?: number;
	be?: boolean;
	/** Bytes between two strips in the file. */
	gap?: number;
	/** The offsets listed from the last strip in the file to the first. */
	reversed?: boolean;
}

/**
 * A TIFF of `pages` pages, each one pixel wide and `strips` rows tall, a strip of one byte a row:
 * StripOffsets (LONG) and StripByteCounts (SHORT) out of line, then the strips, `gap` bytes apart.
 */
function tallTiff({ strips, pages = 2, be = false, gap = 0, reversed = false }: Tall): Buffer {
	const even = (n: number) => n + (n & 1);
	const pageBytes = 2 + 12 * 10 + 4 + 4 * strips + even(2 * strips) + even(strips * (1 + gap));
	const buf = Buffer.alloc(8 + pages * pageBytes, 0xee);
	const u16 = (v: number, at: number) => (be ? buf.writeUInt16BE(v, at) : buf.writeUInt16LE(v, at));
	const u32 = (v: number, at: number) => (be ? buf.writeUInt32BE(v, at) : buf.writeUInt32LE(v, at));
	buf.write(be ? 'MM' : 'II', 0, 'latin1');
	u16(42, 2);
	u32(8, 4);
	for (let p = 0; p < pages; p++) {
		const at = 8 + p * pageBytes;
		const offsetsAt = at + 2 + 12 * 10 + 4;
		const countsAt = offsetsAt + 4 * strips;
		const dataAt = countsAt + even(2 * strips);
		const entries = [
			[256, 3, 1, 1],
			[257, 4, 1, strips],
			[258, 3, 1, 8],
			[259, 3, 1, 1],
			[262, 3, 1, 1],
			[273, 4, strips, offsetsAt],
			[277, 3, 1, 1],
			[278, 3, 1, 1],
			[279, 3, strips, countsAt],
			[284, 3, 1, 1],
		];
		u16(entries.length, at);
		entries.forEach(([tag, type, count, value], i) => {
			const entry = at + 2 + 12 * i;
			u16(tag, entry);
			u16(type, entry + 2);
			u32(count, entry + 4);
			if (type === 3 && count === 1) u16(value, entry + 8);
			else u32(value, entry + 8);
		});
		u32(p < pages - 1 ? at + pageBytes : 0, at + 2 + 12 * 10);
		for (let i = 0; i < strips; i++) {
			const place = reversed ? strips - 1 - i : i;
			u32(dataAt + place * (1 + gap), offsetsAt + 4 * i);
			u16(1, countsAt + 2 * i);
			buf[dataAt + place * (1 + gap)] = (i * 7 + p) & 0xff;
		}
	}
	return buf;
}

/** The strips of directory `page` (0-based) of a classic TIFF, one after the other. */
function stripsOf(buf: Buffer, page: number): Buffer {
	const le = buf[0] === 0x49;
	const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
	const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
	let at = u32(4);
	for (let p = 0; p < page; p++) at = u32(at + 2 + 12 * u16(at));
	const values = new Map<number, { n: number; value: (k: number) => number }>();
	for (let i = 0; i < u16(at); i++) {
		const entry = at + 2 + 12 * i;
		const [type, n] = [u16(entry + 2), u32(entry + 4)];
		const size = type === 3 ? 2 : 4;
		const from = size * n > 4 ? u32(entry + 8) : entry + 8;
		values.set(u16(entry), {
			n,
			value: (k) => (size === 2 ? u16(from + 2 * k) : u32(from + 4 * k)),
		});
	}
	const [offsets, lengths] = [values.get(273)!, values.get(279)!];
	const out = Buffer.alloc(buf.length);
	let length = 0;
	for (let k = 0; k < offsets.n; k++) {
		const from = offsets.value(k);
		length += buf.copy(out, length, from, from + lengths.value(k));
	}
	return out.subarray(0, length);
}

const joined = (written: Written) => Buffer.concat(written.chunks, written.length);
/** Whether two files' bytes are the same (toEqual walks a Buffer byte by byte, for seconds). */
const same = (a: Buffer, b: Buffer) => a.length === b.length && a.equals(b);
const STRIPS = 100_000;

describe('a page of 100,000 one-byte strips', () => {
	test.each<[string, Tall, number]>([
		['back to back (little-endian)', { strips: STRIPS }, 4],
		['back to back (big-endian)', { strips: STRIPS, be: true }, 4],
		['a byte apart', { strips: STRIPS, gap: 1 }, 6],
		['listed from the last in the file to the first', { strips: STRIPS, reversed: true }, 6],
	])('%s: a few chunks, the same strips, no byte added to a strip', async (_name, layout, most) => {
		const tiff = tallTiff(layout);
		const written = await selectTiffPages(tiff, [2]);
		expect(written.chunks.length).toBeLessThanOrEqual(most);
		const buf = joined(written);
		expect(same(stripsOf(buf, 0), stripsOf(tiff, 1))).toBe(true);
		// The header, the directory, the offsets (LONGs) and lengths (SHORTs), the strips.
		expect(written.length).toBe(8 + 2 + 12 * 10 + 4 + 4 * STRIPS + 2 * STRIPS + STRIPS);
		const parts = await splitTiff(tiff, (size) => size <= 800_000);
		expect(parts.map((part) => [part.pages, part.chunks.length <= most])).toEqual([
			[[1], true],
			[[2], true],
		]);
		expect(same(joined(parts[1]), buf)).toBe(true);
	});

	test('an odd number of strips: one byte after the page, so the next directory is on a word', async () => {
		const tiff = tallTiff({ strips: 30_001, pages: 3 });
		const written = await selectTiffPages(tiff, [1, 3]);
		const buf = joined(written);
		expect(written.chunks.length).toBeLessThanOrEqual(7);
		expect(buf.readUInt32LE(4) % 2).toBe(0);
		const second = buf.readUInt32LE(8 + 2 + 12 * 10);
		expect(second % 2).toBe(0);
		expect(second).toBe(8 + 2 + 12 * 10 + 4 + 6 * 30_001 + 30_001 + 1);
		expect(same(stripsOf(buf, 1), stripsOf(tiff, 2))).toBe(true);
	});

	test.each<[string, Tall]>([
		['in file order', { strips: STRIPS }],
		['out of file order', { strips: STRIPS, reversed: true }],
	])('%s: the event loop runs within the page', async (_name, layout) => {
		const tiff = tallTiff(layout);
		// A clock that says 20 ms have passed each time it is read: every look at it is due.
		let now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => (now += 20));
		try {
			let pauses = 0;
			const pause = async () => {
				pauses++;
				await Promise.resolve();
			};
			await selectTiffPages(tiff, [1], { pause });
			// Reading the page's strips and writing them: each looks at the clock every few
			// thousand strips.
			expect(pauses).toBeGreaterThanOrEqual((2 * STRIPS) / 5000);
			pauses = 0;
			await splitTiff(tiff, () => true, { pause });
			expect(pauses).toBeGreaterThanOrEqual((4 * STRIPS) / 5000);
		} finally {
			clock.mockRestore();
		}
	});
});

/**
 * A little-endian TIFF of `pages` pages of two one-byte strips each, listed out of file order: the
 * first lies at the end of the file, the second at its start (`long`: the second runs to the
 * first, so the two share a byte).
 */
function scatteredTiff(pages: number, long = false): Buffer {
	const size = 2 + 12 * 9 + 4 + 8;
	const [start, end] = [8, 8 + pages + (pages & 1) + pages * size];
	const buf = Buffer.alloc(end + pages);
	buf.write('II', 0, 'latin1');
	buf.writeUInt16LE(42, 2);
	buf.writeUInt32LE(start + pages + (pages & 1), 4);
	for (let p = 0; p < pages; p++) {
		const at = start + pages + (pages & 1) + p * size;
		const entries = [
			[256, 3, 1, 1],
			[257, 3, 1, 2],
			[258, 3, 1, 8],
			[259, 3, 1, 1],
			[262, 3, 1, 1],
			[273, 4, 2, at + size - 8],
			[277, 3, 1, 1],
			[278, 3, 1, 1],
			[279, 3, 2, 0],
		];
		buf.writeUInt16LE(entries.length, at);
		entries.forEach(([tag, type, count, value], i) => {
			buf.writeUInt16LE(tag, at + 2 + 12 * i);
			buf.writeUInt16LE(type, at + 4 + 12 * i);
			buf.writeUInt32LE(count, at + 6 + 12 * i);
			buf.writeUInt32LE(value, at + 10 + 12 * i);
		});
		// StripByteCounts inline: two SHORTs.
		buf.writeUInt16LE(1, at + 10 + 12 * 8);
		buf.writeUInt16LE(long ? end + p - (start + p) + 1 : 1, at + 12 + 12 * 8);
		buf.writeUInt32LE(p < pages - 1 ? at + size : 0, at + 2 + 12 * 9);
		buf.writeUInt32LE(end + p, at + size - 8);
		buf.writeUInt32LE(start + p, at + size - 4);
		[buf[end + p], buf[start + p]] = [0xa0, 0xb0];
	}
	return buf;
}

describe('strips listed out of file order', () => {
	test('2,000 pages of two strips at either end of the file: the work a few times the file, not a map of the file a page', async () => {
		const tiff = scatteredTiff(2000);
		let work = 0;
		const written = await selectTiffPages(
			tiff,
			Array.from({ length: 2000 }, (_, i) => i + 1),
			{ measured: (units) => (work = units) },
		);
		expect(work).toBeLessThan(10 * tiff.length);
		expect(same(stripsOf(joined(written), 1999), Buffer.from([0xa0, 0xb0]))).toBe(true);
	});

	test('two strips far apart that share a byte are refused, by their numbers', async () => {
		const tiff = scatteredTiff(100, true);
		await expect(selectTiffPages(tiff, [3])).rejects.toThrow(
			/page 3 of the TIFF cannot be copied: its strips 1 and 2 share bytes of the file/,
		);
	});
});

describe('tiffParts: the parts of a split one at a time', () => {
	test('each part is given as soon as it is written, a refusal after the parts before it; the parts of splitTiff', async () => {
		const tiff = tallTiff({ strips: 1000, pages: 3 });
		const fits = (size: number) => size <= 10_000;
		const parts = tiffParts(tiff, fits);
		const first = await parts.next();
		expect(first.done).toBe(false);
		expect(first.value).toMatchObject({ pages: [1], first: 1, last: 1 });
		const rest: Written[] = [];
		for await (const part of parts) rest.push(part);
		const all = await splitTiff(tiff, fits);
		expect([first.value, ...rest].map((part, i) => same(joined(part), joined(all[i])))).toEqual([
			true,
			true,
			true,
		]);
		expect(all.map((part) => part.pages)).toEqual([[1], [2], [3]]);

		// A page that cannot be copied is refused when the split reaches it: the parts finished
		// before it were given.
		const broken = Buffer.from(tiff);
		const third = broken.readUInt32LE(
			broken.readUInt32LE(broken.readUInt32LE(4) + 2 + 120) + 2 + 120,
		);
		broken.writeUInt16LE(6, third + 2 + 12 * 3 + 8);
		const given: number[][] = [];
		const refusal = await (async () => {
			for await (const part of tiffParts(broken, fits)) given.push(part.pages);
		})().catch((error: Error) => error);
		expect(refusal).toBeInstanceOf(FormatError);
		expect((refusal as Error).message).toMatch(
			/^page 3 of the TIFF cannot be copied: it is an old-style JPEG/,
		);
		expect(given).toEqual([[1]]);
	});
});
