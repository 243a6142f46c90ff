/**
 * Where each object of a PDF is: the cross-reference read from the last startxref through /Prev
 * (classic tables, cross-reference streams, a hybrid file's /XRefStm), or, when it cannot be read,
 * a scan for `N G obj` headers that stands in only where it is certain.
 */
import { decodeStream } from './streams';
import { Locations, maxObjectsIn } from './locations';
import { BrokenXref, PAGE_LIMITS, Unknown, type Work } from './limits';
import { CLASS, isDigit } from './lexer';
import { Parser } from './parser';
import { isDict, isRef, nameOf, type PdfValue, type Ref } from './values';

export interface Xref {
	objects: Locations;
	root?: Ref;
	/** Why a hybrid file's cross-reference stream (/XRefStm) was not read, if it was not. */
	hidden?: string;
	/**
	 * Where the newest trailer naming an /Encrypt dictionary begins (strings and streams are
	 * encrypted): crypt.ts reads it whole, with the file's /ID.
	 */
	encrypted?: number;
}

/** Where `startxref` is looked for: the file's last bytes. */
const TAIL = 2048;

export async function readXref(buf: Buffer, work: Work): Promise<Xref> {
	const tailStart = Math.max(0, buf.length - TAIL);
	const inTail = buf.subarray(tailStart).lastIndexOf('startxref', undefined, 'latin1');
	work.charge(buf.length - tailStart);
	if (inTail === -1) throw new BrokenXref('the file has no startxref at its end');
	let offset = new Parser(buf, work).at(tailStart + inTail + 'startxref'.length).value();
	const xref: Xref = { objects: new Locations(maxObjectsIn(buf.length), work) };
	const visited = new Set<number>();
	const reading: Reading = { buf, xref, work, freed: new Set<number>() };
	while (typeof offset === 'number') {
		if (!Number.isInteger(offset) || offset < 0 || offset >= buf.length)
			throw new BrokenXref(`the cross-reference offset ${offset} is outside the file`);
		if (visited.has(offset))
			throw new BrokenXref('the cross-reference sections form a loop (/Prev)');
		visited.add(offset);
		if (visited.size > PAGE_LIMITS.maxXrefSections)
			throw new Unknown(`more than ${PAGE_LIMITS.maxXrefSections} cross-reference sections`);
		const { trailer, at } = await readSection(reading, offset);
		// The newest section is read first: its /Root wins; older ones only fill gaps.
		if (!xref.root && isRef(trailer.Root)) xref.root = trailer.Root;
		if (trailer.Encrypt !== undefined && trailer.Encrypt !== null) xref.encrypted ??= at;
		// A hybrid file: its table marks free what only its cross-reference stream (/XRefStm) lists.
		if (typeof trailer.XRefStm === 'number') {
			try {
				await readSection(reading, trailer.XRefStm);
			} catch (error) {
				xref.hidden ??= (error as Error).message;
			}
		}
		work.charge(reading.freed.size);
		reading.freed.clear();
		offset = trailer.Prev;
	}
	return xref;
}

const malformed = (offset: number) =>
	new BrokenXref(`the cross-reference table at byte ${offset} is malformed`);

/** A section's trailer (a table's, or a cross-reference stream's dictionary) and where it begins. */
interface Section {
	trailer: Record<string, PdfValue>;
	at: number;
}

/**
 * One read of a file's cross-reference: the file, what is known so far, the meter, and the
 * objects the section being read marks free (newer sections win over older ones).
 */
interface Reading {
	buf: Buffer;
	xref: Xref;
	work: Work;
	freed: Set<number>;
}

/** One section (a table + trailer, or a cross-reference stream); keeps entries not yet known. */
async function readSection(reading: Reading, offset: number): Promise<Section> {
	const { buf, work } = reading;
	const parser = new Parser(buf, work).at(offset);
	parser.skipSpace();
	if (buf.toString('latin1', parser.pos, parser.pos + 4) === 'xref') {
		parser.advance(4);
		return await readTable(reading, parser, offset);
	}
	return await readStream(reading, parser, offset);
}

/** A classic table's subsections and its trailer, the parser after `xref`. */
async function readTable(reading: Reading, parser: Parser, offset: number): Promise<Section> {
	const { buf, xref, work, freed } = reading;
	for (;;) {
		// A subsection's first number and count, read as digits; else the trailer. Each of them
		// and each entry is read as an object is, within maxObjectBytes.
		parser.at(parser.pos).skipSpace();
		if (!isDigit(buf[parser.pos])) {
			const word = parser.value();
			if (typeof word !== 'object' || word === null || !('keyword' in word))
				throw malformed(offset);
			if (word.keyword !== 'trailer') throw malformed(offset);
			parser.at(parser.pos).skipSpace();
			const at = parser.pos;
			const trailer = parser.value();
			if (!isDict(trailer)) throw new Unknown('the trailer is not a dictionary');
			return { trailer: trailer.dict, at };
		}
		const first = parser.unsigned();
		parser.skipSpace();
		if (!isDigit(buf[parser.pos])) throw malformed(offset);
		const count = parser.unsigned();
		if (count * 20 > buf.length)
			throw new Unknown('a cross-reference subsection is longer than the file');
		xref.objects.reserve(first, count);
		for (let i = 0; i < count; i++) {
			if (work.due()) await work.pause();
			const entry = readEntry(buf, parser);
			if (entry.kind !== 0x6e && entry.kind !== 0x66) throw malformed(offset);
			const num = first + i;
			if (xref.objects.has(num)) continue;
			if (entry.kind === 0x6e) xref.objects.set(num, { offset: entry.offset });
			else {
				xref.objects.set(num, { offset: -1 }); // free: hides older revisions' object
				freed.add(num);
			}
		}
	}
}

