/**
 * An object's bytes as a copy writes them (the copier's, pdf-copy.ts): its bytes as they are, each
 * reference renumbered (or null), each string decrypted where the file was encrypted (written in
 * hexadecimal: its bytes may be anything), each cut (objects.ts) and each entry the copy leaves
 * out passed over. The pieces are views of the input where nothing changes.
 */
import type { Decryption } from './crypt';
import { hexString, stringBytes } from './lexer';
import type { Work } from './limits';
import { scanObject, type Entry } from './objects';
import type { Handle } from './pdf-source';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const NONE: number[] = [];

/** What a rendering needs of the copy: the new number of each object named, the decryption. */
export interface Renderer {
	/** The new number of object `num`, numbering it if new; 0 for null. */
	resolve(num: number): number;
	/** The new number of object `num` if the copy holds it already, else 0 (null): never numbers. */
	known(num: number): number;
	decryption?: Decryption;
	work: Work;
}

/** How an object's entries are written beside what render() always does. */
export interface Rendering {
	/** The entries left out: sorted pairs of where each begins and ends (leftOut()). */
	left?: number[];
	/** Values whose strings are copied as they are (signatures' /Contents: signedContents()). */
	plain?: Entry[];
	/**
	 * Values whose references are kept only to objects the copy holds already, else null: an
	 * action's fields and annotations (Hide, ResetForm, SubmitForm), which may be other pages'.
	 */
	weak?: Entry[];
}

/** The bytes `[start, end)` of `handle` as pieces. */
export function render(
	copy: Renderer,
	handle: Handle,
	[start, end]: [number, number],
	pieces: Buffer[],
	{ left = NONE, plain, weak }: Rendering = {},
): void {
	const { bytes, layout } = handle;
	const { refs, cuts } = layout;
	const { decryption, work } = copy;
	const strings = decryption && layout.strings ? layout.strings : NONE;
	let r = firstAt(refs, 3, start);
	let c = firstAt(cuts, 2, start);
	let s = firstAt(strings, 2, start);
	let e = 0;
	let pos = start;
	for (;;) {
		const ref = r < refs.length ? refs[r] : Infinity;
		const cut = c < cuts.length ? cuts[c] : Infinity;
		const string = s < strings.length ? strings[s] : Infinity;
		const more = e < left.length ? left[e] : Infinity;
		const next = Math.min(ref, cut, string, more);
		if (next >= end) break;
		work.charge(1);
		// Which comes next, and where it ends: a cut, an entry left out, a reference or a string.
		let to: number;
		let kind: 'cut' | 'ref' | 'string';
		if (next === cut) [to, kind] = [cuts[(c += 2) - 1], 'cut'];
		else if (next === more) [to, kind] = [left[(e += 2) - 1], 'cut'];
		else if (next === ref) [to, kind] = [refs[(r += 3) - 2], 'ref'];
		else [to, kind] = [strings[(s += 2) - 1], 'string'];
		// What a cut passed over already (a reference inside a left-out entry) is not written.
		if (next < pos) continue;
		pieces.push(bytes.subarray(pos, next));
		if (kind === 'ref') {
			const weakly = weak?.some((entry) => next >= entry.start && to <= entry.end);
			const number = weakly ? copy.known(refs[r - 1]) : copy.resolve(refs[r - 1]);
			pieces.push(latin1(number ? `${number} 0 R` : 'null'));
		} else if (kind === 'string') {
			if (plain?.some((entry) => next >= entry.start && to <= entry.end))
				pieces.push(bytes.subarray(next, to));
			else {
				work.charge(to - next);
				const text = stringBytes(bytes, next, to);
				pieces.push(latin1(hexString(decryption!.string(handle.num, handle.gen, text))));
			}
		}
		pos = to;
	}
	pieces.push(bytes.subarray(pos, end));
}

/**
 * The /Contents of the signatures in `handle` (the object itself, or a signature given directly as
 * a field's /V): never encrypted (ISO 32000-2 §7.6.2), so copied as they are.
 */
export function signedContents(handle: Handle, work: Work): Entry[] {
	const out: Entry[] = [];
	const own = handle.layout.entries;
	if (own?.has('ByteRange') && own.get('Contents')) out.push(own.get('Contents')!);
	const value = own?.get('V');
	const { bytes } = handle;
	if (value && bytes[value.start] === 0x3c && bytes[value.start + 1] === 0x3c) {
		const inner = scanObject(bytes, value.start, work).entries;
		if (inner?.has('ByteRange') && inner.get('Contents')) out.push(inner.get('Contents')!);
	}
	return out;
}

/** Entries to leave out as sorted pairs of where each begins (its key) and ends. */
export function leftOut(entries: Array<Entry | undefined>): number[] {
	return entries
		.filter((entry): entry is Entry => entry !== undefined)
		.sort((a, b) => a.key - b.key)
		.flatMap((entry) => [entry.key, entry.end]);
}

/** The index of the first item of `list` (items of `step` numbers) at or after `start`. */
function firstAt(list: number[], step: number, start: number): number {
	let low = 0;
	let high = list.length / step;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (list[mid * step] < start) low = mid + 1;
		else high = mid;
	}
	return low * step;
}
