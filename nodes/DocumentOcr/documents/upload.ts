import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { StreamedBlob } from '../shared/blob';
import { jsonBodySize, jsonWithDocument, multipartBodySize, multipartWithDocument } from './body';
import type { Accepts } from './check';
import { formatBytes, MAX_BODY_BYTES, SPLIT_OPTION, V1_KINDS } from './check';
import type { DocumentReads } from './kept';
import type { DocumentInput, Named } from './document';
import { readDocument } from './read';
import { pageSelectionOf } from './select';
import { splitsLarge } from './split';

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
				? `Nothing was sent or charged. ${target} takes the file as Base64 inside JSON, which makes it a third larger: files up to about ${formatBytes(Math.floor(((MAX_BODY_BYTES - 1000) * 3) / 4))} fit. Turn on ${SPLIT_OPTION} to send a PDF or multi-page TIFF in parts that each fit; or use the Document operations (Convert to Markdown, Recognize, Extract) or Job → Create, which send the file as it is (multipart) and take files up to about ${formatBytes(MAX_BODY_BYTES - 1000)}.`
				: `Nothing was sent or charged. Turn on ${SPLIT_OPTION} to send a PDF or multi-page TIFF in parts that each fit, or compress the file.`,
			itemIndex,
		},
	);
}

/** A request body and the document (or part of it) it carries. */
export interface Send {
	document: DocumentInput;
	body: StreamedBlob;
}

/**
 * What an item sends: its document and the bodies that carry it — one, or with Split Large
 * Documents one per part (`document.parts`), each checked against the body limit.
 */
export interface Upload {
	document: DocumentInput;
	sends: Send[];
}

/** What an item asks of its document: its Pages (./select.ts), and Split Large Documents (./split.ts). */
interface DocumentChoice {
	pages?: string;
	split: boolean;
}

/** The item's Pages and Split Large Documents options. */
function documentChoiceOf(ctx: IExecuteFunctions, itemIndex: number): DocumentChoice {
	return { pages: pageSelectionOf(ctx, itemIndex), split: splitsLarge(ctx, itemIndex) };
}

/**
 * A `/v1` upload of the item's document (PDF, PNG, JPEG or WEBP) as the multipart part `file`
 * beside `fields`, checked — type, size of the body as sent — before anything is sent; with
 * the item's Pages option only the selected pages (./select.ts), with Split Large Documents in
 * parts that each fit (./split.ts).
 */
export async function v1Upload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	endpoint: string,
	fields: Array<[string, string]>,
): Promise<Upload> {
	const choice = documentChoiceOf(ctx, itemIndex);
	const accepts = { accept: V1_KINDS, target: 'the /v1 API' };
	const sizes = (named: Named) => multipartBodySize(fields, 'file', named);
	const document = await readDocument(ctx, itemIndex, accepts, reads, {
		pages: choice.pages,
		split: choice.split ? sizes : undefined,
	});
	const sends = (document.parts ?? [document]).map((sent) => {
		const body = multipartWithDocument(ctx, fields, 'file', sent);
		return { document: sent, body: checkBodySize(ctx, itemIndex, body, sent, `/v1/${endpoint}`) };
	});
	return { document, sends };
}

/**
 * A task API submission (`/api/ocr`, `/api/v2/ocr`) of the item's document: the JSON body of
 * `fields` (made from the file name sent) with the document as `imageBase64`, checked against the
 * body limit before anything is sent; Pages and Split Large Documents as for v1Upload.
 */
export async function taskUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	request: { path: string[]; accepts: Accepts; fields: (fileName: string) => IDataObject },
): Promise<Upload> {
	const choice = documentChoiceOf(ctx, itemIndex);
	const { path, accepts, fields } = request;
	const sizes = (named: Named) => jsonBodySize(fields(named.fileName), 'imageBase64');
	const document = await readDocument(ctx, itemIndex, accepts, reads, {
		pages: choice.pages,
		split: choice.split ? sizes : undefined,
	});
	const sends = (document.parts ?? [document]).map((sent) => {
		const body = jsonWithDocument(ctx, fields(sent.fileName), 'imageBase64', sent);
		return {
			document: sent,
			body: checkBodySize(ctx, itemIndex, body, sent, `/${path.join('/')}`),
		};
	});
	return { document, sends };
}

/**
 * The parts a document needs, by surface: a number (1: it fits), or null with why it cannot be
 * split (`partsNeededNote`), and null on /v1 for a type /v1 does not take.
 */
export interface PartsNeeded {
	/** Task → Submit and Submit (V2): the file as Base64 inside JSON. */
	taskApi: number | null;
	/** The Document operations and Job → Create: the file as it is (multipart). */
	v1Api: number | null;
}

/**
 * Count Pages: the item's document read (up to what Split Large Documents reads) and counted,
 * and the parts it would need on each surface, planned as Split Large Documents would — for a
 * Task → Submit with its default settings and for a /v1 upload without fields — from one reading
 * of the file; a document that cannot be split is counted all the same (`notes` say why).
 */
export async function countUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	accepts: Accepts,
): Promise<{ document: DocumentInput; parts: PartsNeeded; notes: string[] }> {
	const taskFields = (filename: string) => ({
		filename,
		provider: 'provider-async',
		documentType: 'general',
	});
	const document = await readDocument(ctx, itemIndex, accepts, reads, {
		plans: [
			(named) => jsonBodySize(taskFields(named.fileName), 'imageBase64'),
			(named) => multipartBodySize([], 'file', named),
		],
	});
	const [task, v1] = document.partsPlanned!;
	const notes: string[] = [];
	const asNumber = (planned: number | { problem: string }) => {
		if (typeof planned === 'number') return planned;
		if (!notes.includes(planned.problem)) notes.push(planned.problem);
		return null;
	};
	const taskApi = asNumber(task);
	const v1Api = V1_KINDS.includes(document.kind) ? asNumber(v1) : null;
	return { document, parts: { taskApi, v1Api }, notes };
}
