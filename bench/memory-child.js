'use strict';
/**
 * One measurement of bench/memory.js, in a fresh process: peak RSS growth while ONE document is
 * submitted, either by the Document OCR node in n8n-core's engine (streamed from the binary
 * store) or by the naive path (read the file, Base64 it, JSON.stringify, POST).
 *   node bench/memory-child.js node|naive <file> <serviceUrl>
 * Prints one JSON line.
 */
const fs = require('node:fs');
const { request } = require('undici');
const { runNode } = require('../test/harness');

const [mode, file, url] = process.argv.slice(2);
const KEY = 'ocr_test_full';
const peak = () => process.resourceUsage().maxRSS * 1024;

function submitWithNode(path, operation = 'submit') {
	return runNode({
		parameters: {
			...(operation === 'inputOnly'
				? { resource: 'task', operation: 'get', taskId: 'tsk_none' }
				: {}),
			resource: 'task',
			operation: 'submit',
			documentSource: 'binary',
			binaryPropertyName: 'data',
			provider: 'provider-async',
			documentType: 'general',
			waitForCompletion: false,
			options: {},
			...(operation === 'inputOnly' ? { operation: 'get', taskId: 'tsk_none' } : {}),
		},
		items: [
			{ json: {}, binary: { data: { path, fileName: 'big.pdf', mimeType: 'application/pdf' } } },
		],
		credentials: { apiKey: KEY, baseUrl: url },
	}).promise;
}

async function submitNaively(path) {
	const bytes = fs.readFileSync(path);
	const body = JSON.stringify({ imageBase64: bytes.toString('base64'), filename: 'big.pdf' });
	const response = await request(`${url}/api/ocr`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body,
	});
	return { status: response.statusCode, text: await response.body.text() };
}

async function main() {
	// Warm up with a small document so code loading is not counted as growth.
	const small = `${file}.small.pdf`;
	fs.writeFileSync(small, require('../emulator/documents').makePdf(['warm-up']));
	const warm = mode === 'naive' ? await submitNaively(small) : await submitWithNode(small);
	if (warm.error) throw warm.error;
	global.gc?.();
	await new Promise((resolve) => setTimeout(resolve, 200));
	const before = process.memoryUsage().rss;
	const result =
		mode === 'naive'
			? await submitNaively(file)
			: await submitWithNode(file, mode === 'input' ? 'inputOnly' : 'submit');
	if (result.error && mode !== 'input') throw result.error;
	if (mode === 'naive' && result.status !== 200)
		throw new Error(`naive submission: ${result.status} ${result.text}`);
	const size = fs.statSync(file).size;
	console.log(JSON.stringify({ mode, size, growth: peak() - before }));
	fs.rmSync(small, { force: true });
	process.exit(0);
}
main().catch((error) => {
	console.error(error);
	process.exit(1);
});
