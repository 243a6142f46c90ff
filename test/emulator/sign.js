'use strict';
/**
 * Webhook signing for the emulator's sender: the package's own signature module (built into
 * dist/ by `npm run build`), so the sender and the trigger share one implementation.
 *
 *   signatureHeader(secret, timestamp, nonce, rawBody) -> `sha256=<hex>`
 *   signPayload(...)                                  -> `<hex>`
 */
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

module.exports = { signPayload, signatureHeader };
