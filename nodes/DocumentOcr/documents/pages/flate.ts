/**
 * Inflate of a zlib stream (RFC 1950 around RFC 1951: stored, fixed and dynamic Huffman blocks),
 * synchronous and in plain TypeScript: n8n's community-node rules allow no `zlib` import, and the
 * WHATWG `DecompressionStream` costs a round of promises per stream. Huffman codes are decoded
 * through a table of their first bits, longer codes bit by bit. The output stops as soon as it
 * would pass a cap; data zlib would refuse throws a FlateError with zlib's words for it.
 */

export class FlateError extends Error {}

/** Base and extra bits of lengths 257-285 and distances 0-29 (RFC 1951, 3.2.5). */
const LENGTH_BASE = new Uint16Array(29);
const LENGTH_EXTRA = new Uint8Array(29);
const DIST_BASE = new Uint16Array(30);
const DIST_EXTRA = new Uint8Array(30);
for (let i = 0, base = 3; i < 28; i++) {
	LENGTH_EXTRA[i] = i < 8 ? 0 : (i >> 2) - 1;
	LENGTH_BASE[i] = base;
	base += 1 << LENGTH_EXTRA[i];
}
LENGTH_BASE[28] = 258;
for (let i = 0, base = 1; i < 30; i++) {
	DIST_EXTRA[i] = i < 4 ? 0 : (i >> 1) - 1;
	DIST_BASE[i] = base;
	base += 1 << DIST_EXTRA[i];
}
/** The order code length code lengths are sent in. */
const ORDER = Uint8Array.of(16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);

/** Bits looked up at once; longer codes are decoded bit by bit. */
const FAST = 9;
const MASK = (1 << FAST) - 1;

/** A canonical Huffman code: codes per length, symbols in code order, the first-bits table. */
class Code {
	readonly count = new Uint16Array(16);
	readonly symbol: Uint16Array;
	/** By the next FAST bits: symbol << 4 | length, or 0 when the code is longer (or unused). */
	readonly fast = new Int32Array(1 << FAST);
	constructor(size: number) {
		this.symbol = new Uint16Array(size);
	}

	/** Builds the code from `n` lengths at `start`; the lengths left unused (< 0: oversubscribed). */
	build(lengths: Uint8Array, start: number, n: number): number {
		const { count, symbol, fast } = this;
		count.fill(0);
		for (let i = 0; i < n; i++) count[lengths[start + i]]++;
		count[0] = 0;
		let left = 1;
		const offs = new Uint16Array(16);
		for (let len = 1; len < 16; len++) {
			left = (left << 1) - count[len];
			if (left < 0) return left;
			if (len < 15) offs[len + 1] = offs[len] + count[len];
		}
		for (let i = 0; i < n; i++) {
			const len = lengths[start + i];
			if (len !== 0) symbol[offs[len]++] = i;
		}
		fast.fill(0);
		let code = 0;
		let index = 0;
		for (let len = 1; len <= FAST; len++, code <<= 1) {
			for (let k = 0; k < count[len]; k++, code++) {
				let reversed = 0;
				for (let b = 0; b < len; b++) reversed |= ((code >> b) & 1) << (len - 1 - b);
				const entry = (symbol[index++] << 4) | len;
				for (let j = reversed; j < 1 << FAST; j += 1 << len) fast[j] = entry;
			}
		}
		return left;
	}
}

/** Reads one zlib stream; the state of the bit reader and the output it grows. */
class Inflater {
	pos = 0;
	bitbuf = 0;
	bitcnt = 0;
	out: Uint8Array;
	n = 0;
	constructor(
		private readonly input: Uint8Array,
		private readonly cap: number,
	) {
		this.out = Buffer.allocUnsafe(Math.min(cap, Math.max(256, input.length * 4)));
	}

