/**
 * What a content holder draws from its resources (issue 42): a page, a form XObject, a tiling
 * pattern or a Type 3 font, read through its content streams (content.ts) and the names each
 * operator takes. A holder without resources of its own draws from the resources it is drawn
 * with (ISO 32000-1 §7.8.3: a form, pattern or Type 3 font without /Resources; an annotation's
 * appearance stream without /Resources on its page; a soft mask's group), so its names count
 * with its drawer's, read recursively (cycles passed over, nesting bounded); a holder with
 * resources of its own is read when it is copied. The copier keeps from each holder's resources
 * only the names used, so nothing another page draws travels with a page.
 *
 * A content stream that cannot be read (a filter not decoded here, bad data, the content limit)
 * leaves the usage unknown (`unreadable`): the copier then keeps resources only where no other
 * page can share them, and refuses otherwise.
 */
import { ContentReader, type Category, type Operand } from './content';
import { Unreadable } from './filters';
import { PAGE_LIMITS, Unknown } from './limits';
import { isAbsent, type Fragment } from './page-tree';
import { refValue, type Entry } from './objects';
import { nameIn, type Handle, type Source } from './pdf-source';

/** The names a holder's operators use, by resource category. */
export type Used = Map<Category, Set<string>>;
export type Usage = { used: Used } | { unreadable: string };

/** A holder's resource dictionary: where it is, what identifies it, whether others may share it. */
export interface Resources {
	handle: Handle;
	/** The same for every holder given the same dictionary (pruned copies are shared by it). */
	key: string;
	/** Whether it is the holder's own: direct, with direct category dictionaries. */
	own: boolean;
}

/** The categories a resource dictionary holds, in the order a pruned copy lists them. */
/** One holder's reading: the names found, the streams read, its resources. */
interface Reading {
	used: Used;
	visiting: Set<number>;
	resources: Resources | undefined;
}

/** The colour spaces that stand in for the device spaces where a page's resources give them. */
const DEFAULT_SPACES = ['DefaultGray', 'DefaultRGB', 'DefaultCMYK'];

/** What a content stream names, by category, and the operands it leaves for the next. */
interface StreamNames {
	names: Array<[Category, string]>;
	left: Operand[];
}

/** A stream naming more than this many resources is read again when drawn again, not kept. */
const CACHED_NAMES = 1000;

export const CATEGORIES: Category[] = [
	'ExtGState',
	'ColorSpace',
	'Pattern',
	'Shading',
	'XObject',
	'Font',
	'Properties',
];

export class Usages {
	/**
	 * Dictionaries several holders share, read once for all of them: a resource dictionary by
	 * its key (an object's, a tree node's), and each category's dictionary in one.
	 */
	private readonly shared = new Map<string, Resources | undefined>();
	private readonly categories = new Map<string, Handle | undefined>();
	/**
	 * What a content stream read from its start names, and the operands it leaves: a stream many
	 * pages draw (a letterhead in every page's /Contents) is decoded once, not once a page.
	 */
	private readonly streams = new Map<number, StreamNames>();

	constructor(private readonly source: Source) {}

	/** The dictionary of `category` in `resources`, read once per shared dictionary. */
	async category(resources: Resources, category: Category): Promise<Handle | undefined> {
		if (resources.own) return await this.source.dict(resources.handle, category);
		const key = `${resources.key}/${category}`;
		if (!this.categories.has(key))
			this.categories.set(key, await this.source.dict(resources.handle, category));
		return this.categories.get(key);
	}

	/** The resource dictionary object `ref` is, read once whoever names it. */
	private async object(ref: number): Promise<Resources | undefined> {
		const key = `o${ref}`;
		if (!this.shared.has(key)) {
			const handle = await this.source.object(ref);
			this.shared.set(key, handle?.layout.entries ? { handle, key, own: false } : undefined);
		}
		return this.shared.get(key);
	}

