/**
 * The pages of a PDF: the page tree's /Count under the catalog's /Pages, found through the
 * cross-reference (xref.ts) and checked against the one walk of the /Kids tree (page-tree.ts: a
 * count the kids contradict is unknown). Objects inside object streams are read from the stream's
 * decoded bytes (streams.ts), each object stream inflated when an object in it is first read; an
 * encrypted file's object streams are decrypted first, when it opens without a password
 * (encryption.ts). The walk lets the event loop run as it goes (Work).
 */
import { decodeStream } from './streams';
import type { Decryption } from './crypt';
import { readDecryption } from './encryption';
import { isDigit } from './lexer';
import {
	readCount,
	PAGE_LIMITS,
	strip,
	Unknown,
	BrokenXref,
	type Work,
	type PageCount,
} from './limits';
import { Parser } from './parser';
import { isDict, isRef, nameOf, type PdfValue, type Ref } from './values';
import { walkPages, type PageTree } from './page-tree';
import { readXref, scanObjects, type Xref } from './xref';

const MAX_PAGES_PER_BYTE = 1 / 10;

export async function countPdfPages(buf: Buffer, work: Work): Promise<PageCount> {
	const opened = await openPdf(buf, work);
	return opened.pages === null ? opened : { pages: opened.pages };
}

/**
 * A PDF as its pages were counted: the bytes its offsets count from (`view`), where its objects
 * are, a reader of them, its catalog, its pages (the page tree's /Count, checked by the walk) and,
 * for a copy, the tree as walked; for an encrypted file, its decryption or why there is none.
 */
export interface OpenPdf {
	view: Buffer;
	xref: Xref;
	reader: ObjectReader;
	root: Ref;
	pages: number;
	tree: PageTree;
	decryption?: Decryption | { refused: string };
}

/**
 * Opens a PDF as the count reads it; its pages, or null with the reason they are unknown.
 * `copy`: the walk also gives what each page inherits and the roles of the tree's objects.
 */
export async function openPdf(
	buf: Buffer,
	work: Work,
	copy = false,
): Promise<OpenPdf | { pages: null; reason: string }> {
	// Offsets count from the `%PDF` header: where bytes precede it (a byte order mark, a mail
	// header), they are read from the header first, as readers do, then from the file's start.
	const header = buf.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1');
	const views = header > 0 ? [buf.subarray(header), buf] : [buf];
	let broken: string | undefined;
	let opened: OpenPdf | undefined;
	const open = async (view: Buffer, xref: Xref) => {
		const reader = new ObjectReader(view, xref, work);
		const decryption =
			xref.encrypted === undefined ? undefined : await readDecryption(reader, work);
		if (decryption && !('refused' in decryption)) reader.decryption = decryption;
		const walk = await countThrough(reader, xref, view.length, work, copy);
		opened = {
			view,
			xref,
			reader,
			root: xref.root!,
			pages: walk.pageObjects.length,
			tree: walk,
			decryption,
		};
		return walk.pageObjects.length;
	};
	for (const view of views) {
		const direct = await readCount(async () => {
			const xref = await readXref(view, work);
			if (!xref.root) throw new BrokenXref('the trailer names no document catalog (/Root)');
			return await open(view, xref);
		});
		if (direct.pages !== null) return opened!;
		if (!direct.broken) return strip(direct) as { pages: null; reason: string };
		broken ??= direct.reason;
	}
	const scanned = await readCount(async () => await open(buf, await scanObjects(buf, work)));
	if (scanned.pages !== null) return opened!;
	return { pages: null, reason: `${broken}; in a scan of the objects instead: ${scanned.reason}` };
}

async function countThrough(
	reader: ObjectReader,
	xref: Xref,
	size: number,
	work: Work,
	copy: boolean,
): Promise<PageTree> {
	const root = xref.root!;
	const catalog = await reader.get(root);
	if (!isDict(catalog) || !isRef(catalog.dict.Pages))
		throw new Unknown('the document catalog has no page tree (/Pages)');
	const rootNode = await reader.get(catalog.dict.Pages);
	if (!isDict(rootNode)) throw new Unknown('the page tree root is not a dictionary');
	const declared = await reader.resolve(rootNode.dict.Count);
	if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 0)
		throw new Unknown('the page tree root has no valid /Count');
	if (declared > size * MAX_PAGES_PER_BYTE || declared > PAGE_LIMITS.maxObjects)
		throw new Unknown(
			`the page tree claims ${declared} pages, more than a file of this size can hold`,
		);
	const strings = reader.decryption !== undefined;
	const walk = await walkPages(
		reader,
		root,
		catalog.dict.Pages,
		work,
		copy ? { objects: xref.objects, strings } : undefined,
	);
	if (walk.pageObjects.length !== declared)
		throw new Unknown(
			`the page tree's /Count (${declared}) contradicts its pages (${walk.pageObjects.length})`,
		);
	return walk;
}