/**
 * A table entry `oooooooooo ggggg n` at the parser's position, read without making a string: the
 * standard form byte by byte, any other spacing token by token (`kind` 0 when a number is missing).
 */
function readEntry(buf: Buffer, parser: Parser): { offset: number; kind: number } {
	parser.at(parser.pos).skipSpace();
	const standard = standardEntry(buf, parser.pos);
	if (standard >= 0) {
		const kind = buf[parser.pos + 17];
		parser.advance(18);
		return { offset: standard, kind };
	}
	const digits = isDigit(buf[parser.pos]);
	const offset = parser.unsigned();
	parser.skipSpace();
	const genDigits = isDigit(buf[parser.pos]);
	parser.unsigned();
	parser.skipSpace();
	const kind = buf[parser.pos];
	parser.advance(1);
	return { offset, kind: digits && genDigits ? kind : 0 };
}

/** A cross-reference stream at the parser's position. */
async function readStream(reading: Reading, parser: Parser, offset: number): Promise<Section> {
	const { work } = reading;
	const head = parser.at(parser.pos).objHeader();
	if (!head)
		throw new BrokenXref(`the cross-reference offset ${offset} points to no cross-reference`);
	parser.skipSpace();
	const dictAt = parser.pos;
	const dict = parser.value();
	if (!isDict(dict) || nameOf(dict.dict.Type) !== 'XRef')
		throw new BrokenXref(`the cross-reference offset ${offset} points to no cross-reference`);
	const raw = parser.streamData(dict.dict);
	const data = await decodeStream(dict.dict, raw, 'cross-reference stream', work, BrokenXref);
	const w = dict.dict.W;
	if (
		!Array.isArray(w) ||
		w.length !== 3 ||
		!w.every((x) => typeof x === 'number' && x >= 0 && x <= 8)
	)
		throw new Unknown('the cross-reference stream has no valid /W');
	const size = dict.dict.Size;
	const index = Array.isArray(dict.dict.Index) ? dict.dict.Index : [0, size];
	await readRows(data, w as number[], index, reading);
	return { trailer: dict.dict, at: dictAt };
}