	/** The resources page `index` (its dictionary `page`) draws with: its own, or inherited. */
	async pageResources(page: Handle, index: number): Promise<Resources | undefined> {
		const { source } = this;
		const entry = page.layout.entries?.get('Resources');
		const objects = source.pdf.xref.objects;
		if (entry && !isAbsent(objects, page.bytes, entry, page.layout, source.work))
			return await this.resourcesAt(page, 'Resources');
		const inherited = source.inherited[index].Resources;
		if (!inherited) return undefined;
		const { layout } = inherited;
		const ref = refValue(inherited.bytes, { key: 0, start: layout.start, end: layout.end });
		if (ref !== undefined) return await this.object(ref);
		const key = `n${inherited.node}`;
		if (!this.shared.has(key)) this.shared.set(key, fromNode(inherited));
		return this.shared.get(key);
	}

	/** The resources of a holder's own /Resources entry, if it has one. */
	async resourcesAt(holder: Handle, key = 'Resources'): Promise<Resources | undefined> {
		const entry = this.own(holder, key);
		const ref = refValue(holder.bytes, entry);
		if (ref !== undefined) return this.source.roles.has(ref) ? undefined : await this.object(ref);
		const handle = await this.source.dictAt(holder, entry);
		if (!handle || !entry) return undefined;
		return { handle, key: `d${holder.num}:${entry.start}`, own: this.direct(handle) };
	}

	/** What page `page` draws: its content streams and its annotations' appearances without resources. */
	async ofPage(page: Handle, resources: Resources | undefined): Promise<Usage> {
		return await this.read(async () => {
			// A page's content streams are read as one (a division falls between tokens, §7.8.2).
			const groups = [await this.source.refsOf(page, 'Contents')];
			for (const annot of await this.source.refsOf(page, 'Annots'))
				for (const stream of await this.appearances(annot)) groups.push([stream]);
			return groups;
		}, resources);
	}

	/**
	 * What a holder with resources of its own draws: a form's or a tiling pattern's content (its
	 * own stream), a Type 3 font's glyph procedures.
	 */
	async ofHolder(holder: Handle, resources: Resources): Promise<Usage> {
		return await this.read(async () => {
			if (nameIn(holder, 'Subtype') !== 'Type3') return [[holder.num]];
			const procs = await this.source.dict(holder, 'CharProcs');
			return procs ? this.values(procs).map((proc) => [proc]) : [];
		}, resources);
	}

	private async read(
		groups: () => Promise<number[][]>,
		resources: Resources | undefined,
	): Promise<Usage> {
		const used: Used = new Map();
		let failure: unknown;
		try {
			const reading: Reading = { used, visiting: new Set(), resources };
			await this.collect(await groups(), reading, 0);
			// Device colours use these without naming them (ISO 32000 §8.6.5.6): they always count.
			const spaces = used.get('ColorSpace') ?? new Set<string>();
			for (const name of DEFAULT_SPACES) spaces.add(name);
			used.set('ColorSpace', spaces);
			return { used };
		} catch (error) {
			failure = error;
		}
		if (failure instanceof Unreadable || failure instanceof Unknown)
			return { unreadable: failure.message };
		throw failure;
	}

	/**
	 * Reads `groups` into `used` (the streams of a group as one content), each stream once; each
	 * name new to it that names a holder without resources of its own adds what that holder draws
	 * (in `resources`' context).
	 */
	private async collect(groups: number[][], reading: Reading, depth: number): Promise<void> {
		const { used, visiting, resources } = reading;
		if (depth > PAGE_LIMITS.maxNesting)
			throw new Unreadable(
				`forms without resources of their own nest deeper than ${PAGE_LIMITS.maxNesting} levels`,
			);
		const { work } = this.source;
		const found: Array<[Category, string]> = [];
		// Only names the resources hold are kept (a stream naming a million others holds nothing).
		const dicts = new Map<Category, Handle | undefined>();
		for (const category of CATEGORIES)
			dicts.set(category, resources && (await this.category(resources, category)));
		const add = (category: Category, name: string) => {
			if (!dicts.get(category)?.layout.entries?.has(name)) return;
			let names = used.get(category);
			if (!names) used.set(category, (names = new Set()));
			if (names.has(name)) return;
			names.add(name);
			found.push([category, name]);
		};
		for (const group of groups) {
			let carried: Operand[] = [];
			for (const num of group) {
				if (visiting.has(num)) continue;
				visiting.add(num);
				carried = await this.readStream(num, carried, add);
			}
		}
		for (const [category, name] of found) {
			if (work.due()) await work.pause();
			const inner = await this.inner(reading, category, name);
			for (const [more, named] of inner.names) add(more, named);
			if (inner.streams.length > 0)
				await this.collect(
					inner.streams.map((num) => [num]),
					reading,
					depth + 1,
				);
		}
	}

