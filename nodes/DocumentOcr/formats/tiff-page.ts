/**
 * A TIFF page read for copying (tiff-write.ts): the entries of its image directory a copy keeps,
 * its strips or tiles checked (within the file, no two sharing bytes) and measured. The data's
 * offsets and lengths stay in the file and are read from it where they lie, each time they are
 * needed, so a page of a million strips holds no array of its own; every loop over them charges
 * the meter and lets the event loop run when due.
 */
import { FormatError, type Work } from './limits';

/** Bytes per value of each TIFF type (TIFF 6.0 §2, and the BigTIFF types); 0: unknown. */
const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];
const IFD_TYPES = new Set([13, 18]);
/** Entries pointing into the file that a copy does not carry (see tiff-write.ts). */
const LEFT_OUT = new Set([288, 289, 330, 34665, 34853, 40965]);
const COMPRESSION = 259;
const OLD_JPEG = new Set([513, 514]);
const STRIP_OFFSETS = 273;
const STRIP_BYTES = 279;
const TILE_OFFSETS = 324;
const TILE_BYTES = 325;

/** A TIFF opened for copying. */
export interface TiffFile {
	bytes: Buffer;
	le: boolean;
	offsets: number[];
	work: Work;
}

/** A page's directory entry: its 12 bytes in the file, and its value's bytes when out of line. */
export interface Kept {
	at: number;
	tag: number;
	/** Where its value lies in the file and how long it is, when longer than 4 bytes. */
	value?: [number, number];
}

/** The values of a SHORT or LONG entry, read from the file: value `i`. */
export type Values = (i: number) => number;

/** A page, ready to be placed anywhere in a new file. */
export interface Page {
	entries: Kept[];
	/** Which entry holds the data offsets. */
	offsetsTag: number;
	/** Its strips or tiles: how many, and where each lies in the file and how long it is. */
	pieces: number;
	offsetOf: Values;
	lengthOf: Values;
	/** The bytes of its directory, its values and its offsets array (each value even)... */
	head: number;
	/** ...and with its data, the whole made even (the next directory begins on a word). */
	size: number;
	/** The bytes of its data as in the file. */
	dataBytes: number;
}

/** Pieces (strips or tiles) handled between two looks at the meter. */
const BLOCK = 4096;

/**
 * Calls `each` for pieces 0 to n - 1 in blocks, the meter charged a unit a piece and the event
 * loop let run between blocks when due; `each` returns true to stop. The piece it stopped at, or -1.
 */
export async function forPieces(
	work: Work,
	n: number,
	each: (i: number) => boolean | void,
): Promise<number> {
	for (let from = 0; from < n; from += BLOCK) {
		if (work.due()) await work.pause();
		const to = Math.min(n, from + BLOCK);
		work.charge(to - from);
		for (let i = from; i < to; i++) if (each(i) === true) return i;
	}
	return -1;
}

/**
 * Directory `index`'s entries kept for the copy (not those LEFT_OUT, an old JPEG's,
 * sub-directories), the size of their values out of line, and the entries of its image data's
 * offsets and lengths; `refuse` makes the error of a page that cannot be copied.
 */
