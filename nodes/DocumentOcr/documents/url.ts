import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { header, systemErrorCode } from '../shared/network';
import { fileNameFromDisposition, safeFileName } from '../shared/text';
import { detectKind, formatBytes, HEAD_BYTES, MAX_BODY_BYTES } from './check';

/**
 * The "URL" document source: the file is fetched in the check phase through n8n's own HTTP
 * helper (`helpers.httpRequest`), so n8n's proxy settings and SSRF rules apply, and read as a
 * stream that stops past the body limit. Nothing is sent to the OCR service, and nothing is
 * charged, until the file has passed the same checks as any other input; every way a fetch can
 * fail is the item's error, naming the URL without its query (which may hold a token).
 */

/** How long a document URL may take to answer and send its file. */
export const FETCH_TIMEOUT_MS = 60_000;

/** Redirects followed at most (a loop ends as an error). */
const MAX_REDIRECTS = 5;

const NOTHING_CHARGED = 'Nothing was sent to the OCR service or charged.';

interface Fetched {
	bytes: Buffer;
	/** From Content-Disposition, else the URL's last path segment ('' when neither gives one). */
	fileName: string;
}

interface StreamedResponse {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, unknown>;
	body: AsyncIterable<Buffer | string> & { destroy?: () => void };
}

/** The URL as it may appear in a message: scheme, host and path, without credentials or query. */
function shown(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}`;
}

function failure(ctx: IExecuteFunctions, itemIndex: number, message: string, description: string) {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: ${message}`, {
		description: `${description} ${NOTHING_CHARGED}`,
		itemIndex,
	});
}

function parseUrl(ctx: IExecuteFunctions, itemIndex: number, raw: unknown): URL {
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (text === '') {
		throw failure(ctx, itemIndex, 'no document URL', 'The "Document URL" field is empty.');
	}
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		throw failure(
			ctx,
			itemIndex,
			'the document URL is not an http(s) address',
			'Enter the full address of the file, starting with https:// (a direct download link).',
		);
	}
	return url;
}

/** Why a request for the file got no answer, in words, with what to do. */
function whyUnreachable(error: unknown): { why: string; advice: string } {
	const code = systemErrorCode(error);
	const text = `${(error as Error)?.name ?? ''} ${(error as Error)?.message ?? ''}`;
	if (/ssrf|blocked/i.test(text))
		return {
			why: "n8n's SSRF protection blocks this address",
			advice:
				'Ask the n8n administrator to allow the host (N8N_SSRF_ALLOWED_HOSTNAMES), or use a public address.',
		};
	if (code === 'ERR_FR_TOO_MANY_REDIRECTS' || /redirect/i.test(text))
		return {
			why: `it redirected more than ${MAX_REDIRECTS} times (a redirect loop?)`,
			advice: 'Open the URL in a browser to find the address of the file itself.',
		};
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || /timeout/i.test(text))
		return {
			why: `no file within ${FETCH_TIMEOUT_MS / 1000} seconds`,
			advice: 'Check that the server is up, or download the file with an HTTP Request node first.',
		};
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return { why: 'the host name is unknown', advice: 'Check the address for typos.' };
	return {
		why: code ?? 'the connection failed',
		advice: 'Check that the address is reachable from the n8n server.',
	};
}

async function request(ctx: IExecuteFunctions, itemIndex: number, url: URL) {
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: url.href,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: FETCH_TIMEOUT_MS,
		maxRedirects: MAX_REDIRECTS,
		headers: { Accept: 'application/pdf, image/*;q=0.9, */*;q=0.5' },
	};
	try {
		return (await ctx.helpers.httpRequest(options)) as StreamedResponse;
	} catch (error) {
		const { why, advice } = whyUnreachable(error);
		throw failure(
			ctx,
			itemIndex,
			`the document could not be fetched from ${shown(url)}: ${why}`,
			advice,
		);
	}
}

/** Reads the body up to the limit; undefined when it goes past it (reading stops there). */
async function readBounded(body: StreamedResponse['body']): Promise<Buffer | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of body) {
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
			size += buffer.length;
			if (size > MAX_BODY_BYTES) return undefined;
			chunks.push(buffer);
		}
	} finally {
		body.destroy?.();
	}
	return Buffer.concat(chunks, size);
}

/** The file's name: Content-Disposition first, else the last segment of the URL's path. */
function nameOf(url: URL, headers: Record<string, unknown>): string {
	const disposed = fileNameFromDisposition(header(headers, 'content-disposition') ?? '');
	if (disposed) return safeFileName(disposed);
	const last = url.pathname.split('/').pop() ?? '';
	try {
		return safeFileName(decodeURIComponent(last));
	} catch {
		return safeFileName(last);
	}
}

/**
 * Fetches the document at the item's "Document URL": the bytes and a file name, or an item error
 * (not found, a web page, too large, unreachable) — in every case before anything is billed.
 */
export async function fetchDocument(
	ctx: IExecuteFunctions,
	itemIndex: number,
	rawUrl: unknown,
): Promise<Fetched> {
	const url = parseUrl(ctx, itemIndex, rawUrl);
	const response = await request(ctx, itemIndex, url);
	const { statusCode, headers } = response;
	if (statusCode < 200 || statusCode >= 300) {
		response.body.destroy?.();
		const status = `HTTP ${statusCode}${response.statusMessage ? ` (${response.statusMessage})` : ''}`;
		throw failure(
			ctx,
			itemIndex,
			`the document URL ${shown(url)} answered ${status}`,
			statusCode === 401 || statusCode === 403
				? 'The server wants to be signed in to: download the file with an HTTP Request node (with its credential) and pass it as a binary file.'
				: 'Check the address: it should lead to the file itself.',
		);
	}
	const declared = Number(header(headers, 'content-length') ?? '');
	const bytes = declared > MAX_BODY_BYTES ? undefined : await readBounded(response.body);
	if (!bytes) {
		response.body.destroy?.();
		const size = declared > MAX_BODY_BYTES ? `${formatBytes(declared)}, over` : 'over';
		throw failure(
			ctx,
			itemIndex,
			`the document at ${shown(url)} is ${size} the service's ${formatBytes(MAX_BODY_BYTES)} limit`,
			'Compress the file or split it into smaller documents (reading stopped at the limit).',
		);
	}
	const type = (header(headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (
		(type === 'text/html' || type === 'application/xhtml+xml') &&
		!detectKind(bytes.subarray(0, HEAD_BYTES))
	) {
		throw failure(
			ctx,
			itemIndex,
			`${shown(url)} is a web page (${type}), not a PDF or image`,
			'Link to the file itself: a direct download link, not the page that shows it.',
		);
	}
	return { bytes, fileName: nameOf(url, headers) };
}
