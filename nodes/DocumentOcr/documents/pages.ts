/**
 * The page count of a document, read from its bytes before anything is sent (issue 31): the
 * service bills per page, so a workflow can see the cost before paying it. Pure, no dependencies.
 *
 * - PDF: the page tree's /Count under the catalog's /Pages, found through the cross-reference
 *   (classic tables, and cross-reference / object streams stored without a filter; incremental
 *   updates and linearized files through the last startxref and /Prev), checked against a walk of
 *   the /Kids tree (cycles, depth, a page listed twice, a count the kids contradict: unknown).
 *   Where the cross-reference cannot be read, a scan for `N G obj` headers stands in only when it
 *   is unambiguous (every object needed defined once, no object streams in the file).
 * - TIFF: the chain of image file directories (classic and BigTIFF, either byte order).
 * - PNG, JPEG, WEBP, GIF: one page.
 *
 * Compressed (FlateDecode) cross-reference and object streams are NOT read: n8n's community-node
 * lint (`@n8n/community-nodes/no-restricted-imports`) allows no Node built-in but `crypto`, so
 * `zlib` cannot be imported; such a file's count is `null` with the reason, unless the objects it
 * needs are stored uncompressed too. Where the count is not certain it is null with a reason,
 * never a guess. The work is bounded (objects read, bytes parsed, tree depth), so a hostile file
 * answers null quickly; nothing here throws.
 */
import type { DocumentKind } from './check';

export type PageCount = { pages: number } | { pages: null; reason: string };

/** Bounds on the work done for one file. */
export const PAGE_LIMITS = {
	/** Objects read from the file (the page tree and what leads to it). */
	maxObjects: 200_000,
	/** Bytes the object parser may read, as a multiple of the file's size (plus 64 kB). */
	parseFactor: 4,
	/** Levels of the page tree (real files use a handful). */
	maxTreeDepth: 64,
	/** Nesting of arrays and dictionaries inside one object. */
	maxNesting: 32,
	/** Cross-reference sections followed through /Prev. */
	maxXrefSections: 256,
	/** Image directories of a TIFF. */
	maxTiffDirectories: 100_000,
};

/** Why a count is unknown; thrown inside the PDF reader, caught by countPages. */
class Unknown extends Error {}
/** The cross-reference cannot be read or does not match the file: a scan may stand in for it. */
class BrokenXref extends Unknown {}

export function countPages(bytes: Buffer, kind: DocumentKind): PageCount {
	if (kind === 'pdf') return countPdfPages(bytes);
	if (kind === 'tiff') return strip(attempt(() => countTiffPages(bytes)));
	return { pages: 1 };
}

/** Runs a counter: its count, or why it is unknown (a read past the end included: never a throw). */
function attempt(count: () => number): PageCount & { broken?: boolean } {
	try {
		return { pages: count() };
	} catch (error) {
		if (error instanceof Unknown)
			return { pages: null, reason: error.message, broken: error instanceof BrokenXref };
		return { pages: null, reason: `the file could not be read (${(error as Error).message})` };
	}
}

// ---------------------------------------------------------------- TIFF

function countTiffPages(buf: Buffer): number {
	if (buf.length < 8) throw new Unknown('the TIFF header is cut off');
	const le = buf[0] === 0x49;
	const u16 = (o: number) => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
	const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
	const u64 = (o: number) => {
		const value = le ? buf.readBigUInt64LE(o) : buf.readBigUInt64BE(o);
		return value > BigInt(buf.length) ? buf.length : Number(value);
	};
	const version = u16(2);
	const big = version === 43;
	if (!big && version !== 42) throw new Unknown(`not a TIFF (version ${version})`);
	if (big && (buf.length < 16 || u16(4) !== 8))
		throw new Unknown('the BigTIFF header is not the one of its specification');
	const seen = new Set<number>();
	let offset = big ? u64(8) : u32(4);
	let pages = 0;
	while (offset !== 0) {
		if (seen.has(offset)) throw new Unknown('the TIFF image directories form a loop');
		seen.add(offset);
		if (pages >= PAGE_LIMITS.maxTiffDirectories)
			throw new Unknown(`more than ${PAGE_LIMITS.maxTiffDirectories} TIFF image directories`);
		const head = big ? 8 : 2;
		const entry = big ? 20 : 12;
		if (offset + head > buf.length)
			throw new Unknown(`a TIFF image directory at byte ${offset} is past the end of the file`);
		const entries = big ? u64(offset) : u16(offset);
		const next = offset + head + entries * entry;
		if (next + (big ? 8 : 4) > buf.length)
			throw new Unknown(`the TIFF image directory at byte ${offset} is cut off`);
		pages++;
		offset = big ? u64(next) : u32(next);
	}
	if (pages === 0) throw new Unknown('the TIFF has no image directory');
	return pages;
}

