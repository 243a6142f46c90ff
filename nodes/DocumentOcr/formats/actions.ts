/**
 * What an object's actions name to act on (ISO 32000-1 §12.6.4): a Hide action's annotations, a
 * ResetForm's, SubmitForm's or ImportData's fields, a Rendition's, Movie's or 3D view's
 * annotation, a SetOCGState's layers. They may be other pages' (a button on page 1
 * resetting every field of the form), so a copy keeps those references only to objects it holds
 * already (render.ts `weak`): an action never brings another page's fields or notes with it.
 * Actions are read where they stand in the object: itself (an action object), its /A, its /AA's
 * entries, an action's /Next; one written as an object of its own is read when it is written.
 */
import type { Work } from './limits';
import { scanObject, type Entry } from './objects';
import { nameIn, type Handle } from './pdf-source';

/** The entry that names what an action acts on, by its type. */
const TARGETS: Record<string, string> = {
	Hide: 'T',
	ResetForm: 'Fields',
	SubmitForm: 'Fields',
	ImportData: 'Fields',
	Rendition: 'AN',
	Movie: 'Annotation',
	GoTo3DView: 'TA',
	SetOCGState: 'State',
};

/** The entries of `handle`'s actions that name objects to act on (in its bytes). */
export function actionTargets(handle: Handle, work: Work): Entry[] {
	const out: Entry[] = [];
	const visit = (action: Handle, depth: number) => {
		const target = TARGETS[nameIn(action, 'S') ?? ''];
		const entry = target === undefined ? undefined : action.layout.entries?.get(target);
		if (entry) out.push(entry);
		if (depth > 8) return;
		for (const key of ['A', 'Next']) {
			const inner = direct(action, key, work);
			if (inner) visit(inner, depth + 1);
		}
		const triggers = direct(action, 'AA', work);
		for (const key of triggers?.layout.entries?.keys() ?? []) {
			const inner = direct(triggers!, key, work);
			if (inner) visit(inner, depth + 1);
		}
	};
	visit(handle, 0);
	return out;
}

/** The direct dictionary an entry of `handle` gives, laid out in the same bytes. */
function direct(handle: Handle, key: string, work: Work): Handle | undefined {
	const entry = handle.layout.entries?.get(key);
	const { bytes } = handle;
	if (!entry || bytes[entry.start] !== 0x3c || bytes[entry.start + 1] !== 0x3c) return undefined;
	return {
		...handle,
		layout: scanObject(bytes, entry.start, work, handle.layout.strings !== undefined),
	};
}
