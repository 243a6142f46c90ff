/**
 * A PDF object read for copying (formats/pdf-write.ts): not built into values, but its bytes
 * walked once to find where its value ends, where each reference `N G R` in it stands, which
 * entries every copy leaves out (cuts), and, for a dictionary, where each of its own entries is.
 * A copy is then the object's bytes with each reference renumbered (or made `null`) and the cuts
 * left out, so strings, numbers and names are copied exactly as they are. Every byte walked is
 * charged to the work; one object may take no more than PAGE_LIMITS.maxObjectBytes.
 */
import { PAGE_LIMITS, Unknown, type Work } from './limits';
import { CLASS, isDigit } from './parser';

/**
 * Keys a copy leaves out wherever they are: /Parent (a page's is written anew; an annotation's
 * leads to the form's field tree, which reaches the widgets of every page), /StructParent and
 * /StructParents (keys into the structure tree, which a copy does not carry).
 */
const DROPPED = new Set(['Parent', 'StructParent', 'StructParents']);

/** A dictionary's own entry: where its key begins, where its value begins and ends. */
export interface Entry {
	key: number;
	start: number;
	end: number;
}

export interface Scanned {
	/** Where the value begins (after white space and comments) and ends. */
	start: number;
	end: number;
	/** The references, as triples: where each begins, where it ends, the number it names. */
	refs: number[];
	/** The entries left out, as pairs: where each begins (its key) and ends (its value). */
	cuts: number[];
	/** A dictionary's own entries by key (its keys' #xx escapes decoded). */
	entries?: Map<string, Entry>;
	/** Where a dictionary's closing `>>` begins. */
	close?: number;
}

/** Reads the value at `at` in `bytes` (a file's, or a decoded object stream's). */
export function scanObject(bytes: Buffer, at: number, work: Work): Scanned {
	const scanner = new Scanner(bytes, at);
	const scanned = scanner.top();
	work.charge(scanned.end - at + scanned.refs.length + scanned.cuts.length);
	return scanned;
}

/** Where the white space and comments at `pos` end (no further than `end`). */
export function blank(bytes: Buffer, pos: number, end = bytes.length): number {
	while (pos < end) {
		const c = bytes[pos];
		if (CLASS[c] === 1) pos++;
		else if (c === 0x25) {
			while (pos < end && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
		} else break;
	}
	return pos;
}

class Scanner {
	private pos: number;
	private readonly end: number;
	private readonly refs: number[] = [];
	private readonly cuts: number[] = [];
	/** Inside a value being left out: its references are not recorded. */
	private muted = 0;

	constructor(
		private readonly bytes: Buffer,
		at: number,
	) {
		this.pos = at;
		this.end = Math.min(bytes.length, at + PAGE_LIMITS.maxObjectBytes);
	}

	private fail(what: string): Unknown {
		return new Unknown(
			this.pos >= this.end && this.end < this.bytes.length
				? `an object is larger than ${PAGE_LIMITS.maxObjectBytes} bytes, more than is read of one object`
				: `${what} at byte ${this.pos}`,
		);
	}

	top(): Scanned {
		this.pos = blank(this.bytes, this.pos, this.end);
		const start = this.pos;
		const { bytes } = this;
		if (bytes[start] === 0x3c && bytes[start + 1] === 0x3c) {
			const entries = new Map<string, Entry>();
			const close = this.dict(0, entries);
			return { start, end: this.pos, refs: this.refs, cuts: this.cuts, entries, close };
		}
		this.value(0);
		return { start, end: this.pos, refs: this.refs, cuts: this.cuts };
	}

	private value(depth: number): void {
		if (depth > PAGE_LIMITS.maxNesting) throw this.fail('an object is nested too deeply');
		const { bytes } = this;
		this.pos = blank(bytes, this.pos, this.end);
		if (this.pos >= this.end) throw this.fail('the object ends early');
		const c = bytes[this.pos];
		if (c === 0x3c && bytes[this.pos + 1] === 0x3c) this.dict(depth);
		else if (c === 0x5b) {
			this.pos++;
			for (;;) {
				this.pos = blank(bytes, this.pos, this.end);
				if (this.pos >= this.end) throw this.fail('an array is not closed');
				if (bytes[this.pos] === 0x5d) {
					this.pos++;
					return;
				}
				this.value(depth + 1);
			}
		} else if (c === 0x28) this.literal();
		else if (c === 0x3c) {
			const close = bytes.subarray(this.pos, this.end).indexOf(0x3e);
			if (close === -1) {
				this.pos = this.end;
				throw this.fail('a hex string is not closed');
			}
			this.pos += close + 1;
		} else if (c === 0x2f) {
			this.pos++;
			this.regular();
		} else if (CLASS[c] === 0) this.word();
		else throw this.fail(`an unexpected "${String.fromCharCode(c)}"`);
	}

	/** A dictionary at `<<`; its own entries recorded in `entries`. Returns where `>>` begins. */
	private dict(depth: number, entries?: Map<string, Entry>): number {
		const { bytes } = this;
		this.pos += 2;
		for (;;) {
			this.pos = blank(bytes, this.pos, this.end);
			if (this.pos >= this.end) throw this.fail('a dictionary is not closed');
			if (bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) {
				const close = this.pos;
				this.pos += 2;
				return close;
			}
			if (bytes[this.pos] !== 0x2f) throw this.fail('a dictionary key is not a name');
			const key = this.pos;
			this.pos++;
			this.regular();
			const name = nameOf(bytes, key + 1, this.pos);
			const dropped = DROPPED.has(name);
			if (dropped) this.muted++;
			this.pos = blank(bytes, this.pos, this.end);
			const start = this.pos;
			this.value(depth + 1);
			if (dropped) {
				this.muted--;
				if (this.muted === 0) this.cuts.push(key, this.pos);
			}
			entries?.set(name, { key, start, end: this.pos });
		}
	}

	private regular(): void {
		const { bytes, end } = this;
		while (this.pos < end && CLASS[bytes[this.pos]] === 0) this.pos++;
	}

	/** A number, a keyword or a reference `N G R` (looked ahead, taken only when it is one). */
	private word(): void {
		const { bytes, end } = this;
		const start = this.pos;
		let num = 0;
		let digits = true;
		while (this.pos < end && CLASS[bytes[this.pos]] === 0) {
			const c = bytes[this.pos++];
			if (isDigit(c)) num = num * 10 + c - 0x30;
			else digits = false;
		}
		if (!digits) return;
		let at = blank(bytes, this.pos, end);
		if (!isDigit(bytes[at])) return;
		while (at < end && isDigit(bytes[at])) at++;
		if (CLASS[bytes[at] ?? 0x20] === 0) return;
		at = blank(bytes, at, end);
		if (bytes[at] !== 0x52 || CLASS[bytes[at + 1] ?? 0x20] === 0) return;
		this.pos = at + 1;
		if (this.muted === 0) this.refs.push(start, this.pos, num);
	}

	private literal(): void {
		const { bytes, end } = this;
		let level = 0;
		while (this.pos < end) {
			const c = bytes[this.pos++];
			if (c === 0x5c) this.pos++;
			else if (c === 0x28) level++;
			else if (c === 0x29 && --level === 0) return;
		}
		throw this.fail('a string is not closed');
	}
}

/** The name `bytes[start, end)` spells, its #xx escapes decoded. */
function nameOf(bytes: Buffer, start: number, end: number): string {
	const text = bytes.toString('latin1', start, end);
	if (!text.includes('#')) return text;
	return text.replace(/#([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
		String.fromCharCode(parseInt(hex, 16)),
	);
}
