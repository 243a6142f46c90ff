/**
 * A holder's resources pruned (issue 42): of a page's, form's, pattern's or Type 3 font's resource
 * dictionary, a copy keeps only the names its content draws (usage.ts), each category's entries
 * copied as they are (their references renumbered), /ProcSet as it is. Holders that draw the same
 * names from the same dictionary share one pruned copy (`key`), so a dictionary a thousand pages
 * draw the same from is written once. A holder whose content cannot be read keeps its resources
 * whole when they are its own; resources other pages share are refused, never sent whole.
 */
import { FormatError } from './limits';
import { render, type Renderer } from './render';
import { CATEGORIES, type Resources, type Usage, type Usages, type Used } from './usage';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/**
 * What the pruned copy of `resources` for a holder (`what`, for a message) whose content draws
 * `usage` holds: the names used (undefined: the dictionary whole), and the key it shares.
 */
export function prunedCopy(
	resources: Resources,
	usage: Usage,
	what: string,
): { key: string; used: Used | undefined } {
	let used: Used | undefined;
	if ('unreadable' in usage) {
		if (!resources.own)
			throw new FormatError(
				`the content of ${what} cannot be read (${usage.unreadable}), and the resources it draws from are shared with other pages or objects, so what it draws cannot be told from what they draw; nothing is written rather than another page's content`,
			);
	} else used = usage.used;
	return { key: `${resources.key}|${used ? signature(used) : '*'}`, used };
}

/** Writes the pruned copy of `resources` (its dictionary, `<<` to `>>`) into `pieces`. */
export async function writePruned(
	copy: Renderer,
	usages: Usages,
	resources: Resources,
	used: Used | undefined,
	pieces: Buffer[],
): Promise<void> {
	const { handle } = resources;
	if (!used) return render(copy, handle, [handle.layout.start, handle.layout.end], pieces);
	pieces.push(latin1('<<'));
	for (const category of CATEGORIES) {
		const names = used.get(category);
		const dict = names?.size ? await usages.category(resources, category) : undefined;
		if (!names || !dict?.layout.entries) continue;
		// The entries joined every 4,096 pieces: a page drawing 40,000 names holds few at once.
		const inner: Buffer[] = [];
		let joined = 0;
		for (const name of [...names].sort()) {
			const entry = dict.layout.entries.get(name);
			if (!entry) continue;
			inner.push(latin1(' '));
			render(copy, dict, [entry.key, entry.end], inner);
			if (inner.length - joined < 4096) continue;
			inner.splice(joined, inner.length - joined, Buffer.concat(inner.slice(joined)));
			joined = inner.length;
			if (copy.work.due()) await copy.work.pause();
		}
		copy.work.charge(names.size);
		if (inner.length === 0) continue;
		pieces.push(latin1(` /${category} <<`), Buffer.concat(inner), latin1(' >>'));
	}
	const procSet = handle.layout.entries?.get('ProcSet');
	if (procSet) {
		pieces.push(latin1(' '));
		render(copy, handle, [procSet.key, procSet.end], pieces);
	}
	pieces.push(latin1(' >>'));
}

/** What a set of names used says, as a key (the same names, the same key). */
function signature(used: Used): string {
	const parts: string[] = [];
	for (const category of CATEGORIES) {
		const names = used.get(category);
		if (names?.size) parts.push(`${category}:${[...names].sort().join('\0')}`);
	}
	return parts.join('\n');
}
