/**
 * The copier: pages of a PDF (a Source) copied into one new file (PdfFile), each with the objects
 * it reaches that the file does not hold yet, numbered in the order they are reached and written
 * at once, as pdf-lib's PDFObjectCopier copies a page: the attributes it inherits made its own,
 * /Parent the new tree node, every object it reaches copied once, its bytes as they are
 * (objects.ts: references renumbered, strings decrypted where the file was encrypted, cuts left
 * out). What a copy must not carry is decided here:
 * - a page, form XObject, tiling pattern or Type 3 font keeps of its resources only what its
 *   content draws (usage.ts), as a pruned dictionary shared by the holders that draw the same from
 *   the same dictionary; where its content cannot be read, its resources are kept only when they
 *   are its own, else the copy is refused;
 * - a reference to a page not in the file (a link's destination, an annotation's /P), to the page
 *   tree or the catalog becomes null; /StructParent(s), a page's article beads (/B), an
 *   annotation's /IRT and any other /Parent are left out;
 * - a widget keeps its field chain, each field's /Kids limited to the written widgets and fields
 *   below it (written last, when all are known); the roots go to the new /AcroForm (catalog.ts);
 * - a stream keeps its bytes (decrypted where the file was encrypted) with a direct /Length; an
 *   object from an object stream is written as a plain object.
 * A page may link to a page before it in the same file; a reference to a later one is null (the
 * pages are added one by one, which lets a split size its parts as it goes, and undo a page).
 */
import { CatalogTally, catalogText, type CatalogSource } from './catalog';
import { FormFields, type FieldsMark } from './form-fields';
import { FormatError, Unknown } from './limits';
import { refValue, type Entry } from './objects';
import { INHERITED, isAbsent, type Fragment } from './page-tree';
import { PdfFile, type Closing, type FileMark } from './pdf-file';
import { actionTargets } from './actions';
import { nameIn, type Handle, type Source } from './pdf-source';
import { prunedCopy, writePruned } from './pruned';
import { leftOut, render, signedContents, type Renderer } from './render';
import type { Resources, Usage, Usages, Used } from './usage';

/** A written file never passes this many times its input, and a megabyte. */
const AMPLIFICATION = 2;
const SLACK = 1 << 20;

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** What a copy reads, shared by the files of one split. */
export interface CopyContext {
	source: Source;
	usages: Usages;
	catalog: CatalogSource;
}

/** An object numbered in the new file, to be written. */
type Item =
	| { kind: 'object'; num: number }
	| { kind: 'page'; num: number; index: number }
	| { kind: 'field'; num: number }
	| { kind: 'resources'; key: string; resources: Resources; used: Used | undefined };

/** What a copy was before a page was added (undo goes back to it). */
interface Mark {
	file: FileMark;
	fields: FieldsMark;
	numbered: number;
	kids: number;
	kidsBytes: number;
}

/** A written file's pages (1-based, in the source) and its file. */
export interface Copied {
	chunks: Buffer[];
	length: number;
	pages: number[];
}

export class Copier {
	private readonly file: PdfFile;
	/** The new number of each object copied, by its number in the source. */
	private readonly numbers = new Map<number, number>();
	/** The items in the order they were numbered (3 first). */
	private readonly numbered: Item[] = [];
	/** The new number of each pruned resource dictionary, by what it holds. */
	private readonly pruned = new Map<string, number>();
	/** Items numbered and not yet written, from `head` on. */
	private queue: Item[] = [];
	private head = 0;
	/** The pages' new numbers, the bytes they take in /Kids, and their numbers in the source. */
	private readonly kids: number[] = [];
	private kidsBytes = 0;
	private readonly added: number[] = [];
	/** The form fields, written last; the number of the form's default resources. */
	private readonly fields = new FormFields();
	private defaults?: number;
	/** The new catalog's length as the copy grows. */
	private readonly catalog: CatalogTally;
	/** How render() reaches this copy. */
	private readonly renderer: Renderer;
	/** The most bytes the file may take, and what a file past it is told. */
	private readonly cap: number;
	private readonly capped: (size: number) => FormatError;