interface ObjectStream {
	parser: Parser;
	/** Its decoded bytes. */
	data: Buffer;
	/** Where each object of the stream begins in its decoded bytes, by index. */
	offsets: Uint32Array;
	/** The number each pair gives its object, by index (the cross-reference must name the same). */
	numbers: Float64Array;
	/** The memory it holds: its decoded bytes and offsets. */
	bytes: number;
}

/** Where an object's bytes are: the file's (or a decoded object stream's), and its value's start. */
export interface Located {
	bytes: Buffer;
	at: number;
	/** Whether it is in the file (a stream may follow) or in an object stream. */
	inFile: boolean;
	/** Its generation, as its header gives it (0 in an object stream). */
	gen: number;
}

/**
 * Reads objects through the cross-reference. Inflated object streams are kept for later reads,
 * the least recently read let go once those kept pass their share of the file's size (the one
 * being read is always kept); one let go is inflated again when read again, within the same
 * limits of inflated streams and bytes, so a file whose reads bounce between streams ends within
 * that work. An object in a stream is read once its stream is loaded (`load`, which inflates).
 */
export class ObjectReader {
	private reads = 0;
	/** The inflated object streams kept, the least recently read first. */
	private readonly streams = new Map<number, ObjectStream>();
	private kept = 0;
	private readonly keep: number;
	/** The stream read last (it is already the most recent: no reordering). */
	private last = -1;
	/** One parser over the file, moved to each object read (reads do not overlap). */
	private readonly parser: Parser;
	/** An encrypted file's decryption: its object streams are decrypted before they are inflated. */
	decryption?: Decryption;
	constructor(
		private readonly buf: Buffer,
		private readonly xref: Xref,
		private readonly work: Work,
	) {
		this.parser = new Parser(buf, work);
		this.keep = buf.length * PAGE_LIMITS.streamCacheFactor;
	}

	/** The bytes its offsets count from. */
	get bytes(): Buffer {
		return this.buf;
	}

	/** Where the newest trailer naming /Encrypt begins, if one does. */
	get trailerAt(): number | undefined {
		return this.xref.encrypted;
	}

	async resolve(value: PdfValue | undefined): Promise<PdfValue | undefined> {
		return isRef(value) ? await this.get(value) : value;
	}

	async get(ref: Ref): Promise<PdfValue> {
		const loading = this.load(ref.ref);
		if (loading) await loading;
		return this.read(ref.ref);
	}

	/** Inflates the object stream object `num` is in, unless it is kept (or `num` is in none). */
	load(num: number): Promise<void> | undefined {
		const where = this.xref.objects.get(num);
		if (!where || 'offset' in where || this.streams.has(where.stream)) return undefined;
		return this.inflate(where.stream);
	}

	/** Object `num` (its generation is not checked); one in an object stream once loaded. */
	read(num: number): PdfValue {
		if (++this.reads > PAGE_LIMITS.maxObjects)
			throw new Unknown(`reading the page tree needs more than ${PAGE_LIMITS.maxObjects} objects`);
		const where = this.entry(num);
		if ('offset' in where) {
			if (where.offset < 0)
				throw new Unknown(`object ${num} is free in the cross-reference${this.hidden()}`);
			return this.headed(num, where.offset, BrokenXref).parser.value();
		}
		const at = this.inStream(num, where.stream, where.index);
		return this.stream(where.stream).parser.at(at).value();
	}

	/**
	 * Where object `num`'s value begins, for a reader of its bytes (formats/pdf-objects.ts); its
	 * object stream loaded first (`load`). Undefined for an object the cross-reference marks free.
	 * An object it does not list, or not where it says, cannot be located (Unknown: no repair of
	 * the cross-reference is tried for a copy).
	 */
	locate(num: number): Located | undefined {
		const where = this.entry(num);
		if ('offset' in where) {
			if (where.offset < 0) return undefined;
			const { parser, head } = this.headed(num, where.offset, Unknown);
			return { bytes: this.buf, at: parser.pos, inFile: true, gen: head.gen };
		}
		const at = this.inStream(num, where.stream, where.index);
		return { bytes: this.stream(where.stream).data, at, inFile: false, gen: 0 };
	}

	/** Why the cross-reference may miss objects: its /XRefStm that was not read. */
	private hidden(): string {
		return this.xref.hidden ? ` (the /XRefStm was not read: ${this.xref.hidden})` : '';
	}

	/** Object `num`'s entry in the cross-reference; one it does not list cannot be read. */
	private entry(num: number) {
		const where = this.xref.objects.get(num);
		if (!where) throw new Unknown(`object ${num} is not in the cross-reference${this.hidden()}`);
		return where;
	}

