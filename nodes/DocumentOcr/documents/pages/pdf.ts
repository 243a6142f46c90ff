/**
 * The pages of a PDF: the page tree's /Count under the catalog's /Pages, found through the
 * cross-reference (xref.ts) and checked against a walk of the /Kids tree (cycles, depth, a page
 * listed twice, a count the kids contradict: unknown). Objects inside object streams are read
 * from the stream's decoded bytes (inflate.ts); the object streams a page tree node's kids live in
 * are inflated together, a few at a time.
 */
import { decodeStream } from './inflate';
import {
	attempt,
	budgetFor,
	PAGE_LIMITS,
	strip,
	Unknown,
	BrokenXref,
	type Budget,
	type PageCount,
} from './limits';
import { isDict, isRef, nameOf, Parser, type PdfValue, type Ref } from './parser';
import { readXref, scanObjects, type Xref } from './xref';

const MAX_PAGES_PER_BYTE = 1 / 10;

export async function countPdfPages(buf: Buffer): Promise<PageCount> {
	const budget = budgetFor(buf.length);
	const direct = await attempt(async () => {
		const xref = await readXref(buf, budget);
		if (!xref.root) throw new BrokenXref('the trailer names no document catalog (/Root)');
		return countThrough(new ObjectReader(buf, xref, budget), xref.root, buf.length);
	});
	if (direct.pages !== null || !direct.broken) return strip(direct);
	const broken = direct.reason;
	const scanned = await attempt(() => {
		const xref = scanObjects(buf, budget);
		return countThrough(new ObjectReader(buf, xref, budget), xref.root!, buf.length);
	});
	if (scanned.pages !== null) return { pages: scanned.pages };
	return { pages: null, reason: `${broken}; in a scan of the objects instead: ${scanned.reason}` };
}

async function countThrough(reader: ObjectReader, root: Ref, size: number): Promise<number> {
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
	const walked = await walkTree(reader, catalog.dict.Pages);
	if (walked !== declared)
		throw new Unknown(`the page tree's /Count (${declared}) contradicts its pages (${walked})`);
	return declared;
}

/** Counts the leaves of the page tree; refuses cycles, a page listed twice and deep trees. */
async function walkTree(reader: ObjectReader, rootRef: Ref): Promise<number> {
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
		// Awaited only when an object stream must be inflated first: most reads are synchronous.
		let node = reader.get(ref);
		if (node instanceof Promise) node = await node;
		if (!isDict(node)) throw new Unknown(`page tree object ${ref.ref} is not a dictionary`);
		const type = nameOf(node.dict.Type);
		let kids = reader.resolve(node.dict.Kids);
		if (kids instanceof Promise) kids = await kids;
		if (type === 'Pages' || (type === undefined && Array.isArray(kids))) {
			if (!Array.isArray(kids)) throw new Unknown(`page tree node ${ref.ref} has no /Kids`);
			for (let i = kids.length - 1; i >= 0; i--) {
				const kid = kids[i];
				if (!isRef(kid))
					throw new Unknown(`page tree node ${ref.ref} has a kid that is not a reference`);
				stack.push({ ref: kid, depth: depth + 1 });
			}
			await reader.prefetch(kids as Ref[]);
		} else if (type === 'Page' || type === undefined) leaves++;
		else throw new Unknown(`page tree object ${ref.ref} is a /${type}, neither a page nor pages`);
	}
	return leaves;
}

interface ObjectStream {
	data: Buffer;
	offsets: Map<number, number>;
}

/** Reads objects through the cross-reference; object streams are inflated once each. */
class ObjectReader {
	private reads = 0;
	private readonly streams = new Map<number, ObjectStream>();
	private readonly loading = new Map<number, Promise<ObjectStream>>();
	constructor(
		private readonly buf: Buffer,
		private readonly xref: Xref,
		private readonly budget: Budget,
	) {}

	resolve(value: PdfValue | undefined): PdfValue | undefined | Promise<PdfValue> {
		return isRef(value) ? this.get(value) : value;
	}

	/** The object; a promise only when its object stream is not inflated yet. */
	get(ref: Ref): PdfValue | Promise<PdfValue> {
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
		const inStream = (stream: ObjectStream) => {
			const at = stream.offsets.get(where.index);
			if (at === undefined)
				throw new Unknown(`object ${ref.ref} is not in object stream ${where.stream}`);
			const parser = new Parser(stream.data, this.budget);
			parser.pos = at;
			return parser.value();
		};
		const stream = this.streams.get(where.stream);
		return stream ? inStream(stream) : this.load(where.stream).then(inStream);
	}

	/** Inflates the object streams these objects live in, a few at a time. */
	async prefetch(refs: Ref[]): Promise<void> {
		const wanted = new Set<number>();
		for (const ref of refs) {
			const where = this.xref.objects.get(ref.ref);
			if (where && 'stream' in where && !this.streams.has(where.stream)) wanted.add(where.stream);
		}
		if (wanted.size === 0) return;
		const queue = [...wanted];
		const worker = async () => {
			for (let num = queue.pop(); num !== undefined; num = queue.pop()) {
				const loading = this.load(num);
				// A failure stops the workers taking more streams; Promise.all reports it.
				loading.catch(() => {
					queue.length = 0;
				});
				await loading;
			}
		};
		const workers = Math.min(PAGE_LIMITS.inflateConcurrency, queue.length);
		await Promise.all(Array.from({ length: workers }, worker));
	}

	private load(num: number): Promise<ObjectStream> {
		let loading = this.loading.get(num);
		if (!loading) {
			loading = this.objectStream(num);
			// Awaited by whoever needs it; marked handled so a failure nobody awaits is no crash.
			loading.catch(() => undefined);
			this.loading.set(num, loading);
		}
		return loading;
	}

	private async objectStream(num: number): Promise<ObjectStream> {
		const where = this.xref.objects.get(num);
		if (!where || !('offset' in where) || where.offset < 0 || where.offset >= this.buf.length)
			throw new Unknown(`object stream ${num} is not in the cross-reference`);
		const parser = new Parser(this.buf, this.budget);
		parser.pos = where.offset;
		if (!parser.objHeader())
			throw new Unknown(`object stream ${num} is not where the cross-reference says`);
		const dict = parser.value();
		if (!isDict(dict) || nameOf(dict.dict.Type) !== 'ObjStm')
			throw new Unknown(`object ${num} is not an object stream`);
		const raw = parser.streamData(dict.dict);
		const data = await decodeStream(dict.dict, raw, `object stream ${num}`, this.budget);
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
		if (data !== raw) this.budget.bytes += data.length;
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
