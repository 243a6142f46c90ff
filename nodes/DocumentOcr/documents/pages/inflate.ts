/**
 * The bytes of a cross-reference or object stream: stored without a filter, or FlateDecode
 * inflated (flate.ts), then undone of its PNG predictor (/DecodeParms /Predictor 10-15). The
 * inflated bytes are capped: a stream that would inflate past its share of the budget stops
 * there and the count is unknown; the cap of one stream is a share of the file's size, since it
 * is held in memory whole.
 */
import { FlateError, inflateZlib } from './flate';
import type { PdfValue } from './parser';
import { isDict, isRef, nameOf } from './parser';
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
	const data = inflate(raw, what, work, Fail);
	return isDict(params) ? await unpredict(data, params.dict, what, work, Fail) : data;
}

function inflate(raw: Buffer, what: string, work: Work, Fail: Failure): Buffer {
	if (--work.streams < 0)
		throw new Unknown(`more than ${PAGE_LIMITS.maxInflatedStreams} compressed streams to inflate`);
	const cap = Math.min(work.stream, work.inflated);
	let data: Uint8Array | null = null;
	let failure: string | undefined;
	try {
		data = inflateZlib(raw, cap);
	} catch (error) {
		failure = error instanceof FlateError ? error.message : String(error);
	}
	if (failure !== undefined)
		throw new Fail(`the ${what} is not valid FlateDecode data (${failure})`);
	if (data === null)
		throw new Unknown(
			cap === PAGE_LIMITS.maxInflatedStream
				? `the ${what} inflates to more than ${PAGE_LIMITS.maxInflatedStream} bytes`
				: cap === work.stream
					? `the ${what} inflates to more than ${cap} bytes, more than a file of this size may hold in memory`
					: 'the compressed streams inflate to more bytes than a file of this size allows',
		);
	work.inflated -= data.length;
	work.charge(raw.length + data.length);
	// The output grows by doubling: a buffer much larger than its bytes is copied to their size,
	// so an object stream kept for later reads holds no more than it uses.
	if (data.buffer.byteLength - data.length > (data.length >> 3) + 4096) {
		const exact = Buffer.allocUnsafe(data.length);
		exact.set(data);
		return exact;
	}
	return Buffer.from(data.buffer, data.byteOffset, data.length);
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