// ---------------------------------------------------------------- PDF: objects

interface Ref {
	ref: number;
	gen: number;
}
type PdfValue =
	| number
	| boolean
	| null
	| string
	| Ref
	| { name: string }
	| PdfValue[]
	| PdfDict
	| { keyword: string };
interface PdfDict {
	dict: Record<string, PdfValue>;
}

const isRef = (v: PdfValue | undefined): v is Ref =>
	typeof v === 'object' && v !== null && 'ref' in v;
const isDict = (v: PdfValue | undefined): v is PdfDict =>
	typeof v === 'object' && v !== null && 'dict' in v;
const nameOf = (v: PdfValue | undefined): string | undefined =>
	typeof v === 'object' && v !== null && 'name' in v ? v.name : undefined;

/** Byte classes: 1 white space, 2 delimiter, 0 regular (a table: the parser's hot path). */
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS[c] = 2;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** The dictionary keys the counter reads; other values are passed over unbuilt. */
const READ_KEYS = new Set([
	'Type',
	'Pages',
	'Kids',
	'Count',
	'Root',
	'Prev',
	'XRefStm',
	'Length',
	'Filter',
	'W',
	'Index',
	'Size',
	'N',
	'First',
]);

/** A bounded reader of PDF objects over the file's bytes (or a decoded object stream's). */
class Parser {
	constructor(
		private readonly buf: Buffer,
		private readonly budget: { bytes: number },
	) {}
	pos = 0;

	private spend(n: number) {
		this.budget.bytes -= n;
		if (this.budget.bytes < 0)
			throw new Unknown('reading the file took more work than its size allows');
	}

	skipSpace() {
		const { buf } = this;
		const start = this.pos;
		while (this.pos < buf.length) {
			const c = buf[this.pos];
			if (CLASS[c] === 1) this.pos++;
			else if (c === 0x25) {
				while (this.pos < buf.length && buf[this.pos] !== 0x0a && buf[this.pos] !== 0x0d)
					this.pos++;
			} else break;
		}
		this.spend(this.pos - start);
	}

	private token(): string {
		const { buf } = this;
		const start = this.pos;
		while (this.pos < buf.length && CLASS[buf[this.pos]] === 0) this.pos++;
		this.spend(this.pos - start);
		return buf.toString('latin1', start, this.pos);
	}

