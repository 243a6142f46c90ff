import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ReadDeadline } from '../shared/deadline';
import { header, inWords, systemErrorCode } from '../shared/network';
import { fileNameFromDisposition, safeFileName } from '../shared/text';
import { detectKind, formatBytes, MAX_BODY_BYTES, tooLarge } from './check';
import { DocumentScan } from './scan';

/**
 * The "URL" document source. The file is fetched through n8n's own HTTP helper
 * (`helpers.httpRequest`), so n8n's proxy settings and SSRF rules apply, always as a stream and
 * always within a deadline on the file server: the time spent waiting for its answer and for each
 * next part of the file (see URL_FETCH).
 *
 * In the check phase the file is read once and learnt (size, type, end marker, SHA-256) without
 * being held, except a small one the execution keeps (documents/kept.ts). When it is sent, it is fetched
 * again and streamed into the request while it is compared with what was checked: the last
 * chunk is held back until the whole file is known to be the same, so a file that changed, or a
 * second fetch that fails, cuts the request off before its end and the service creates and
 * charges nothing. Memory therefore stays near a few chunks per upload in flight, whatever the
 * number of items.
 *
 * Every way a fetch can fail is the item's error, naming the URL without its query (which may
 * hold a token) and saying that nothing was charged.
 */

/**
 * How long a fetch may wait on the file server in all — for its headers, then for each next chunk
 * of the file — read at every fetch. Time the node holds a chunk does not count: when the file is
 * sent, each chunk goes into the upload to the OCR service and the next is read only once the
 * upload has taken it, so a slow upload would otherwise be blamed on the file server (the upload
 * has its own deadline, the transport's). A server that stalls or drips reaches it all the same.
 * The engine-tier tests shorten it (a drip or a stall then costs them seconds, not a minute each).
 */
export const URL_FETCH = { timeoutMs: 60_000 };

/** Redirects followed at most (a loop ends as an error). */
const MAX_REDIRECTS = 5;

/** When a fetch happens, for messages, and what its failure costs. */
interface Phase {
	/** '' in the check phase; words placed after "fetched" / "read" when the file is sent. */
	when: string;
	charged: string;
}

const CHECKING: Phase = { when: '', charged: 'Nothing was sent to the OCR service or charged.' };

const SENDING: Phase = {
	when: 'again to be sent',
	charged:
		'The request to the OCR service was cut off before its end, so it created and charged nothing.',
};

/** What the check phase learnt of a URL's file. */
export interface FetchedDocument {
	url: URL;
	size: number;
	head: Buffer;
	tail: Buffer;
	digest: string;
	/** The whole file, when `keep` allowed it (a small one). */
	bytes?: Buffer;
	/** From Content-Disposition, else the URL's last path segment ('' when neither gives one). */
	fileName: string;
}

interface StreamedResponse {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, unknown>;
	body: AsyncIterable<Buffer | string> & { destroy?: () => void };
}

function whenFetched(phase: Phase): string {
	return phase.when ? ` when fetched ${phase.when}` : '';
}

/** The URL as it may appear in a message: scheme, host and path, without credentials or query. */
function shown(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}`;
}

function failure(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
	phase: Phase = CHECKING,
) {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: ${message}`, {
		description: `${description} ${phase.charged}`,
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

const SLOW = {
	advice: 'Check that the server is up, or download the file with an HTTP Request node first.',
};

/** Why a request for the file got no answer, in words, with what to do. */
function whyUnreachable(error: unknown, deadline: ReadDeadline): { why: string; advice: string } {
	if (deadline.expired) return { why: `no file within ${deadline.ms / 1000} seconds`, ...SLOW };
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
		return { why: `no file within ${deadline.ms / 1000} seconds`, ...SLOW };
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return { why: 'the host name is unknown', advice: 'Check the address for typos.' };
	return {
		why: inWords(code),
		advice: 'Check that the address is reachable from the n8n server.',
	};
}

function cancelled(ctx: IExecuteFunctions, itemIndex: number) {
	return new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });
}

