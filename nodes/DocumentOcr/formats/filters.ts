/**
 * A content stream's data decoded chunk by chunk (ISO 32000-1 §7.4), for the content reader
 * (content.ts): never held whole, so a stream of any size costs the memory of a chunk. FlateDecode
 * through the platform's `DecompressionStream` (streams.ts; where zlib stops, the content ends, as
 * readers draw it), and the other filters a content
 * stream uses written here: ASCIIHexDecode, ASCII85Decode, LZWDecode (with /EarlyChange),
 * RunLengthDecode; /Crypt is the decryption's (done before). A predictor, an image filter or any
 * other is not read: the stream is Unreadable, and the copy decides what that means (usage.ts).
 * Every decoded byte is charged to the work and counted against what one file's content streams
 * may decode to (`Work.content`).
 */
import { hexValue } from './lexer';
import { inflateChunks } from './streams';
import type { Work } from './limits';
import { isDict, nameOf, type PdfValue } from './values';

/** Why a content stream cannot be read (its words say what). */
export class Unreadable extends Error {}

/** Bytes a decoder gives at a time: a filter that expands (LZW, RunLength) never holds more. */
const CHUNK = 65_536;

const ABBREVIATIONS: Record<string, string> = {
	AHx: 'ASCIIHexDecode',
	A85: 'ASCII85Decode',
	LZW: 'LZWDecode',
	Fl: 'FlateDecode',
	RL: 'RunLengthDecode',
};

/**
 * The decoded bytes of a stream whose raw data is `raw` and whose dictionary gives `filter` and
 * `parms` (/Filter and /DecodeParms, direct), as chunks.
 */
export async function* decodedChunks(
	raw: Buffer,
	filter: PdfValue | undefined,
	parms: PdfValue | undefined,
	work: Work,
): AsyncGenerator<Uint8Array> {
	const names =
		filter === undefined || filter === null ? [] : Array.isArray(filter) ? filter : [filter];
	const params = Array.isArray(parms) ? parms : [parms];
	let chunks: AsyncIterable<Uint8Array> = once(raw);
	for (const [i, value] of names.entries()) {
		const name = nameOf(value);
		const full = name === undefined ? undefined : (ABBREVIATIONS[name] ?? name);
		const param = params[i];
		const dict = isDict(param) ? param.dict : {};
		if (dict.Predictor !== undefined && dict.Predictor !== 1)
			throw new Unreadable(
				`a content stream uses a predictor (/Predictor ${String(dict.Predictor)})`,
			);
		if (full === 'FlateDecode') chunks = inflated(chunks);
		else if (full === 'Crypt') continue;
		else chunks = through(chunks, decoder(full, dict));
	}
	work.charge(raw.length);
	for await (const chunk of chunks) {
		work.charge(chunk.length);
		work.content -= chunk.length;
		if (work.content < 0)
			throw new Unreadable(
				"the document's content streams decode to more bytes than a file of its size may",
			);
		yield chunk;
	}
}

/** A stream's data, CHUNK bytes at a time (a content reader's turn is one chunk). */
async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
	for (let at = 0; at < bytes.length; at += CHUNK) yield bytes.subarray(at, at + CHUNK);
}

/**
 * A content stream's Flate data inflated as readers inflate it: its zlib header passed over and
 * its deflate data read raw, so that a wrong or missing checksum is no error (pdf.js, poppler and
 * MuPDF draw such pages). Where the data stops making sense (damaged, cut off), the content ends:
 * readers draw what came before, so that is what the page draws. A decoder before this one that
 * fails is Unreadable as it said.
 */
async function* inflated(input: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
	let failure: unknown;
	try {
		yield* inflateChunks(withoutHeader(input), 'deflate-raw');
		return;
	} catch (error) {
		failure = error;
	}
	if (failure instanceof Unreadable) throw failure;
}