	/**
	 * Reads content stream `num` (`carried`: the operands the stream before it in the same content
	 * left), telling `sink` each name its operators use; the operands it leaves. A stream read
	 * before from its start is not decoded again: what it named is kept (CACHED_NAMES at most).
	 */
	private async readStream(
		num: number,
		carried: Operand[],
		sink: (category: Category, name: string) => void,
	): Promise<Operand[]> {
		const known = carried.length === 0 ? this.streams.get(num) : undefined;
		if (known) {
			for (const [category, name] of known.names) sink(category, name);
			return known.left;
		}
		const { work } = this.source;
		const names: Array<[Category, string]> = [];
		const seen = new Set<string>();
		// Whether every name the stream uses is listed (a stream that uses too many is not cached).
		let listed = true;
		const keep = (category: Category, name: string) => {
			const key = `${category}/${name}`;
			if (listed && !seen.has(key)) {
				listed = names.length < CACHED_NAMES;
				if (listed) names.push([category, name]);
				seen.add(key);
				if (!listed) seen.clear();
			}
			sink(category, name);
		};
		const reader = new ContentReader(keep, work, carried);
		for await (const chunk of this.source.content(num)) {
			reader.push(chunk);
			if (work.due()) await work.pause();
		}
		const left = reader.end();
		if (carried.length === 0 && listed) this.streams.set(num, { names, left });
		return left;
	}

	/**
	 * What the resource `name` of `category` draws in its drawer's context: the streams of a form,
	 * tiling pattern or Type 3 font without resources of its own (a soft mask's group likewise),
	 * read as the drawer's; of one with resources of its own, the names it uses that they lack
	 * (poppler looks those up in the drawer's resources).
	 */
	private async inner(
		reading: Reading,
		category: Category,
		name: string,
	): Promise<{ streams: number[]; names: Array<[Category, string]> }> {
		const { source } = this;
		const none = { streams: [], names: [] };
		const dict = await this.category(reading.resources!, category);
		const entry = dict?.layout.entries?.get(name);
		if (!dict || !entry) return none;
		if (category === 'ExtGState') {
			const state = await source.dictAt(dict, entry);
			const mask = state && (await source.dict(state, 'SMask'));
			const group = mask && refValue(mask.bytes, mask.layout.entries?.get('G'));
			return group === undefined || group === null ? none : await this.drawn(group);
		}
		const target = refValue(dict.bytes, entry);
		if (target === undefined) return none;
		if (category === 'XObject' || category === 'Pattern') return await this.drawn(target);
		if (category !== 'Font') return none;
		const font = await source.object(target);
		if (!font || nameIn(font, 'Subtype') !== 'Type3') return none;
		const procs = await source.dict(font, 'CharProcs');
		const streams = procs ? this.values(procs) : [];
		return this.own(font, 'Resources') ? await this.lacking(font, streams) : { streams, names: [] };
	}

