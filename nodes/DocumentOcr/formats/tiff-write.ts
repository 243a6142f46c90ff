/**
 * Pages of a multi-page TIFF copied into a new TIFF (issue 37): `selectTiffPages` writes the
 * directories a selection names, `splitTiff` cuts the file in page order into as few parts as fit
 * a limit. A classic TIFF of either byte order (BigTIFF is refused): the new file keeps the byte
 * order; each page is its image directory (entries in their order), then the values that do not
 * fit in an entry, then its strips or tiles, each copied as it is with its offsets rewritten. The
 * entries that point into the file in ways not relocated here are left out: SubIFDs (330, a
 * page's thumbnails), the EXIF, GPS and interoperability directories (34665, 34853, 40965),
 * FreeOffsets and FreeByteCounts (288, 289), any entry of type IFD, and an entry of a type TIFF
 * does not define (its size is unknown). An old-style JPEG page (Compression 6), whose data
 * 513/514 point to, is refused. A page's size does not depend on where it stands, so a split
 * sizes its parts page by page. The image data are not copied: the chunks are the input's.
 *
 * A copy never makes more of the file than there is (review 37: a page of 160 kB naming 20,000
 * strips that each cover the whole file selected to 3.2 GB): a page whose strips or tiles overlap,
 * or whose values out of line come to more than the file, is refused, and so is a selection whose
 * image data together come to more than the file (pages sharing data) or whose new file would be
 * more than a few times the file's size, or past 4 GB (a classic TIFF's offsets are 32-bit).
 */
import { FormatError, Unknown, Work } from './limits';
import type { SplitOptions, WriteOptions, Written, WrittenPart } from './pdf-write';
import { tiffDirectories } from './tiff';

/** Bytes per value of each TIFF type (TIFF 6.0 §2, and the BigTIFF types); 0: unknown. */
const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];
const IFD_TYPES = new Set([13, 18]);
/** Entries pointing into the file that a copy does not carry (see above). */
const LEFT_OUT = new Set([288, 289, 330, 34665, 34853, 40965]);
const COMPRESSION = 259;
const OLD_JPEG = new Set([513, 514]);
const STRIP_OFFSETS = 273;
const STRIP_BYTES = 279;
const TILE_OFFSETS = 324;
const TILE_BYTES = 325;

/** A page's directory entry: its 12 bytes in the file, and its value's bytes when out of line. */
interface Kept {
	at: number;
	tag: number;
	/** Where its value lies in the file and how long it is, when longer than 4 bytes. */
	value?: [number, number];
}

/** A page, ready to be placed anywhere in a new file. */
interface Page {
	entries: Kept[];
	/** Which entry holds the data offsets, and the data: [offset, length] pairs. */
	offsetsTag: number;
	data: number[];
	/** The bytes of its directory, its values and its offsets array (each value even)... */
	head: number;
	/** ...and with its data (each piece even). */
	size: number;
	/** The bytes of its data as in the file (no padding). */
	dataBytes: number;
}

/**
 * What a selection or a part may come to: its data no more than the file's bytes (the data of two
 * pages are not the same bytes), and the whole new file no more than GROWTH times the file and
 * 64 kB (offsets written anew as LONGs, padding, directories) and within 4 GB.
 */
const GROWTH = 4;
const MAX_TIFF = 0xffff_ffff;

class Tally {
	private data = 0;
	private size = HEADER;
	constructor(private readonly fileBytes: number) {}

	add(page: Page, number: number): void {
		this.data += page.dataBytes;
		this.size += page.size;
		if (this.data > this.fileBytes)
			throw new FormatError(
				`the TIFF's pages up to page ${number} name ${this.data} bytes of image data, more than the file's ${this.fileBytes} bytes: pages share their strips or tiles, and a copy would multiply them; nothing is written`,
			);
		if (this.size > GROWTH * this.fileBytes + 65_536 || this.size > MAX_TIFF)
			throw new FormatError(
				`the TIFF's pages up to page ${number} would make a TIFF of ${this.size} bytes, far more than the file's ${this.fileBytes} bytes (values or data offsets shared between pages); nothing is written`,
			);
	}
}