/** Zlib data without its two-byte header (data without one, raw deflate, as it is). */
async function* withoutHeader(input: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
	let head = new Uint8Array(0);
	let checked = false;
	for await (const chunk of input) {
		if (checked) {
			yield chunk;
			continue;
		}
		const joined = new Uint8Array(head.length + chunk.length);
		joined.set(head);
		joined.set(chunk, head.length);
		if (joined.length < 2) {
			head = joined;
			continue;
		}
		checked = true;
		// A zlib header: deflate (8) in the low bits of the first byte, the two a multiple of 31.
		const zlib = (joined[0] & 0x0f) === 8 && ((joined[0] << 8) | joined[1]) % 31 === 0;
		yield zlib ? joined.subarray(2) : joined;
	}
	if (!checked && head.length > 0) yield head;
}

async function* through(
	input: AsyncIterable<Uint8Array>,
	decoder: Decoder,
): AsyncGenerator<Uint8Array> {
	for await (const chunk of input) {
		decoder.feed(chunk);
		for (let out = decoder.pull(); out.length > 0; out = decoder.pull()) yield out;
	}
	const last = decoder.end();
	if (last.length > 0) yield last;
}

function decoder(name: string | undefined, dict: Record<string, PdfValue>): Decoder {
	if (name === 'ASCIIHexDecode') return new HexDecoder();
	if (name === 'ASCII85Decode') return new Ascii85Decoder();
	if (name === 'RunLengthDecode') return new RunLengthDecoder();
	if (name === 'LZWDecode') return new LzwDecoder(dict.EarlyChange === 0 ? 0 : 1);
	throw new Unreadable(`a content stream is encoded with /${name ?? '?'}, which is not read here`);
}

/**
 * A decoder of one filter: bytes fed, decoded bytes pulled CHUNK at a time (a byte of input may
 * give thousands: an LZW code, a run), so that what it holds and the work between two turns of
 * the event loop stay bounded whatever the data.
 */
abstract class Decoder {
	protected readonly out = new Output();
	protected done = false;
	private input: Uint8Array = new Uint8Array(0);
	private at = 0;

	feed(bytes: Uint8Array): void {
		this.input = bytes;
		this.at = 0;
	}

	/** The next decoded bytes (CHUNK at most, a few more), empty when the input fed is used. */
	pull(): Uint8Array {
		const { input } = this;
		while (this.at < input.length && this.out.length < CHUNK && !this.done)
			this.step(input[this.at++]);
		return this.out.take();
	}

	/** What is left once the input has ended. */
	end(): Uint8Array {
		return this.out.take();
	}

	/** Decodes one byte of input. */
	protected abstract step(c: number): void;
}

/** Bytes gathered for one output chunk. */
class Output {
	private bytes = new Uint8Array(4096);
	length = 0;
	put(byte: number): void {
		if (this.length === this.bytes.length) {
			const grown = new Uint8Array(this.bytes.length * 2);
			grown.set(this.bytes);
			this.bytes = grown;
		}
		this.bytes[this.length++] = byte;
	}
	take(): Uint8Array {
		const out = this.bytes.slice(0, this.length);
		this.length = 0;
		return out;
	}
}

const white = (c: number) =>
	c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

/** ASCIIHexDecode (§7.4.2): pairs of hex digits up to `>`, white space passed over. */
class HexDecoder extends Decoder {
	private high = -1;
	protected step(c: number): void {
		if (c === 0x3e) this.done = true;
		const v = hexValue(c);
		if (v < 0) {
			if (!white(c) && c !== 0x3e)
				throw new Unreadable(
					'a content stream has a byte that is not hexadecimal (ASCIIHexDecode)',
				);
			return;
		}
		if (this.high < 0) this.high = v;
		else {
			this.out.put((this.high << 4) | v);
			this.high = -1;
		}
	}
	end(): Uint8Array {
		if (this.high >= 0) this.out.put(this.high << 4);
		this.high = -1;
		return this.out.take();
	}
}

