import { isObject } from '../shared/object';
import { KNOWN_CODES } from './advice';
import { redact } from './secrets';

/**
 * What the service answered, read: the error code and message of an error body of any shape, a
 * refunded creation, the wait a Retry-After asks for, and the one way an answer is quoted in a
 * message (secrets redacted by ./secrets.ts). No I/O.
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

/** Retry-After as milliseconds: delta-seconds (fractions allowed) or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined) return undefined;
	const trimmed = value.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(parseFloat(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (!Number.isNaN(date)) return Math.max(0, date - now);
	return undefined;
}
