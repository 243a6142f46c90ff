/**
 * The PDF lexer: where each kind of token at a position ends, over a file's bytes (or a decoded
 * stream's), with no value built. Every reader of the room stands on it: the object parser
 * (parser.ts builds values), the copy scanner (objects.ts records references and strings), the
 * content reader (content.ts finds operators and their names). ISO 32000-1 §7.2–7.3: white space,
 * comments, delimiters, names with `#xx` escapes, literal strings with balanced parentheses and
 * backslash escapes, hexadecimal strings, and the `N G R` reference of the object syntax.
 */

/**
 * Byte classes: 1 white space, 2 delimiter, 0 regular (a table: every reader's hot path). Used
 * through module-local names, which compile to plain variables rather than `exports` lookups.
 */
const CLASS_OF = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS_OF[c] = 1;
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS_OF[c] = 2;
const digit = (c: number) => c >= 0x30 && c <= 0x39;
export { CLASS_OF as CLASS, digit as isDigit };

/** Where the white space and comments at `pos` end (no further than `end`). */
export function blank(bytes: Uint8Array, pos: number, end = bytes.length): number {
	while (pos < end) {
		const c = bytes[pos];
		if (CLASS_OF[c] === 1) pos++;
		else if (c === 0x25) {
			pos++;
			while (pos < end && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
		} else break;
	}
	return pos;
}

/** Where the run of regular bytes at `pos` ends (a name's body, a number, a keyword). */
export function regularEnd(bytes: Uint8Array, pos: number, end = bytes.length): number {
	while (pos < end && CLASS_OF[bytes[pos]] === 0) pos++;
	return pos;
}

/**
 * Where the literal string that opens at `pos` (at its `(`) ends, after its `)`; -1 if it does
 * not close before `end`. Parentheses nest; a backslash escapes the byte after it.
 */
export function literalEnd(bytes: Uint8Array, pos: number, end = bytes.length): number {
	let level = 0;
	while (pos < end) {
		const c = bytes[pos++];
		if (c === 0x5c) pos++;
		else if (c === 0x28) level++;
		else if (c === 0x29 && --level === 0) return pos;
	}
	return -1;
}

/**
 * Where the dictionary (`opener` 2, at `<<`) or array (1, at `[`) at `pos` ends, by its bytes
 * alone: brackets matched (their kinds kept in `open`, at least `levels` + 1 long), strings and
 * comments passed whole, no value read; or what stops it and where: the bytes end (`end`), a
 * string or hexadecimal string not closed, nesting past `levels`, a stray or mismatched bracket.
 */
export function containerEnd(
	bytes: Uint8Array,
	pos: number,
	end: number,
	opener: 1 | 2,
	levels: number,
	open: Uint8Array,
): { end: number } | { at: number; problem: 'end' | 'string' | 'hex' | 'nested' | 'unexpected' } {
	let at = pos + opener;
	open[0] = opener;
	let level = 1;
	while (level > 0) {
		if (at >= end) return { at: end, problem: 'end' };
		const c = bytes[at];
		if (CLASS_OF[c] !== 2 || c === 0x2f) {
			at++;
			continue;
		}
		if (c === 0x25) at = blank(bytes, at, end);
		else if (c === 0x28) {
			at = literalEnd(bytes, at, end);
			if (at === -1) return { at: end, problem: 'string' };
		} else if (c === 0x5b || (c === 0x3c && bytes[at + 1] === 0x3c)) {
			if (level >= levels) return { at, problem: 'nested' };
			open[level++] = c === 0x5b ? 1 : 2;
			at += c === 0x5b ? 1 : 2;
		} else if (c === 0x3c) {
			at = hexEnd(bytes, at, end);
			if (at === -1) return { at: end, problem: 'hex' };
		} else if (c === 0x5d && open[level - 1] === 1) {
			level--;
			at++;
		} else if (c === 0x3e && bytes[at + 1] === 0x3e && open[level - 1] === 2) {
			level--;
			at += 2;
		} else return { at, problem: 'unexpected' };
	}
	return { end: at };
}

/** Where the hexadecimal string that opens at `pos` (at its `<`) ends, after its `>`; -1 if not closed. */
export function hexEnd(bytes: Uint8Array, pos: number, end = bytes.length): number {
	for (let at = pos + 1; at < end; at++) if (bytes[at] === 0x3e) return at + 1;
	return -1;
}

/**
 * Where the reference `N G R` that begins at `pos` (at N's first digit) ends, after its `R`; -1
 * when the bytes there are not one (a number, or two numbers, followed by anything else).
 */
export function refEnd(bytes: Uint8Array, pos: number, end = bytes.length): number {
	let at = pos;
	while (at < end && digit(bytes[at])) at++;
	if (at === pos || CLASS_OF[bytes[at] ?? 0x20] === 0) return -1;
	at = blank(bytes, at, end);
	const gen = at;
	while (at < end && digit(bytes[at])) at++;
	if (at === gen || CLASS_OF[bytes[at] ?? 0x20] === 0) return -1;
	at = blank(bytes, at, end);
	if (bytes[at] !== 0x52 || CLASS_OF[bytes[at + 1] ?? 0x20] === 0) return -1;
	return at + 1;
}

/**
 * Where a run of references `N G R` from `pos` (inside an array, after white space) stops: at the
 * first item that is not one (the array's `]`, or anything else); each reference's number pushed
 * onto `refs`. The hot path of a large page tree's /Kids: no value made per item.
 */
export function referencesEnd(bytes: Uint8Array, pos: number, end: number, refs: number[]): number {
	pos = blank(bytes, pos, end);
	while (pos < end && bytes[pos] !== 0x5d) {
		const ref = refEnd(bytes, pos, end);
		if (ref === -1) break;
		refs.push(unsignedAt(bytes, pos, end));
		pos = blank(bytes, ref, end);
	}
	return pos;
}

/**
 * Whether a token is a number (§7.3.3): a sign, then digits with at most one point among them
 * (checked byte by byte: a regular expression with two runs of digits backtracks over a long
 * token, in time its square).
 */
export function isNumber(word: string): boolean {
	let at = word[0] === '+' || word[0] === '-' ? 1 : 0;
	let digits = 0;
	let points = 0;
	for (; at < word.length; at++) {
		const c = word.charCodeAt(at);
		if (digit(c)) digits++;
		else if (c === 0x2e && points === 0) points++;
		else return false;
	}
	return digits > 0;
}

/** The unsigned integer the digits at `pos` spell (no string made), up to the first non-digit. */
export function unsignedAt(bytes: Uint8Array, pos: number, end = bytes.length): number {
	let value = 0;
	while (pos < end && digit(bytes[pos])) value = value * 10 + bytes[pos++] - 0x30;
	return value;
}

const latin1 = (bytes: Uint8Array, start: number, end: number) =>
	Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');

/**
 * The name whose body is `bytes[start, end)` (after its `/`), its `#xx` escapes decoded; a `#`
 * not followed by two hex digits stays as it is, as readers keep it.
 */
export function nameText(bytes: Uint8Array, start: number, end: number): string {
	const text = latin1(bytes, start, end);
	if (!text.includes('#')) return text;
	return text.replace(/#([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
		String.fromCharCode(parseInt(hex, 16)),
	);
}

/** A hex digit's value (0-9, A-F, a-f), or -1. */
export const hexValue = (c: number) =>
	c >= 0x30 && c <= 0x39
		? c - 0x30
		: c >= 0x41 && c <= 0x46
			? c - 0x37
			: c >= 0x61 && c <= 0x66
				? c - 0x57
				: -1;

/**
 * The bytes of the string token `bytes[start, end)` (a literal `(…)` or a hexadecimal `<…>`),
 * its escapes undone (§7.3.4.2: `\n \r \t \b \f \( \) \\`, octal `\ddd`, a backslash before an
 * end of line continues the line, an end of line in the string is one LF).
 */
export function stringBytes(bytes: Uint8Array, start: number, end: number): Buffer {
	const out = Buffer.alloc(end - start);
	let n = 0;
	if (bytes[start] === 0x3c) {
		let high = -1;
		for (let at = start + 1; at < end - 1; at++) {
			const v = hexValue(bytes[at]);
			if (v < 0) continue;
			if (high < 0) high = v;
			else {
				out[n++] = (high << 4) | v;
				high = -1;
			}
		}
		if (high >= 0) out[n++] = high << 4;
		return out.subarray(0, n);
	}
	const ESCAPES: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
	for (let at = start + 1; at < end - 1; at++) {
		let c = bytes[at];
		if (c === 0x0d) {
			if (bytes[at + 1] === 0x0a) at++;
			c = 0x0a;
		} else if (c === 0x5c) {
			c = bytes[++at];
			if (c >= 0x30 && c <= 0x37) {
				let value = c - 0x30;
				for (let k = 0; k < 2 && bytes[at + 1] >= 0x30 && bytes[at + 1] <= 0x37; k++)
					value = value * 8 + bytes[++at] - 0x30;
				c = value & 0xff;
			} else if (c === 0x0d || c === 0x0a) {
				if (c === 0x0d && bytes[at + 1] === 0x0a) at++;
				continue;
			} else c = ESCAPES[c] ?? c;
		}
		out[n++] = c;
	}
	return out.subarray(0, n);
}

/** `bytes` as a hexadecimal string token, `<…>`: any bytes, written safely. */
export function hexString(bytes: Uint8Array): string {
	return `<${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}>`;
}

const STREAM = Buffer.from('stream', 'latin1');
const ENDSTREAM = Buffer.from('endstream', 'latin1');

/** Whether `word` is spelled at `pos`. */
const spells = (bytes: Uint8Array, pos: number, word: Buffer) => {
	if (pos + word.length > bytes.length) return false;
	for (let k = 0; k < word.length; k++) if (bytes[pos + k] !== word[k]) return false;
	return true;
};

/** Whether `endstream` follows `at`, after an end of line or a few spaces. */
function endsAt(bytes: Uint8Array, at: number): boolean {
	let pos = at;
	while (pos < at + 4 && (bytes[pos] === 0x0d || bytes[pos] === 0x0a || bytes[pos] === 0x20)) pos++;
	return spells(bytes, pos, ENDSTREAM);
}

/**
 * Where a stream's data lies, its dictionary having ended at `pos`: null when no `stream`
 * keyword follows (a plain dictionary), 'open' when the data is not closed before `limit`. The one
 * rule of the room for where a stream ends (ISO 32000-1 §7.3.8.1, as pdf.js reads it): a /Length
 * (`length`, resolved by the caller) that ends at `endstream` within `limit` is the data's
 * length, whatever the data holds; without a usable one, the data ends at the first `endstream`,
 * the end of line before it left out. `limit` is where the next object begins, where the caller
 * knows it (the copier), else the end of the bytes. `searched` is told the bytes looked through.
 */
export function streamExtent(
	bytes: Uint8Array,
	pos: number,
	length: number | undefined,
	limit: number,
	searched?: (bytes: number) => void,
): { start: number; end: number } | 'open' | null {
	let at = blank(bytes, pos, limit);
	if (!spells(bytes, at, STREAM) || CLASS_OF[bytes[at + 6] ?? 0x20] === 0) return null;
	at += 6;
	// `stream` ends with an end of line; spaces before it, which writers leave and readers pass
	// over, are no data.
	let eol = at;
	while (bytes[eol] === 0x20 || bytes[eol] === 0x09) eol++;
	if (bytes[eol] === 0x0d || bytes[eol] === 0x0a) at = eol;
	if (bytes[at] === 0x0d) at++;
	if (bytes[at] === 0x0a) at++;
	if (
		length !== undefined &&
		Number.isInteger(length) &&
		length >= 0 &&
		at + length <= limit &&
		endsAt(bytes, at + length)
	)
		return { start: at, end: at + length };
	const view = Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.max(0, limit - at));
	const found = view.indexOf(ENDSTREAM);
	searched?.(found === -1 ? view.length : found);
	if (found === -1) return 'open';
	let end = at + found;
	if (end > at && bytes[end - 1] === 0x0a) end--;
	if (end > at && bytes[end - 1] === 0x0d) end--;
	return { start: at, end };
}