	/** The next object; `N G R` references are folded into one value. */
	value(depth = 0): PdfValue {
		if (depth > PAGE_LIMITS.maxNesting) throw new Unknown('an object is nested too deeply');
		this.skipSpace();
		const { buf } = this;
		if (this.pos >= buf.length) throw new Unknown('the file ends inside an object');
		const c = buf[this.pos];
		if (c === 0x2f) {
			this.pos++;
			return { name: this.token() };
		}
		if (c === 0x3c && buf[this.pos + 1] === 0x3c) {
			this.pos += 2;
			// No prototype: a key such as /__proto__ is just a key.
			const dict = Object.create(null) as Record<string, PdfValue>;
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x3e && buf[this.pos + 1] === 0x3e) {
					this.pos += 2;
					return { dict };
				}
				const key = this.value(depth + 1);
				const name = nameOf(key);
				if (name === undefined) throw new Unknown('a dictionary key is not a name');
				if (READ_KEYS.has(name)) dict[name] = this.value(depth + 1);
				else this.skip(depth + 1);
			}
		}
		if (c === 0x3c) {
			const end = buf.indexOf(0x3e, this.pos);
			if (end === -1) throw new Unknown('a hex string is not closed');
			this.spend(end + 1 - this.pos);
			this.pos = end + 1;
			return '';
		}
		if (c === 0x5b) {
			this.pos++;
			const items: PdfValue[] = [];
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x5d) {
					this.pos++;
					return items;
				}
				if (this.pos >= buf.length) throw new Unknown('the file ends inside an array');
				items.push(this.value(depth + 1));
			}
		}
		if (c === 0x28) return this.literal();
		if (c === 0x29 || c === 0x3e || c === 0x5d || c === 0x7b || c === 0x7d) {
			this.pos++;
			throw new Unknown(`an unexpected "${String.fromCharCode(c)}" at byte ${this.pos - 1}`);
		}
		if (isDigit(c)) {
			const start = this.pos;
			const number = this.unsigned();
			if (buf[this.pos] === 0x2e || CLASS[buf[this.pos] ?? 0x20] === 0) return this.real(start);
			// `N G R`: looked ahead byte by byte, consumed only when it is a reference.
			const save = this.pos;
			this.skipSpace();
			if (isDigit(buf[this.pos])) {
				const gen = this.unsigned();
				this.skipSpace();
				if (buf[this.pos] === 0x52 && CLASS[buf[this.pos + 1] ?? 0x20] !== 0) {
					this.pos++;
					return { ref: number, gen };
				}
			}
			this.pos = save;
			return number;
		}
		if (c === 0x2b || c === 0x2d || c === 0x2e) return this.real(this.pos);
		const word = this.token();
		if (word === 'true' || word === 'false') return word === 'true';
		if (word === 'null') return null;
		if (word === '') throw new Unknown(`an unreadable byte at ${this.pos}`);
		return { keyword: word };
	}

	/** Passes over the next object without building it (values of keys nothing reads). */
	skip(depth: number): void {
		if (depth > PAGE_LIMITS.maxNesting) throw new Unknown('an object is nested too deeply');
		this.skipSpace();
		const { buf } = this;
		if (this.pos >= buf.length) throw new Unknown('the file ends inside an object');
		const c = buf[this.pos];
		if (c === 0x3c && buf[this.pos + 1] === 0x3c) {
			this.pos += 2;
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x3e && buf[this.pos + 1] === 0x3e) {
					this.pos += 2;
					return;
				}
				if (buf[this.pos] !== 0x2f) throw new Unknown('a dictionary key is not a name');
				this.skip(depth + 1);
				this.skip(depth + 1);
			}
		}
		if (c === 0x5b) {
			this.pos++;
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x5d) {
					this.pos++;
					return;
				}
				if (this.pos >= buf.length) throw new Unknown('the file ends inside an array');
				this.skip(depth + 1);
			}
		}
		if (c === 0x2f) {
			this.pos++;
			this.skipRegular();
			return;
		}
		if (CLASS[c] === 0) {
			// A number (with `G R` after it, a reference), true, false, null.
			this.skipRegular();
			if (!isDigit(c)) return;
			const save = this.pos;
			this.skipSpace();
			if (isDigit(buf[this.pos])) {
				this.skipRegular();
				this.skipSpace();
				if (buf[this.pos] === 0x52 && CLASS[buf[this.pos + 1] ?? 0x20] !== 0) {
					this.pos++;
					return;
				}
			}
			this.pos = save;
			return;
		}
		this.value(depth); // strings and errors: value() reads them without building much
	}

	private skipRegular() {
		const { buf } = this;
		const start = this.pos;
		while (this.pos < buf.length && CLASS[buf[this.pos]] === 0) this.pos++;
		this.spend(this.pos - start);
	}

	/** Digits at the position, as a number (no string made: the hot path of xref tables). */
	unsigned(): number {
		const { buf } = this;
		const start = this.pos;
		let value = 0;
		while (this.pos < buf.length && isDigit(buf[this.pos])) {
			value = value * 10 + buf[this.pos] - 0x30;
			this.pos++;
		}
		this.spend(this.pos - start);
		return value;
	}

	/** A signed or real number starting at `start`. */
	private real(start: number): number {
		this.pos = start;
		const word = this.token();
		if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word))
			throw new Unknown(`an unreadable number "${word.slice(0, 20)}" at byte ${start}`);
		return Number(word);
	}

	private literal(): string {
		const { buf } = this;
		const start = this.pos;
		let level = 0;
		while (this.pos < buf.length) {
			const c = buf[this.pos++];
			if (c === 0x5c) this.pos++;
			else if (c === 0x28) level++;
			else if (c === 0x29 && --level === 0) {
				this.spend(this.pos - start);
				return '';
			}
		}
		throw new Unknown('a string is not closed');
	}

	/** `N G obj` at the current position: the object's number, or undefined. */
	objHeader(): { num: number; gen: number } | undefined {
		this.skipSpace();
		if (!isDigit(this.buf[this.pos])) return undefined;
		const num = this.unsigned();
		this.skipSpace();
		if (!isDigit(this.buf[this.pos])) return undefined;
		const gen = this.unsigned();
		this.skipSpace();
		if (this.token() !== 'obj') return undefined;
		return { num, gen };
	}

	/** After a stream dictionary: the stream's raw bytes (by /Length when it is direct). */
	streamData(dict: Record<string, PdfValue>): Buffer {
		this.skipSpace();
		if (this.token() !== 'stream') throw new Unknown('a stream dictionary has no stream');
		const { buf } = this;
		if (buf[this.pos] === 0x0d) this.pos++;
		if (buf[this.pos] === 0x0a) this.pos++;
		const length = dict.Length;
		let end: number;
		if (typeof length === 'number' && length >= 0 && this.pos + length <= buf.length)
			end = this.pos + length;
		else {
			end = buf.indexOf('endstream', this.pos, 'latin1');
			if (end === -1) throw new Unknown('a stream is not closed');
		}
		this.spend(end - this.pos);
		return buf.subarray(this.pos, end);
	}
}

