/**
 * The bytes of a cross-reference or object stream: stored without a filter, or FlateDecode
 * inflated through the WHATWG `DecompressionStream` (a global of Node 18+; n8n's community-node
 * rules allow no `zlib` import), then undone of its PNG predictor (/DecodeParms /Predictor
 * 10-15). zlib inflates in its own threads, chunk by chunk, so the event loop runs meanwhile. The
 * inflated bytes are counted as they arrive: a stream that would inflate past its share of the
 * limits is cancelled there and the count is unknown; the cap of one stream is a share of the
 * file's size, since it is held in memory whole. A stream zlib refuses (corrupt, cut off, a wrong
 * checksum) is not read: the count is unknown, never made from part of a stream.
 */
import { isDict, isRef, nameOf, type PdfValue } from './values';
import { PAGE_LIMITS, Unknown, type Work } from './limits';

/** The error a stream's unreadable data raises: BrokenXref for a cross-reference stream. */
type Failure = new (message: string) => Unknown;

/** A stream's decoded bytes; `Fail` says a filter or its data cannot be read. */
export async function decodeStream(
	dict: Record<string, PdfValue>,
	raw: Buffer,
	what: string,
	work: Work,
	Fail: Failure = Unknown,
): Promise<Buffer> {
	const filter = dict.Filter;
	if (isRef(filter)) throw new Fail(`the ${what} names its filter indirectly`);
	const filters = Array.isArray(filter) ? filter : filter == null ? [] : [filter];
	if (filters.length === 0) return raw;
	const names = filters.map((f) => nameOf(f) ?? '?');
	if (names.length !== 1 || names[0] !== 'FlateDecode')
		throw new Fail(`the ${what} is encoded with ${names.join(', ')}, which is not read here`);
	let params = dict.DecodeParms;
	if (Array.isArray(params)) params = params[0];
	if (isRef(params)) throw new Fail(`the ${what} gives its /DecodeParms indirectly`);
	const data = await inflate(raw, what, work, Fail);
	return isDict(params) ? await unpredict(data, params.dict, what, work, Fail) : data;
}

async function inflate(raw: Buffer, what: string, work: Work, Fail: Failure): Promise<Buffer> {
	if (--work.streams < 0)
		throw new Unknown(`more than ${PAGE_LIMITS.maxInflatedStreams} compressed streams to inflate`);
	const cap = Math.min(work.stream, work.inflated);
	const data = await inflateZlib(raw, cap, work).catch((error: unknown) => {
		throw new Fail(`the ${what} is not valid FlateDecode data (${(error as Error).message})`);
	});
	if (data === null)
		throw new Unknown(
			cap === PAGE_LIMITS.maxInflatedStream
				? `the ${what} inflates to more than ${PAGE_LIMITS.maxInflatedStream} bytes`
				: cap === work.stream
					? `the ${what} inflates to more than ${cap} bytes, more than a file of this size may hold in memory`
					: 'the compressed streams inflate to more bytes than a file of this size allows',
		);
	work.inflated -= data.length;
	return data;
}

/** Node 24 and later refuse bytes after the end of the zlib stream (Node 20 and 22 ignore them). */
const TRAILING = 'ERR_TRAILING_JUNK_AFTER_STREAM_END';

/**
 * A zlib stream's bytes, or null as soon as they pass `cap` (the stream is cancelled there).
 * Bytes after the stream's end, which PDF readers ignore (an end of line /Length counts, say), are
 * left out: where the runtime refuses them, the stream is inflated once more up to its end, found
 * by its Adler-32 (the 4 bytes after its data) computed from what it inflated to.
 */
async function inflateZlib(raw: Buffer, cap: number, work: Work): Promise<Buffer | null> {
	const chunks: Uint8Array[] = [];
	let size = 0;
	const stream = new DecompressionStream('deflate');
	const writer = stream.writable.getWriter();
	// Not awaited: the output is read below, and the write waits for it (backpressure). A failure
	// of either comes out of the reader.
	writer.write(raw).catch(ignore);
	writer.close().catch(ignore);
	const reader = stream.readable.getReader();
	work.charge(raw.length);
	let failure: unknown;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			size += value.length;
			work.charge(value.length);
			if (size > cap) {
				await reader.cancel().catch(ignore);
				return null;
			}
			chunks.push(value);
		}
	} catch (error) {
		failure = error ?? 'no reason given';
	}
	if (failure === undefined) return Buffer.concat(chunks, size);
	const trailing = (failure as { code?: string }).code === TRAILING;
	const end = trailing ? streamEnd(raw, chunks, work) : -1;
	if (end < 0 || end === raw.length) throw new ZlibError(zlibError(failure));
	return await inflateZlib(raw.subarray(0, end), cap, work);
}

/** zlib refused a stream; the message says why. */
class ZlibError extends Error {}

/**
 * The inflated bytes of a zlib stream (`format` 'deflate'; 'deflate-raw': its deflate data
 * alone) that arrives as `input`, chunk by chunk, as they come out (a content stream: never held
 * whole). Bytes after the stream's end end it (readers ignore them;
 * Node 24 and later refuse them once everything before was given). An error of `input` is thrown
 * as it is; zlib's refusal as an Error saying why.
 */