	bits(need: number): number {
		while (this.bitcnt < need) {
			if (this.pos >= this.input.length) throw new FlateError('unexpected end of file');
			this.bitbuf |= this.input[this.pos++] << this.bitcnt;
			this.bitcnt += 8;
		}
		const value = this.bitbuf & ((1 << need) - 1);
		this.bitbuf >>>= need;
		this.bitcnt -= need;
		return value;
	}

	/** The next symbol of `code` (-1: no symbol has these bits). */
	decode(code: Code): number {
		const { input } = this;
		while (this.bitcnt < 15 && this.pos < input.length) {
			this.bitbuf |= input[this.pos++] << this.bitcnt;
			this.bitcnt += 8;
		}
		const entry = code.fast[this.bitbuf & ((1 << FAST) - 1)];
		let len = entry & 15;
		let symbol = entry >> 4;
		if (entry === 0) {
			// Canonical decoding bit by bit: codes of each length follow those one bit shorter.
			const { count } = code;
			let bits = this.bitbuf;
			let value = 0;
			let first = 0;
			let index = 0;
			for (len = 1; ; len++) {
				if (len > 15) return -1;
				value |= bits & 1;
				bits >>>= 1;
				if (value - count[len] < first) break;
				index += count[len];
				first = (first + count[len]) << 1;
				value <<= 1;
			}
			symbol = code.symbol[index + value - first];
		}
		if (len > this.bitcnt) throw new FlateError('unexpected end of file');
		this.bitbuf >>>= len;
		this.bitcnt -= len;
		return symbol;
	}

	/** Room for `more` bytes; false once the output would pass the cap. */
	room(more: number): boolean {
		const needed = this.n + more;
		if (needed <= this.out.length) return true;
		if (needed > this.cap) return false;
		const grown = Buffer.allocUnsafe(Math.min(this.cap, Math.max(needed, this.out.length * 2)));
		grown.set(this.out.subarray(0, this.n));
		this.out = grown;
		return true;
	}

	/** Where the next unread byte is (after align). */
	position(): number {
		return this.pos;
	}

	/** Drops the bits left of the current byte; the bytes read ahead are given back. */
	align() {
		this.pos -= this.bitcnt >> 3;
		this.bitbuf = 0;
		this.bitcnt = 0;
	}

	stored(): boolean {
		this.align();
		const { input } = this;
		if (this.pos + 4 > input.length) throw new FlateError('unexpected end of file');
		const len = input[this.pos] | (input[this.pos + 1] << 8);
		const nlen = input[this.pos + 2] | (input[this.pos + 3] << 8);
		if (len !== (~nlen & 0xffff)) throw new FlateError('invalid stored block lengths');
		this.pos += 4;
		if (this.pos + len > input.length) throw new FlateError('unexpected end of file');
		if (!this.room(len)) return false;
		this.out.set(input.subarray(this.pos, this.pos + len), this.n);
		this.n += len;
		this.pos += len;
		return true;
	}

