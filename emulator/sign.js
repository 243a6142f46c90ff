'use strict';
/**
 * Webhook signing for the emulator's sender, written from the spec on its own (node:crypto), not
 * with the package's signature module: a mistake on one side then shows up as a refused delivery
 * instead of agreeing with itself.
 *
 *   signatureHeader(secret, timestamp, nonce, rawBody) -> `sha256=<hex>`
 *   signPayload(...)                                  -> `<hex>` (HMAC-SHA256 of
 *     `<timestamp>.<nonce>.<raw body>` keyed with the endpoint's secret, lower-case hex)
 *   signedDelivery(secret, body, { timestamp, nonce }) -> { body, headers } as the service sends
 *     them (unix-seconds timestamp and a random nonce unless given): the exact bytes can be sent
 *     again for a replay.
 */
const crypto = require('node:crypto');

function signPayload(secret, timestamp, nonce, rawBody) {
	return crypto
		.createHmac('sha256', String(secret))
		.update(`${timestamp}.${nonce}.`)
		.update(Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(String(rawBody), 'utf8'))
		.digest('hex');
}

function signatureHeader(secret, timestamp, nonce, rawBody) {
	return `sha256=${signPayload(secret, timestamp, nonce, rawBody)}`;
}

function signedDelivery(
	secret,
	body,
	{
		timestamp = String(Math.floor(Date.now() / 1000)),
		nonce = crypto.randomBytes(16).toString('hex'),
	} = {},
) {
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-webhook-timestamp': timestamp,
			'x-webhook-nonce': nonce,
			'x-webhook-signature': signatureHeader(secret, timestamp, nonce, body),
		},
	};
}

module.exports = { signPayload, signatureHeader, signedDelivery };