/** A cross-reference stream's rows (/W their fields' widths, /Index their numbers). */
async function readRows(
	data: Buffer,
	[w0, w1, w2]: number[],
	index: PdfValue[],
	{ xref, work, freed }: Reading,
): Promise<void> {
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
		work.charge(1);
		if (count * row <= data.length - at) xref.objects.reserve(first, count);
		for (let i = 0; i < count; i++, at += row) {
			if (work.due()) await work.pause();
			if (at + row > data.length) throw new Unknown('the cross-reference stream is cut off');
			work.charge(row);
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
}

/** A table entry's offset when it has the standard form (10 digits, space, 5 digits, space, n/f), else -1. */
function standardEntry(buf: Buffer, at: number): number {
	if (at + 18 > buf.length || buf[at + 10] !== 0x20 || buf[at + 16] !== 0x20) return -1;
	let value = 0;
	for (let k = 0; k < 16; k++) {
		if (k === 10) continue;
		const digit = buf[at + k] - 0x30;
		if (digit < 0 || digit > 9) return -1;
		if (k < 10) value = value * 10 + digit;
	}
	return value;
}

/** The word `obj`, as bytes: a string needle would be converted on every search. */
const OBJ = Buffer.from('obj', 'latin1');

/** White space as the scan has always read it (a regular expression's \s over latin1). */
const space = (c: number | undefined) =>
	c === 0x20 || (c !== undefined && c >= 0x09 && c <= 0x0d) || c === 0xa0;

/**
 * Where `N G ` begins before `obj` at `at`, read backwards within the 24 bytes before it: 1-10
 * digits (after white space or at the window's start), white space, 1-5 digits, white space;
 * -1 if they are not there.
 */
function headerBefore(buf: Buffer, at: number): number {
	const low = Math.max(0, at - 24);
	let p = at - 1;
	const run = (test: (c: number) => boolean) => {
		const end = p;
		while (p >= low && test(buf[p])) p--;
		return end - p;
	};
	if (run(space) < 1) return -1;
	const gen = run(isDigit);
	if (gen < 1 || gen > 5) return -1;
	if (run(space) < 1) return -1;
	const num = run(isDigit);
	if (num < 1 || num > 10) return -1;
	return p < low || space(buf[p]) ? p + 1 : -1;
}

/** A dictionary that may name the root: where it is in the file, and its /Root if it has one. */
interface Revision {
	at: number;
	root?: Ref;
}

/**
 * Stand-in for an unreadable cross-reference: every `N G obj` header in the file. Only certain
 * when nothing is hidden in object streams and every object is defined once (a number defined
 * twice is left out, so reading it fails with "not in the cross-reference"). The root is the
 * newest revision's: the /Root of whichever comes last in the file, the last trailer or a
 * cross-reference stream's dictionary (unknown if that one names none); with neither, the one
 * object typed /Catalog.
 */
export async function scanObjects(buf: Buffer, work: Work): Promise<Xref> {
	work.charge(buf.length);
	if (buf.indexOf('/ObjStm', 0, 'latin1') !== -1)
		throw new Unknown(
			'the file has object streams, so no scan can stand in for its cross-reference',
		);
	const objects = new Locations(maxObjectsIn(buf.length), work);
	const twice = new Set<number>();
	const parser = new Parser(buf, work);
	parser.quiet = true;
	const dictionaryAt = (pos: number) => readDictionary(buf, parser, work, pos);
	let newest: Revision | undefined;
	const trailerAt = buf.lastIndexOf('trailer', buf.length, 'latin1');
	const trailer = trailerAt === -1 ? null : dictionaryAt(trailerAt + 'trailer'.length);
	if (trailer !== null)
		newest = { at: trailerAt, root: isRef(trailer?.Root) ? trailer.Root : undefined };
	let catalogs = 0;
	let catalog: number | undefined;
	for (let at = buf.indexOf(OBJ, 0); at !== -1; at = buf.indexOf(OBJ, at + 3)) {
		if (work.due()) await work.pause();
		work.charge(16);
		work.parse -= 16;
		if (work.parse < 0) throw new Unknown('scanning for objects took too much work');
		// `endobj` and words ending in "obj" are passed over before any string is made.
		if (at === 0 || CLASS[buf[at - 1]] !== 1 || CLASS[buf[at + 3] ?? 0x20] === 0) continue;
		const start = headerBefore(buf, at);
		if (start < 0) continue;
		let num = 0;
		for (let k = start; isDigit(buf[k]); k++) num = num * 10 + buf[k] - 0x30;
		if (objects.has(num)) twice.add(num);
		objects.set(num, { offset: start });
		// An object before the newest revision found so far cannot name a newer root (and with a
		// root named, no catalog is looked for): its dictionary is not read.
		if (newest && at < newest.at) continue;
		const dict = dictionaryAt(at + 3);
		const type = nameOf(dict?.Type);
		const newer = !newest || at > newest.at;
		if (type === 'Catalog') {
			catalogs++;
			catalog = num;
		} else if (type === 'XRef' && newer)
			newest = { at, root: isRef(dict?.Root) ? dict.Root : undefined };
		// A dictionary that cannot be read but names /XRef: which root is newest is not known.
		else if (dict === undefined && newer && mentionsXref(buf, at + 3, work)) newest = { at };
	}
	work.charge(twice.size);
	for (const num of twice) objects.delete(num);
	if (newest && !newest.root)
		throw new Unknown(
			'the newest trailer or cross-reference stream names no document catalog that can be read',
		);
	const root = newest?.root ?? (catalogs === 1 ? { ref: catalog!, gen: 0 } : undefined);
	if (!root) throw new Unknown('no unambiguous document catalog was found');
	return { objects, root };
}

/**
 * The dictionary at `pos` (after white space), read as an object is: its entries, null where
 * no dictionary begins, undefined where one begins but cannot be read (a header the scan found in
 * a stream's data, say). Reading it is charged as any parse; once the file's parse limit is
 * spent, the scan ends.
 */
function readDictionary(
	buf: Buffer,
	parser: Parser,
	work: Work,
	pos: number,
): Record<string, PdfValue> | null | undefined {
	parser.at(pos).skipSpace();
	if (buf[parser.pos] !== 0x3c || buf[parser.pos + 1] !== 0x3c) return null;
	let value: PdfValue | undefined;
	try {
		value = parser.value();
	} catch {
		value = undefined;
	}
	if (work.parse < 0) throw new Unknown('scanning for objects took too much work');
	return isDict(value) ? value.dict : undefined;
}

/** Whether the 200 bytes after `pos` name /XRef, #xx escapes decoded. */
function mentionsXref(buf: Buffer, pos: number, work: Work): boolean {
	work.charge(200);
	const text = buf.toString('latin1', pos, pos + 200);
	return /\/XRef(?![A-Za-z0-9])/.test(
		text.replace(/#([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
			String.fromCharCode(parseInt(hex, 16)),
		),
	);
}