	/**
	 * The parser after object `num`'s header at `offset`, where the cross-reference puts it;
	 * `Failure` when the object is not there.
	 */
	private headed(num: number, offset: number, Failure: typeof Unknown) {
		if (offset >= this.buf.length)
			throw new Failure(`the cross-reference puts object ${num} outside the file`);
		const parser = this.parser.at(offset);
		const head = parser.objHeader();
		if (!head || head.num !== num)
			throw new Failure(
				`the cross-reference points object ${num} to byte ${offset}, where it is not`,
			);
		return { parser, head };
	}

	/**
	 * Where object `num` begins in object stream `streamNum`, at `index` as the cross-reference
	 * says: the stream's own pair at that index must name `num` too, or which object is read there
	 * is not certain (readers differ: qpdf goes by the pairs), and nothing is read.
	 */
	private inStream(num: number, streamNum: number, index: number): number {
		const stream = this.stream(streamNum);
		const at = index < stream.offsets.length ? stream.offsets[index] : undefined;
		if (at === undefined) throw new Unknown(`object ${num} is not in object stream ${streamNum}`);
		if (stream.numbers[index] !== num)
			throw new Unknown(
				`the cross-reference puts object ${num} at index ${index} of object stream ${streamNum}, where the stream has object ${stream.numbers[index]}`,
			);
		return at;
	}

	/** Object stream `num`, loaded; made the most recently read. */
	private stream(num: number): ObjectStream {
		const stream = this.streams.get(num);
		if (!stream) throw new Unknown(`object stream ${num} was not loaded`);
		if (num !== this.last) {
			this.streams.delete(num);
			this.streams.set(num, stream);
		}
		this.last = num;
		return stream;
	}

	/** Inflates object stream `num` and keeps it, letting go of the least recently read. */
	private async inflate(num: number): Promise<void> {
		const stream = await this.objectStream(num);
		this.streams.set(num, stream);
		this.last = num;
		this.kept += stream.bytes;
		for (const [old, kept] of this.streams) {
			if (this.kept <= this.keep || old === num) break;
			this.work.charge(1);
			this.streams.delete(old);
			this.kept -= kept.bytes;
		}
	}

	private async objectStream(num: number): Promise<ObjectStream> {
		const where = this.xref.objects.get(num);
		if (!where || !('offset' in where) || where.offset < 0 || where.offset >= this.buf.length)
			throw new Unknown(`object stream ${num} is not in the cross-reference`);
		const parser = new Parser(this.buf, this.work).at(where.offset);
		const head = parser.objHeader();
		if (!head) throw new Unknown(`object stream ${num} is not where the cross-reference says`);
		const dict = parser.value();
		if (!isDict(dict) || nameOf(dict.dict.Type) !== 'ObjStm')
			throw new Unknown(`object ${num} is not an object stream`);
		const stored = parser.streamData(dict.dict);
		const raw = this.decryption ? this.decryption.stream(num, head.gen, stored) : stored;
		const data = await decodeStream(dict.dict, raw, `object stream ${num}`, this.work);
		const n = dict.dict.N;
		const first = dict.dict.First;
		if (
			typeof n !== 'number' ||
			typeof first !== 'number' ||
			n < 0 ||
			first < 0 ||
			first > data.length
		)
			throw new Unknown(`object stream ${num} has no valid /N and /First`);
		// The decoded bytes may be read once more by the parser than the file's size allows.
		if (data !== raw) this.work.parse += data.length;
		const header = new Parser(data, this.work);
		// n pairs take 4n - 1 bytes at least: a larger /N is refused before anything is allocated.
		if (4 * n - 1 > data.length) throw new Unknown(`object stream ${num} has a bad offset`);
		const offsets = new Uint32Array(Math.ceil(n));
		const numbers = new Float64Array(Math.ceil(n));
		// Pairs of unsigned integers (number, offset), read without building values.
		for (let i = 0; i < n; i++) {
			if (this.work.due()) await this.work.pause();
			header.at(header.pos).skipSpace();
			if (!isDigit(data[header.pos])) throw new Unknown(`object stream ${num} has a bad offset`);
			numbers[i] = header.unsigned();
			header.skipSpace();
			if (!isDigit(data[header.pos])) throw new Unknown(`object stream ${num} has a bad offset`);
			const rel = header.unsigned();
			if (first + rel > data.length) throw new Unknown(`object stream ${num} has a bad offset`);
			offsets[i] = first + rel;
		}
		return {
			parser: header,
			data,
			offsets,
			numbers,
			bytes: data.length + offsets.byteLength + numbers.byteLength,
		};
	}
}
