'use strict';
/**
 * One measurement of bench/memory.js, in a fresh process: peak RSS growth while ONE document is
 * submitted, either by the Document OCR node in n8n-core's engine (the file read from disk into
 * n8n's binary store by the input node, then streamed from there by the node) or by the naive
 * path (read the file, Base64 it, JSON.stringify, POST); `split`: the node sends a file past the
 * limit with Split Large Documents; `count`: the node counts a stored file's pages (Count Pages).
 *   node --expose-gc bench/memory-child.js node|naive|split|count <file> <serviceUrl>
 * Prints one JSON line: `growth` is the whole run's peak RSS growth (for the node: the input node
 * storing the file, then the submission); for the node also `nodeGrowth`, the growth from the
 * moment the input was stored (peak RSS reset then, Linux /proc/self/clear_refs) — the
 * submission's own share.
 */
const fs = require('node:fs');
const { request } = require('undici');

const [mode, file, url] = process.argv.slice(2);
const KEY = 'ocr_test_full';

/** Peak RSS since the process started or since the last reset (Linux: VmHWM). */
function peakRss() {
	const status = fs.readFileSync('/proc/self/status', 'utf8');
	return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

/** Resets the peak RSS to the current RSS (writing 5 to clear_refs). */
function resetPeak() {
	fs.writeFileSync('/proc/self/clear_refs', '5');
}

const settle = async () => {
	global.gc?.();
	await new Promise((resolve) => setTimeout(resolve, 100));
	global.gc?.();
};

/**
 * The node's parameters by mode: `node` a Task → Submit without waiting; `split` the same with
 * Split Large Documents (a file past the limit, sent in parts); `count` Document → Count Pages.
 */
function parametersOf(submitParameters) {
	if (mode === 'count')
		return {
			resource: 'document',
			operation: 'countPages',
			documentSource: 'binary',
			binaryPropertyName: 'data',
		};
	const parameters = submitParameters({ wait: false });
	if (mode === 'split') parameters.options = { splitLargeDocuments: true };
	return parameters;
}

async function submitWithNode(path, inputStored) {
	const { runNode, submitParameters } = require('./engine');
	const result = await runNode({
		parameters: parametersOf(submitParameters),
		files: [{ path, fileName: 'big.pdf', mimeType: 'application/pdf' }],
		credentials: { apiKey: KEY, baseUrl: url },
		inputStored,
	});
	if (result.error) throw result.error;
	const json = result.output[0]?.json ?? {};
	const done =
		mode === 'count'
			? typeof json.pages === 'number'
			: mode === 'split'
				? json.parts?.length > 1 || path.endsWith('.small.pdf')
				: typeof json.taskId === 'string';
	if (!done)
		throw new Error(
			`the node's output is not what ${mode} gives: ${JSON.stringify(json).slice(0, 300)}`,
		);
}

async function submitNaively(path) {
	const bytes = fs.readFileSync(path);
	const body = JSON.stringify({ imageBase64: bytes.toString('base64'), filename: 'big.pdf' });
	const response = await request(`${url}/api/ocr`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body,
	});
	const text = await response.body.text();
	if (response.statusCode !== 200)
		throw new Error(`naive submission: ${response.statusCode} ${text}`);
}

async function main() {
	// Warm up with a small document so code loading is not counted as growth.
	const small = `${file}.small.pdf`;
	fs.writeFileSync(small, require('../emulator/documents').makePdf(['warm-up']));
	if (mode === 'naive') await submitNaively(small);
	else await submitWithNode(small);
	await settle();
	resetPeak();
	const before = process.memoryUsage().rss;
	let nodeBefore;
	if (mode === 'naive') await submitNaively(file);
	else
		await submitWithNode(file, async () => {
			// The whole run's peak so far is kept; the node's share is measured from here.
			nodePeakBefore = peakRss();
			await settle();
			resetPeak();
			nodeBefore = process.memoryUsage().rss;
		});
	const peak = peakRss();
	const size = fs.statSync(file).size;
	const result = { mode, size, growth: Math.max(peak, nodePeakBefore ?? 0) - before };
	if (nodeBefore !== undefined) {
		result.inputGrowth = nodePeakBefore - before;
		result.nodeGrowth = peak - nodeBefore;
	}
	console.log(JSON.stringify(result));
	fs.rmSync(small, { force: true });
	process.exit(0);
}
let nodePeakBefore;
main().catch((error) => {
	console.error(error);
	process.exit(1);
});