/** One fetch of the file: its answer, an error naming the URL, or the cancel. */
async function request(
	ctx: IExecuteFunctions,
	itemIndex: number,
	url: URL,
	deadline: ReadDeadline,
	phase: Phase,
) {
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: url.href,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// No timeout of the HTTP client's own: its timer is an idle-socket timeout once the headers
		// are in, which fires while the node holds a chunk (the socket is not read then). The
		// deadline's signal ends the request and the body instead.
		timeout: 0,
		abortSignal: deadline.signal,
		maxRedirects: MAX_REDIRECTS,
		headers: { Accept: 'application/pdf, image/*;q=0.9, */*;q=0.5' },
	};
	let response: StreamedResponse;
	try {
		response = (await ctx.helpers.httpRequest(options)) as StreamedResponse;
	} catch (error) {
		if (ctx.getExecutionCancelSignal()?.aborted) throw cancelled(ctx, itemIndex);
		const { why, advice } = whyUnreachable(error, deadline);
		const when = phase.when ? ` ${phase.when}` : '';
		throw failure(
			ctx,
			itemIndex,
			`the document could not be fetched${when} from ${shown(url)}: ${why}`,
			advice,
			phase,
		);
	}
	const { statusCode } = response;
	if (statusCode < 200 || statusCode >= 300) {
		response.body.destroy?.();
		const status = `HTTP ${statusCode}${response.statusMessage ? ` (${response.statusMessage})` : ''}`;
		throw failure(
			ctx,
			itemIndex,
			`the document URL ${shown(url)} answered ${status}${whenFetched(phase)}`,
			statusCode === 401 || statusCode === 403
				? 'The server wants to be signed in to: download the file with an HTTP Request node (with its credential) and pass it as a binary file.'
				: 'Check the address: it should lead to the file itself.',
			phase,
		);
	}
	return response;
}

/**
 * The body's chunks within the deadline, whose clock runs only while the next chunk is awaited
 * (not while the reader holds one). A body that stalls, drips past the deadline or breaks off is
 * the item's error, with how much arrived. Stopping early (a `break` in the reader) closes the
 * connection.
 */
async function* bodyChunks(
	ctx: IExecuteFunctions,
	itemIndex: number,
	url: URL,
	response: StreamedResponse,
	deadline: ReadDeadline,
	phase: Phase,
): AsyncGenerator<Buffer> {
	let received = 0;
	try {
		for await (const chunk of response.body) {
			deadline.pause();
			if (deadline.expired) break;
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
			received += buffer.length;
			yield buffer;
			deadline.resume();
		}
	} catch (error) {
		if (ctx.getExecutionCancelSignal()?.aborted) throw cancelled(ctx, itemIndex);
		if (deadline.expired) throw late(ctx, itemIndex, url, received, deadline, phase);
		const why = inWords(systemErrorCode(error));
		throw failure(
			ctx,
			itemIndex,
			`the document at ${shown(url)} could not be read${whenFetched(phase)}: the connection broke after ${formatBytes(received)} (${why})`,
			'The file server closed the connection while sending the file. Try again, or download the file with an HTTP Request node first.',
			phase,
		);
	} finally {
		response.body.destroy?.();
	}
	if (ctx.getExecutionCancelSignal()?.aborted) throw cancelled(ctx, itemIndex);
	if (deadline.expired) throw late(ctx, itemIndex, url, received, deadline, phase);
}