	constructor(
		private readonly context: CopyContext,
		maxBytes = Infinity,
	) {
		const { source } = context;
		this.file = new PdfFile(source.header, source.work);
		this.catalog = new CatalogTally(context.catalog);
		this.renderer = {
			resolve: (num) => this.resolve(num),
			known: (num) => this.numbers.get(num) ?? 0,
			decryption: source.decryption,
			work: source.work,
		};
		const guard = AMPLIFICATION * source.pdf.view.length + SLACK;
		this.cap = Math.min(maxBytes, guard);
		this.capped = (size) =>
			new FormatError(
				maxBytes <= guard
					? `the pages selected make a PDF of more than ${maxBytes} bytes (${size} so far), more than the limit allows`
					: `the pages selected make a PDF of ${size} bytes so far, more than ${AMPLIFICATION} times the file and a megabyte: the file repeats its objects in a way a copy cannot carry`,
			);
	}

	private get work() {
		return this.context.source.work;
	}

	pageCount(): number {
		return this.kids.length;
	}

	mark(): Mark {
		return {
			file: this.file.mark(),
			fields: this.fields.mark(),
			numbered: this.numbered.length,
			kids: this.kids.length,
			kidsBytes: this.kidsBytes,
		};
	}

	undo(mark: Mark): void {
		const next = 3 + mark.numbered;
		for (const root of this.fields.roots.slice(mark.fields.roots)) this.catalog.field(root, -1);
		this.work.charge(this.fields.undo(mark.fields, next) + this.numbered.length - mark.numbered);
		for (let i = this.numbered.length - 1; i >= mark.numbered; i--) {
			const item = this.numbered[i];
			if (item.kind === 'resources') this.pruned.delete(item.key);
			else {
				this.numbers.delete(item.num);
				this.catalog.numbered(item.num, 3 + i, -1);
			}
		}
		if (this.defaults !== undefined && this.defaults >= next) this.defaults = undefined;
		this.numbered.length = mark.numbered;
		this.file.undo(mark.file);
		this.kids.length = mark.kids;
		this.added.length = mark.kids;
		this.kidsBytes = mark.kidsBytes;
	}

	/** Adds page `index` (0-based) and every object it reaches that the file does not hold. */
	async add(index: number): Promise<void> {
		const page = this.context.source.pageObjects[index];
		const number = this.number({ kind: 'page', num: page, index });
		this.kids.push(number);
		this.added.push(index + 1);
		this.kidsBytes += `${number} 0 R `.length;
		const { work } = this;
		while (this.head < this.queue.length) {
			if (work.due()) await work.pause();
			await this.write(this.queue[this.head++]);
			if (this.file.body + this.fields.bytes > this.cap) throw this.capped(this.file.body);
		}
		this.queue = [];
		this.head = 0;
		const size = this.size();
		if (size > this.cap) throw this.capped(size);
	}

	/** The size of the file as it would be finished now. */
	size(): number {
		return this.file.size(this.closing());
	}

	private closing(): Closing {
		const catalogBytes = this.catalog.length(this.defaults);
		const { kidsBytes } = this;
		return { lastBytes: this.fields.bytes, catalogBytes, count: this.kids.length, kidsBytes };
	}

	/** The finished file and its pages. */
	async finish(): Promise<Copied> {
		const last = this.fields.written();
		const { catalog: source } = this.context;
		const numbered = (num: number) => this.numbers.get(num);
		const { roots } = this.fields;
		const catalog = catalogText(source, numbered, roots, this.defaults, this.work);
		const ending = { ...this.closing(), catalog, last, kids: this.kids };
		return { ...(await this.file.finish(ending)), pages: [...this.added] };
	}

	/** Gives `item` the next number and queues it to be written. */
	private number(item: Item): number {
		const number = 3 + this.numbered.length;
		if (item.kind === 'resources') this.pruned.set(item.key, number);
		else {
			this.numbers.set(item.num, number);
			this.catalog.numbered(item.num, number, 1);
		}
		this.numbered.push(item);
		this.queue.push(item);
		return number;
	}

