/**
 * Pages of a PDF copied into a new PDF (issue 37): `selectPdfPages` writes the pages a selection
 * names, `splitPdf` cuts the document in page order into as few parts as fit a limit.
 *
 * The PDF is opened as its pages are counted (pdf.ts: the same cross-reference, the same checked
 * page tree); a document whose pages are not certain, or that is encrypted, is refused, never
 * written with a wrong page. The new file has a fresh catalog (/Type /Catalog /Pages only: the
 * outlines, names, forms and structure tree of the original reach other pages) and one flat page
 * tree node; each page is its dictionary with the attributes it inherits made its own (MediaBox,
 * CropBox, Resources, Rotate) and /Parent the new node; every object the pages reach is copied
 * once, renumbered from 3 in the order it is reached, its bytes as they are (pdf-objects.ts): a
 * reference to a page not in the file (a link's destination, an annotation's /P), to the page
 * tree or the catalog becomes null; /Parent (outside a page), /StructParent(s) and a page's
 * article beads (/B) are left out; a stream keeps its bytes, with a direct /Length; an object from
 * an object stream is written as a plain object. A classic cross-reference table and a trailer
 * (/Size /Root) end the file. A page may link to a page before it in the same file; a reference to
 * a later one is null (the pages are added one by one, which lets a split size its parts as it
 * goes).
 *
 * The output is a list of chunks (a stream's bytes are the input's, not copied) and its length,
 * so the memory a copy holds beyond the input is its dictionaries and cross-reference. The work
 * is metered (Work) and linear: each object is read once for each file it is written to.
 */
import { FormatError, Unknown, Work, type Pause } from './limits';
import { NumberSet } from './locations';
import { isDict, isRef, isRefList, nameOf as nameOfValue } from './parser';
import { ObjectReader, openPdf, type OpenPdf } from './pdf';
import { blank, scanObject, type Entry, type Scanned } from './pdf-objects';

/** A written file: its chunks, in order, and their length. */
export interface Written {
	chunks: Buffer[];
	length: number;
}

/** A part of a split: the pages it holds (1-based, in order; `first` and `last` of them) and its file. */
export interface WrittenPart extends Written {
	first: number;
	last: number;
	pages: number[];
}

/** What a split takes beside the written files' options: the pages to split (all by default). */
export interface SplitOptions extends WriteOptions {
	/** The pages to cut into parts (1-based, ascending, each once: formats/ranges.ts gives them so). */
	pages?: number[];
}

export interface WriteOptions {
	/** Cancels the work (a FormatError). */
	signal?: AbortSignal;
	/** Lets the event loop run during a long copy (documents/ gives n8n's sleep). */
	pause?: Pause;
	/** Told the work the copy took (the meter's reading: tests hold it linear). */
	measured?: (work: number) => void;
	/**
	 * The most bytes a selection (or a part of a split) may take: one that passes it stops at once
	 * with a FormatError. Unlimited by default; whatever it is, no file written passes twice the
	 * input and a megabyte (AMPLIFICATION), so no crafted file makes a copy much larger than itself.
	 */
	maxBytes?: number;
}

/** A written file never passes this many times its input, and a megabyte. */
const AMPLIFICATION = 2;
const SLACK = 1 << 20;

/** An inherited value longer than this is written once per file, as an object pages refer to. */
const SHARED_OVER = 32;

/** The attributes a page inherits from the page tree above it (ISO 32000 §7.7.3.4). */
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
type Inherited = Partial<Record<(typeof INHERITED)[number], Fragment>>;

/** A value copied out of a page tree node, with its references and cuts. */
interface Fragment {
	bytes: Buffer;
	refs: number[];
	cuts: number[];
}

/** The role of an object of the page tree: a page's index, or NODE (the catalog, a tree node). */
const NODE = -1;

