import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { randomBytes } from 'crypto';

import { StreamedBlob } from '../shared/blob';
import type { DocumentInput } from './document';
import { openDocument } from './document';

/**
 * Request bodies that carry a document, produced as a stream so a 10 MB file is never held as a
 * 13 MB Base64 string plus a JSON copy of it: the JSON body (`imageBase64`) and the multipart body
 * (`file`) are generated chunk by chunk from n8n's binary store, with an exact Content-Length, as
 * a StreamedBlob (shared/blob.ts) the transport sends.
 *
 * A body is made in the check phase and waits until its item is sent, the bodies of every item of
 * the run at once: it holds no Buffer, only what the text around the file is made from, encoded
 * when the body is streamed. (Small Buffers come from Node's shared 8 kB pool, and one held Buffer
 * keeps its whole slab alive.)
 */

/** Documents in memory up to this size are sent as one Buffer rather than a stream. */
const WHOLE_BODY_BYTES = 256 * 1024;

/** The body as one Buffer (`build` from the document's bytes) for a small document in memory. */
function wholeBody(document: DocumentInput, build: (bytes: Buffer) => Buffer[]) {
	const { bytes } = document;
	if (bytes.in !== 'memory' || bytes.bytes.length > WHOLE_BODY_BYTES) return undefined;
	return () => Buffer.concat(build(bytes.bytes));
}

/**
 * Base64 of a byte stream, emitted as ASCII strings chunk by chunk. No chunk is copied whole:
 * the aligned middle of each is encoded in place, only the 1–2 bytes left over are carried.
 */
async function* base64Of(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
): AsyncGenerator<string> {
	let carry: Buffer = Buffer.alloc(0);
	for await (const chunk of slices(source)) {
		let bytes = chunk;
		if (carry.length > 0) {
			const need = 3 - carry.length;
			if (bytes.length < need) {
				carry = Buffer.concat([carry, bytes]);
				continue;
			}
			yield Buffer.concat([carry, bytes.subarray(0, need)]).toString('base64');
			bytes = bytes.subarray(need);
		}
		const triplets = bytes.length - (bytes.length % 3);
		if (triplets > 0) yield bytes.subarray(0, triplets).toString('base64');
		carry = Buffer.from(bytes.subarray(triplets));
	}
	if (carry.length > 0) yield carry.toString('base64');
}

async function* bytesOf(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
): AsyncGenerator<Buffer> {
	yield* slices(source);
}

/** The most bytes handed on at once: a document held as one buffer is streamed in pieces. */
const SLICE_BYTES = 64 * 1024;

/**
 * The chunks of a source as Buffers of at most SLICE_BYTES (views, not copies): a document kept
 * whole is encoded and sent piece by piece, never as one 10 MB string.
 */
async function* slices(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
): AsyncGenerator<Buffer> {
	for await (const chunk of source) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		for (let at = 0; at < bytes.length; at += SLICE_BYTES)
			yield bytes.subarray(at, at + SLICE_BYTES);
	}
}

/** The JSON text before and after the document's Base64 in a JSON body. */
function jsonAround(fields: IDataObject, fileField: string): { prefix: string; suffix: string } {
	const head = JSON.stringify(fields);
	const prefix = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(fileField)}:"`;
	return { prefix, suffix: '"}' };
}

/** The size of jsonWithDocument's body for a file of `fileSize` bytes. */
export function jsonBodySize(fields: IDataObject, fileField: string): (fileSize: number) => number {
	const { prefix, suffix } = jsonAround(fields, fileField);
	const text = Buffer.byteLength(prefix) + suffix.length;
	return (fileSize) => text + 4 * Math.ceil(fileSize / 3);
}

/**
 * `{ ...fields, "<fileField>": "<Base64 of the document>" }` as a stream. The document's field is
 * written last so the other fields can be serialised by JSON.stringify.
 */
export function jsonWithDocument(
	ctx: IExecuteFunctions,
	fields: IDataObject,
	fileField: string,
	document: DocumentInput,
): StreamedBlob {
	const { prefix, suffix } = jsonAround(fields, fileField);
	return new StreamedBlob(
		jsonBodySize(fields, fileField)(document.size),
		'application/json',
		async function* () {
			yield Buffer.from(prefix);
			yield* base64Of(await openDocument(ctx, document));
			yield Buffer.from(suffix);
		},
		wholeBody(document, (bytes) => [
			Buffer.from(prefix),
			Buffer.from(bytes.toString('base64'), 'latin1'),
			Buffer.from(suffix),
		]),
	);
}

/** Quotes a multipart parameter value as browsers do (", CR and LF percent-encoded). */
function quote(value: string): string {
	return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/**
 * The text of a multipart body before the file (the text parts and the file part's header) and
 * after it (the closing boundary), made again each time the body is streamed rather than held.
 */
function around(
	boundary: string,
	fields: Array<[string, string]>,
	fileField: string,
	document: Pick<DocumentInput, 'fileName' | 'mimeType'>,
): { before: string; after: string } {
	const textParts = fields
		.map(
			([name, value]) =>
				`--${boundary}\r\nContent-Disposition: form-data; name=${quote(name)}\r\n\r\n${value}\r\n`,
		)
		.join('');
	const fileHeader =
		`--${boundary}\r\nContent-Disposition: form-data; name=${quote(fileField)}; filename=${quote(document.fileName)}\r\n` +
		`Content-Type: ${document.mimeType}\r\n\r\n`;
	return { before: textParts + fileHeader, after: `\r\n--${boundary}--\r\n` };
}

/** A new multipart boundary (its length is always the same: multipartBodySize relies on it). */
const newBoundary = () => `----n8nDocumentOcr${randomBytes(12).toString('hex')}`;

/** The size of multipartWithDocument's body for a file of `fileSize` bytes named as `named`. */
export function multipartBodySize(
	fields: Array<[string, string]>,
	fileField: string,
	named: Pick<DocumentInput, 'fileName' | 'mimeType'>,
): (fileSize: number) => number {
	const { before, after } = around(newBoundary(), fields, fileField, named);
	const text = Buffer.byteLength(before) + Buffer.byteLength(after);
	return (fileSize) => text + fileSize;
}

/** `multipart/form-data` with text fields and the document as the part `fileField`. */
export function multipartWithDocument(
	ctx: IExecuteFunctions,
	fields: Array<[string, string]>,
	fileField: string,
	document: DocumentInput,
): StreamedBlob {
	const boundary = newBoundary();
	const { before, after } = around(boundary, fields, fileField, document);
	const size = Buffer.byteLength(before) + document.size + Buffer.byteLength(after);
	return new StreamedBlob(
		size,
		`multipart/form-data; boundary=${boundary}`,
		async function* () {
			const text = around(boundary, fields, fileField, document);
			yield Buffer.from(text.before);
			yield* bytesOf(await openDocument(ctx, document));
			yield Buffer.from(text.after);
		},
		wholeBody(document, (bytes) => {
			const text = around(boundary, fields, fileField, document);
			return [Buffer.from(text.before), bytes, Buffer.from(text.after)];
		}),
	);
}