/** Where each object is: at an offset in the file, or the i-th object of an object stream. */
type Location = { offset: number } | { stream: number; index: number };

interface Xref {
	objects: Map<number, Location>;
	root?: Ref;
	/** Why a hybrid file's cross-reference stream (/XRefStm) was not read, if it was not. */
	hidden?: string;
}

const MAX_PAGES_PER_BYTE = 1 / 10;

function countPdfPages(buf: Buffer): PageCount {
	const budget = { bytes: buf.length * PAGE_LIMITS.parseFactor + 65_536 };
	const direct = attempt(() => {
		const xref = readXref(buf, budget);
		if (!xref.root) throw new BrokenXref('the trailer names no document catalog (/Root)');
		return countThrough(new ObjectReader(buf, xref, budget), xref.root, buf.length);
	});
	if (direct.pages !== null || !direct.broken) return strip(direct);
	const broken = direct.reason;
	const scanned = attempt(() => {
		const xref = scanObjects(buf, budget);
		return countThrough(new ObjectReader(buf, xref, budget), xref.root!, buf.length);
	});
	if (scanned.pages !== null) return { pages: scanned.pages };
	return { pages: null, reason: `${broken}; in a scan of the objects instead: ${scanned.reason}` };
}

function strip(result: PageCount & { broken?: boolean }): PageCount {
	return result.pages === null ? { pages: null, reason: result.reason } : { pages: result.pages };
}

function countThrough(reader: ObjectReader, root: Ref, size: number): number {
	const catalog = reader.get(root);
	if (!isDict(catalog) || !isRef(catalog.dict.Pages))
		throw new Unknown('the document catalog has no page tree (/Pages)');
	const rootNode = reader.get(catalog.dict.Pages);
	if (!isDict(rootNode)) throw new Unknown('the page tree root is not a dictionary');
	const declared = reader.resolve(rootNode.dict.Count);
	if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 0)
		throw new Unknown('the page tree root has no valid /Count');
	if (declared > size * MAX_PAGES_PER_BYTE || declared > PAGE_LIMITS.maxObjects)
		throw new Unknown(
			`the page tree claims ${declared} pages, more than a file of this size can hold`,
		);
	const walked = walkTree(reader, catalog.dict.Pages);
	if (walked !== declared)
		throw new Unknown(`the page tree's /Count (${declared}) contradicts its pages (${walked})`);
	return declared;
}

/** Counts the leaves of the page tree; refuses cycles, a page listed twice and deep trees. */
function walkTree(reader: ObjectReader, rootRef: Ref): number {
	const seen = new Set<number>();
	let leaves = 0;
	const stack: Array<{ ref: Ref; depth: number }> = [{ ref: rootRef, depth: 0 }];
	while (stack.length > 0) {
		const { ref, depth } = stack.pop()!;
		if (seen.has(ref.ref))
			throw new Unknown(`the page tree lists object ${ref.ref} twice (a cycle or a shared page)`);
		seen.add(ref.ref);
		if (depth > PAGE_LIMITS.maxTreeDepth)
			throw new Unknown(`the page tree is deeper than ${PAGE_LIMITS.maxTreeDepth} levels`);
		const node = reader.get(ref);
		if (!isDict(node)) throw new Unknown(`page tree object ${ref.ref} is not a dictionary`);
		const type = nameOf(node.dict.Type);
		const kids = reader.resolve(node.dict.Kids);
		if (type === 'Pages' || (type === undefined && Array.isArray(kids))) {
			if (!Array.isArray(kids)) throw new Unknown(`page tree node ${ref.ref} has no /Kids`);
			for (let i = kids.length - 1; i >= 0; i--) {
				const kid = kids[i];
				if (!isRef(kid))
					throw new Unknown(`page tree node ${ref.ref} has a kid that is not a reference`);
				stack.push({ ref: kid, depth: depth + 1 });
			}
		} else if (type === 'Page' || type === undefined) leaves++;
		else throw new Unknown(`page tree object ${ref.ref} is a /${type}, neither a page nor pages`);
	}
	return leaves;
}