	/**
	 * The new number of the object a reference names, numbering it if it is new; 0 (null) for a
	 * page not in the file (yet), the page tree, the catalog or a free object.
	 */
	private resolve(num: number): number {
		const known = this.numbers.get(num);
		if (known !== undefined) return known;
		const { source } = this.context;
		if (source.roles.has(num)) return 0;
		const where = source.pdf.xref.objects.get(num);
		if (!where) {
			const hidden = source.pdf.xref.hidden;
			throw new Unknown(
				`object ${num} is not in the cross-reference${hidden ? ` (the /XRefStm was not read: ${hidden})` : ''}`,
			);
		}
		if ('offset' in where && where.offset < 0) return 0;
		return this.number({ kind: 'object', num });
	}

	private async write(item: Item): Promise<void> {
		if (item.kind === 'resources') return await this.writeResources(item);
		if (item.kind === 'page') return await this.writePage(item.num, item.index);
		const handle = await this.context.source.object(item.num);
		if (!handle) throw new Unknown(`object ${item.num} is free`);
		await this.writeObject(handle, item.kind === 'field');
	}

	/** Writes page `index` (object `num`): its inherited attributes its own, its resources pruned. */
	private async writePage(num: number, index: number): Promise<void> {
		const { source, usages } = this.context;
		const handle = await source.object(num);
		const entries = handle?.layout.entries;
		if (!handle || !entries || handle.layout.close === undefined)
			throw new Unknown(`page object ${num} is not a dictionary`);
		const number = this.numbers.get(num)!;
		const resources = await usages.pageResources(handle, index);
		const pruned = resources
			? this.prune(resources, await usages.ofPage(handle, resources), `page ${index + 1}`)
			: undefined;
		// Left out: the article beads, the resources (written pruned), /Parent (written anew), and an
		// own inherited key whose value is null or names a free object (the inherited one is written).
		const left = ['B', 'Parent', 'Resources'].map((key) => entries.get(key));
		const inherited = source.inherited[index];
		const replaced = new Set<string>();
		for (const key of INHERITED) {
			const own = entries.get(key);
			if (key === 'Resources' || !own || !inherited[key]) continue;
			if (!isAbsent(source.pdf.xref.objects, handle.bytes, own, handle.layout, this.work)) continue;
			left.push(own);
			replaced.add(key);
		}
		const pieces: Buffer[] = [latin1(`${number} 0 obj\n`)];
		render(this.renderer, handle, [handle.layout.start, handle.layout.close], pieces, {
			left: leftOut(left),
		});
		for (const key of INHERITED) {
			const value = inherited[key];
			if (key === 'Resources' || !value || (entries.has(key) && !replaced.has(key))) continue;
			pieces.push(latin1(` /${key} `));
			render(this.renderer, fragmentHandle(value), [0, value.bytes.length], pieces);
		}
		if (pruned !== undefined) pieces.push(latin1(` /Resources ${pruned} 0 R`));
		// A leaf the tree reads as a page without /Type is written as the page it is.
		if (!entries.has('Type')) pieces.push(latin1(' /Type /Page'));
		pieces.push(latin1(' /Parent 2 0 R>>'));
		this.file.add(Buffer.concat(pieces), pieces.length);
	}