/** ASCII85Decode (§7.4.3): groups of five base-85 digits, `z` four zeros, `~>` the end. */
class Ascii85Decoder extends Decoder {
	private readonly group: number[] = [];
	protected step(c: number): void {
		if (white(c)) return;
		if (c === 0x7e) this.done = true;
		else if (c === 0x7a && this.group.length === 0) for (let k = 0; k < 4; k++) this.out.put(0);
		else if (c >= 0x21 && c <= 0x75) {
			this.group.push(c - 0x21);
			if (this.group.length === 5) this.flush(5);
		} else throw new Unreadable('a content stream has a byte that is not base 85 (ASCII85Decode)');
	}
	end(): Uint8Array {
		const n = this.group.length;
		if (n === 1)
			throw new Unreadable('a content stream ends inside a base-85 group (ASCII85Decode)');
		if (n > 1) this.flush(n);
		return this.out.take();
	}
	/** A group of `n` digits (padded with `u`) as n - 1 bytes. */
	private flush(n: number): void {
		while (this.group.length < 5) this.group.push(84);
		let value = 0;
		for (const digit of this.group) value = value * 85 + digit;
		if (value > 0xffffffff)
			throw new Unreadable('a content stream has a base-85 group past 2^32 (ASCII85Decode)');
		for (let k = 0; k < n - 1; k++) this.out.put((value >>> (24 - 8 * k)) & 0xff);
		this.group.length = 0;
	}
}

/** RunLengthDecode (§7.4.5): a length byte, then that many bytes + 1, or one byte 257 - it times. */
class RunLengthDecoder extends Decoder {
	/** Literal bytes still to copy, or the byte count of a run awaiting its byte (negative). */
	private pending = 0;
	protected step(c: number): void {
		if (this.pending > 0) {
			this.out.put(c);
			this.pending--;
		} else if (this.pending < 0) {
			for (let k = 0; k < -this.pending; k++) this.out.put(c);
			this.pending = 0;
		} else if (c === 128) this.done = true;
		else this.pending = c < 128 ? c + 1 : -(257 - c);
	}
}

/** LZWDecode (§7.4.4): 9- to 12-bit codes, 256 a clear, 257 the end; /EarlyChange 1 by default. */
class LzwDecoder extends Decoder {
	private readonly prefix = new Int32Array(4096);
	private readonly suffix = new Uint8Array(4096);
	private readonly lengths = new Uint16Array(4096);
	private readonly stack = new Uint8Array(4096);
	private next = 258;
	private width = 9;
	private previous = -1;
	private bits = 0;
	private held = 0;
	constructor(private readonly early: number) {
		super();
		for (let i = 0; i < 256; i++) {
			this.suffix[i] = i;
			this.prefix[i] = -1;
			this.lengths[i] = 1;
		}
	}
	protected step(c: number): void {
		this.bits = ((this.bits << 8) | c) & 0xffffff;
		this.held += 8;
		while (this.held >= this.width && !this.done) {
			this.held -= this.width;
			this.code((this.bits >>> this.held) & ((1 << this.width) - 1));
		}
	}
	private code(code: number): void {
		if (code === 256) {
			this.next = 258;
			this.width = 9;
			this.previous = -1;
			return;
		}
		if (code === 257) {
			this.done = true;
			return;
		}
		if (code > this.next || (code === this.next && this.previous < 0))
			throw new Unreadable('a content stream has an LZW code out of order (LZWDecode)');
		const known = code < this.next;
		const first = this.emit(known ? code : this.previous, !known);
		if (this.previous >= 0 && this.next < 4096) {
			this.prefix[this.next] = this.previous;
			this.suffix[this.next] = first;
			this.lengths[this.next] = this.lengths[this.previous] + 1;
			this.next++;
		}
		this.previous = code;
		const limit = (1 << this.width) - this.early;
		if (this.next >= limit && this.width < 12) this.width++;
	}
	/** Writes the bytes of `code` (and its first byte again when `again`); returns its first byte. */
	private emit(code: number, again: boolean): number {
		let n = 0;
		for (let at = code; at >= 0; at = this.prefix[at]) this.stack[n++] = this.suffix[at];
		const first = this.stack[n - 1];
		for (let k = n - 1; k >= 0; k--) this.out.put(this.stack[k]);
		if (again) this.out.put(first);
		return first;
	}
}