/** Reads objects through the cross-reference, each at most once per lookup budget. */
class ObjectReader {
	private reads = 0;
	private readonly streams = new Map<number, { data: Buffer; offsets: Map<number, number> }>();
	constructor(
		private readonly buf: Buffer,
		private readonly xref: Xref,
		private readonly budget: { bytes: number },
	) {}

	resolve(value: PdfValue | undefined): PdfValue | undefined {
		return isRef(value) ? this.get(value) : value;
	}

	get(ref: Ref): PdfValue {
		if (++this.reads > PAGE_LIMITS.maxObjects)
			throw new Unknown(`reading the page tree needs more than ${PAGE_LIMITS.maxObjects} objects`);
		const where = this.xref.objects.get(ref.ref);
		const hidden = this.xref.hidden ? ` (the /XRefStm was not read: ${this.xref.hidden})` : '';
		if (!where) throw new Unknown(`object ${ref.ref} is not in the cross-reference${hidden}`);
		if ('offset' in where) {
			if (where.offset < 0)
				throw new Unknown(`object ${ref.ref} is free in the cross-reference${hidden}`);
			if (where.offset >= this.buf.length)
				throw new BrokenXref(`the cross-reference puts object ${ref.ref} outside the file`);
			const parser = new Parser(this.buf, this.budget);
			parser.pos = where.offset;
			const head = parser.objHeader();
			if (!head || head.num !== ref.ref)
				throw new BrokenXref(
					`the cross-reference points object ${ref.ref} to byte ${where.offset}, where it is not`,
				);
			return parser.value();
		}
		const stream = this.objectStream(where.stream);
		const at = stream.offsets.get(where.index);
		if (at === undefined)
			throw new Unknown(`object ${ref.ref} is not in object stream ${where.stream}`);
		const parser = new Parser(stream.data, this.budget);
		parser.pos = at;
		return parser.value();
	}

	private objectStream(num: number) {
		const known = this.streams.get(num);
		if (known) return known;
		const where = this.xref.objects.get(num);
		if (!where || !('offset' in where))
			throw new Unknown(`object stream ${num} is not in the cross-reference`);
		const parser = new Parser(this.buf, this.budget);
		parser.pos = where.offset;
		if (!parser.objHeader())
			throw new Unknown(`object stream ${num} is not where the cross-reference says`);
		const dict = parser.value();
		if (!isDict(dict) || nameOf(dict.dict.Type) !== 'ObjStm')
			throw new Unknown(`object ${num} is not an object stream`);
		const data = decodeStream(dict.dict, parser.streamData(dict.dict), `object stream ${num}`);
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
		const header = new Parser(data, this.budget);
		const offsets = new Map<number, number>();
		for (let i = 0; i < n; i++) {
			header.value(); // the object's number
			const rel = header.value();
			if (typeof rel !== 'number' || first + rel > data.length)
				throw new Unknown(`object stream ${num} has a bad offset`);
			offsets.set(i, first + rel);
		}
		const stream = { data, offsets };
		this.streams.set(num, stream);
		return stream;
	}
}

/** A stream's bytes when they are stored without a filter; compressed ones cannot be read here. */
function decodeStream(dict: Record<string, PdfValue>, raw: Buffer, what: string): Buffer {
	const filter = dict.Filter;
	const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
	if (filters.length === 0) return raw;
	const names = filters.map((f) => nameOf(f) ?? '?').join(', ');
	throw new BrokenXref(
		`the ${what} is compressed (${names}): n8n's community-node rules allow no zlib, so it is not read`,
	);
}

