/**
 * A bounded reader of PDF objects over a file's bytes (or a decoded object stream's), on the
 * lexer's tokens (lexer.ts): numbers, names, references, arrays and dictionaries are built;
 * strings and the values of keys the counter does not read are passed over (a `full` parser
 * reads every key and each string's bytes: the /Encrypt dictionary, the trailer's /ID). Every
 * byte read is charged to the file's work and counted against what it may parse; every value
 * built is charged too. An object is read in one go, without letting the event loop run, so one
 * object may take no more than PAGE_LIMITS.maxObjectBytes (`at()` sets where it starts).
 */
import {
	blank,
	CLASS as CLASS_OF,
	containerEnd,
	hexEnd,
	isDigit as digit,
	isNumber,
	literalEnd,
	nameText,
	refEnd,
	referencesEnd,
	streamExtent,
	stringBytes,
} from './lexer';
import { PAGE_LIMITS, Unknown, type Work } from './limits';
import type { PdfValue } from './values';
import { KEYS, NAMES, type WordTable } from './words';

/** What a quiet parser throws, whatever the bytes it cannot read. */
const UNREADABLE = new Unknown('an object cannot be read');

/** A bounded reader of PDF objects over the file's bytes (or a decoded object stream's). */
export class Parser {
	pos = 0;
	/**
	 * Where what is read must end by: the file's end (a cross-reference table may run to it), or
	 * since `at()` an object's start and maxObjectBytes.
	 */
	private end: number;
	/** Whether its errors are one shared error (unreadable()). */
	quiet = false;
	/** Whether it reads every key, and strings as their bytes (latin1 text), not only the counter's. */
	full = false;
	/** The kinds of the brackets skipContainer has open, the innermost last (1 array, 2 dict). */
	private readonly open = new Uint8Array(PAGE_LIMITS.maxNesting + 1);

	constructor(
		private readonly buf: Buffer,
		private readonly work: Work,
	) {
		this.end = buf.length;
	}

	/** Moves to `pos`, where an object starts: what follows is read as one object at most. */
	at(pos: number): this {
		this.pos = pos;
		this.end = Math.min(this.buf.length, pos + PAGE_LIMITS.maxObjectBytes);
		return this;
	}

	/** Moves past `n` bytes the caller has read. */
	advance(n: number) {
		this.pos += n;
		this.spend(n);
	}

	private spend(n: number) {
		const { work } = this;
		work.done += n;
		work.parse -= n;
		if (work.parse < 0) throw new Unknown('reading the file took more work than its size allows');
	}

	/**
	 * A read that failed at `pos`, having passed over the bytes from `start`: they are charged
	 * too (a scan reads on after a failure), and the error says why.
	 */
	private failed(start: number, pos: number, error: Unknown): Unknown {
		this.pos = pos;
		this.spend(pos - start);
		return error;
	}

	/**
	 * The error of bytes that cannot be read as an object; a quiet parser's is one shared error,
	 * made once (the object scan reads on after it, and a stack for each would cost more than the
	 * read).
	 */
	private unreadable(message: string): Unknown {
		return this.quiet ? UNREADABLE : new Unknown(message);
	}

	/** Why a value stops at `end`: the file ends there, or the object passes its share. */
	private cut(what: string): Unknown {
		return this.unreadable(
			this.end < this.buf.length
				? `an object is larger than ${PAGE_LIMITS.maxObjectBytes} bytes, more than is read of one object`
				: what,
		);
	}

	skipSpace() {
		const start = this.pos;
		this.pos = blank(this.buf, start, this.end);
		if (this.pos > start) this.spend(this.pos - start);
	}

	private token(): string {
		const start = this.pos;
		this.skipRegular();
		return this.buf.toString('latin1', start, this.pos);
	}

	/**
	 * Passes over a name's bytes; the entry of `table` it spells, if any. A name without `#` is
	 * matched by its bytes, no string made; one with `#xx` escapes (ISO 32000 §7.3.5: `/K#69ds`
	 * is `/Kids`) is decoded first.
	 */
	private lookup<T>(table: WordTable<T>): T | undefined {
		const { buf, end } = this;
		const start = this.pos;
		let pos = start;
		let hash = 0;
		let escaped = false;
		// The hash of words.ts, computed inline: this loop runs for every key of every object.
		while (pos < end && CLASS_OF[buf[pos]] === 0) {
			const c = buf[pos++];
			if (c === 0x23) escaped = true;
			hash = (Math.imul(hash, 31) + c) | 0;
		}
		this.pos = pos;
		this.spend(pos - start);
		return escaped ? table.get(this.name(start, pos)) : table.find(buf, start, pos, hash);
	}

	/** The name `buf[start, end)` spells, its `#xx` escapes decoded (lexer.ts). */
	private name(start: number, end: number): string {
		this.work.charge(end - start);
		return nameText(this.buf, start, end);
	}

