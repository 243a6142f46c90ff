import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isObject } from '../shared/object';
import { inWords } from '../shared/network';
import { neverSent } from './retry';
import { redact } from './secrets';

/**
 * The one place that turns what the service answered into an error a user can act on: the error
 * body read in every shape, the advice for each code, and the errors of requests that got no
 * answer. Secrets are taken out of every message by ./secrets.ts.
 *
 * The spec names the error codes but not the body shape, so every plausible shape is read:
 *   {"error": "code", "message": "..."}      {"error": {"code": "...", "message": "..."}}
 *   {"code": "...", "message": "..."}        {"errors": [{"code": "...", "message": "..."}]}
 *   RFC 7807 {"type", "title", "detail"}     plain text ("code: message", or any text / HTML page)
 */

export interface ServiceErrorInfo {
	/** Service error code (`invalid_api_key`, ...) or undefined when none could be read. */
	code?: string;
	/** The service's own message, trimmed and shortened; never HTML. */
	serviceMessage?: string;
}

export interface ErrorContext {
	itemIndex: number;
	/** Scope the failed endpoint needs, named in insufficient_scope errors. */
	scope?: string;
	/** What was addressed, e.g. `Task "tsk_1"`, used in not-found messages. */
	subject?: string;
	/** True for requests that create something billable (submissions). */
	submission?: boolean;
	/** Retries already made before giving up. */
	retries?: number;
	/** Secrets that must never appear in an error (the API key). */
	secrets?: string[];
}

interface Advice {
	message: string;
	description: string;
}

const MAX_SERVICE_MESSAGE = 300;