// ---------------------------------------------------------------- PDF: cross-reference

function readXref(buf: Buffer, budget: { bytes: number }): Xref {
	const tailStart = Math.max(0, buf.length - 2048);
	const at = buf.lastIndexOf('startxref', buf.length, 'latin1');
	if (at === -1 || at < tailStart) throw new BrokenXref('the file has no startxref at its end');
	const parser = new Parser(buf, budget);
	parser.pos = at + 'startxref'.length;
	let offset = parser.value();
	const xref: Xref = { objects: new Map() };
	const visited = new Set<number>();
	const freed = new Set<number>();
	while (typeof offset === 'number') {
		if (!Number.isInteger(offset) || offset < 0 || offset >= buf.length)
			throw new BrokenXref(`the cross-reference offset ${offset} is outside the file`);
		if (visited.has(offset))
			throw new BrokenXref('the cross-reference sections form a loop (/Prev)');
		visited.add(offset);
		if (visited.size > PAGE_LIMITS.maxXrefSections)
			throw new Unknown(`more than ${PAGE_LIMITS.maxXrefSections} cross-reference sections`);
		const trailer = readSection(buf, offset, xref, budget, freed);
		// The newest section is read first: its /Root wins; older ones only fill gaps.
		if (!xref.root && isRef(trailer.Root)) xref.root = trailer.Root;
		// A hybrid file: its table marks free what only its cross-reference stream (/XRefStm) lists.
		if (typeof trailer.XRefStm === 'number') {
			try {
				readSection(buf, trailer.XRefStm, xref, budget, freed);
			} catch (error) {
				xref.hidden ??= (error as Error).message;
			}
		}
		freed.clear();
		offset = trailer.Prev;
	}
	return xref;
}

/** One section (a table + trailer, or a cross-reference stream); keeps entries not yet known. */
function readSection(
	buf: Buffer,
	offset: number,
	xref: Xref,
	budget: { bytes: number },
	freed: Set<number>,
): Record<string, PdfValue> {
	const parser = new Parser(buf, budget);
	parser.pos = offset;
	parser.skipSpace();
	if (buf.toString('latin1', parser.pos, parser.pos + 4) === 'xref') {
		parser.pos += 4;
		for (;;) {
			const first = parser.value();
			if (isDict(first) || (typeof first === 'object' && first !== null && 'keyword' in first)) {
				if (
					typeof first === 'object' &&
					first !== null &&
					'keyword' in first &&
					first.keyword === 'trailer'
				) {
					const trailer = parser.value();
					if (!isDict(trailer)) throw new Unknown('the trailer is not a dictionary');
					return trailer.dict;
				}
				throw new BrokenXref(`the cross-reference table at byte ${offset} is malformed`);
			}
			const count = parser.value();
			if (typeof first !== 'number' || typeof count !== 'number' || count < 0)
				throw new BrokenXref(`the cross-reference table at byte ${offset} is malformed`);
			if (count * 20 > buf.length)
				throw new Unknown('a cross-reference subsection is longer than the file');
			for (let i = 0; i < count; i++) {
				// `oooooooooo ggggg n`, read without making a string per entry.
				parser.skipSpace();
				const digits = isDigit(buf[parser.pos]);
				const at = parser.unsigned();
				parser.skipSpace();
				const genDigits = isDigit(buf[parser.pos]);
				parser.unsigned();
				parser.skipSpace();
				const kind = buf[parser.pos++];
				if (!digits || !genDigits || (kind !== 0x6e && kind !== 0x66))
					throw new BrokenXref(`the cross-reference table at byte ${offset} is malformed`);
				const num = first + i;
				if (!xref.objects.has(num) && kind === 0x6e) xref.objects.set(num, { offset: at });
				else if (!xref.objects.has(num)) {
					xref.objects.set(num, { offset: -1 }); // free: hides older revisions' object
					freed.add(num);
				}
			}
		}
	}
	// A cross-reference stream.
	const head = parser.objHeader();
	if (!head)
		throw new BrokenXref(`the cross-reference offset ${offset} points to no cross-reference`);
	const dict = parser.value();
	if (!isDict(dict) || nameOf(dict.dict.Type) !== 'XRef')
		throw new BrokenXref(`the cross-reference offset ${offset} points to no cross-reference`);
	const data = decodeStream(dict.dict, parser.streamData(dict.dict), 'cross-reference stream');
	const w = dict.dict.W;
	if (
		!Array.isArray(w) ||
		w.length !== 3 ||
		!w.every((x) => typeof x === 'number' && x >= 0 && x <= 8)
	)
		throw new Unknown('the cross-reference stream has no valid /W');
	const [w0, w1, w2] = w as number[];
	const size = dict.dict.Size;
	const index = Array.isArray(dict.dict.Index) ? dict.dict.Index : [0, size];
	const row = w0 + w1 + w2;
	if (row === 0) throw new Unknown('the cross-reference stream has no valid /W');
	const field = (at: number, width: number) => {
		let v = 0;
		for (let k = 0; k < width; k++) v = v * 256 + data[at + k];
		return v;
	};
	let at = 0;
	for (let s = 0; s + 1 < index.length; s += 2) {
		const first = index[s];
		const count = index[s + 1];
		if (typeof first !== 'number' || typeof count !== 'number' || count < 0)
			throw new Unknown('the cross-reference stream has no valid /Index');
		for (let i = 0; i < count; i++, at += row) {
			if (at + row > data.length) throw new Unknown('the cross-reference stream is cut off');
			const type = w0 === 0 ? 1 : field(at, w0);
			const a = field(at + w0, w1);
			const b = field(at + w0 + w1, w2);
			const num = first + i;
			if (xref.objects.has(num) && !freed.has(num)) continue;
			if (type === 1) xref.objects.set(num, { offset: a });
			else if (type === 2) xref.objects.set(num, { stream: a, index: b });
			else xref.objects.set(num, { offset: -1 });
		}
	}
	return dict.dict;
}