	/** One Huffman-coded block; false once the output would pass the cap. */
	codes(lit: Code, dist: Code): boolean {
		// The hot loop: the reader's state in locals, written back before any method is called.
		const { input } = this;
		const litFast = lit.fast;
		const distFast = dist.fast;
		let { pos, bitbuf, bitcnt, n, out } = this;
		for (;;) {
			while (bitcnt < 15 && pos < input.length) {
				bitbuf |= input[pos++] << bitcnt;
				bitcnt += 8;
			}
			let symbol: number;
			let entry = litFast[bitbuf & MASK];
			if (entry !== 0 && (entry & 15) <= bitcnt) {
				bitbuf >>>= entry & 15;
				bitcnt -= entry & 15;
				symbol = entry >> 4;
			} else {
				this.keep(pos, bitbuf, bitcnt);
				symbol = this.decode(lit);
				({ pos, bitbuf, bitcnt } = this);
			}
			if (symbol < 256) {
				if (symbol < 0) throw new FlateError('invalid literal/length code');
				if (n >= out.length) {
					this.n = n;
					if (!this.room(1)) return false;
					out = this.out;
				}
				out[n++] = symbol;
				continue;
			}
			if (symbol === 256) {
				this.keep(pos, bitbuf, bitcnt);
				this.n = n;
				return true;
			}
			symbol -= 257;
			if (symbol >= 29) throw new FlateError('invalid literal/length code');
			// Extra bits (at most 5), the distance code (at most 15), its extra bits (at most 13).
			while (bitcnt < 15 && pos < input.length) {
				bitbuf |= input[pos++] << bitcnt;
				bitcnt += 8;
			}
			let extra = LENGTH_EXTRA[symbol];
			if (extra > bitcnt) throw new FlateError('unexpected end of file');
			const len = LENGTH_BASE[symbol] + (bitbuf & ((1 << extra) - 1));
			bitbuf >>>= extra;
			bitcnt -= extra;
			while (bitcnt < 15 && pos < input.length) {
				bitbuf |= input[pos++] << bitcnt;
				bitcnt += 8;
			}
			entry = distFast[bitbuf & MASK];
			if (entry !== 0 && (entry & 15) <= bitcnt) {
				bitbuf >>>= entry & 15;
				bitcnt -= entry & 15;
				symbol = entry >> 4;
			} else {
				this.keep(pos, bitbuf, bitcnt);
				symbol = this.decode(dist);
				({ pos, bitbuf, bitcnt } = this);
			}
			if (symbol < 0 || symbol >= 30) throw new FlateError('invalid distance code');
			while (bitcnt < 15 && pos < input.length) {
				bitbuf |= input[pos++] << bitcnt;
				bitcnt += 8;
			}
			extra = DIST_EXTRA[symbol];
			if (extra > bitcnt) throw new FlateError('unexpected end of file');
			const distance = DIST_BASE[symbol] + (bitbuf & ((1 << extra) - 1));
			bitbuf >>>= extra;
			bitcnt -= extra;
			if (distance > n) throw new FlateError('invalid distance too far back');
			if (n + len > out.length) {
				this.n = n;
				if (!this.room(len)) return false;
				out = this.out;
			}
			if (distance >= len && len > 16) {
				out.copyWithin(n, n - distance, n - distance + len);
				n += len;
			} else for (let from = n - distance, end = n + len; n < end; ) out[n++] = out[from++];
		}
	}

	private keep(pos: number, bitbuf: number, bitcnt: number) {
		this.pos = pos;
		this.bitbuf = bitbuf;
		this.bitcnt = bitcnt;
	}

	/** Reads a dynamic block's code lengths into `lit` and `dist`. */
	dynamic(lit: Code, dist: Code, lengths: Uint8Array, lengthCode: Code) {
		const nlen = this.bits(5) + 257;
		const ndist = this.bits(5) + 1;
		const ncode = this.bits(4) + 4;
		if (nlen > 286 || ndist > 30) throw new FlateError('too many length or distance symbols');
		lengths.fill(0, 0, 19);
		for (let i = 0; i < ncode; i++) lengths[ORDER[i]] = this.bits(3);
		if (lengthCode.build(lengths, 0, 19) !== 0) throw new FlateError('invalid code lengths set');
		for (let i = 0; i < nlen + ndist; ) {
			const symbol = this.decode(lengthCode);
			if (symbol < 0) throw new FlateError('invalid code lengths set');
			if (symbol < 16) {
				lengths[i++] = symbol;
				continue;
			}
			let value = 0;
			let repeat: number;
			if (symbol === 16) {
				if (i === 0) throw new FlateError('invalid bit length repeat');
				value = lengths[i - 1];
				repeat = 3 + this.bits(2);
			} else repeat = symbol === 17 ? 3 + this.bits(3) : 11 + this.bits(7);
			if (i + repeat > nlen + ndist) throw new FlateError('invalid bit length repeat');
			lengths.fill(value, i, i + repeat);
			i += repeat;
		}
		if (lengths[256] === 0) throw new FlateError('invalid code -- missing end-of-block');
		// An incomplete code is allowed only with no symbol or a single one-bit code, as in zlib.
		const single = (code: Code) => {
			const total = code.count.reduce((sum, c) => sum + c, 0);
			return total === 0 || (total === 1 && code.count[1] === 1);
		};
		const litLeft = lit.build(lengths, 0, nlen);
		if (litLeft < 0 || (litLeft > 0 && !single(lit)))
			throw new FlateError('invalid literal/lengths set');
		const distLeft = dist.build(lengths, nlen, ndist);
		if (distLeft < 0 || (distLeft > 0 && !single(dist)))
			throw new FlateError('invalid distances set');
	}
}

