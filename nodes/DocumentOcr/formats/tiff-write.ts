/**
 * Pages of a multi-page TIFF copied into a new TIFF (issue 37): `selectTiffPages` writes the
 * directories a selection names, `splitTiff` cuts the file in page order into as few parts as fit
 * a limit (`tiffParts` gives them one at a time). A classic TIFF of either byte order (BigTIFF is
 * refused): the new file keeps the byte order; each page is its image directory (entries in their
 * order), then the values that do not fit in an entry (each on a word), then its strips or tiles
 * back to back in the order of its offsets, each as it is, with the offsets rewritten; one byte
 * after the data of an odd length, so that the next directory begins on a word (TIFF 6.0 asks it
 * of directories and values, not of image data). The entries that point into the file in ways
 * not relocated here are left out: SubIFDs (330, a page's thumbnails), the EXIF, GPS and
 * interoperability directories (34665, 34853, 40965), FreeOffsets and FreeByteCounts (288, 289),
 * any entry of type IFD, and an entry of a type TIFF does not define (its size is unknown). An
 * old-style JPEG page (Compression 6), whose data 513/514 point to, is refused. A page's size
 * does not depend on where it stands, so a split sizes its parts page by page.
 *
 * The chunks are mostly the input's, and few whatever the number of strips (a page of 600,000
 * one-byte strips back to back is one chunk): pieces that lie back to back in the file make one
 * chunk viewing them all, and runs shorter than GATHER bytes are copied into a store shared by the
 * runs after them (one chunk for every GATHER / 2 bytes of data at most). A page holds no array
 * per piece (tiff-page.ts reads the offsets and lengths where they lie), and every loop over the
 * pieces lets the event loop run when due.
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
import { forPieces, readPage, type Page, type TiffFile } from './tiff-page';

/**
 * What a selection or a part may come to: its data no more than the file's bytes (the data of two
 * pages are not the same bytes), and the whole new file no more than GROWTH times the file and
 * 64 kB (offsets written anew as LONGs, padding, directories) and within 4 GB. That bounds the
 * pieces (strips or tiles) too: each past a page's first takes 4 bytes of its offsets array, and
 * none costs an object of its own.
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
		const read = await readPage(source, page - 1);
		tally.add(read, page);
		chosen.push(read);
	}
	const written = await writeTiff(source, chosen, pages);
	options.measured?.(source.work.done);
	return written;
}

/**
 * The TIFF `bytes` cut in page order into as few parts as possible, each a file whose size in
 * bytes `fits`; a page that does not fit alone is a FormatError naming it. All the parts at once:
 * tiffParts gives them one at a time.
 */
export async function splitTiff(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): Promise<WrittenPart[]> {
	const parts: WrittenPart[] = [];
	for await (const part of tiffParts(bytes, fits, options)) parts.push(part);
	return parts;
}

/**
 * The parts of splitTiff, each given as soon as it is written: the next is read and written only
 * when the caller asks for it, so a caller that lets a part go before the next holds one part's
 * chunks at a time. A refusal comes when its page is reached, after the parts before it.
 */
export async function* tiffParts(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): AsyncGenerator<WrittenPart> {
	const source = await open(bytes, options);
	const total = source.offsets.length;
	const order = options.pages ?? source.offsets.map((_, index) => index + 1);
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
		const page = await readPage(source, number - 1);
		tally.add(page, number);
		if (!fits(HEADER + page.size))
			throw new FormatError(
				`page ${number} alone makes a TIFF of ${HEADER + page.size} bytes, more than the limit allows, so the file cannot be split to fit`,
			);
		if (part.length > 0 && !fits(size + page.size)) {
			yield await writeTiff(source, part, numbers);
			part = [];
			numbers = [];
			size = HEADER;
		}
		part.push(page);
		numbers.push(number);
		size += page.size;
	}
	if (part.length === 0) throw new FormatError('no page is selected');
	yield await writeTiff(source, part, numbers);
	options.measured?.(source.work.done);
}

const HEADER = 8;

