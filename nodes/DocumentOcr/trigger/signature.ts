import { createHmac, timingSafeEqual } from 'crypto';

/**
 * Verifying the OCR service's webhook signatures (the interface's "Webhooks" section), as pure
 * functions: no n8n, no I/O. The emulator signs with its own code (emulator/sign.js), so a mistake
 * on either side shows up as a refused delivery.
 *
 *   X-Webhook-Signature: sha256=<hex>   hex = HMAC-SHA256(secret, `${timestamp}.${nonce}.${rawBody}`)
 *   X-Webhook-Timestamp: <timestamp>    unix seconds, unix milliseconds or ISO-8601 (format not published)
 *   X-Webhook-Nonce:     <nonce>
 *
 * The signature is accepted only in its published form: the `sha256=` prefix and 64 lower-case
 * hex digits. The service sends exactly that; accepting variants (no prefix, upper case) would
 * add no security but would let a misbehaving sender go unnoticed.
 */

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const TIMESTAMP_HEADER = 'x-webhook-timestamp';
export const NONCE_HEADER = 'x-webhook-nonce';

const SIGNATURE_FORMAT = /^sha256=([0-9a-f]{64})$/;
const NONCE_FORMAT = /^[\x21-\x7e]{1,256}$/;

export type Headers = Record<string, string | string[] | undefined>;

export type Rejection =
	| 'missing_signature'
	| 'missing_timestamp'
	| 'missing_nonce'
	| 'malformed_signature'
	| 'malformed_timestamp'
	| 'malformed_nonce'
	| 'timestamp_outside_tolerance'
	| 'signature_mismatch';

export interface SignatureHeaders {
	signature: Buffer;
	timestamp: string;
	timestampMs: number;
	nonce: string;
}

/** A timestamp as epoch ms: unix seconds or milliseconds (digits), or ISO-8601 with a time. */
export function parseTimestamp(value: string): number | undefined {
	if (/^\d{1,16}$/.test(value)) {
		const n = Number(value);
		return n >= 1e12 ? n : n * 1000;
	}
	if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
		const ms = Date.parse(value);
		return Number.isNaN(ms) ? undefined : ms;
	}
	return undefined;
}

function single(headers: Headers, name: string): string | undefined | null {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.length === 1 ? value[0] : null; // repeated header: refuse
	return value;
}

/** Reads and checks the format of the three headers (not the signature itself). */
export function parseHeaders(
	headers: Headers,
): { ok: true; value: SignatureHeaders } | { ok: false; reason: Rejection } {
	const signature = single(headers, SIGNATURE_HEADER);
	const timestamp = single(headers, TIMESTAMP_HEADER);
	const nonce = single(headers, NONCE_HEADER);
	if (!signature)
		return { ok: false, reason: signature === null ? 'malformed_signature' : 'missing_signature' };
	if (!timestamp)
		return { ok: false, reason: timestamp === null ? 'malformed_timestamp' : 'missing_timestamp' };
	if (!nonce) return { ok: false, reason: nonce === null ? 'malformed_nonce' : 'missing_nonce' };
	const hex = SIGNATURE_FORMAT.exec(signature)?.[1];
	if (!hex) return { ok: false, reason: 'malformed_signature' };
	const timestampMs = parseTimestamp(timestamp.trim());
	if (timestampMs === undefined) return { ok: false, reason: 'malformed_timestamp' };
	if (!NONCE_FORMAT.test(nonce)) return { ok: false, reason: 'malformed_nonce' };
	return { ok: true, value: { signature: Buffer.from(hex, 'hex'), timestamp, timestampMs, nonce } };
}

export interface VerifyInput {
	secret: string;
	headers: Headers;
	/** The request body exactly as received. */
	rawBody: Buffer;
	/** Accepted clock difference, both ways, in ms. */
	toleranceMs: number;
	now?: number;
}

/**
 * Verifies a delivery: headers well-formed, timestamp within the tolerance, and the HMAC over the
 * raw body equal to the signature (compared in constant time).
 */
export function verify(
	input: VerifyInput,
): { ok: true; value: SignatureHeaders } | { ok: false; reason: Rejection } {
	const parsed = parseHeaders(input.headers);
	if (!parsed.ok) return parsed;
	const { signature, timestamp, timestampMs, nonce } = parsed.value;
	const now = input.now ?? Date.now();
	if (Math.abs(now - timestampMs) > input.toleranceMs)
		return { ok: false, reason: 'timestamp_outside_tolerance' };
	const expected = createHmac('sha256', input.secret)
		.update(`${timestamp}.${nonce}.`)
		.update(input.rawBody)
		.digest();
	// Both are 32 bytes here (the format check fixed the length), as timingSafeEqual requires.
	if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
		return { ok: false, reason: 'signature_mismatch' };
	}
	return parsed;
}