/** The tables of dynamic blocks, rebuilt for each block (the inflate is synchronous). */
const scratch = {
	lit: new Code(288),
	dist: new Code(32),
	lengths: new Uint8Array(320),
	lengthCode: new Code(19),
};

let fixed: { lit: Code; dist: Code } | undefined;

function fixedCodes() {
	if (!fixed) {
		const lengths = new Uint8Array(288 + 32);
		lengths.fill(8, 0, 144);
		lengths.fill(9, 144, 256);
		lengths.fill(7, 256, 280);
		lengths.fill(8, 280, 288);
		lengths.fill(5, 288, 320);
		fixed = { lit: new Code(288), dist: new Code(32) };
		fixed.lit.build(lengths, 0, 288);
		fixed.dist.build(lengths, 288, 32);
	}
	return fixed;
}

function adler32(data: Uint8Array, length: number): number {
	let a = 1;
	let b = 0;
	for (let i = 0; i < length; ) {
		// Short runs keep both sums small integers (below 2^31) between the reductions; four bytes
		// a step: b gains a four times and the bytes 4, 3, 2 and 1 times.
		const end = Math.min(length, i + 2048);
		for (; i + 4 <= end; i += 4) {
			const x0 = data[i];
			const x1 = data[i + 1];
			const x2 = data[i + 2];
			const x3 = data[i + 3];
			b += 4 * a + 4 * x0 + 3 * x1 + 2 * x2 + x3;
			a += x0 + x1 + x2 + x3;
		}
		for (; i < end; i++) {
			a += data[i];
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return ((b << 16) | a) >>> 0;
}

/**
 * The bytes a zlib stream inflates to, or null as soon as they would pass `cap` bytes. Bytes after
 * the stream's checksum are ignored. Throws a FlateError for data zlib would refuse.
 */
export function inflateZlib(input: Uint8Array, cap: number): Uint8Array | null {
	if (input.length < 2) throw new FlateError('unexpected end of file');
	const cmf = input[0];
	const flg = input[1];
	if ((cmf & 15) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0)
		throw new FlateError('incorrect header check');
	if (flg & 0x20) throw new FlateError('a preset dictionary is needed');
	const state = new Inflater(input.subarray(2), cap);
	const { lit, dist, lengths, lengthCode } = scratch;
	for (;;) {
		const last = state.bits(1);
		const type = state.bits(2);
		let fits: boolean;
		if (type === 0) fits = state.stored();
		else if (type === 1) fits = state.codes(fixedCodes().lit, fixedCodes().dist);
		else if (type === 2) {
			state.dynamic(lit, dist, lengths, lengthCode);
			fits = state.codes(lit, dist);
		} else throw new FlateError('invalid block type');
		if (!fits) return null;
		if (last) break;
	}
	state.align();
	const rest = input.subarray(2 + state.position());
	if (rest.length < 4) throw new FlateError('unexpected end of file');
	const expected = ((rest[0] << 24) | (rest[1] << 16) | (rest[2] << 8) | rest[3]) >>> 0;
	if (adler32(state.out, state.n) !== expected) throw new FlateError('incorrect data check');
	return state.out.subarray(0, state.n);
}
