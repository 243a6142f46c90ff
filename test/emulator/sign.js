'use strict';
/**
 * Webhook signing for the emulator's sender: the package's own signature module (built into
 * dist/ by `npm run build`), so the sender and the trigger share one implementation.
 *
 *   signatureHeader(secret, timestamp, nonce, rawBody) -> `sha256=<hex>`
 *   signPayload(...)                                  -> `<hex>`
 *   signedDelivery(secret, body, { timestamp, nonce }) -> { body, headers } as the service sends
 *     them (unix-seconds timestamp and a random nonce unless given): the exact bytes can be sent
 *     again for a replay.
 */
const crypto = require('node:crypto');
const path = require('node:path');

const MODULE = path.resolve(__dirname, '../../dist/nodes/DocumentOcrTrigger/signature.js');
let signature;
try {
	signature = require(MODULE);
} catch (error) {
	throw new Error(`${MODULE} is missing: run "npm run build" first (${error.message})`);
}

function signatureHeader(secret, timestamp, nonce, rawBody) {
	return signature.sign(String(secret), String(timestamp), String(nonce), rawBody);
}

function signPayload(secret, timestamp, nonce, rawBody) {
	return signatureHeader(secret, timestamp, nonce, rawBody).slice('sha256='.length);
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
