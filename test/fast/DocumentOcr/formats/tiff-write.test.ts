/**
 * TIFF pages copied into new TIFFs (formats/tiff-write.ts), and an image as one page
 * (formats/index.ts): multi-page TIFFs built here in both byte orders (strips of odd length,
 * values out of line, SubIFDs and EXIF pointers a copy leaves out) and the committed corpus; each
 * written file read back here directory by directory (its description, its strips' bytes) and
 * counted by the package's counter. The engine tier (test/formats-readers.test.js) opens them in
 * tiffinfo.
 */
import { countPages, selectPages, splitPages } from '../../../../nodes/DocumentOcr/formats';
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import type { Written } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import { selectTiffPages, splitTiff } from '../../../../nodes/DocumentOcr/formats/tiff-write';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pagedTiff, overlappingStripsTiff } = require('../../../fixtures/pages/crafted.js') as {
	pagedTiff(
		texts: string[],
		options?: { be?: boolean; strips?: number; pointers?: boolean },
	): Buffer;
	overlappingStripsTiff(options?: { pages?: number; heavy?: number; strips?: number }): Buffer;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadCorpus } = require('../../../fixtures/pages/load.js') as {
	loadCorpus(): Array<{ file: string; truePages: number; bytes: Buffer }>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const emulator = require('../../../../emulator/documents.js') as {
	makePng(text?: string): Buffer;
	makeJpeg(text?: string): Buffer;
};

const joined = (written: Written) => Buffer.concat(written.chunks, written.length);

interface Directory {
	tags: number[];
	description: string;
	strips: Buffer[];
}

/** Every directory of a classic TIFF, in order: its tags, description and strips' bytes. */
function read(buf: Buffer): Directory[] {
	const le = buf[0] === 0x49;
	const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
	const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
	const directories: Directory[] = [];
	for (let at = u32(4); at !== 0; ) {
		const count = u16(at);
		const tags: number[] = [];
		const values = new Map<number, number[]>();
		let description = '';
		for (let i = 0; i < count; i++) {
			const entry = at + 2 + 12 * i;
			const [tag, type, n] = [u16(entry), u16(entry + 2), u32(entry + 4)];
			tags.push(tag);
			const size = [0, 1, 1, 2, 4, 8][type] ?? 4;
			const from = size * n > 4 ? u32(entry + 8) : entry + 8;
			if (tag === 270) description = buf.toString('latin1', from, from + n - 1);
			if (type === 3 || type === 4)
				values.set(
					tag,
					Array.from({ length: n }, (_, k) => (type === 3 ? u16(from + 2 * k) : u32(from + 4 * k))),
				);
		}
		const offsets = values.get(273) ?? [];
		const lengths = values.get(279) ?? [];
		directories.push({
			tags,
			description,
			strips: offsets.map((offset, k) => buf.subarray(offset, offset + lengths[k])),
		});
		at = u32(at + 2 + 12 * count);
	}
	return directories;
}

const TEXTS = ['PAGE-ONE', 'PAGE-TWO', 'PAGE-THREE-LONGER', 'PAGE-FOUR', 'PAGE-FIVE'];

type Options = { be?: boolean; strips?: number; pointers?: boolean };
describe.each<[string, Options]>([
	['little-endian', { be: false }],
	['big-endian', { be: true }],
	['little-endian with SubIFDs and EXIF', { pointers: true, strips: 3 }],
	['big-endian with SubIFDs and EXIF, one strip a page', { be: true, pointers: true, strips: 1 }],
])('a %s TIFF of five pages', (_name, options) => {
	const tiff = pagedTiff(TEXTS, options);
	const original = read(tiff);

	test.each([[[1]], [[5]], [[2, 4]], [[1, 2, 3, 4, 5]], [[3, 4, 5]]])('pages %j', async (pages) => {
		const written = await selectTiffPages(tiff, pages);
		const buf = joined(written);
		expect(buf.length).toBe(written.length);
		expect(buf.subarray(0, 2).toString('latin1')).toBe(options.be ? 'MM' : 'II');
		expect(await countPages(buf, 'tiff')).toMatchObject({ pages: pages.length });
		const copied = read(buf);
		expect(copied.map((d) => d.description)).toEqual(pages.map((page) => TEXTS[page - 1]));
		copied.forEach((directory, i) => {
			expect(directory.strips).toEqual(original[pages[i] - 1].strips);
			expect(directory.tags).not.toContain(330);
			expect(directory.tags).not.toContain(34665);
			expect(directory.tags).toEqual(original[pages[i] - 1].tags.filter((t) => t < 330));
		});
		// Every offset is even (TIFF 6.0: a value's offset is a word boundary).
		expect(buf.length % 2).toBe(0);
	});

	test.each([300, 500, 700, 10_000])('a split into parts of at most %i bytes', async (limit) => {
		const parts = await splitTiff(tiff, (size) => size <= limit);
		let next = 1;
		for (const [i, part] of parts.entries()) {
			expect(part.first).toBe(next);
			next = part.last + 1;
			expect(part.length).toBeLessThanOrEqual(limit);
			const buf = joined(part);
			expect(read(buf).map((d) => d.description)).toEqual(TEXTS.slice(part.first - 1, part.last));
			const pages = Array.from({ length: part.last - part.first + 1 }, (_, k) => part.first + k);
			expect(buf).toEqual(joined(await selectTiffPages(tiff, pages)));
			if (i < parts.length - 1)
				expect((await selectTiffPages(tiff, [...pages, part.last + 1])).length).toBeGreaterThan(
					limit,
				);
		}
		expect(next).toBe(6);
	});
});

describe('the corpus TIFFs', () => {
	test.each(
		loadCorpus()
			.filter((entry) => entry.file.endsWith('.tif') && !entry.file.includes('big'))
			.map((entry) => [entry.file, entry] as const),
	)('%s: each page alone, all together', async (_file, entry) => {
		const original = read(entry.bytes);
		const all = Array.from({ length: entry.truePages }, (_, i) => i + 1);
		const copied = read(joined(await selectTiffPages(entry.bytes, all)));
		expect(copied.map((d) => d.strips)).toEqual(original.map((d) => d.strips));
		for (const page of all) {
			const [one] = read(joined(await selectTiffPages(entry.bytes, [page])));
			expect(one.strips).toEqual(original[page - 1].strips);
		}
	});

	test('a BigTIFF is refused clearly', async () => {
		const big = loadCorpus().find((entry) => entry.file === 'tiffcp-big-2.tif')!;
		await expect(selectTiffPages(big.bytes, [1])).rejects.toThrow(/BigTIFF \(64-bit offsets\)/);
	});
});

describe('what cannot be copied is refused', () => {
	const tiff = pagedTiff(TEXTS.slice(0, 2));

	test('an old-style JPEG page', async () => {
		const bytes = Buffer.from(tiff);
		// Compression (259), the 4th entry of the first directory, set to 6.
		bytes.writeUInt16LE(6, 8 + 2 + 12 * 3 + 8);
		await expect(selectTiffPages(bytes, [1])).rejects.toThrow(
			/page 1 of the TIFF cannot be copied: it is an old-style JPEG/,
		);
	});

	test.each([
		['little-endian', false],
		['big-endian', true],
	])(
		'an old-style JPEG page whose Compression is a LONG (%s); a LONG of 65,542 is not 6',
		async (_name, be) => {
			const bytes = Buffer.from(pagedTiff(TEXTS.slice(0, 2), { be }));
			// Compression (259), the 4th entry of the first directory, made a LONG.
			const entry = 8 + 2 + 12 * 3;
			const long = (value: number) => {
				if (be) {
					bytes.writeUInt16BE(4, entry + 2);
					bytes.writeUInt32BE(value, entry + 8);
				} else {
					bytes.writeUInt16LE(4, entry + 2);
					bytes.writeUInt32LE(value, entry + 8);
				}
			};
			long(6);
			await expect(selectTiffPages(bytes, [1])).rejects.toThrow(
				/page 1 of the TIFF cannot be copied: it is an old-style JPEG/,
			);
			long(65_542);
			expect(read(joined(await selectTiffPages(bytes, [1])))[0].description).toBe('PAGE-ONE');
		},
	);

	test('a strip past the end of the file', async () => {
		await expect(selectTiffPages(tiff.subarray(0, tiff.length - 4), [2])).rejects.toThrow(
			/page 2 of the TIFF cannot be copied: its image data 1 is past the end of the file/,
		);
	});

	test('a loop of directories', async () => {
		const bytes = Buffer.from(tiff);
		const count = bytes.readUInt16LE(8);
		bytes.writeUInt32LE(8, 8 + 2 + 12 * count);
		await expect(selectTiffPages(bytes, [1])).rejects.toThrow(
			/the TIFF's pages cannot be read \(the TIFF image directories form a loop\)/,
		);
	});

	test('a selection past the last page, or out of order', async () => {
		await expect(selectTiffPages(tiff, [3])).rejects.toThrow(
			/page 3 is not a page of the TIFF \(1 to 2\)/,
		);
		await expect(selectTiffPages(tiff, [2, 1])).rejects.toThrow(FormatError);
	});

	test('a page that does not fit alone is named', async () => {
		await expect(splitTiff(tiff, (size) => size <= 50)).rejects.toThrow(
			/^page 1 alone makes a TIFF of \d+ bytes/,
		);
	});
});

describe('a copy never makes more of the file than there is (review 37)', () => {
	/** The offset of entry `tag` in directory `page` (0-based) of a little-endian TIFF. */
	const entry = (bytes: Buffer, page: number, tag: number): number => {
		let at = bytes.readUInt32LE(4);
		for (let p = 0; p < page; p++) at = bytes.readUInt32LE(at + 2 + 12 * bytes.readUInt16LE(at));
		for (let i = 0; i < bytes.readUInt16LE(at); i++)
			if (bytes.readUInt16LE(at + 2 + 12 * i) === tag) return at + 2 + 12 * i;
		throw new Error(`no tag ${tag}`);
	};

	test('a page of 160 kB whose 20,000 strips each cover the whole file (3.2 GB selected) is refused', async () => {
		const tiff = overlappingStripsTiff({ strips: 20_000 });
		expect(tiff.length).toBeLessThan(200_000);
		await expect(selectTiffPages(tiff, [1])).rejects.toThrow(
			/page 1 of the TIFF cannot be copied: its strips 1 and 2 share bytes of the file/,
		);
		await expect(splitTiff(tiff, () => true)).rejects.toThrow(/strips 1 and 2 share bytes/);
		// The other page is copied.
		expect((await selectTiffPages(tiff, [2])).length).toBeLessThan(tiff.length);
	});

	test('a selection past 4 GB is refused in words about the file, not a RangeError of Node', async () => {
		const tiff = overlappingStripsTiff({ strips: 40_000 });
		const refusal = await selectTiffPages(tiff, [1]).catch((error: Error) => error);
		expect(refusal).toBeInstanceOf(FormatError);
		expect((refusal as Error).message).toMatch(/TIFF/);
	});

	test('strips out of file order but apart are copied; pages whose data together pass the file are refused', async () => {
		const tiff = pagedTiff(TEXTS.slice(0, 2), { strips: 2 });
		const reversed = Buffer.from(tiff);
		for (const tag of [273, 279]) {
			// Two values, SHORT inline or LONG out of line: swapped.
			const at = entry(reversed, 0, tag);
			const short = reversed.readUInt16LE(at + 2) === 3;
			const size = short ? 2 : 4;
			const values = short ? at + 8 : reversed.readUInt32LE(at + 8);
			const a = Buffer.from(reversed.subarray(values, values + size));
			reversed.copy(reversed, values, values + size, values + 2 * size);
			a.copy(reversed, values + size);
		}
		const written = await selectTiffPages(reversed, [1]);
		expect(written.length).toBeLessThan(reversed.length);
		// Each page's one strip the whole file: each page alone holds no more than the file, the
		// two together twice the file.
		const shared = Buffer.from(pagedTiff(TEXTS.slice(0, 2), { strips: 1 }));
		for (const page of [0, 1])
			for (const [tag, value] of [
				[273, 0],
				[279, shared.length],
			]) {
				const at = entry(shared, page, tag);
				shared.writeUInt16LE(4, at + 2);
				shared.writeUInt32LE(value, at + 8);
			}
		await selectTiffPages(shared, [2]);
		await expect(selectTiffPages(shared, [1, 2])).rejects.toThrow(
			/pages up to page 2 name \d+ bytes of image data, more than the file's/,
		);
	});

	test('a page whose values out of line come to more than the file is refused', async () => {
		const tiff = Buffer.from(pagedTiff(TEXTS.slice(0, 2)));
		for (const tag of [256, 257]) {
			const at = entry(tiff, 0, tag);
			tiff.writeUInt16LE(1, at + 2);
			tiff.writeUInt32LE(tiff.length, at + 4);
			tiff.writeUInt32LE(0, at + 8);
		}
		await expect(selectTiffPages(tiff, [1])).rejects.toThrow(
			/page 1 of the TIFF cannot be copied: its values out of line come to \d+ bytes, more than the file's/,
		);
	});
});

describe('an image is one page', () => {
	test.each([
		['png', emulator.makePng('words')],
		['jpeg', emulator.makeJpeg('words')],
	] as const)(
		'%s: page 1 is the image as it is; any other page, or a split past the limit, is refused',
		async (kind, bytes) => {
			const page = await selectPages(bytes, kind, [1]);
			expect(page.chunks).toEqual([bytes]);
			expect(page.chunks[0]).toBe(bytes);
			await expect(selectPages(bytes, kind, [2])).rejects.toThrow(
				/image is one page: only page 1 can be selected/,
			);
			await expect(selectPages(bytes, kind, [1, 2])).rejects.toThrow(FormatError);
			const [part] = await splitPages(bytes, kind, () => true);
			expect(part).toMatchObject({ first: 1, last: 1, length: bytes.length });
			await expect(splitPages(bytes, kind, () => false)).rejects.toThrow(
				/is one page, more than the limit allows/,
			);
		},
	);

	test('a PDF and a TIFF go to their writers', async () => {
		const tiff = pagedTiff(TEXTS);
		expect(read(joined(await selectPages(tiff, 'tiff', [2]))).map((d) => d.description)).toEqual([
			'PAGE-TWO',
		]);
		expect((await splitPages(tiff, 'tiff', () => true)).map((p) => [p.first, p.last])).toEqual([
			[1, 5],
		]);
	});
});