export async function* inflateChunks(
	input: AsyncIterable<Uint8Array>,
	format: 'deflate' | 'deflate-raw' = 'deflate',
): AsyncGenerator<Uint8Array> {
	const stream = new DecompressionStream(format);
	const writer = stream.writable.getWriter();
	let upstream: unknown;
	const feeding = (async () => {
		// An error of `input` is kept to be thrown as it is; the writer's are zlib's, which the
		// reader below meets.
		const chunks = input[Symbol.asyncIterator]();
		for (;;) {
			let next: IteratorResult<Uint8Array>;
			try {
				next = await chunks.next();
			} catch (error) {
				upstream = error;
				await writer.abort(error).catch(ignore);
				return;
			}
			if (next.done) return await writer.close().catch(ignore);
			if (
				await writer.write(next.value).then(
					() => false,
					() => true,
				)
			)
				return;
		}
	})();
	const reader = stream.readable.getReader();
	let failure: unknown;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return;
			yield value;
		}
	} catch (error) {
		failure = error;
	} finally {
		await reader.cancel().catch(ignore);
		await feeding;
	}
	if (upstream !== undefined) throw upstream;
	if ((failure as { code?: string }).code === TRAILING) return;
	throw new ZlibError(zlibError(failure));
}

const ignore = () => undefined;

/**
 * Where a zlib stream ends in `raw`: the last place its Adler-32, computed from the bytes it
 * inflated to, stands in `raw` (read from the end, the bytes after it being few); -1 if nowhere.
 */
export function streamEnd(raw: Buffer, inflated: Uint8Array[], work: Work): number {
	let a = 1;
	let b = 0;
	for (const chunk of inflated) {
		work.charge(chunk.length);
		for (let i = 0; i < chunk.length; i++) {
			a += chunk[i];
			b += a;
			// Reduced every 4,096 bytes, the sums stay far below 2^53 (exact in a number).
			if ((i & 4095) === 4095) {
				a %= 65521;
				b %= 65521;
			}
		}
		a %= 65521;
		b %= 65521;
	}
	const sum = (b * 65536 + a) >>> 0;
	work.charge(raw.length);
	// The sum's last byte first: the four are read only where it stands.
	const last = sum & 0xff;
	for (let end = raw.length; end >= 6; end--)
		if (raw[end - 1] === last && raw.readUInt32BE(end - 4) === sum) return end;
	return -1;
}

/** What zlib said of a stream it refused (Node 24 and later give a code and no message). */
function zlibError(error: unknown): string {
	const { message, code } = (error ?? {}) as { message?: string; code?: string };
	if (message) return message;
	if (code === 'Z_BUF_ERROR') return 'unexpected end of file';
	if (code === 'Z_DATA_ERROR') return 'invalid data';
	return code ?? String(error);
}

const integer = (value: PdfValue | undefined, fallback: number, min: number, max: number) => {
	if (value === undefined || value === null) return fallback;
	return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
		? value
		: undefined;
};

/** Undoes a PNG predictor (10-15: each row begins with its filter type); 1 or none: as is. */
async function unpredict(
	data: Buffer,
	params: Record<string, PdfValue>,
	what: string,
	work: Work,
	Fail: Failure,
): Promise<Buffer> {
	const predictor = integer(params.Predictor, 1, 1, 15);
	if (predictor === 1) return data;
	if (predictor === undefined || predictor < 10)
		throw new Fail(
			`the ${what} uses /Predictor ${String(params.Predictor)}, which is not read here`,
		);
	const columns = integer(params.Columns, 1, 1, 1 << 24);
	const colors = integer(params.Colors, 1, 1, 32);
	const bits = integer(params.BitsPerComponent, 8, 1, 16);
	if (
		columns === undefined ||
		colors === undefined ||
		bits === undefined ||
		![1, 2, 4, 8, 16].includes(bits)
	)
		throw new Fail(`the ${what} has invalid /DecodeParms`);
	const rowBytes = Math.ceil((colors * bits * columns) / 8);
	const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
	if (data.length % (rowBytes + 1) !== 0)
		throw new Fail(
			`the ${what}'s predictor rows (/Columns ${columns}) do not divide its ${data.length} bytes`,
		);
	const rows = data.length / (rowBytes + 1);
	const out = Buffer.alloc(rows * rowBytes);
	for (let r = 0; r < rows; r++) {
		if (work.due()) await work.pause();
		work.charge(rowBytes + 1);
		const type = data[r * (rowBytes + 1)];
		const src = r * (rowBytes + 1) + 1;
		const at = r * rowBytes;
		const up = at - rowBytes; // the previous row (zeros above the first)
		for (let i = 0; i < rowBytes; i++) {
			const x = data[src + i];
			const a = i >= bpp ? out[at + i - bpp] : 0;
			const b = r > 0 ? out[up + i] : 0;
			let value: number;
			if (type === 0) value = x;
			else if (type === 1) value = x + a;
			else if (type === 2) value = x + b;
			else if (type === 3) value = x + ((a + b) >> 1);
			else if (type === 4) {
				const c = r > 0 && i >= bpp ? out[up + i - bpp] : 0;
				const p = a + b - c;
				const pa = Math.abs(p - a);
				const pb = Math.abs(p - b);
				const pc = Math.abs(p - c);
				value = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
			} else throw new Fail(`the ${what} has an unknown PNG predictor type ${type} in row ${r}`);
			out[at + i] = value & 0xff;
		}
	}
	return out;
}
