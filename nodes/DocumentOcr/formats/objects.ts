/**
 * A PDF object read for copying (the copier, pdf-copy.ts): not built into values, but its bytes
 * walked once on the lexer's tokens (lexer.ts) to find where its value ends, where each reference
 * `N G R` in it stands, where each string stands (an encrypted file's strings are written
 * decrypted), which entries every copy leaves out (cuts), and, for a dictionary, where each of its
 * own entries is. A copy is then the object's bytes with each reference renumbered (or made
 * `null`), each string decrypted where needed and the cuts left out, so numbers and names are
 * copied exactly as they are. Every byte walked is charged to the work; one object may take no
 * more than PAGE_LIMITS.maxObjectBytes.
 */
import { blank, CLASS, hexEnd, isDigit, literalEnd, nameText, refEnd, unsignedAt } from './lexer';
import { PAGE_LIMITS, Unknown, type Work } from './limits';

/**
 * Keys a copy leaves out wherever they are: /StructParent and /StructParents (keys into the
 * structure tree, which a copy does not carry), /SD (a structure destination, PDF 2.0: it climbs
 * to the tree's root and down to every page's elements), /PieceInfo (an application's private
 * data: Illustrator keeps every artboard of the document there), and /Parent inside a value (an
 * annotation's or a field's /Parent leads up trees that reach other pages). An object's own
 * /Parent is an entry the copier decides on: a page's is written anew, a form field's chain is
 * kept, any other is cut.
 */
const DROPPED = new Set(['StructParent', 'StructParents', 'SD', 'PieceInfo']);

/** A dictionary's own entry: where its key begins, where its value begins and ends. */
export interface Entry {
	key: number;
	start: number;
	end: number;
}

/** Where the parts of an object's value are, in the bytes it was read from. */
export interface ObjectLayout {
	/** Where the value begins (after white space and comments) and ends. */
	start: number;
	end: number;
	/** The references, as triples: where each begins, where it ends, the number it names. */
	refs: number[];
	/** The entries left out, as pairs: where each begins (its key) and ends (its value). */
	cuts: number[];
	/** The strings, as pairs (where each token begins and ends), when asked for. */
	strings?: number[];
	/** A dictionary's own entries by key (its keys' #xx escapes decoded). */
	entries?: Map<string, Entry>;
	/** Where a dictionary's closing `>>` begins. */
	close?: number;
	/**
	 * The dictionaries its dictionary's entries give directly, laid out as they were walked, by
	 * where each begins: a resource dictionary's categories are not walked twice.
	 */
	inner?: Map<number, { entries: Map<string, Entry>; close: number }>;
}

/**
 * Reads the value at `at` in `bytes` (a file's, or a decoded object stream's); `strings` records
 * where its strings are.
 */
export function scanObject(bytes: Buffer, at: number, work: Work, strings = false): ObjectLayout {
	const scanner = new Scanner(bytes, at, strings);
	const layout = scanner.top();
	work.charge(layout.end - at + layout.refs.length + layout.cuts.length);
	return layout;
}

/** The name a dictionary entry's value spells (`/Form` → 'Form'), if its value is a name. */
export function nameValue(bytes: Buffer, entry: Entry | undefined): string | undefined {
	if (!entry || bytes[entry.start] !== 0x2f || entry.end - entry.start > 128) return undefined;
	return nameText(bytes, entry.start + 1, entry.end);
}

/** The number an entry's value names when it is a reference `N G R`, else undefined. */
export function refValue(bytes: Buffer, entry: Entry | undefined): number | undefined {
	if (!entry || !isDigit(bytes[entry.start])) return undefined;
	return refEnd(bytes, entry.start, entry.end) === entry.end
		? unsignedAt(bytes, entry.start, entry.end)
		: undefined;
}

class Scanner {
	private pos: number;
	private readonly end: number;
	private readonly refs: number[] = [];
	private readonly cuts: number[] = [];
	private readonly strings?: number[];
	/** Inside a value being left out: its references are not recorded. */
	private muted = 0;
	/** The top dictionary's dictionaries, as its entries give them. */
	private inner?: Map<number, { entries: Map<string, Entry>; close: number }>;

	constructor(
		private readonly bytes: Buffer,
		at: number,
		strings: boolean,
	) {
		this.pos = at;
		this.end = Math.min(bytes.length, at + PAGE_LIMITS.maxObjectBytes);
		if (strings) this.strings = [];
	}