function str(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function shorten(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > MAX_SERVICE_MESSAGE ? `${flat.slice(0, MAX_SERVICE_MESSAGE)}…` : flat;
}

function fromObject(body: Record<string, unknown>): ServiceErrorInfo {
	const error = body.error;
	if (isObject(error)) {
		return {
			code: str(error.code) ?? str(error.type),
			serviceMessage: str(error.message) ?? str(body.message),
		};
	}
	if (Array.isArray(body.errors) && isObject(body.errors[0])) {
		const first = body.errors[0];
		return { code: str(first.code), serviceMessage: str(first.message) ?? str(first.detail) };
	}
	const code = str(error) ?? str(body.code) ?? str(body.error_code) ?? str(body.errorCode);
	const serviceMessage =
		str(body.message) ?? str(body.detail) ?? str(body.error_description) ?? str(body.title);
	return { code, serviceMessage };
}

/** An object as JSON text; one nested too deeply for JSON.stringify, said so. */
function jsonText(body: object): string {
	try {
		return JSON.stringify(body) ?? typeof body;
	} catch {
		return 'an object nested too deeply to show';
	}
}

/**
 * The text of an HTML page's <title>, else its first <h1>: found by searching, so that the work is
 * linear in the page however it is made (a pattern match from every `<` would not be).
 */
function headingOf(html: string): string | undefined {
	const lower = html.toLowerCase();
	for (const tag of ['<title', '<h1']) {
		const at = lower.indexOf(tag);
		const open = at === -1 ? -1 : lower.indexOf('>', at);
		if (open === -1) continue;
		const close = lower.indexOf('<', open + 1);
		return html.slice(open + 1, close === -1 ? undefined : close);
	}
	return undefined;
}

function fromText(text: string): ServiceErrorInfo {
	const trimmed = text.trim();
	if (trimmed.startsWith('{')) {
		try {
			const parsed: unknown = JSON.parse(trimmed);
			if (isObject(parsed)) return fromObject(parsed);
		} catch {
			// Not JSON after all (a truncated body, say): read it as text below.
		}
	}
	if (/^\s*</.test(trimmed)) {
		// An HTML error page from a proxy or gateway: keep its title/heading only.
		const heading = headingOf(trimmed);
		return { serviceMessage: heading ? shorten(heading) : 'an HTML error page' };
	}
	const prefixed = /^([a-z][a-z0-9_]*[a-z0-9])\s*(?::|-|—)\s*(.*)$/s.exec(trimmed);
	if (prefixed && prefixed[1].includes('_')) {
		return { code: prefixed[1], serviceMessage: str(prefixed[2]) };
	}
	const known = KNOWN_CODES.find((code) => trimmed.includes(code));
	if (known) return { code: known, serviceMessage: shorten(trimmed) };
	if (/^[a-z][a-z0-9_]*$/.test(trimmed)) return { code: trimmed };
	return { serviceMessage: trimmed ? shorten(trimmed) : undefined };
}

/** Reads the error code and message from a response body of any plausible shape. */
export function parseServiceError(body: unknown): ServiceErrorInfo {
	let info: ServiceErrorInfo = {};
	if (Buffer.isBuffer(body)) info = fromText(body.toString('utf8'));
	else if (body instanceof ArrayBuffer) info = fromText(Buffer.from(body).toString('utf8'));
	else if (typeof body === 'string') info = fromText(body);
	else if (isObject(body)) info = fromObject(body);
	if (info.serviceMessage) info.serviceMessage = shorten(info.serviceMessage);
	if (info.code) info.code = info.code.toLowerCase();
	return info;
}

/** The code the spec pairs with an HTTP status, for bodies that carry no code. */
function codeForStatus(status: number): string | undefined {
	switch (status) {
		case 401:
			return 'invalid_api_key';
		case 402:
			return 'insufficient_pages';
		case 404:
			return 'not_found';
		case 413:
			return 'payload_too_large';
		case 415:
			return 'unsupported_media_type';
		case 429:
			return 'rate_limited';
		default:
			return undefined;
	}
}

/**
 * What each service error code means for the user, and what to do: the message, and the advice.
 * `notCharged` is said of a submission the service refused (nothing was charged for it).
 */
type Said = { ctx: ErrorContext; subject: string; notCharged: string };

/**
 * Every service error code the node knows, with what it tells the user. The one list of codes:
 * KNOWN_CODES (the codes a plain-text body is searched for) is read from it.
 */
const ADVICE = {
	missing_api_key: () => ({
		message: 'No API key was sent to the OCR service',
		description:
			'Open the Document OCR API credential and enter the API key from the account settings.',
	}),
	invalid_api_key: () => ({
		message: 'The OCR service refused the API key',
		description:
			'The key is wrong, revoked or expired. Create a new key in the account settings (a key is shown only once) and paste it into the Document OCR API credential.',
	}),
	user_banned: () => ({
		message: 'The OCR account is banned',
		description:
			'Every request of this account is refused. Contact the service to restore the account; retrying will not help.',
	}),
	insufficient_scope: ({ ctx }) => ({
		message: ctx.scope
			? `The API key lacks the "${ctx.scope}" scope this operation needs`
			: 'The API key lacks the scope this operation needs',
		description: `Create a key with the ${ctx.scope ? `"${ctx.scope}"` : 'needed'} scope in the account settings ("read" for Get, Get Many and Export; "export" for Delete) and update the credential.`,
	}),
	insufficient_pages: ({ notCharged }) => ({
		message: 'The account has no page balance left for this document',
		description: `Top up the page balance (team members share the plan owner's balance), then run the workflow again.${notCharged}`,
	}),
	not_found: ({ subject }) => ({
		message: `${subject} was not found`,
		description:
			'Check the ID. Deleted tasks, and tasks created with another account, cannot be read.',
	}),
	payload_too_large: ({ notCharged }) => ({
		message: 'The document is too large for the OCR service (limit 10 MB)',
		description: `Compress the file or split it into smaller documents.${notCharged}`,
	}),
	unsupported_media_type: ({ notCharged }) => ({
		message: 'The OCR service does not accept this file type',
		description: `Send a PDF or an image (PNG, JPEG, WEBP; TIFF and GIF on the task API) whose content matches its file name.${notCharged}`,
	}),
	rate_limited: ({ ctx, notCharged }) => ({
		message: 'The OCR service is throttling requests (rate limited)',
		description: `The node waited as the service asked and retried ${ctx.retries ?? 0} time(s). Lower the node's concurrency or spread the items over time.${notCharged}`,
	}),
	task_creation_failed: () => ({
		message: 'The OCR service could not create the task, and refunded its pages',
		description:
			'Nothing was charged for this document. The node sent it once more and the service failed again: try again later.',
	}),
	daily_quota_exceeded: ({ notCharged }) => ({
		message: "The account's daily quota of the OCR service is used up",
		description: `No more requests are accepted today; the node does not retry. Run the workflow again after the quota resets.${notCharged}`,
	}),
} satisfies Record<string, (said: Said) => Advice>;

export type KnownCode = keyof typeof ADVICE;

/** The codes ADVICE knows: a plain-text body that names one anywhere is read as that code. */
export const KNOWN_CODES = Object.keys(ADVICE) as KnownCode[];

function isKnownCode(code: string): code is KnownCode {
	return Object.prototype.hasOwnProperty.call(ADVICE, code);
}

function adviceFor(code: string | undefined, status: number, ctx: ErrorContext): Advice {
	const subject = ctx.subject ?? 'The requested item';
	const notCharged = ctx.submission ? ' Nothing was charged for this document.' : '';
	if (code !== undefined && isKnownCode(code)) return ADVICE[code]({ ctx, subject, notCharged });
	if (status >= 500) {
		return ctx.submission
			? {
					message: `The OCR service failed (HTTP ${status}) after the document was sent: a task may have been created`,
					description:
						'The node does not resend submissions, so that a document is never charged twice. Check the task list (Get Many) for a task created just now before submitting this document again.',
				}
			: {
					message: `The OCR service failed (HTTP ${status})`,
					description: `The node retried ${ctx.retries ?? 0} time(s). Try again later; if it persists, contact the service.`,
				};
	}
	if (ctx.submission && processedThenFailed(status)) {
		return {
			message: `The OCR service could not process the document (HTTP ${status}${code ? `, ${code}` : ''}): its pages may have been charged`,
			description:
				'The service deducts pages before it processes a document, and refunds them only when it fails to create the task. Check the account balance or the task list before sending this document again.',
		};
	}
	return {
		message: `The OCR service rejected the request (HTTP ${status}${code ? `, ${code}` : ''})`,
		description: `Check the node parameters against the service documentation.${notCharged}`,
	};
}

/**
 * A submission answered 422: the document was taken and could not be processed (the `/v1`
 * surface's `ocr_failed`, say) — after the pages were deducted, since the service deducts before
 * processing. Other 4xx refuse the request before anything is processed.
 */
function processedThenFailed(status: number): boolean {
	return status === 422;
}

/**
 * What an answer was, for an error message — the one way an answer is quoted: a text (or the text
 * of bytes that are text) or an object's JSON, on one line, shortened to `max` characters, with
 * the secrets and any Bearer token redacted; bytes that are no text as their count.
 */
export function quoteAnswer(body: unknown, secrets: string[] = [], max = 120): string {
	let text: string;
	if (typeof body === 'string') text = body;
	else if (Buffer.isBuffer(body) || body instanceof ArrayBuffer) {
		const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
		const head = bytes.subarray(0, 4 * max);
		if (head.includes(0)) return `${bytes.length} bytes`;
		text = head.toString('utf8');
	} else if (body === undefined || body === null) return String(body);
	else if (typeof body === 'object') text = jsonText(body);
	else text = String(body);
	const flat = redact(text.replace(/\s+/g, ' ').trim(), secrets);
	return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty)';
}