/** A TIFF opened for copying. */
interface Source {
	bytes: Buffer;
	le: boolean;
	offsets: number[];
	work: Work;
}

/** A new TIFF of the pages `pages` names (1-based, ascending, each once) of the TIFF `bytes`. */
export async function selectTiffPages(
	bytes: Buffer,
	pages: number[],
	options: WriteOptions = {},
): Promise<Written> {
	const source = await open(bytes, options);
	const total = source.offsets.length;
	if (pages.length === 0) throw new FormatError('no page is selected');
	let before = 0;
	const chosen: Page[] = [];
	const tally = new Tally(bytes.length);
	for (const page of pages) {
		if (source.work.due()) await source.work.pause();
		if (!Number.isInteger(page) || page < 1 || page > total)
			throw new FormatError(`page ${page} is not a page of the TIFF (1 to ${total})`);
		if (page <= before) throw new FormatError('the pages are not in document order, each once');
		before = page;
		const read = readPage(source, page - 1);
		tally.add(read, page);
		chosen.push(read);
	}
	const written = await writeTiff(source, chosen, pages);
	options.measured?.(source.work.done);
	return written;
}

/**
 * The TIFF `bytes` cut in page order into as few parts as possible, each a file whose size in
 * bytes `fits`; a page that does not fit alone is a FormatError naming it.
 */
export async function splitTiff(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): Promise<WrittenPart[]> {
	const source = await open(bytes, options);
	const total = source.offsets.length;
	const order = options.pages ?? source.offsets.map((_, index) => index + 1);
	const parts: WrittenPart[] = [];
	let part: Page[] = [];
	let numbers: number[] = [];
	let size = HEADER;
	let before = 0;
	const tally = new Tally(bytes.length);
	for (const number of order) {
		if (source.work.due()) await source.work.pause();
		if (!Number.isInteger(number) || number <= before || number > total)
			throw new FormatError(`page ${number} is not a page of the TIFF in order (1 to ${total})`);
		before = number;
		const page = readPage(source, number - 1);
		tally.add(page, number);
		if (!fits(HEADER + page.size))
			throw new FormatError(
				`page ${number} alone makes a TIFF of ${HEADER + page.size} bytes, more than the limit allows, so the file cannot be split to fit`,
			);
		if (part.length > 0 && !fits(size + page.size)) {
			parts.push(await writeTiff(source, part, numbers));
			part = [];
			numbers = [];
			size = HEADER;
		}
		part.push(page);
		numbers.push(number);
		size += page.size;
	}
	if (part.length === 0) throw new FormatError('no page is selected');
	parts.push(await writeTiff(source, part, numbers));
	options.measured?.(source.work.done);
	return parts;
}

const HEADER = 8;

async function open(bytes: Buffer, options: WriteOptions): Promise<Source> {
	const work = new Work(bytes.length, options.signal, options.pause);
	let directories;
	try {
		directories = await tiffDirectories(bytes, work);
	} catch (error) {
		directories = error as Error;
	}
	if (directories instanceof Error) throw refusal(directories);
	if (directories.big)
		throw new FormatError(
			'the TIFF is a BigTIFF (64-bit offsets), whose pages are not copied here; save it as a classic TIFF first',
		);
	return { bytes, le: directories.le, offsets: directories.offsets, work };
}

const refusal = (error: Error) =>
	new FormatError(
		`the TIFF's pages cannot be read (${error instanceof Unknown ? error.message : `${error}`}); nothing is written rather than a wrong page`,
	);

