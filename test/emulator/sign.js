'use strict';
/**
 * Webhook signing, kept pure and tiny so it can later be swapped for the package's own
 * signature module.
 *
 *   signPayload(secret, timestamp, nonce, rawBody) -> lowercase hex HMAC-SHA256 of
 *     `${timestamp}.${nonce}.${rawBody}` keyed with `secret`.
 *   The header value sent is `sha256=<hex>` (see signatureHeader).
 */
const crypto = require('node:crypto');

function signPayload(secret, timestamp, nonce, rawBody) {
	const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(String(rawBody), 'utf8');
	return crypto
		.createHmac('sha256', String(secret))
		.update(`${timestamp}.${nonce}.`, 'utf8')
		.update(body)
		.digest('hex');
}

function signatureHeader(secret, timestamp, nonce, rawBody) {
	return `sha256=${signPayload(secret, timestamp, nonce, rawBody)}`;
}

module.exports = { signPayload, signatureHeader };
