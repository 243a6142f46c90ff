/**
 * The page tree walked once (ISO 32000-1 §7.7.3), for the count and for a copy alike: the pages
 * in order, found from the catalog's /Pages through /Kids, with cycles, a page listed twice and
 * deep trees refused. A copy also asks for what each page inherits from the nodes above it
 * (/Resources, /MediaBox, /CropBox, /Rotate, §7.7.3.4) and for the role of each object of the
 * tree (a page's index, or a node: references to the tree outside the copy become null). The walk
 * lets the event loop run as it goes (Work).
 */
import { PAGE_LIMITS, Unknown, type Work } from './limits';
import { NumberSet, type Locations } from './locations';
import { scanObject, type Entry, type ObjectLayout } from './objects';
import { isDict, isRef, isRefList, nameOf, type PdfValue, type Ref } from './values';
import type { ObjectReader } from './pdf';

/** The attributes a page inherits from the page tree above it. */
export const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
export type InheritedKey = (typeof INHERITED)[number];
export type Inherited = Partial<Record<InheritedKey, Fragment>>;

/**
 * A value copied out of a page tree node: its bytes, read again as an object of their own (its
 * references, cuts, strings and, for a dictionary, its entries), and the node it comes from.
 */
export interface Fragment {
	bytes: Buffer;
	layout: ObjectLayout;
	node: number;
	/** The node's generation (an encrypted file's strings are decrypted with it). */
	gen: number;
}

/** The role of a tree object that is not a page: the catalog, a node. */
export const NODE = -1;

export interface PageTree {
	/** The page objects in order, by object number. */
	pageObjects: number[];
	/** What each page inherits (a copy's walk only). */
	inherited?: Inherited[];
	/** The catalog's and each tree object's role: a page's index, or NODE (a copy's walk only). */
	roles?: Map<number, number>;
}

/**
 * Walks the tree under `pagesRef` (the catalog's /Pages). `copy`: also what each page inherits and
 * the roles (the catalog `root` a node too).
 */
export async function walkPages(
	reader: ObjectReader,
	root: Ref,
	pagesRef: Ref,
	work: Work,
	copy: { objects: Locations; strings: boolean } | undefined,
): Promise<PageTree> {
	const seen = new NumberSet(work);
	const pageObjects: number[] = [];
	const inherited: Inherited[] | undefined = copy ? [] : undefined;
	const roles = copy ? new Map<number, number>([[root.ref, NODE]]) : undefined;
	// The nodes still to visit, their depths and what they inherit, side by side.
	const stack: number[] = [pagesRef.ref];
	const depths: number[] = [0];
	const above: Inherited[] = [{}];
	while (stack.length > 0) {
		if (work.due()) await work.pause();
		const num = stack.pop()!;
		const depth = depths.pop()!;
		const from = above.pop()!;
		if (seen.has(num))
			throw new Unknown(`the page tree lists object ${num} twice (a cycle or a shared page)`);
		seen.add(num);
		if (depth > PAGE_LIMITS.maxTreeDepth)
			throw new Unknown(`the page tree is deeper than ${PAGE_LIMITS.maxTreeDepth} levels`);
		// An object in an object stream not yet inflated waits for it; any other is read at once.
		const loading = reader.load(num);
		if (loading) await loading;
		const node = reader.read(num);
		if (!isDict(node)) throw new Unknown(`page tree object ${num} is not a dictionary`);
		const type = nameOf(node.dict.Type);
		// Awaited only when indirect: a leaf has none, and an await per leaf costs.
		const direct = node.dict.Kids;
		const value: PdfValue | undefined = isRef(direct) ? await reader.get(direct) : direct;
		// A direct /Kids of references comes as their numbers (RefList), an indirect one as values.
		const kids = isRefList(value) ? value.refs : Array.isArray(value) ? value : undefined;
		if (type === 'Pages' || (type === undefined && kids)) {
			if (!kids) throw new Unknown(`page tree node ${num} has no /Kids`);
			roles?.set(num, NODE);
			const own = copy ? { ...from, ...inheritedAt(reader, num, copy, work) } : from;
			work.charge(kids.length);
			for (let i = kids.length - 1; i >= 0; i--) {
				const kid = kids[i];
				const ref = isRefList(value) ? (kid as number) : isRef(kid) ? kid.ref : undefined;
				if (ref === undefined)
					throw new Unknown(`page tree node ${num} has a kid that is not a reference`);
				stack.push(ref);
				depths.push(depth + 1);
				above.push(own);
			}
		} else if (type === 'Page' || type === undefined) {
			roles?.set(num, pageObjects.length);
			pageObjects.push(num);
			inherited?.push(from);
		} else throw new Unknown(`page tree object ${num} is a /${type}, neither a page nor pages`);
	}
	return { pageObjects, inherited, roles };
}

/** The inheritable attributes a page tree node gives, each copied out with its layout. */
function inheritedAt(
	reader: ObjectReader,
	num: number,
	copy: { objects: Locations; strings: boolean },
	work: Work,
): Inherited {
	const where = reader.locate(num);
	if (!where) throw new Unknown(`page tree node ${num} is free`);
	const layout = scanObject(where.bytes, where.at, work);
	const own: Inherited = {};
	for (const key of INHERITED) {
		const entry = layout.entries?.get(key);
		// A null value (or one naming a free object) is no value: the node's parent's holds.
		if (!entry || isAbsent(copy.objects, where.bytes, entry, layout, work)) continue;
		work.charge(entry.end - entry.start);
		const bytes = Buffer.from(where.bytes.subarray(entry.start, entry.end));
		const gen = where.inFile ? where.gen : 0;
		// Strings of an object in an object stream are not encrypted on their own.
		const strings = copy.strings && where.inFile;
		own[key] = { bytes, layout: scanObject(bytes, 0, work, strings), node: num, gen };
	}
	return own;
}

/**
 * Whether an entry's value means the entry is absent (ISO 32000 §7.3.7, §7.3.10): `null`, or a
 * reference to an object the cross-reference marks free or does not list.
 */
export function isAbsent(
	objects: Locations,
	bytes: Buffer,
	entry: Entry,
	layout: ObjectLayout,
	work: Work,
): boolean {
	const length = entry.end - entry.start;
	if (length === 4) return bytes.toString('latin1', entry.start, entry.end) === 'null';
	const { refs } = layout;
	for (let i = 0; i < refs.length; i += 3) {
		work.charge(1);
		if (refs[i] < entry.start) continue;
		if (refs[i] > entry.start || refs[i + 1] !== entry.end) return false;
		const where = objects.get(refs[i + 2]);
		return !where || ('offset' in where && where.offset < 0);
	}
	return false;
}