/**
 * A submission the service answered with a failed task creation whose pages it refunded — the
 * reference says a failed creation after the deduction is refunded, but names no code for it:
 * the code `task_creation_failed`, or a 5xx whose message says the creation failed and the pages
 * were refunded. Resending such a submission cannot charge twice.
 */
export function refundedCreationFailure(status: number, body: unknown): boolean {
	const info = parseServiceError(body);
	if (info.code === 'task_creation_failed') return true;
	const text = info.serviceMessage ?? '';
	return status >= 500 && /\bcreat\w* fail/i.test(text) && /refund/i.test(text);
}

/**
 * Whether a failed submission may have created (and charged) a task, job or document: its request
 * reached the service and the answer was lost or was a 5xx other than a refunded creation, or a
 * 2xx came without the ID it must carry. The errors of this module say so in `context`.
 */
export function mayHaveCreated(error: unknown): boolean {
	return (
		(error instanceof NodeApiError || error instanceof NodeOperationError) &&
		error.context?.mayHaveCreated === true
	);
}

/** The HTTP status a NodeApiError of this module carries (undefined for other errors). */
export function httpStatus(error: unknown): number | undefined {
	if (!(error instanceof NodeApiError)) return undefined;
	const status = Number(error.httpCode);
	return Number.isFinite(status) ? status : undefined;
}