/**
 * Stand-in for an unreadable cross-reference: every `N G obj` header in the file. Only certain
 * when nothing is hidden in object streams and every object is defined once (a number defined
 * twice is left out, so reading it fails with "not in the cross-reference").
 */
function scanObjects(buf: Buffer, budget: { bytes: number }): Xref {
	if (buf.indexOf('/ObjStm', 0, 'latin1') !== -1)
		throw new Unknown(
			'the file has object streams, so no scan can stand in for its cross-reference',
		);
	const objects = new Map<number, Location>();
	const twice = new Set<number>();
	// The last trailer names the root; without one, the last cross-reference stream's dictionary
	// or else the one /Type /Catalog (both read from each object's first bytes, only then).
	let root: Ref | undefined;
	const trailerAt = buf.lastIndexOf('trailer', buf.length, 'latin1');
	if (trailerAt !== -1) {
		const m = /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(
			buf.toString('latin1', trailerAt, trailerAt + 1024),
		);
		if (m) root = { ref: Number(m[1]), gen: Number(m[2]) };
	}
	const fromTrailer = root !== undefined;
	let catalogs = 0;
	let catalog: number | undefined;
	for (
		let at = buf.indexOf('obj', 0, 'latin1');
		at !== -1;
		at = buf.indexOf('obj', at + 3, 'latin1')
	) {
		budget.bytes -= 16;
		if (budget.bytes < 0) throw new Unknown('scanning for objects took too much work');
		// `endobj` and words ending in "obj" are passed over before any string is made.
		if (at === 0 || CLASS[buf[at - 1]] !== 1 || CLASS[buf[at + 3] ?? 0x20] === 0) continue;
		const match = /(?:^|[\s])(\d{1,10})\s+(\d{1,5})\s+$/.exec(
			buf.toString('latin1', Math.max(0, at - 24), at),
		);
		if (!match) continue;
		const num = Number(match[1]);
		const start = at - match[0].length + (match[0].length - match[0].trimStart().length);
		if (objects.has(num)) twice.add(num);
		objects.set(num, { offset: start });
		if (fromTrailer) continue;
		const peek = buf.toString('latin1', at + 3, Math.min(buf.length, at + 3 + 200));
		if (/\/Type\s*\/Catalog(?![A-Za-z])/.test(peek)) {
			catalogs++;
			catalog = num;
		}
		if (/^\s*<<[^]*\/Type\s*\/XRef/.test(peek)) {
			const m = /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(peek);
			if (m) root = { ref: Number(m[1]), gen: Number(m[2]) };
		}
	}
	for (const num of twice) objects.delete(num);
	if (!root && catalogs === 1 && catalog !== undefined) root = { ref: catalog, gen: 0 };
	if (!root) throw new Unknown('no unambiguous document catalog was found');
	return { objects, root };
}
