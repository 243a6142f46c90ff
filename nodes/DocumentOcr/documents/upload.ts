import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { StreamedBlob } from '../shared/blob';
import { jsonWithDocument, multipartWithDocument } from './body';
import type { DocumentReads } from './kept';
import { formatBytes, MAX_BODY_BYTES, V1_KINDS } from './check';
import type { DocumentInput } from './read';
import { readDocument } from './read';

/**
 * An item's document read, checked and encoded as the request body that will carry it, in the
 * check phase: what each submitting operation sends, measured before anything is sent.
 */

/**
 * The request body exactly as it will be sent, against the service's 10 MB limit — before
 * sending, so that a submission the service would refuse with 413 costs nothing. A JSON body
 * carries the file as Base64 (4/3 of its size), so a file of 7.5–10 MB fits the limit only as
 * multipart (the /v1 operations).
 */
export function checkBodySize(
	ctx: IExecuteFunctions,
	itemIndex: number,
	body: StreamedBlob,
	document: DocumentInput,
	target: string,
): StreamedBlob {
	if (body.size <= MAX_BODY_BYTES) return body;
	const json = body.type === 'application/json';
	throw new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: the request to ${target} would be ${formatBytes(body.size)}, over the service's ${formatBytes(MAX_BODY_BYTES)} limit (the file is ${formatBytes(document.size)}${json ? ', sent as Base64' : ''})`,
		{
			description: json
				? `Nothing was sent or charged. ${target} takes the file as Base64 inside JSON, which makes it a third larger: files up to about ${formatBytes(Math.floor(((MAX_BODY_BYTES - 1000) * 3) / 4))} fit. The Document operations (Convert to Markdown, Recognize, Extract) and Job → Create send the file as it is (multipart) and take files up to about ${formatBytes(MAX_BODY_BYTES - 1000)}; or split the PDF into smaller documents.`
				: 'Nothing was sent or charged. Split the PDF into smaller documents, or compress the file.',
			itemIndex,
		},
	);
}

/**
 * A `/v1` upload of the item's document (PDF, PNG, JPEG or WEBP) as the multipart part `file`
 * beside `fields`, checked — type, size of the body as sent — before anything is sent; with
 * `pages` (the Pages option) only the selected pages (./select.ts).
 */
export async function v1Upload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	endpoint: string,
	fields: Array<[string, string]> = [],
	pages?: string,
): Promise<{ document: DocumentInput; body: StreamedBlob }> {
	const accepts = { accept: V1_KINDS, target: 'the /v1 API' };
	const document = await readDocument(ctx, itemIndex, accepts, reads, pages);
	const body = multipartWithDocument(ctx, fields, 'file', document);
	return { document, body: checkBodySize(ctx, itemIndex, body, document, `/v1/${endpoint}`) };
}

/**
 * The JSON body of a task API submission (`/api/ocr`, `/api/v2/ocr`): `fields` and the document
 * as `imageBase64`, checked against the body limit before anything is sent.
 */
export function taskBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	path: string[],
	fields: IDataObject,
	document: DocumentInput,
): StreamedBlob {
	const body = jsonWithDocument(ctx, fields, 'imageBase64', document);
	return checkBodySize(ctx, itemIndex, body, document, `/${path.join('/')}`);
}