async function open(bytes: Buffer, options: WriteOptions): Promise<TiffFile> {
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

/**
 * Page `page`'s directory and values as written at `at` (the next directory at `next`, 0 for
 * none), and where in it the offsets of its data go: in the entry (one piece) or in an array of
 * their own after the values.
 */
function directoryOf(source: TiffFile, page: Page, at: number, next: number) {
	const { bytes, le, work } = source;
	const directory = 2 + 12 * page.entries.length + 4;
	const many = page.pieces > 1;
	const head = Buffer.alloc(page.head);
	work.charge(head.length + page.entries.length);
	write16(head, 0, page.entries.length, le);
	let value = at + directory;
	let offsets = 0;
	page.entries.forEach((entry, i) => {
		const to = 2 + 12 * i;
		bytes.copy(head, to, entry.at, entry.at + 12);
		if (entry.tag === page.offsetsTag) {
			write16(head, to + 2, 4, le);
			write32(head, to + 4, page.pieces, le);
			write32(head, to + 8, many ? value : 0, le);
			offsets = many ? value - at : to + 8;
			if (many) value += 4 * page.pieces;
		} else if (entry.value) {
			const [from, length] = entry.value;
			write32(head, to + 8, value, le);
			bytes.copy(head, value - at, from, from + length);
			value += length + (length & 1);
		}
	});
	write32(head, directory - 4, next, le);
	return { head, offsets };
}

/** The new file of `pages`, pages `numbers` (1-based, in order) of the source. */
async function writeTiff(source: TiffFile, pages: Page[], numbers: number[]): Promise<WrittenPart> {
	const first = numbers[0];
	const { bytes, le, work } = source;
	const header = Buffer.alloc(HEADER);
	bytes.copy(header, 0, 0, 4);
	write32(header, 4, HEADER, le);
	const chunks = new Chunks(
		source,
		pages.reduce((sum, page) => sum + page.dataBytes, 0),
	);
	chunks.add(header);
	let at = HEADER;
	for (const [p, page] of pages.entries()) {
		if (work.due()) await work.pause();
		if (at + page.size > MAX_TIFF)
			throw new FormatError(
				`the new TIFF would pass 4 GB at page ${numbers[p]}, more than a classic TIFF's offsets reach; nothing is written`,
			);
		const next = p < pages.length - 1 ? at + page.size : 0;
		const { head, offsets } = directoryOf(source, page, at, next);
		chunks.add(head);
		// The data follow the values (and the offsets array), each piece after the one before.
		let dataAt = at + page.head;
		await forPieces(work, page.pieces, (i) => {
			const [from, length] = [page.offsetOf(i), page.lengthOf(i)];
			write32(head, offsets + 4 * i, dataAt, le);
			dataAt += length;
			chunks.piece(from, length);
		});
		if (page.dataBytes & 1) chunks.add(PAD);
		at += page.size;
	}
	return {
		chunks: chunks.done(),
		length: at,
		first,
		last: numbers[numbers.length - 1],
		pages: [...numbers],
	};
}

const PAD = Buffer.alloc(1);
/**
 * A run of pieces shorter than GATHER bytes is copied into a store of STORE bytes (or the data
 * still to come, when fewer) shared by the runs after it, rather than viewed where it lies: the
 * chunks stay few (one for every GATHER / 2 bytes of data at most, and two a page) whatever the
 * layout of the pieces in the file.
 */
const GATHER = 1024;
const STORE = 65_536;

/**
 * The chunks of a new file: its buffers, and the source's pieces, those that lie back to back in
 * the file (in the order written) one chunk viewing the run, short runs gathered into a store.
 */
class Chunks {
	private readonly list: Buffer[] = [];
	/** The run of the source being extended: from, to (none when equal). */
	private from = 0;
	private to = 0;
	/** The store, and its bytes not yet in a chunk: from `kept` to `filled`. */
	private store = Buffer.alloc(0);
	private kept = 0;
	private filled = 0;

	/** `left`: the bytes of data still to come (a store is never larger). */
	constructor(
		private readonly source: TiffFile,
		private left: number,
	) {}

	add(buf: Buffer): void {
		this.endRun();
		this.endStore();
		this.list.push(buf);
	}

	piece(from: number, length: number): void {
		if (length === 0) return;
		if (from === this.to && this.to > this.from) {
			this.to += length;
			return;
		}
		this.endRun();
		[this.from, this.to] = [from, from + length];
	}

	done(): Buffer[] {
		this.endRun();
		this.endStore();
		return this.list;
	}

	private endRun(): void {
		const length = this.to - this.from;
		if (length === 0) return;
		const { bytes, work } = this.source;
		if (length >= GATHER) {
			this.endStore();
			this.list.push(bytes.subarray(this.from, this.to));
		} else {
			if (this.filled + length > this.store.length) {
				this.endStore();
				this.store = Buffer.alloc(Math.min(STORE, this.left));
				[this.kept, this.filled] = [0, 0];
			}
			work.charge(length);
			bytes.copy(this.store, this.filled, this.from, this.to);
			this.filled += length;
		}
		this.left -= length;
		this.from = this.to = 0;
	}

	private endStore(): void {
		if (this.filled === this.kept) return;
		this.list.push(this.store.subarray(this.kept, this.filled));
		this.kept = this.filled;
	}
}

function write16(buf: Buffer, at: number, value: number, le: boolean): void {
	if (le) buf.writeUInt16LE(value, at);
	else buf.writeUInt16BE(value, at);
}

function write32(buf: Buffer, at: number, value: number, le: boolean): void {
	if (le) buf.writeUInt32LE(value, at);
	else buf.writeUInt32BE(value, at);
}