/** Reads directory `index`: the entries kept, the image data, the size the page takes. */
function readPage(source: Source, index: number): Page {
	const { bytes, le, work } = source;
	const u16 = (at: number) => (le ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
	const u32 = (at: number) => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
	const where = source.offsets[index];
	const count = u16(where);
	const refuse = (why: string) =>
		new FormatError(`page ${index + 1} of the TIFF cannot be copied: ${why}`);
	work.charge(12 * count + 6);
	const entries: Kept[] = [];
	let offsetsTag = 0;
	let data: number[] | undefined;
	let bytesEntry: Kept | undefined;
	let values = 0;
	for (let i = 0; i < count; i++) {
		const at = where + 2 + 12 * i;
		const tag = u16(at);
		const type = u16(at + 2);
		const n = u32(at + 4);
		if (tag === COMPRESSION && u16(at + 8) === 6)
			throw refuse('it is an old-style JPEG (Compression 6), whose data is not relocated here');
		const size = TYPE_SIZE[type] ?? 0;
		if (LEFT_OUT.has(tag) || OLD_JPEG.has(tag) || IFD_TYPES.has(type) || size === 0) continue;
		const length = size * n;
		const kept: Kept = { at, tag };
		if (length > 4) {
			const from = u32(at + 8);
			if (from + length > bytes.length)
				throw refuse(`the value of tag ${tag} is past the end of the file`);
			kept.value = [from, length];
			values += length + (length & 1);
		}
		if (tag === STRIP_OFFSETS || tag === TILE_OFFSETS) {
			if (data) throw refuse('it has both strips and tiles');
			if (type !== 3 && type !== 4)
				throw refuse(`its data offsets (tag ${tag}) are of type ${type}`);
			offsetsTag = tag;
			data = numbers(source, kept, type, n);
			// The offsets are written anew, as LONGs.
			if (kept.value) values -= kept.value[1] + (kept.value[1] & 1);
		}
		if (tag === STRIP_BYTES || tag === TILE_BYTES) {
			if (type !== 3 && type !== 4)
				throw refuse(`its data lengths (tag ${tag}) are of type ${type}`);
			bytesEntry = kept;
		}
		entries.push(kept);
	}
	if (values > bytes.length)
		throw refuse(
			`its values out of line come to ${values} bytes, more than the file's ${bytes.length} (they overlap)`,
		);
	if (!data || !bytesEntry)
		throw refuse('it has no image data (strips or tiles with their lengths)');
	const type = u16(bytesEntry.at + 2);
	const lengths = numbers(source, bytesEntry, type, u32(bytesEntry.at + 4));
	if (lengths.length !== data.length)
		throw refuse(`it has ${data.length} data offsets and ${lengths.length} lengths`);
	const pairs: number[] = [];
	let dataSize = 0;
	let dataBytes = 0;
	work.charge(data.length);
	for (let i = 0; i < data.length; i++) {
		if (data[i] + lengths[i] > bytes.length)
			throw refuse(`its image data ${i} is past the end of the file`);
		pairs.push(data[i], lengths[i]);
		dataSize += lengths[i] + (lengths[i] & 1);
		dataBytes += lengths[i];
	}
	const overlap = overlapping(pairs, work);
	if (overlap)
		throw refuse(
			`its ${offsetsTag === TILE_OFFSETS ? 'tiles' : 'strips'} ${overlap[0] + 1} and ${overlap[1] + 1} share bytes of the file, which image data do not; a copy would multiply them`,
		);
	const offsetsArray = data.length > 1 ? 4 * data.length : 0;
	const head = 2 + 12 * entries.length + 4 + values + offsetsArray;
	return { entries, offsetsTag, data: pairs, head, size: head + dataSize, dataBytes };
}

/**
 * Two pieces of `pairs` ([offset, length], ...) that share bytes, by their index, or undefined
 * when none do (empty pieces share nothing). Pieces in file order are seen in one pass; others
 * are sorted by offset first.
 */
function overlapping(pairs: number[], work: Work): [number, number] | undefined {
	const n = pairs.length / 2;
	let end = 0;
	let ordered = true;
	work.charge(n);
	for (let i = 0; i < n; i++) {
		const [from, length] = [pairs[2 * i], pairs[2 * i + 1]];
		if (length === 0) continue;
		if (from < end) {
			ordered = false;
			break;
		}
		end = from + length;
	}
	if (ordered) return undefined;
	const order: number[] = [];
	for (let i = 0; i < n; i++) if (pairs[2 * i + 1] > 0) order.push(i);
	end = 0;
	let last = -1;
	work.charge(order.length * Math.ceil(Math.log2(order.length + 1)));
	order.sort((a, b) => pairs[2 * a] - pairs[2 * b]);
	for (const i of order) {
		if (pairs[2 * i] < end) return [Math.min(last, i), Math.max(last, i)];
		const reach = pairs[2 * i] + pairs[2 * i + 1];
		if (reach > end) [end, last] = [reach, i];
	}
	return undefined;
}

/** The numbers of a SHORT or LONG entry, inline or out of line. */
function numbers(source: Source, kept: Kept, type: number, n: number): number[] {
	const { bytes, le, work } = source;
	const at = kept.value ? kept.value[0] : kept.at + 8;
	const size = type === 3 ? 2 : 4;
	work.charge(n);
	const out: number[] = [];
	for (let i = 0; i < n; i++) {
		const p = at + i * size;
		out.push(
			size === 2
				? le
					? bytes.readUInt16LE(p)
					: bytes.readUInt16BE(p)
				: le
					? bytes.readUInt32LE(p)
					: bytes.readUInt32BE(p),
		);
	}
	return out;
}

/** The new file of `pages`, pages `numbers` (1-based, in order) of the source. */
async function writeTiff(source: Source, pages: Page[], numbers: number[]): Promise<WrittenPart> {
	const first = numbers[0];
	const { bytes, le, work } = source;
	const chunks: Buffer[] = [];
	const header = Buffer.alloc(HEADER);
	bytes.copy(header, 0, 0, 4);
	write32(header, 4, HEADER, le);
	chunks.push(header);
	let at = HEADER;
	for (const [p, page] of pages.entries()) {
		if (work.due()) await work.pause();
		if (at + page.size > MAX_TIFF)
			throw new FormatError(
				`the new TIFF would pass 4 GB at page ${numbers[p]}, more than a classic TIFF's offsets reach; nothing is written`,
			);
		const directory = 2 + 12 * page.entries.length + 4;
		const many = page.data.length > 2;
		const head = Buffer.alloc(page.head);
		work.charge(head.length + page.entries.length + page.data.length);
		write16(head, 0, page.entries.length, le);
		let value = at + directory;
		// The data follow the values (and the offsets array): where each begins.
		let dataAt = at + page.head;
		const dataOffsets: number[] = [];
		for (let i = 0; i < page.data.length; i += 2) {
			dataOffsets.push(dataAt);
			dataAt += page.data[i + 1] + (page.data[i + 1] & 1);
		}
		page.entries.forEach((entry, i) => {
			const to = 2 + 12 * i;
			bytes.copy(head, to, entry.at, entry.at + 12);
			if (entry.tag === page.offsetsTag) {
				write16(head, to + 2, 4, le);
				write32(head, to + 4, dataOffsets.length, le);
				if (!many) write32(head, to + 8, dataOffsets[0], le);
				else {
					write32(head, to + 8, value, le);
					for (const offset of dataOffsets) {
						write32(head, value - at, offset, le);
						value += 4;
					}
				}
			} else if (entry.value) {
				const [from, length] = entry.value;
				write32(head, to + 8, value, le);
				bytes.copy(head, value - at, from, from + length);
				value += length + (length & 1);
			}
		});
		const next = p < pages.length - 1 ? at + page.size : 0;
		write32(head, directory - 4, next, le);
		chunks.push(head);
		for (let i = 0; i < page.data.length; i += 2) {
			const [from, length] = [page.data[i], page.data[i + 1]];
			chunks.push(bytes.subarray(from, from + length));
			if (length & 1) chunks.push(PAD);
		}
		at += page.size;
	}
	return { chunks, length: at, first, last: numbers[numbers.length - 1], pages: [...numbers] };
}

const PAD = Buffer.alloc(1);

function write16(buf: Buffer, at: number, value: number, le: boolean): void {
	if (le) buf.writeUInt16LE(value, at);
	else buf.writeUInt16BE(value, at);
}

function write32(buf: Buffer, at: number, value: number, le: boolean): void {
	if (le) buf.writeUInt32LE(value, at);
	else buf.writeUInt32BE(value, at);
}