/** A PDF opened for copying. */
interface Source {
	work: Work;
	reader: ObjectReader;
	pdf: OpenPdf;
	header: Buffer;
	/** The pages in order (their object numbers) and what each inherits. */
	pages: number[];
	inherited: Inherited[];
	roles: Map<number, number>;
	/** The offsets of the objects in the file, ascending: no stream's data runs past the next. */
	offsets: Float64Array;
}

const L = (text: string) => Buffer.from(text, 'latin1');
const ENDOBJ = L('\nendobj\n');
const ENDSTREAM = L('\nendstream\nendobj\n');
const CATALOG = L('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n');

/**
 * A new PDF of the pages `pages` names (1-based, ascending, each once: formats/ranges.ts gives
 * them so) of the PDF `bytes`. Throws a FormatError when the PDF cannot be copied.
 */
export async function selectPdfPages(
	bytes: Buffer,
	pages: number[],
	options: WriteOptions = {},
): Promise<Written> {
	return await refusing(async () => {
		const source = await open(bytes, options);
		checkSelection(pages, source.pages.length);
		const part = new Part(source, options.maxBytes);
		for (const page of pages) await part.add(page - 1);
		const written = await part.finish();
		options.measured?.(source.work.done);
		return written;
	});
}

/**
 * The PDF `bytes` cut in page order into as few parts as possible, each a file whose size in
 * bytes `fits` (the caller says what the limit is on: a Base64 body is 4/3 of the file, say).
 * Adding a page to a part adds only the objects the part does not hold yet (a font shared by its
 * pages is counted once), so each part is sized as it grows. A page that does not fit alone is a
 * FormatError naming it.
 */
export async function splitPdf(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): Promise<WrittenPart[]> {
	return await refusing(async () => {
		const source = await open(bytes, options);
		const order = options.pages ?? source.pages.map((_, index) => index + 1);
		if (options.pages) checkSelection(order, source.pages.length);
		const parts: WrittenPart[] = [];
		// A split sizes its parts by `fits` (a part past it is undone a page): maxBytes is checked on
		// each part as it is finished; the guard against amplification holds throughout.
		const finish = async (done: Part) => {
			const written = await done.finish();
			if (written.length > (options.maxBytes ?? Infinity))
				throw new FormatError(
					`pages ${written.first} to ${written.last} make a PDF of ${written.length} bytes, more than the limit of ${options.maxBytes} allows`,
				);
			parts.push(written);
		};
		let part = new Part(source);
		for (const page of order) {
			const index = page - 1;
			const mark = part.mark();
			await part.add(index);
			if (fits(part.size())) continue;
			if (part.pageCount() > 1) {
				part.undo(mark);
				await finish(part);
				part = new Part(source);
				await part.add(index);
			}
			if (!fits(part.size()))
				throw new FormatError(
					`page ${index + 1} alone makes a PDF of ${part.size()} bytes, more than the limit allows, so the document cannot be split to fit`,
				);
		}
		await finish(part);
		options.measured?.(source.work.done);
		return parts;
	});
}

/** The selection's pages checked: whole numbers within the document, ascending, each once. */
function checkSelection(pages: number[], total: number): void {
	if (pages.length === 0) throw new FormatError('no page is selected');
	let before = 0;
	for (const page of pages) {
		if (!Number.isInteger(page) || page < 1 || page > total)
			throw new FormatError(`page ${page} is not a page of the document (1 to ${total})`);
		if (page <= before)
			throw new FormatError('the pages are not in document order, each once (formats/ranges.ts)');
		before = page;
	}
}

/** Runs a copy: an error of the reader (Unknown) becomes a FormatError saying nothing is written. */
async function refusing<T>(copy: () => Promise<T>): Promise<T> {
	let failure: unknown;
	try {
		return await copy();
	} catch (error) {
		failure = error;
	}
	throw refusal(failure);
}