function late(
	ctx: IExecuteFunctions,
	itemIndex: number,
	url: URL,
	received: number,
	deadline: ReadDeadline,
	phase: Phase,
) {
	return failure(
		ctx,
		itemIndex,
		`the document at ${shown(url)} did not arrive within ${deadline.ms / 1000} seconds${whenFetched(phase)} (${formatBytes(received)} received)`,
		`The node waited on the file server (its answer and each next part of the file) for ${deadline.ms / 1000} seconds in all. ${SLOW.advice}`,
		phase,
	);
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

function overLimit(
	ctx: IExecuteFunctions,
	itemIndex: number,
	url: URL,
	declared: number,
	maxBytes: number,
) {
	const size = declared > maxBytes ? `${formatBytes(declared)}, ` : '';
	const { problem, description } = tooLarge(declared, maxBytes);
	const what = problem.slice(problem.indexOf('over '));
	return failure(
		ctx,
		itemIndex,
		`the document at ${shown(url)} is ${size}${what}`,
		`${description.replace(/ Nothing was sent or charged\.$/, '')} (Reading stopped at the limit.)`,
	);
}

/**
 * Fetches the document at the item's "Document URL" in the check phase and learns it (see
 * DocumentScan); `keep` says whether a file of a given size may stay in memory. Every failure
 * (not found, a web page, too large, too slow, broken off, unreachable) is the item's error,
 * before anything is billed.
 */
export async function fetchDocument(
	ctx: IExecuteFunctions,
	itemIndex: number,
	rawUrl: unknown,
	keep: (size: number) => boolean,
	maxBytes = MAX_BODY_BYTES,
): Promise<FetchedDocument> {
	const url = parseUrl(ctx, itemIndex, rawUrl);
	const deadline = new ReadDeadline(URL_FETCH.timeoutMs, ctx.getExecutionCancelSignal());
	try {
		const response = await request(ctx, itemIndex, url, deadline, CHECKING);
		const { headers } = response;
		const declared = Number(header(headers, 'content-length') ?? '');
		if (declared > maxBytes) {
			response.body.destroy?.();
			throw overLimit(ctx, itemIndex, url, declared, maxBytes);
		}
		const scan = new DocumentScan(keep, maxBytes);
		for await (const chunk of bodyChunks(ctx, itemIndex, url, response, deadline, CHECKING)) {
			if (!scan.add(chunk)) break;
		}
		if (scan.size > maxBytes) throw overLimit(ctx, itemIndex, url, 0, maxBytes);
		const type = (header(headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
		if ((type === 'text/html' || type === 'application/xhtml+xml') && !detectKind(scan.head)) {
			throw failure(
				ctx,
				itemIndex,
				`${shown(url)} is a web page (${type}), not a PDF or image`,
				'Link to the file itself: a direct download link, not the page that shows it.',
			);
		}
		const kept = scan.kept();
		return {
			url,
			size: scan.size,
			head: scan.head,
			tail: scan.tail,
			digest: scan.digest(),
			bytes: kept && Buffer.concat(kept, scan.size),
			fileName: nameOf(url, headers),
		};
	} finally {
		deadline.end();
	}
}

/**
 * The file fetched again when it is sent, as chunks for the request body: the same bytes the
 * check phase learnt (`size`, `digest`), or an error thrown before the body's last chunk (see
 * the file comment). Each call fetches anew, so a retried request reads the file again.
 */
export async function* refetchDocument(
	ctx: IExecuteFunctions,
	itemIndex: number,
	document: Pick<FetchedDocument, 'url' | 'size' | 'digest'>,
): AsyncGenerator<Buffer> {
	const { url, size } = document;
	const changed = () =>
		failure(
			ctx,
			itemIndex,
			`the document at ${shown(url)} changed after it was checked`,
			`It was ${formatBytes(size)} when the node checked it and is different now. Run the node again once the file stays the same.`,
			SENDING,
		);
	const deadline = new ReadDeadline(URL_FETCH.timeoutMs, ctx.getExecutionCancelSignal());
	try {
		const response = await request(ctx, itemIndex, url, deadline, SENDING);
		const scan = new DocumentScan(() => false, Math.max(size, MAX_BODY_BYTES));
		let held: Buffer | undefined;
		for await (const chunk of bodyChunks(ctx, itemIndex, url, response, deadline, SENDING)) {
			if (!scan.add(chunk) || scan.size > size) throw changed();
			if (held) yield held;
			held = chunk;
		}
		if (scan.size !== size || scan.digest() !== document.digest) throw changed();
		if (held) yield held;
	} finally {
		deadline.end();
	}
}