	private fail(what: string): Unknown {
		return new Unknown(
			this.pos >= this.end && this.end < this.bytes.length
				? `an object is larger than ${PAGE_LIMITS.maxObjectBytes} bytes, more than is read of one object`
				: `${what} at byte ${this.pos}`,
		);
	}

	top(): ObjectLayout {
		this.pos = blank(this.bytes, this.pos, this.end);
		const start = this.pos;
		const { bytes, refs, cuts, strings } = this;
		if (bytes[start] === 0x3c && bytes[start + 1] === 0x3c) {
			const entries = new Map<string, Entry>();
			this.inner = new Map();
			const close = this.dict(0, entries);
			const { inner } = this;
			return { start, end: this.pos, refs, cuts, strings, entries, close, inner };
		}
		this.value(0);
		return { start, end: this.pos, refs, cuts, strings };
	}

	private value(depth: number): void {
		if (depth > PAGE_LIMITS.maxNesting) throw this.fail('an object is nested too deeply');
		const { bytes, end } = this;
		this.pos = blank(bytes, this.pos, end);
		if (this.pos >= end) throw this.fail('the object ends early');
		const c = bytes[this.pos];
		if (c === 0x3c && bytes[this.pos + 1] === 0x3c) {
			// A value of the top dictionary: its entries are kept (ObjectLayout.inner).
			const start = this.pos;
			const entries = depth === 1 && this.inner ? new Map<string, Entry>() : undefined;
			const close = this.dict(depth, entries);
			if (entries) this.inner!.set(start, { entries, close });
		} else if (c === 0x5b) {
			this.pos++;
			for (;;) {
				this.pos = blank(bytes, this.pos, end);
				if (this.pos >= end) throw this.fail('an array is not closed');
				if (bytes[this.pos] === 0x5d) {
					this.pos++;
					return;
				}
				this.value(depth + 1);
			}
		} else if (c === 0x28 || c === 0x3c) this.string(c === 0x28);
		else if (c === 0x2f) {
			this.pos++;
			while (this.pos < end && CLASS[bytes[this.pos]] === 0) this.pos++;
		} else if (CLASS[c] === 0) this.word();
		else throw this.fail(`an unexpected "${String.fromCharCode(c)}"`);
	}

	/** A literal or hexadecimal string at the position; recorded when strings are asked for. */
	private string(literal: boolean): void {
		const start = this.pos;
		const close = literal
			? literalEnd(this.bytes, start, this.end)
			: hexEnd(this.bytes, start, this.end);
		if (close === -1) {
			this.pos = this.end;
			throw this.fail(literal ? 'a string is not closed' : 'a hex string is not closed');
		}
		this.pos = close;
		if (this.muted === 0) this.strings?.push(start, close);
	}

	/** A dictionary at `<<`; its own entries recorded in `entries`. Returns where `>>` begins. */
	private dict(depth: number, entries?: Map<string, Entry>): number {
		const { bytes, end } = this;
		this.pos += 2;
		for (;;) {
			this.pos = blank(bytes, this.pos, end);
			if (this.pos >= end) throw this.fail('a dictionary is not closed');
			if (bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) {
				const close = this.pos;
				this.pos += 2;
				return close;
			}
			if (bytes[this.pos] !== 0x2f) throw this.fail('a dictionary key is not a name');
			const key = this.pos;
			this.pos++;
			while (this.pos < end && CLASS[bytes[this.pos]] === 0) this.pos++;
			const name = nameText(bytes, key + 1, this.pos);
			const dropped = DROPPED.has(name) || (depth > 0 && name === 'Parent');
			if (dropped) this.muted++;
			this.pos = blank(bytes, this.pos, end);
			const start = this.pos;
			this.value(depth + 1);
			if (dropped) {
				this.muted--;
				if (this.muted === 0) this.cuts.push(key, this.pos);
			}
			entries?.set(name, { key, start, end: this.pos });
		}
	}

	/** A number, a keyword or a reference `N G R` (looked ahead, taken only when it is one). */
	private word(): void {
		const { bytes, end } = this;
		const start = this.pos;
		const ref = isDigit(bytes[start]) ? refEnd(bytes, start, end) : -1;
		if (ref === -1) {
			while (this.pos < end && CLASS[bytes[this.pos]] === 0) this.pos++;
			return;
		}
		this.pos = ref;
		if (this.muted === 0) this.refs.push(start, ref, unsignedAt(bytes, start, end));
	}
}