function refusal(error: unknown): FormatError {
	if (error instanceof FormatError) return error;
	const why = error instanceof Unknown ? error.message : `${(error as Error)?.message ?? error}`;
	return new FormatError(
		`the PDF cannot be copied page by page (${why}); nothing is written rather than a wrong page`,
	);
}

async function open(bytes: Buffer, options: WriteOptions): Promise<Source> {
	const work = new Work(bytes.length, options.signal, options.pause);
	const pdf = await openPdf(bytes, work);
	if (pdf.pages === null)
		throw new FormatError(
			`the PDF's pages cannot be read (${pdf.reason}); nothing is written rather than a wrong page`,
		);
	if (pdf.xref.encrypted)
		throw new FormatError(
			'the PDF is encrypted (its trailer names /Encrypt): its pages cannot be copied into a new file; decrypt it first (qpdf --decrypt, or "Print to PDF")',
		);
	// The tree is read again for its inheritance, by a reader of its own.
	work.parse += pdf.view.length;
	const reader = new ObjectReader(pdf.view, pdf.xref, work);
	const tree = await readTree(reader, pdf, work);
	if (tree.pages.length !== pdf.pages)
		throw new Unknown(`the page tree holds ${tree.pages.length} pages, not ${pdf.pages}`);
	const version = /^%PDF-(\d\.\d)/.exec(pdf.view.toString('latin1', 0, 16))?.[1] ?? '1.7';
	const offsets = pdf.xref.objects.fileOffsets();
	return {
		work,
		reader,
		pdf,
		header: L(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`),
		offsets,
		...tree,
	};
}

/**
 * The pages in order, what each inherits, and the role of each object of the tree: a walk of
 * /Kids (checked by the count before: no cycle, no page twice, not too deep).
 */
async function readTree(
	reader: ObjectReader,
	pdf: OpenPdf,
	work: Work,
): Promise<Pick<Source, 'pages' | 'inherited' | 'roles'>> {
	const roles = new Map<number, number>([[pdf.root.ref, NODE]]);
	const catalog = await reader.get(pdf.root);
	if (!isDict(catalog) || !isRef(catalog.dict.Pages))
		throw new Unknown('the document catalog has no page tree (/Pages)');
	const pages: number[] = [];
	const inherited: Inherited[] = [];
	const seen = new NumberSet(work);
	const stack: number[] = [catalog.dict.Pages.ref];
	const above: Inherited[] = [{}];
	while (stack.length > 0) {
		if (work.due()) await work.pause();
		const num = stack.pop()!;
		const from = above.pop()!;
		if (seen.has(num)) throw new Unknown(`the page tree lists object ${num} twice`);
		seen.add(num);
		const loading = reader.load(num);
		if (loading) await loading;
		const node = reader.read(num);
		if (!isDict(node)) throw new Unknown(`page tree object ${num} is not a dictionary`);
		const type = nameOfValue(node.dict.Type);
		const direct = node.dict.Kids;
		const value = isRef(direct) ? await reader.get(direct) : direct;
		const kids = isRefList(value) ? value.refs : Array.isArray(value) ? value : undefined;
		if (type === 'Pages' || (type === undefined && kids)) {
			if (!kids) throw new Unknown(`page tree node ${num} has no /Kids`);
			roles.set(num, NODE);
			const own = { ...from, ...inheritedAt(reader, pdf, num, work) };
			work.charge(kids.length);
			for (let i = kids.length - 1; i >= 0; i--) {
				const kid = kids[i];
				const ref = typeof kid === 'number' ? kid : isRef(kid) ? kid.ref : undefined;
				if (ref === undefined)
					throw new Unknown(`page tree node ${num} has a kid that is not a reference`);
				stack.push(ref);
				above.push(own);
			}
		} else if (type === 'Page' || type === undefined) {
			roles.set(num, pages.length);
			pages.push(num);
			inherited.push(from);
		} else throw new Unknown(`page tree object ${num} is a /${type}, neither a page nor pages`);
	}
	return { pages, inherited, roles };
}

/** The inheritable attributes a page tree node gives, each copied out with its references. */
function inheritedAt(reader: ObjectReader, pdf: OpenPdf, num: number, work: Work): Inherited {
	const where = reader.locate(num);
	if (!where) throw new Unknown(`page tree node ${num} is free`);
	const scanned = scanObject(where.bytes, where.at, work);
	const own: Inherited = {};
	for (const key of INHERITED) {
		const entry = scanned.entries?.get(key);
		// A null value (or one naming a free object) is no value: the node's parent's holds.
		if (entry && !isAbsent(pdf, where.bytes, entry, scanned, work))
			own[key] = fragment(where.bytes, entry, scanned, work);
	}
	return own;
}

/**
 * Whether an entry's value means the entry is absent (ISO 32000 §7.3.7, §7.3.10): `null`, or a
 * reference to an object the cross-reference marks free or does not list.
 */
function isAbsent(
	pdf: OpenPdf,
	bytes: Buffer,
	entry: Entry,
	scanned: Scanned,
	work: Work,
): boolean {
	const length = entry.end - entry.start;
	if (length === 4) return bytes.toString('latin1', entry.start, entry.end) === 'null';
	const { refs } = scanned;
	for (let i = 0; i < refs.length; i += 3) {
		work.charge(1);
		if (refs[i] < entry.start) continue;
		if (refs[i] > entry.start || refs[i + 1] !== entry.end) return false;
		const where = pdf.xref.objects.get(refs[i + 2]);
		return !where || ('offset' in where && where.offset < 0);
	}
	return false;
}

/** The value of `entry` copied out, its references and cuts counted from its start. */
function fragment(bytes: Buffer, entry: Entry, scanned: Scanned, work: Work): Fragment {
	const within = (list: number[], step: number) => {
		const out: number[] = [];
		for (let i = 0; i < list.length; i += step) {
			work.charge(1);
			if (list[i] < entry.start || list[i] >= entry.end) continue;
			for (let k = 0; k < step; k++) out.push(k < 2 ? list[i + k] - entry.start : list[i + k]);
		}
		return out;
	};
	work.charge(entry.end - entry.start);
	return {
		bytes: Buffer.from(bytes.subarray(entry.start, entry.end)),
		refs: within(scanned.refs, 3),
		cuts: within(scanned.cuts, 2),
	};
}

/** What a part was before a page was added (Part.undo goes back to it). */
interface Mark {
	numbered: number;
	chunks: number;
	offsets: number;
	body: number;
	kids: number;
	kidsBytes: number;
}

/**
 * One file being written: pages added in order, each with the objects it reaches that the file
 * does not hold yet, numbered in the order they are reached and written at once; its exact size
 * known at every step.
 */
class Part {
	/** The new number of each object copied, by its number in the source. */
	private readonly numbers = new Map<number, number>();
	/** The new number of each inherited value written as an object of its own. */
	private readonly shared = new Map<Fragment, number>();
	/** The source numbers (or inherited values) in the order they were numbered (3 first). */
	private readonly numbered: Array<number | Fragment> = [];
	/** Objects numbered and not yet written, from `head` on. */
	private queue: Array<number | Fragment> = [];
	private head = 0;
	private readonly chunks: Buffer[] = [];
	/** Where each object from 3 on begins, from the body's start. */
	private readonly offsets: number[] = [];
	private body = 0;
	/** The pages' new numbers, and the bytes they take in /Kids (each with a space). */
	private readonly kids: number[] = [];
	private kidsBytes = 0;
	/** The pages added (1-based, in the source), one per kid. */
	private readonly added: number[] = [];

	/** The most bytes the file may take, and what a file past it is told. */
	private readonly cap: number;
	private readonly capped: (size: number) => FormatError;

	constructor(
		private readonly source: Source,
		maxBytes = Infinity,
	) {
		const guard = AMPLIFICATION * source.pdf.view.length + SLACK;
		this.cap = Math.min(maxBytes, guard);
		this.capped = (size) =>
			new FormatError(
				maxBytes <= guard
					? `the pages selected make a PDF of more than ${maxBytes} bytes (${size} so far), more than the limit allows`
					: `the pages selected make a PDF of ${size} bytes so far, more than ${AMPLIFICATION} times the file and a megabyte: the file repeats its objects in a way a copy cannot carry`,
			);
	}

	pageCount(): number {
		return this.kids.length;
	}

	mark(): Mark {
		return {
			numbered: this.numbered.length,
			chunks: this.chunks.length,
			offsets: this.offsets.length,
			body: this.body,
			kids: this.kids.length,
			kidsBytes: this.kidsBytes,
		};
	}

	undo(mark: Mark): void {
		this.source.work.charge(this.numbered.length - mark.numbered);
		for (let i = this.numbered.length - 1; i >= mark.numbered; i--) {
			const item = this.numbered[i];
			if (typeof item === 'number') this.numbers.delete(item);
			else this.shared.delete(item);
		}
		this.numbered.length = mark.numbered;
		this.chunks.length = mark.chunks;
		this.offsets.length = mark.offsets;
		this.body = mark.body;
		this.kids.length = mark.kids;
		this.added.length = mark.kids;
		this.kidsBytes = mark.kidsBytes;
	}

	/** Adds page `index` (0-based) and every object it reaches that the part does not hold. */
	async add(index: number): Promise<void> {
		const { work, pages } = this.source;
		const page = pages[index];
		const number = this.number(page);
		this.kids.push(number);
		this.added.push(index + 1);
		this.kidsBytes += `${number} 0 R `.length;
		while (this.head < this.queue.length) {
			if (work.due()) await work.pause();
			const item = this.queue[this.head++];
			if (typeof item === 'number') await this.write(item, item === page ? index : -1);
			else this.writeShared(item);
			if (this.body > this.cap) throw this.capped(this.body);
		}
		this.queue = [];
		this.head = 0;
		const size = this.size();
		if (size > this.cap) throw this.capped(size);
	}

	/** The number of an inherited value written as an object of its own, numbering it if new. */
	private sharedNumber(value: Fragment): number {
		const known = this.shared.get(value);
		if (known !== undefined) return known;
		const number = 3 + this.numbered.length;
		this.shared.set(value, number);
		this.numbered.push(value);
		this.queue.push(value);
		return number;
	}

	/** Writes an inherited value as an object of its own (the pages that inherit it refer to it). */
	private writeShared(value: Fragment): void {
		const pieces: Buffer[] = [L(`${this.shared.get(value)} 0 obj\n`)];
		this.render(value.bytes, 0, value.bytes.length, value, [], pieces);
		this.push(Buffer.concat(pieces), pieces.length);
	}

	/** Appends an object's head (all of it but a stream's data) and its end. */
	private push(head: Buffer, pieces: number, data?: Buffer): void {
		this.source.work.charge(head.length + pieces);
		this.offsets.push(this.body);
		this.chunks.push(head);
		this.body += head.length;
		if (data) {
			this.chunks.push(data, ENDSTREAM);
			this.body += data.length + ENDSTREAM.length;
		} else {
			this.chunks.push(ENDOBJ);
			this.body += ENDOBJ.length;
		}
	}

	/** Gives `num` the next number and queues it to be written. */
	private number(num: number): number {
		const number = 3 + this.numbered.length;
		this.numbers.set(num, number);
		this.numbered.push(num);
		this.queue.push(num);
		return number;
	}

	/**
	 * The new number of the object a reference names, numbering it if it is new; 0 (null) for a
	 * page not in the part (yet), the page tree, the catalog or a free object.
	 */
	private resolve(num: number): number {
		const known = this.numbers.get(num);
		if (known !== undefined) return known;
		if (this.source.roles.has(num)) return 0;
		const where = this.source.pdf.xref.objects.get(num);
		if (!where) {
			const hidden = this.source.pdf.xref.hidden;
			throw new Unknown(
				`object ${num} is not in the cross-reference${hidden ? ` (the /XRefStm was not read: ${hidden})` : ''}`,
			);
		}
		if ('offset' in where && where.offset < 0) return 0;
		return this.number(num);
	}

	/** Writes object `num` (page `index`, or -1 for any other object). */
	private async write(num: number, index: number): Promise<void> {
		const { reader, work } = this.source;
		const loading = reader.load(num);
		if (loading) await loading;
		const where = reader.locate(num);
		if (!where) throw new Unknown(`object ${num} is free`);
		const { bytes } = where;
		const scanned = scanObject(bytes, where.at, work);
		const pieces: Buffer[] = [L(`${this.numbers.get(num)} 0 obj\n`)];
		let data: Buffer | undefined;
		if (index >= 0) {
			const { entries, close } = scanned;
			if (!entries || close === undefined)
				throw new Unknown(`page object ${num} is not a dictionary`);
			const inherited = this.source.inherited[index];
			// Left out: the article beads, and an own inherited key whose value is null (or names a
			// free object), which means absent: the value the page inherits is written instead.
			const left: Entry[] = [];
			const beads = entries.get('B');
			if (beads) left.push(beads);
			const replaced = new Set<string>();
			for (const key of INHERITED) {
				const own = entries.get(key);
				if (!own || !inherited[key] || !isAbsent(this.source.pdf, bytes, own, scanned, work))
					continue;
				left.push(own);
				replaced.add(key);
			}
			left.sort((a, b) => a.key - b.key);
			const extra = left.flatMap((entry) => [entry.key, entry.end]);
			this.render(bytes, scanned.start, close, scanned, extra, pieces);
			for (const key of INHERITED) {
				const value = inherited[key];
				if ((entries.has(key) && !replaced.has(key)) || !value) continue;
				// A long value (a tree node's direct /Resources) is written once, not on every page.
				if (value.bytes.length > SHARED_OVER)
					pieces.push(L(` /${key} ${this.sharedNumber(value)} 0 R`));
				else {
					pieces.push(L(` /${key} `));
					this.render(value.bytes, 0, value.bytes.length, value, [], pieces);
				}
			}
			// A leaf the tree reads as a page without /Type is written as the page it is.
			if (!entries.has('Type')) pieces.push(L(' /Type /Page'));
			pieces.push(L(' /Parent 2 0 R>>'));
		} else if (isTreeObject(bytes, scanned, num)) {
			// A page, page tree node or catalog the tree does not hold (an orphan page a link still
			// names, another revision's tree): written as null, never with its content.
			pieces.push(L('null'));
		} else {
			const stream = where.inFile ? await this.streamOf(num, bytes, scanned) : undefined;
			if (stream) {
				const length = scanned.entries!.get('Length');
				this.render(
					bytes,
					scanned.start,
					scanned.close!,
					scanned,
					length ? [length.key, length.end] : [],
					pieces,
				);
				pieces.push(L(` /Length ${stream.end - stream.start}>>\nstream\n`));
				data = bytes.subarray(stream.start, stream.end);
			} else this.render(bytes, scanned.start, scanned.end, scanned, [], pieces);
		}
		this.push(Buffer.concat(pieces), pieces.length, data);
	}

	/**
	 * The bytes `[start, end)` of `bytes` as pieces: each reference renumbered (or null), each cut
	 * and each extra cut (a pair list: an entry of the object's own that this copy leaves out) out.
	 */
	private render(
		bytes: Buffer,
		start: number,
		end: number,
		{ refs, cuts }: { refs: number[]; cuts: number[] },
		extra: number[],
		pieces: Buffer[],
	): void {
		const { work } = this.source;
		let pos = start;
		let r = 0;
		let c = 0;
		let e = 0;
		for (;;) {
			work.charge(1);
			const ref = r < refs.length ? refs[r] : Infinity;
			const cut = c < cuts.length ? cuts[c] : Infinity;
			const more = e < extra.length ? extra[e] : Infinity;
			const next = Math.min(ref, cut, more);
			if (next >= end) break;
			if (next === ref) r += 3;
			else if (next === cut) c += 2;
			else e += 2;
			// What a cut passed over already (a reference inside a left-out entry) is not written.
			if (next < pos) continue;
			pieces.push(bytes.subarray(pos, next));
			if (next === ref) {
				// The reference just passed: its start, end and number at r - 3, r - 2, r - 1.
				const number = this.resolve(refs[r - 1]);
				pieces.push(L(number ? `${number} 0 R` : 'null'));
				pos = refs[r - 2];
			} else pos = next === cut ? cuts[c - 1] : extra[e - 1];
		}
		pieces.push(bytes.subarray(pos, end));
	}

	/**
	 * A stream's data after its dictionary, if one follows: up to the first `endstream` before the
	 * next object the cross-reference places (the search bounded by it, so that streams without
	 * /Length cost no more than their bytes). A /Length must end there too: one that ends elsewhere
	 * (past the next object's start, over another page's objects) is a file that lies about its
	 * stream, refused rather than guessed.
	 */
	private async streamOf(
		num: number,
		bytes: Buffer,
		scanned: Scanned,
	): Promise<{ start: number; end: number } | undefined> {
		if (!scanned.entries || scanned.close === undefined) return undefined;
		let at = blank(bytes, scanned.end);
		this.source.work.charge(at - scanned.end);
		if (bytes.toString('latin1', at, at + 6) !== 'stream') return undefined;
		at += 6;
		if (bytes[at] === 0x0d) at++;
		if (bytes[at] === 0x0a) at++;
		const limit = Math.max(at, this.nextObject(num, bytes.length));
		const found = bytes.subarray(at, limit).indexOf('endstream', 0, 'latin1');
		this.source.work.charge(found === -1 ? limit - at : found);
		if (found === -1)
			throw new Unknown(
				`the stream of object ${num} is not closed${limit < bytes.length ? ' before the next object begins' : ''}`,
			);
		const close = at + found;
		const length = await this.lengthOf(bytes, scanned.entries.get('Length'));
		if (length !== undefined) {
			if (at + length > close || !endsAt(bytes, at + length))
				throw new Unknown(
					`the /Length of object ${num}'s stream (${length}) does not end where its data does (at \`endstream\`, ${close - at} bytes on): the file lies about where its objects are`,
				);
			return { start: at, end: at + length };
		}
		let end = close;
		if (end > at && bytes[end - 1] === 0x0a) end--;
		if (end > at && bytes[end - 1] === 0x0d) end--;
		return { start: at, end };
	}

	/** Where the next object after object `num` begins in the file (or the file's end). */
	private nextObject(num: number, size: number): number {
		const { offsets, pdf, work } = this.source;
		const where = pdf.xref.objects.get(num);
		const from = where && 'offset' in where ? where.offset : size;
		let low = 0;
		let high = offsets.length;
		while (low < high) {
			work.charge(1);
			const mid = (low + high) >> 1;
			if (offsets[mid] <= from) low = mid + 1;
			else high = mid;
		}
		return low < offsets.length ? Math.min(size, offsets[low]) : size;
	}

	/** A stream's /Length: a whole number, direct or in an object of its own (maybe in a stream). */
	private async lengthOf(bytes: Buffer, entry: Entry | undefined): Promise<number | undefined> {
		if (!entry) return undefined;
		let text = bytes.toString('latin1', entry.start, entry.end);
		const ref = /^(\d+)\s+\d+\s+R$/.exec(text);
		if (ref) {
			const { reader, pdf } = this.source;
			// A /Length that names no object is no length: the data runs to `endstream`.
			if (!pdf.xref.objects.has(Number(ref[1]))) return undefined;
			const loading = reader.load(Number(ref[1]));
			if (loading) await loading;
			const where = reader.locate(Number(ref[1]));
			if (!where) return undefined;
			const at = blank(where.bytes, where.at);
			text = where.bytes.toString('latin1', at, at + 20).split(/[^0-9]/)[0];
		}
		return /^\d+$/.test(text) ? Number(text) : undefined;
	}

	/** The size of the file as it would be finished now. */
	size(): number {
		return this.layout().size;
	}

	private layout() {
		const header = this.source.header.length;
		const count = this.kids.length;
		const rootHead = `2 0 obj\n<< /Type /Pages /Kids [`;
		const rootTail = `] /Count ${count} >>\nendobj\n`;
		const root = rootHead.length + Math.max(0, this.kidsBytes - 1) + rootTail.length;
		const objects = 3 + this.numbered.length;
		const xrefAt = header + this.body + CATALOG.length + root;
		const xref = `xref\n0 ${objects}\n`.length + 20 * objects;
		const trailer = `trailer\n<< /Size ${objects} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
		return {
			header,
			rootHead,
			rootTail,
			root,
			objects,
			xrefAt,
			trailer,
			size: xrefAt + xref + trailer.length,
		};
	}

	/** The finished file. */
	async finish(): Promise<WrittenPart> {
		const { work } = this.source;
		const layout = this.layout();
		const root = L(
			`${layout.rootHead}${this.kids.map((kid) => `${kid} 0 R`).join(' ')}${layout.rootTail}`,
		);
		const head = `xref\n0 ${layout.objects}\n`;
		const xref = Buffer.alloc(head.length + 20 * layout.objects + layout.trailer.length, 0x20);
		// The entries are charged as they are written (so that the loop below pauses), the rest here.
		work.charge(xref.length - 20 * this.offsets.length + this.kids.length);
		xref.write(head, 0, 'latin1');
		const entry = (i: number, text: string) => xref.write(text, head.length + 20 * i, 'latin1');
		entry(0, '0000000000 65535 f \n');
		const at = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
		const body = layout.header + this.body;
		entry(1, at(body));
		entry(2, at(body + CATALOG.length));
		for (let i = 0; i < this.offsets.length; i++) {
			work.charge(20);
			if (work.due()) await work.pause();
			entry(3 + i, at(layout.header + this.offsets[i]));
		}
		xref.write(layout.trailer, head.length + 20 * layout.objects, 'latin1');
		const chunks = [this.source.header, ...this.chunks, CATALOG, root, xref];
		return {
			chunks,
			length: layout.size,
			first: this.added[0],
			last: this.added[this.added.length - 1],
			pages: [...this.added],
		};
	}
}

/**
 * Whether the object scanned is a /Page, /Pages or /Catalog (a reference that reaches one outside
 * the part is null); an object stream or cross-reference stream reached by a reference is refused.
 */
function isTreeObject(bytes: Buffer, scanned: Scanned, num: number): boolean {
	const entry = scanned.entries?.get('Type');
	if (!entry) return false;
	// The value is one token (a name ends at a delimiter): at most a few bytes are compared.
	const type = entry.end - entry.start <= 8 ? bytes.toString('latin1', entry.start, entry.end) : '';
	if (type === '/ObjStm' || type === '/XRef')
		throw new Unknown(`a page reaches object ${num}, an object stream or cross-reference stream`);
	return type === '/Page' || type === '/Pages' || type === '/Catalog';
}

/** Whether `endstream` follows `at`, after an end of line or white space. */
function endsAt(bytes: Buffer, at: number): boolean {
	let pos = at;
	while (pos < at + 4 && (bytes[pos] === 0x0d || bytes[pos] === 0x0a || bytes[pos] === 0x20)) pos++;
	return bytes.toString('latin1', pos, pos + 9) === 'endstream';
}
