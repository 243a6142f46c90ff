/**
 * A minimal n8n execution context for running the action node's router in-process: node
 * parameters, input items and a credential, with the one HTTP seam — the helper
 * `httpRequestWithAuthentication` — replaced by a recorder that answers from a list. Everything
 * between the operation and that helper (path building, surfaces, body streaming, retries, the
 * answer readers) runs as it ships. No server, no engine, no dist/.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';

import { router } from '../../../nodes/DocumentOcr/actions/router';

export const BASE_URL = 'https://base.ocr.test';
export const API_URL = 'https://v1.ocr.test';

/** One answer of the fake service (defaults: 200, no headers). */
export interface Answer {
	statusCode?: number;
	body?: unknown;
	headers?: Record<string, unknown>;
}

/** A request as the node handed it to n8n's HTTP helper. */
export interface Sent {
	credentialType: string;
	options: IHttpRequestOptions;
}

export interface Setup {
	/** Node parameters; `resource` and `operation` pick the operation. Same for every item. */
	params: Record<string, unknown>;
	/** Input items (default: one empty item). */
	items?: INodeExecutionData[];
	/** The credential's fields (default: both URLs set; an empty apiUrl means "same as Base URL"). */
	credentials?: IDataObject;
	/** The service's answers, in request order; a request past the end fails the test. */
	answers?: Answer[];
}

export interface Run {
	/** The node's output items, or undefined when it threw. */
	output?: INodeExecutionData[];
	error?: Error & { description?: string };
	sent: Sent[];
}

/** The n8n binary-data object prepareBinaryData makes of a buffer (kept in memory). */
function binaryOf(data: Buffer, fileName?: string, mimeType?: string) {
	return {
		data: data.toString('base64'),
		fileName,
		mimeType: mimeType ?? 'application/octet-stream',
		fileSize: String(data.length),
	};
}

function parameter(params: Record<string, unknown>, name: string, fallback: unknown) {
	let value: unknown = params;
	for (const key of name.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
	if (value !== undefined) return value;
	if (fallback !== undefined) return fallback;
	throw new Error(`Test setup: the node parameter "${name}" was read but not given`);
}

/** Runs the action node over the items, as n8n's engine calls `execute`. */
export async function runNode(setup: Setup): Promise<Run> {
	const items: INodeExecutionData[] = setup.items ?? [{ json: {} }];
	const answers = [...(setup.answers ?? [])];
	const sent: Sent[] = [];
	const staticData: IDataObject = {};
	const nodeContext: IDataObject = {};
	const node = {
		id: 'node-1',
		name: 'Document OCR',
		type: 'n8n-nodes-document-ocr.documentOcr',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const ctx = {
		getNode: () => node,
		getInputData: () => items,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			parameter(setup.params, name, fallback),
		getCredentials: async () => setup.credentials ?? { baseUrl: BASE_URL, apiUrl: API_URL },
		continueOnFail: () => false,
		getExecutionCancelSignal: () => new AbortController().signal,
		getWorkflowStaticData: () => staticData,
		// A workflow without an ID (never saved): the node's memory is this run's static data.
		getWorkflow: () => ({ active: false }),
		getContext: () => nodeContext,
		logger: { debug() {} },
		helpers: {
			httpRequestWithAuthentication: async (
				credentialType: string,
				options: IHttpRequestOptions,
			) => {
				sent.push({ credentialType, options });
				const answer = answers.shift();
				if (!answer) throw new Error(`Test setup: no answer left for ${options.url}`);
				return { statusCode: 200, headers: {}, body: '', ...answer };
			},
			getBinaryDataBuffer: async (itemIndex: number, property: string) =>
				Buffer.from(items[itemIndex].binary![property].data, 'base64'),
			prepareBinaryData: async (data: Buffer, fileName?: string, mimeType?: string) =>
				binaryOf(data, fileName, mimeType),
		},
	} as unknown as IExecuteFunctions;
	try {
		const [output] = await router.call(ctx);
		return { output, sent };
	} catch (error) {
		return { error: error as Run['error'], sent };
	}
}

/** A small complete PDF (header and end marker, as the document checks want). */
export const PDF = Buffer.from(
	'%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n',
	'latin1',
);

/** A 1 MB PDF: large enough that the node streams it rather than sending one Buffer. */
export const LARGE_PDF = Buffer.concat([
	Buffer.from('%PDF-1.4\n', 'latin1'),
	Buffer.alloc(1_000_000, ' '),
	Buffer.from('\n%%EOF\n', 'latin1'),
]);

/** An input item carrying `bytes` as the binary field `property` (n8n's in-memory form). */
export function fileItem(
	bytes: Buffer,
	fileName: string,
	mimeType = 'application/pdf',
	property = 'data',
): INodeExecutionData {
	return { json: {}, binary: { [property]: binaryOf(bytes, fileName, mimeType) } };
}

/**
 * The bytes of a request body exactly as sent: a Buffer as it is, or a streamed body (a Blob whose
 * `size` axios sends as Content-Length), which must be as long as it announces.
 */
export async function bodyBytes(options: IHttpRequestOptions): Promise<Buffer> {
	if (Buffer.isBuffer(options.body)) return options.body;
	const body = options.body as { size: number; arrayBuffer(): Promise<ArrayBuffer> };
	const bytes = Buffer.from(await body.arrayBuffer());
	if (bytes.length !== body.size) {
		throw new Error(
			`The body announces ${body.size} bytes (Content-Length) but is ${bytes.length}`,
		);
	}
	return bytes;
}

/** The Content-Type a body is sent with: its header, else a Blob's own `type` (as axios takes it). */
export function bodyType(options: IHttpRequestOptions): string {
	const header = (options.headers ?? {})['Content-Type'];
	return String(header ?? (options.body as { type?: string } | undefined)?.type);
}

/** A JSON request body, parsed from the bytes sent. */
export async function jsonBody(options: IHttpRequestOptions): Promise<IDataObject> {
	return JSON.parse((await bodyBytes(options)).toString('utf8')) as IDataObject;
}

export interface Part {
	name: string;
	fileName?: string;
	contentType?: string;
	data: Buffer;
}

/** The parts of a multipart/form-data body, in order, parsed from the bytes sent. */
export async function multipartBody(options: IHttpRequestOptions): Promise<Part[]> {
	const boundary = /boundary=(.+)$/.exec(bodyType(options))?.[1];
	if (!boundary) throw new Error(`Not a multipart body: ${bodyType(options)}`);
	const raw = (await bodyBytes(options)).toString('latin1');
	const closing = `\r\n--${boundary}--\r\n`;
	if (!raw.startsWith(`--${boundary}\r\n`) || !raw.endsWith(closing)) {
		throw new Error('The multipart body does not open and close with its boundary');
	}
	return raw
		.slice(`--${boundary}\r\n`.length, -closing.length)
		.split(`\r\n--${boundary}\r\n`)
		.map((part) => {
			const split = part.indexOf('\r\n\r\n');
			const head = part.slice(0, split);
			return {
				name: /name="([^"]*)"/.exec(head)![1],
				fileName: /filename="([^"]*)"/.exec(head)?.[1],
				contentType: /\r\nContent-Type: (.+)/i.exec(head)?.[1],
				data: Buffer.from(part.slice(split + 4), 'latin1'),
			};
		});
}