	/** Writes any other object: a stream, a holder of resources, an annotation, a field. */
	private async writeObject(handle: Handle, asField: boolean): Promise<void> {
		const { source, usages } = this.context;
		const { bytes, layout, num } = handle;
		const number = this.numbers.get(num)!;
		const pieces: Buffer[] = [latin1(`${number} 0 obj\n`)];
		const entries = layout.entries;
		if (!entries || layout.close === undefined) {
			render(this.renderer, handle, [layout.start, layout.end], pieces);
			return this.file.add(Buffer.concat(pieces), pieces.length);
		}
		if (isTreeObject(handle)) {
			// A page, page tree node or catalog the tree does not hold (an orphan page a link still
			// names, another revision's tree): written as null, never with its content.
			pieces.push(latin1('null'));
			return this.file.add(Buffer.concat(pieces), pieces.length);
		}
		const left: Array<Entry | undefined> = [entries.get('IRT')];
		let tail = '';
		const extent = await source.streamOf(handle);
		const data = extent ? source.storedData(handle, extent) : undefined;
		if (data) {
			left.push(entries.get('Length'));
			tail += ` /Length ${data.length}`;
		}
		const subtype = nameIn(handle, 'Subtype');
		const pattern = entries.get('PatternType');
		const tiling = pattern && bytes.toString('latin1', pattern.start, pattern.end) === '1';
		if ((data && (subtype === 'Form' || tiling)) || subtype === 'Type3') {
			const resources = await usages.resourcesAt(handle);
			if (resources) {
				const usage = await usages.ofHolder(handle, resources);
				left.push(entries.get('Resources'));
				tail += ` /Resources ${this.prune(resources, usage, `object ${num}`)} 0 R`;
			}
		}
		const field = asField || entries.has('Kids');
		if (field) left.push(entries.get('Kids'));
		this.parent(handle, number, field || subtype === 'Widget', left);
		// An action's fields and annotations are kept only where the copy holds them already.
		const weak = actionTargets(handle, this.work);
		render(this.renderer, handle, [layout.start, layout.close], pieces, {
			left: leftOut(left),
			plain: signedContents(handle, this.work),
			weak,
		});
		pieces.push(latin1(`${tail}${field ? '' : '>>'}${data ? '\nstream\n' : ''}`));
		const head = Buffer.concat(pieces);
		if (!field) return this.file.add(head, pieces.length, data);
		this.fields.hold(number, head);
		this.file.hold();
	}

	/**
	 * An object's own /Parent: a widget's or a field's is kept (its field, numbered to be written
	 * last, is given this object as a kid), any other left out. A field or a widget-field without
	 * one is a root of the form.
	 */
	private parent(
		handle: Handle,
		number: number,
		inForm: boolean,
		left: Array<Entry | undefined>,
	): void {
		const entry = handle.layout.entries!.get('Parent');
		const up = refValue(handle.bytes, entry);
		if (inForm && up !== undefined && !this.context.source.roles.has(up)) {
			const parent = this.numbers.get(up) ?? this.number({ kind: 'field', num: up });
			this.fields.give(parent, number);
			return;
		}
		left.push(entry);
		const entries = handle.layout.entries!;
		const named = entries.has('T') || entries.has('FT') || entries.has('Kids');
		if (!inForm || !named || entry !== undefined) return;
		this.fields.roots.push(number);
		this.catalog.field(number, 1);
		const { form } = this.context.catalog;
		if (this.defaults === undefined && form?.resources)
			this.defaults = this.prune(form.resources, { used: form.used }, 'the form');
	}

	/**
	 * The number of the pruned copy of `resources` for a holder whose content draws `usage`
	 * (pruned.ts), numbering it if no holder of the file drew the same from them.
	 */
	private prune(resources: Resources, usage: Usage, what: string): number {
		const { key, used } = prunedCopy(resources, usage, what);
		return this.pruned.get(key) ?? this.number({ kind: 'resources', key, resources, used });
	}

	private async writeResources(item: Extract<Item, { kind: 'resources' }>): Promise<void> {
		const pieces: Buffer[] = [latin1(`${this.pruned.get(item.key)!} 0 obj\n`)];
		await writePruned(this.renderer, this.context.usages, item.resources, item.used, pieces);
		this.file.add(Buffer.concat(pieces), pieces.length);
	}
}

/** An inherited value as a handle of its own bytes (its strings those of the node it comes from). */
function fragmentHandle(value: Fragment): Handle {
	const inFile = value.layout.strings !== undefined;
	return { bytes: value.bytes, layout: value.layout, num: value.node, gen: value.gen, inFile };
}

/**
 * Whether the object is a /Page, /Pages or /Catalog (a reference that reaches one outside the
 * file is null); an object stream or cross-reference stream reached by a reference is refused.
 */
function isTreeObject(handle: Handle): boolean {
	const type = nameIn(handle, 'Type');
	if (type === 'ObjStm' || type === 'XRef')
		throw new Unknown(
			`a page reaches object ${handle.num}, an object stream or cross-reference stream`,
		);
	return type === 'Page' || type === 'Pages' || type === 'Catalog';
}