/**
 * The message with what the request was about (`Task "tsk_1"`) in front, when the message does
 * not name it already: a read's error says which task or job failed.
 */
function about(ctx: ErrorContext, message: string): string {
	return ctx.subject && !message.includes(ctx.subject) ? `${ctx.subject}: ${message}` : message;
}

/** Builds the error for an HTTP error answer. */
export function serviceError(
	node: INode,
	status: number,
	body: unknown,
	ctx: ErrorContext,
): NodeApiError {
	const info = parseServiceError(body);
	const code =
		ctx.submission && refundedCreationFailure(status, body)
			? 'task_creation_failed'
			: (info.code ?? codeForStatus(status));
	const advice = adviceFor(code, status, ctx);
	const detail = info.serviceMessage ? ` Service said: ${info.serviceMessage}` : '';
	const message = redact(about(ctx, advice.message), ctx.secrets);
	const description = redact(`${advice.description}${detail}`, ctx.secrets);
	const errorBody: JsonObject = {
		httpCode: String(status),
		code: code ?? null,
		message,
		description,
	};
	const error = new NodeApiError(node, errorBody, {
		message,
		description,
		httpCode: String(status),
		itemIndex: ctx.itemIndex,
	});
	if (
		ctx.submission &&
		(status >= 500 || processedThenFailed(status)) &&
		code !== 'task_creation_failed'
	)
		error.context.mayHaveCreated = true;
	return error;
}

/** Builds the error for a request that got no HTTP answer (reset, refused, timeout, lost). */
export function networkError(
	node: INode,
	errorCode: string,
	host: string,
	ctx: ErrorContext,
): NodeApiError {
	// The system code stays out of the message: NodeApiError swaps any message containing one for
	// its generic text ("You can retry the request immediately"), exactly wrong for a submission.
	const what = inWords(errorCode);
	const reached = !neverSent(errorCode);
	const advice: Advice =
		ctx.submission && reached
			? {
					message: `The connection to the OCR service broke after the document was sent (${what}): a task may have been created`,
					description:
						'The node does not resend submissions, so that a document is never charged twice. Check the task list (Get Many) for a task created just now before submitting this document again.',
				}
			: {
					message: `Could not reach the OCR service at ${host} (${what})`,
					description: reached
						? `The node retried ${ctx.retries ?? 0} time(s). Check that the service is up and that the credential's URL is right.`
						: `Check the Base URL / API URL in the Document OCR API credential and that n8n can reach that host.${ctx.submission ? ' Nothing was sent, so nothing was charged.' : ''}`,
				};
	const message = redact(about(ctx, advice.message), ctx.secrets);
	const description = redact(`${advice.description} (Error code: ${errorCode}.)`, ctx.secrets);
	const error = new NodeApiError(
		node,
		{ connectionError: errorCode, message, description },
		{ message, description, itemIndex: ctx.itemIndex },
	);
	if (ctx.submission && reached) error.context.mayHaveCreated = true;
	return error;
}

/**
 * An item stopped because another item had already failed the node: its billable request was
 * not sent, or its wait was ended. Never the node's error; what it had billed is listed there.
 */
export class StoppedError extends Error {
	constructor(readonly itemIndex: number) {
		super(`Item ${itemIndex} was stopped: another item failed the node`);
	}
}
