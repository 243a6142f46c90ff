'use strict';
/**
 * Cost of verifying one delivery (µs): the trigger's verify() — header parsing, timestamp window,
 * HMAC-SHA256 over `<timestamp>.<nonce>.<raw body>`, constant-time compare — beside the bare HMAC.
 */
const crypto = require('node:crypto');
const signature = require('../dist/nodes/DocumentOcr/trigger/signature.js');
const { signatureHeader } = require('../emulator/sign');

function time(fn, iterations) {
	for (let i = 0; i < 2000; i++) fn(); // warm-up
	const started = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++) fn();
	return Number(process.hrtime.bigint() - started) / 1000 / iterations;
}

function main(iterations = 100_000) {
	const secret = 'whsec_bench_0123456789abcdef';
	const body = Buffer.from(
		JSON.stringify({
			id: 'evt_1',
			event: 'ocr.done',
			data: { taskId: 'tsk_1', status: 'done', filename: 'x'.repeat(900) },
		}),
	);
	const timestamp = String(Math.floor(Date.now() / 1000));
	const nonce = crypto.randomBytes(16).toString('hex');
	const headers = {
		'x-webhook-timestamp': timestamp,
		'x-webhook-nonce': nonce,
		'x-webhook-signature': signatureHeader(secret, timestamp, nonce, body),
	};
	const verifyUs = time(() => {
		if (!signature.verify({ secret, headers, rawBody: body, toleranceMs: 300_000 }).ok)
			throw new Error('not verified');
	}, iterations);
	const hmacUs = time(
		() =>
			crypto.createHmac('sha256', secret).update(`${timestamp}.${nonce}.`).update(body).digest(),
		iterations,
	);
	return { bodyBytes: body.length, verifyUs: +verifyUs.toFixed(2), bareHmacUs: +hmacUs.toFixed(2) };
}

module.exports = { main };
if (require.main === module) console.log(JSON.stringify(main()));
