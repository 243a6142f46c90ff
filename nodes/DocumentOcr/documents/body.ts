import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { randomBytes } from 'crypto';

import { StreamedBlob } from '../shared/blob';
import type { DocumentInput } from './read';
import { openDocument } from './read';

/**
 * Request bodies that carry a document, produced as a stream so a 10 MB file is never held as a
 * 13 MB Base64 string plus a JSON copy of it: the JSON body (`imageBase64`) and the multipart body
 * (`file`) are generated chunk by chunk from n8n's binary store, with an exact Content-Length, as
 * a StreamedBlob (shared/blob.ts) the transport sends.
 */

/** Documents in memory up to this size are sent as one Buffer rather than a stream. */
const WHOLE_BODY_BYTES = 256 * 1024;

/** The body as one Buffer (`build` from the document's bytes) for a small document in memory. */
function wholeBody(document: DocumentInput, build: (bytes: Buffer) => Buffer[]) {
	const { bytes } = document;
	return bytes && bytes.length <= WHOLE_BODY_BYTES ? () => Buffer.concat(build(bytes)) : undefined;
}

/**
 * Base64 of a byte stream, emitted as ASCII strings chunk by chunk. No chunk is copied whole:
 * the aligned middle of each is encoded in place, only the 1–2 bytes left over are carried.
 */
async function* base64Of(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
): AsyncGenerator<string> {
	let carry: Buffer = Buffer.alloc(0);
	for await (const chunk of source) {
		let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		if (carry.length > 0) {
			const need = 3 - carry.length;
			if (bytes.length < need) {
				carry = Buffer.concat([carry, bytes]);
				continue;
			}
			yield Buffer.concat([carry, bytes.subarray(0, need)]).toString('base64');
			bytes = bytes.subarray(need);
		}
		const whole = bytes.length - (bytes.length % 3);
		if (whole > 0) yield bytes.subarray(0, whole).toString('base64');
		carry = Buffer.from(bytes.subarray(whole));
	}
	if (carry.length > 0) yield carry.toString('base64');
}

async function* bytesOf(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
): AsyncGenerator<Buffer> {
	for await (const chunk of source) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
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
	const head = JSON.stringify(fields);
	const prefix = Buffer.from(
		`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(fileField)}:"`,
	);
	const suffix = Buffer.from('"}');
	const base64Length = 4 * Math.ceil(document.size / 3);
	return new StreamedBlob(
		prefix.length + base64Length + suffix.length,
		'application/json',
		async function* () {
			yield prefix;
			yield* base64Of(await openDocument(ctx, document));
			yield suffix;
		},
		wholeBody(document, (bytes) => [
			prefix,
			Buffer.from(bytes.toString('base64'), 'latin1'),
			suffix,
		]),
	);
}

/** Quotes a multipart parameter value as browsers do (", CR and LF percent-encoded). */
function quote(value: string): string {
	return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/** `multipart/form-data` with text fields and the document as the part `fileField`. */
export function multipartWithDocument(
	ctx: IExecuteFunctions,
	fields: Array<[string, string]>,
	fileField: string,
	document: DocumentInput,
): StreamedBlob {
	const boundary = `----n8nDocumentOcr${randomBytes(12).toString('hex')}`;
	const textParts = Buffer.from(
		fields
			.map(
				([name, value]) =>
					`--${boundary}\r\nContent-Disposition: form-data; name=${quote(name)}\r\n\r\n${value}\r\n`,
			)
			.join(''),
	);
	const fileHeader = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name=${quote(fileField)}; filename=${quote(document.fileName)}\r\n` +
			`Content-Type: ${document.mimeType}\r\n\r\n`,
	);
	const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
	const size = textParts.length + fileHeader.length + document.size + closing.length;
	return new StreamedBlob(
		size,
		`multipart/form-data; boundary=${boundary}`,
		async function* () {
			yield textParts;
			yield fileHeader;
			yield* bytesOf(await openDocument(ctx, document));
			yield closing;
		},
		wholeBody(document, (bytes) => [textParts, fileHeader, bytes, closing]),
	);
}