	/** The next object; `N G R` references are folded into one value. */
	value(depth = 0): PdfValue {
		if (depth > PAGE_LIMITS.maxNesting) throw this.unreadable('an object is nested too deeply');
		this.work.done++;
		this.skipSpace();
		const { buf } = this;
		if (this.pos >= this.end) throw this.cut('the file ends inside an object');
		const c = buf[this.pos];
		if (c === 0x2f) {
			this.advance(1);
			const start = this.pos;
			const known = this.lookup(NAMES);
			return known ?? { name: this.name(start, this.pos) };
		}
		if (c === 0x3c && buf[this.pos + 1] === 0x3c) {
			this.advance(2);
			// Only the keys read are set (none is a property of Object.prototype).
			const dict: Record<string, PdfValue> = {};
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x3e && buf[this.pos + 1] === 0x3e) {
					this.advance(2);
					return { dict };
				}
				// The key is matched by its bytes: no string or name object is made for it.
				if (this.pos >= this.end) throw this.cut('the file ends inside an object');
				if (buf[this.pos] !== 0x2f) throw this.unreadable('a dictionary key is not a name');
				this.advance(1);
				const key = this.full ? this.fullKey() : this.lookup(KEYS);
				if (key === 'Kids') dict[key] = this.kids(depth + 1);
				else if (key !== undefined) dict[key] = this.value(depth + 1);
				else this.skip(depth + 1);
			}
		}
		if (c === 0x3c) {
			// Searched for within the object's share only: the search is charged, found or not.
			const start = this.pos;
			const close = hexEnd(buf, start, this.end);
			if (close === -1) throw this.failed(start, this.end, this.cut('a hex string is not closed'));
			this.advance(close - start);
			return this.full ? this.string(start, close) : '';
		}
		if (c === 0x5b) {
			this.advance(1);
			const items: PdfValue[] = [];
			for (;;) {
				this.skipSpace();
				if (buf[this.pos] === 0x5d) {
					this.advance(1);
					return items;
				}
				if (this.pos >= this.end) throw this.cut('the file ends inside an array');
				items.push(this.value(depth + 1));
			}
		}
		if (c === 0x28) return this.literal();
		if (c === 0x29 || c === 0x3e || c === 0x5d || c === 0x7b || c === 0x7d) {
			this.pos++;
			throw this.unreadable(`an unexpected "${String.fromCharCode(c)}" at byte ${this.pos - 1}`);
		}
		if (digit(c)) {
			const start = this.pos;
			const number = this.unsigned();
			if (buf[this.pos] === 0x2e || CLASS_OF[buf[this.pos] ?? 0x20] === 0) return this.real(start);
			// `N G R`: looked ahead byte by byte, consumed only when it is a reference.
			const save = this.pos;
			this.skipSpace();
			if (digit(buf[this.pos])) {
				const gen = this.unsigned();
				this.skipSpace();
				if (buf[this.pos] === 0x52 && CLASS_OF[buf[this.pos + 1] ?? 0x20] !== 0) {
					this.advance(1);
					return { ref: number, gen };
				}
			}
			this.pos = save;
			return number;
		}
		if (c === 0x2b || c === 0x2d || c === 0x2e) return this.real(this.pos);
		const word = this.token();
		if (word === 'true' || word === 'false') return word === 'true';
		if (word === 'null') return null;
		if (word === '') throw this.unreadable(`an unreadable byte at ${this.pos}`);
		return { keyword: word };
	}

	/**
	 * A /Kids value: a RefList when it is an array of references, else the value as read. The
	 * references are read byte by byte, `N G R` as value() reads one (the hot path of a large
	 * tree: one charge for the array); at the first item that is not one, the array is read again
	 * from its start as values (the references before it are read twice, nothing else).
	 */
	private kids(depth: number): PdfValue {
		this.skipSpace();
		const { buf, end } = this;
		if (buf[this.pos] !== 0x5b) return this.value(depth);
		const start = this.pos;
		const refs: number[] = [];
		const pos = referencesEnd(buf, start + 1, end, refs);
		this.spend(pos - start);
		if (pos < end && buf[pos] === 0x5d) {
			this.pos = pos;
			this.advance(1);
			return { refs };
		}
		this.pos = start;
		return this.value(depth);
	}

	/** Passes over the next object without building it (values of keys nothing reads). */
	skip(depth: number): void {
		if (depth > PAGE_LIMITS.maxNesting) throw this.unreadable('an object is nested too deeply');
		this.skipSpace();
		const { buf } = this;
		if (this.pos >= this.end) throw this.cut('the file ends inside an object');
		const c = buf[this.pos];
		if (c === 0x3c && buf[this.pos + 1] === 0x3c) return this.skipContainer(depth, 2);
		if (c === 0x5b) return this.skipContainer(depth, 1);
		if (c === 0x2f) {
			this.advance(1);
			this.skipRegular();
			return;
		}
		if (CLASS_OF[c] === 0) {
			// A reference, a number, true, false, null.
			const ref = digit(c) ? refEnd(buf, this.pos, this.end) : -1;
			if (ref === -1) this.skipRegular();
			else this.advance(ref - this.pos);
			return;
		}
		this.value(depth); // strings and errors: value() reads them without building much
	}

	/**
	 * Passes over a dictionary (`opener` 2, at `<<`) or an array (1, at `[`) by its bytes alone
	 * (lexer.ts containerEnd): nothing built and no value checked (nothing reads it).
	 */
	private skipContainer(depth: number, opener: 1 | 2): void {
		const start = this.pos;
		const left = PAGE_LIMITS.maxNesting - depth;
		const result = containerEnd(this.buf, start, this.end, opener, left, this.open);
		if ('end' in result) {
			this.pos = result.end;
			this.spend(result.end - start);
			return;
		}
		const { at, problem } = result;
		const error =
			problem === 'nested'
				? this.unreadable('an object is nested too deeply')
				: problem === 'unexpected'
					? this.unreadable(`an unexpected "${String.fromCharCode(this.buf[at])}" at byte ${at}`)
					: this.cut(
							problem === 'string'
								? 'a string is not closed'
								: problem === 'hex'
									? 'a hex string is not closed'
									: 'the file ends inside an object',
						);
		throw this.failed(start, at, error);
	}

	private skipRegular() {
		const { buf, end } = this;
		const start = this.pos;
		let pos = start;
		while (pos < end && CLASS_OF[buf[pos]] === 0) pos++;
		this.pos = pos;
		this.spend(pos - start);
	}

	/** Digits at the position, as a number (no string made: the hot path of xref tables). */
	unsigned(): number {
		const { buf, end } = this;
		const start = this.pos;
		let pos = start;
		let value = 0;
		while (pos < end && digit(buf[pos])) value = value * 10 + buf[pos++] - 0x30;
		this.pos = pos;
		this.spend(pos - start);
		return value;
	}

	/** A signed or real number starting at `start` (lexer.ts isNumber says what one is). */
	private real(start: number): number {
		this.pos = start;
		const word = this.token();
		this.work.charge(word.length);
		if (!isNumber(word))
			throw this.unreadable(`an unreadable number "${word.slice(0, 20)}" at byte ${start}`);
		return Number(word);
	}

	private literal(): string {
		const start = this.pos;
		const close = literalEnd(this.buf, start, this.end);
		if (close === -1) throw this.failed(start, this.end, this.cut('a string is not closed'));
		this.pos = close;
		this.spend(close - start);
		return this.full ? this.string(start, close) : '';
	}

	/** A string token's bytes, as latin1 text (a full parser's). */
	private string(start: number, end: number): string {
		this.work.charge(end - start);
		return stringBytes(this.buf, start, end).toString('latin1');
	}

	/** A key of a full parser: any name, decoded (no property of Object.prototype is set). */
	private fullKey(): string | undefined {
		const start = this.pos;
		this.skipRegular();
		const key = this.name(start, this.pos);
		return key in Object.prototype ? undefined : key;
	}

	/** `N G obj` at the current position: the object's number, or undefined. */
	objHeader(): { num: number; gen: number } | undefined {
		this.skipSpace();
		if (!digit(this.buf[this.pos])) return undefined;
		const num = this.unsigned();
		this.skipSpace();
		if (!digit(this.buf[this.pos])) return undefined;
		const gen = this.unsigned();
		this.skipSpace();
		// `obj` and no more letters, compared byte by byte.
		const { buf, pos } = this;
		if (buf[pos] !== 0x6f || buf[pos + 1] !== 0x62 || buf[pos + 2] !== 0x6a) return undefined;
		if (CLASS_OF[buf[pos + 3] ?? 0x20] === 0) return undefined;
		this.pos += 3;
		this.spend(3);
		return { num, gen };
	}

	/**
	 * After a stream dictionary: the stream's raw bytes, where the room's one rule puts their end
	 * (lexer.ts streamExtent: a direct /Length that ends at `endstream`, else the first one).
	 */
	streamData(dict: Record<string, PdfValue>): Buffer {
		const { buf } = this;
		const length = typeof dict.Length === 'number' ? dict.Length : undefined;
		const extent = streamExtent(buf, this.pos, length, buf.length, (n) => this.work.charge(n));
		if (extent === null) throw this.unreadable('a stream dictionary has no stream');
		if (extent === 'open')
			throw this.failed(this.pos, buf.length, this.unreadable('a stream is not closed'));
		this.spend(extent.end - this.pos);
		this.pos = extent.end;
		return buf.subarray(extent.start, extent.end);
	}
}