	/**
	 * What object `num`, drawn, adds to its drawer: its stream when it is a form or a tiling
	 * pattern without resources of its own, the names it lacks when it has some.
	 */
	private async drawn(
		num: number,
	): Promise<{ streams: number[]; names: Array<[Category, string]> }> {
		const holder = await this.source.object(num);
		const form = holder && nameIn(holder, 'Subtype') === 'Form';
		const tiling =
			holder && holder.bytes.toString('latin1', ...span(holder, 'PatternType')) === '1';
		if (!holder?.layout.entries || !(form || tiling)) return { streams: [], names: [] };
		if (!this.own(holder, 'Resources')) return { streams: [num], names: [] };
		return await this.lacking(holder, [num]);
	}

	/** The names the streams of `holder` use that its own resources do not hold. */
	private async lacking(
		holder: Handle,
		streams: number[],
	): Promise<{ streams: number[]; names: Array<[Category, string]> }> {
		const resources = await this.resourcesAt(holder);
		const names: Array<[Category, string]> = [];
		const lacks = async (category: Category, name: string) =>
			!resources || !(await this.category(resources, category))?.layout.entries?.has(name);
		const found: Array<[Category, string]> = [];
		let failure: unknown;
		try {
			for (const stream of streams)
				await this.readStream(stream, [], (category, name) => found.push([category, name]));
		} catch (error) {
			failure = error;
		}
		// A holder whose content cannot be read is judged when it is copied (pruned.ts), not here.
		if (failure instanceof Unreadable || failure instanceof Unknown) return { streams: [], names };
		if (failure !== undefined) throw failure;
		for (const [category, name] of found)
			if (await lacks(category, name)) names.push([category, name]);
		return { streams: [], names };
	}

	/**
	 * A holder's own entry `key`, unless it is absent: missing, null, or naming a free object (ISO
	 * 32000 §7.3.7: the holder has none).
	 */
	own(holder: Handle, key: string): Entry | undefined {
		const entry = holder.layout.entries?.get(key);
		const { objects } = this.source.pdf.xref;
		if (!entry || isAbsent(objects, holder.bytes, entry, holder.layout, this.source.work))
			return undefined;
		return entry;
	}

	/** The appearance streams of annotation `num` without resources of their own (§12.5.5). */
	private async appearances(num: number): Promise<number[]> {
		const { source } = this;
		const annot = await source.object(num);
		const appearance = annot && (await source.dict(annot, 'AP'));
		if (!appearance) return [];
		const out: number[] = [];
		for (const key of ['N', 'R', 'D']) {
			const entry = appearance.layout.entries?.get(key);
			const ref = refValue(appearance.bytes, entry);
			const states = ref === undefined ? await source.dictAt(appearance, entry) : undefined;
			for (const stream of ref !== undefined ? [ref] : states ? this.values(states) : [])
				out.push(...(await this.drawn(stream)).streams);
		}
		return out;
	}

	/** The objects a dictionary's entries name directly (a Type 3 font's glyphs, appearance states). */
	private values(dict: Handle): number[] {
		const out: number[] = [];
		for (const entry of dict.layout.entries?.values() ?? []) {
			this.source.work.charge(1);
			const ref = refValue(dict.bytes, entry);
			if (ref !== undefined) out.push(ref);
		}
		return out;
	}

	/** Whether a resource dictionary's categories are direct dictionaries (no other object's). */
	private direct(handle: Handle): boolean {
		for (const category of CATEGORIES) {
			const entry = handle.layout.entries?.get(category);
			if (entry && refValue(handle.bytes, entry) !== undefined) return false;
		}
		return true;
	}
}

/** The resources a page inherits from a tree node: the node's, shared by its pages. */
function fromNode(fragment: Fragment): Resources | undefined {
	if (!fragment.layout.entries) return undefined;
	const handle: Handle = {
		bytes: fragment.bytes,
		layout: fragment.layout,
		num: fragment.node,
		gen: fragment.gen,
		inFile: fragment.layout.strings !== undefined,
	};
	return { handle, key: `n${fragment.node}`, own: false };
}

/** Where an entry's value lies, or an empty span. */
function span(handle: Handle, key: string): [number, number] {
	const entry = handle.layout.entries?.get(key);
	return entry ? [entry.start, entry.end] : [0, 0];
}