function readEntries(source: TiffFile, index: number, refuse: (why: string) => FormatError) {
	const { bytes, le, work } = source;
	const u16 = (at: number) => (le ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
	const u32 = (at: number) => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
	const where = source.offsets[index];
	const count = u16(where);
	work.charge(12 * count + 6);
	const entries: Kept[] = [];
	let offsetsTag = 0;
	let offsetsEntry: Kept | undefined;
	let bytesEntry: Kept | undefined;
	let values = 0;
	for (let i = 0; i < count; i++) {
		const at = where + 2 + 12 * i;
		const tag = u16(at);
		const type = u16(at + 2);
		const n = u32(at + 4);
		// The value read by its type: a LONG's first two bytes are its high half in big-endian.
		const first = type === 4 || type === 9 ? u32(at + 8) : type === 1 ? bytes[at + 8] : u16(at + 8);
		if (tag === COMPRESSION && first === 6)
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
			if (offsetsEntry) throw refuse('it has both strips and tiles');
			if (type !== 3 && type !== 4)
				throw refuse(`its data offsets (tag ${tag}) are of type ${type}`);
			offsetsTag = tag;
			offsetsEntry = kept;
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
	if (!offsetsEntry || !bytesEntry)
		throw refuse('it has no image data (strips or tiles with their lengths)');
	return { entries, offsetsTag, offsetsEntry, bytesEntry, values };
}

/** Reads directory `index`: the entries kept, the image data, the size the page takes. */
export async function readPage(source: TiffFile, index: number): Promise<Page> {
	const { bytes, le, work } = source;
	const u32 = (at: number) => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
	const refuse = (why: string) =>
		new FormatError(`page ${index + 1} of the TIFF cannot be copied: ${why}`);
	const { entries, offsetsTag, offsetsEntry, bytesEntry, values } = readEntries(
		source,
		index,
		refuse,
	);
	const pieces = u32(offsetsEntry.at + 4);
	const lengths = u32(bytesEntry.at + 4);
	if (lengths !== pieces) throw refuse(`it has ${pieces} data offsets and ${lengths} lengths`);
	const offsetOf = valuesOf(source, offsetsEntry);
	const lengthOf = valuesOf(source, bytesEntry);
	let dataBytes = 0;
	let end = 0;
	let ordered = true;
	// The pieces that are not empty: how many, the first byte of any and the end of the last.
	const extent = { pieces: 0, start: bytes.length, end: 0 };
	await forPieces(work, pieces, (i) => {
		const [from, length] = [offsetOf(i), lengthOf(i)];
		if (from + length > bytes.length)
			throw refuse(`its image data ${i} is past the end of the file`);
		dataBytes += length;
		if (length === 0) return;
		if (from < end) ordered = false;
		end = from + length;
		extent.pieces++;
		extent.start = Math.min(extent.start, from);
		extent.end = Math.max(extent.end, end);
	});
	const overlap = ordered
		? undefined
		: await overlapping(work, { offsetOf, lengthOf, pieces }, extent);
	if (overlap)
		throw refuse(
			`its ${offsetsTag === TILE_OFFSETS ? 'tiles' : 'strips'} ${overlap[0] + 1} and ${overlap[1] + 1} share bytes of the file, which image data do not; a copy would multiply them`,
		);
	const offsetsArray = pieces > 1 ? 4 * pieces : 0;
	const head = 2 + 12 * entries.length + 4 + values + offsetsArray;
	const size = head + dataBytes + (dataBytes & 1);
	return { entries, offsetsTag, pieces, offsetOf, lengthOf, head, size, dataBytes };
}

/** The values of a SHORT or LONG entry, inline or out of line, read where they lie. */
function valuesOf(source: TiffFile, kept: Kept): Values {
	const { bytes, le } = source;
	const at = kept.value ? kept.value[0] : kept.at + 8;
	const type = le ? bytes.readUInt16LE(kept.at + 2) : bytes.readUInt16BE(kept.at + 2);
	if (type === 3)
		return le ? (i) => bytes.readUInt16LE(at + 2 * i) : (i) => bytes.readUInt16BE(at + 2 * i);
	return le ? (i) => bytes.readUInt32LE(at + 4 * i) : (i) => bytes.readUInt32BE(at + 4 * i);
}

type Pieces = Pick<Page, 'offsetOf' | 'lengthOf' | 'pieces'>;
type Extent = { pieces: number; start: number; end: number };

/**
 * Two pieces of a page out of file order that share bytes, by their index (the earlier first), or
 * undefined when none do (empty pieces share nothing): a byte two pieces hold, found by `marked`
 * where the pieces lie close together and by `sorted` where they lie further apart (a map of
 * their extent larger than 16 bytes a piece: a page of two strips at either end of the file costs
 * no map of the file), then the first two pieces that hold it.
 */
async function overlapping(
	work: Work,
	page: Pieces,
	extent: Extent,
): Promise<[number, number] | undefined> {
	// The map's bits are found by 32-bit shifts: an extent of 2 GB or more is sorted.
	const span = extent.end - extent.start;
	const close = span < 2 ** 31 && span / 8 <= 16 * extent.pieces;
	const shared = close ? await marked(work, page, extent) : await sorted(work, page, extent);
	if (shared < 0) return undefined;
	const { offsetOf, lengthOf, pieces } = page;
	const holding: number[] = [];
	await forPieces(work, pieces, (i) => {
		if (offsetOf(i) <= shared && shared < offsetOf(i) + lengthOf(i)) holding.push(i);
		return holding.length === 2;
	});
	return [holding[0], holding[1]];
}

/**
 * A byte two pieces hold, or -1: each piece's bytes marked in a map of a bit per byte of the
 * extent, a piece that finds a bit set shares that byte with a piece before it.
 */
async function marked(work: Work, page: Pieces, extent: Extent): Promise<number> {
	const { offsetOf, lengthOf, pieces } = page;
	const seen = new Uint8Array(((extent.end - extent.start) >> 3) + 1);
	work.charge(seen.length);
	let shared = -1;
	await forPieces(work, pieces, (i) => {
		const [from, length] = [offsetOf(i) - extent.start, lengthOf(i)];
		if (length === 0) return false;
		work.charge(length >> 3);
		const at = mark(seen, from, from + length);
		if (at >= 0) shared = extent.start + at;
		return at >= 0;
	});
	return shared;
}

/**
 * A byte two pieces hold, or -1: the starts and the ends of the pieces sorted apart, no two share
 * a byte when each end is at or before the next start; else the next start is held by two.
 */
async function sorted(work: Work, page: Pieces, extent: Extent): Promise<number> {
	const { offsetOf, lengthOf, pieces } = page;
	const starts = new Float64Array(extent.pieces);
	const ends = new Float64Array(extent.pieces);
	let k = 0;
	await forPieces(work, pieces, (i) => {
		const length = lengthOf(i);
		if (length === 0) return;
		starts[k] = offsetOf(i);
		ends[k] = starts[k] + length;
		k++;
	});
	work.charge(2 * k * Math.ceil(Math.log2(k + 1)));
	starts.sort();
	ends.sort();
	const at = await forPieces(work, k - 1, (j) => ends[j] > starts[j + 1]);
	return at < 0 ? -1 : starts[at + 1];
}

/** Sets the bits of bytes `from` to `to` (excluded) in `seen`: the first byte already set, or -1. */
function mark(seen: Uint8Array, from: number, to: number): number {
	const taken = (at: number) => {
		const [byte, bit] = [at >> 3, 1 << (at & 7)];
		if (seen[byte] & bit) return true;
		seen[byte] |= bit;
		return false;
	};
	let at = from;
	for (; at < to && (at & 7) !== 0; at++) if (taken(at)) return at;
	// Whole bytes of the map: each looked at, then all set at once.
	const full = to >> 3;
	for (let byte = at >> 3; byte < full; byte++)
		if (seen[byte] !== 0) return 8 * byte + 31 - Math.clz32(seen[byte] & -seen[byte]);
	if (at >> 3 < full) seen.fill(0xff, at >> 3, full);
	for (at = Math.max(at, 8 * full); at < to; at++) if (taken(at)) return at;
	return -1;
}
