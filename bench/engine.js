'use strict';
/**
 * The built Document OCR node inside n8n-core's real engine (scripts/n8n-engine.js), for the
 * benchmarks that need one process they can measure (memory) or profile: Input → Document OCR,
 * the input streaming files from disk into n8n's binary store (as Read/Write Files does). Not the
 * test harness: no capturing logger or secret scan in the measured process. `BENCH_DIST` measures
 * another build of the package.
 */
if (process.env.BENCH_DIST) process.env.OCR_DIST = process.env.BENCH_DIST;
const engine = require('../scripts/n8n-engine');

/**
 * Runs Input (`files`: { path, fileName, mimeType }) → Document OCR (`parameters`) once;
 * `inputStored` is called once the input is in the binary store (e.g. to take a memory
 * baseline). Resolves with the OCR node's output, its error, and its run data (startTime,
 * executionTime).
 */
async function runNode({ parameters, files, credentials, inputStored }) {
	engine.inputEvents.onStored = inputStored;
	const items = files.map((f, i) => ({
		json: { i },
		binary: { data: { path: f.path, fileName: f.fileName, mimeType: f.mimeType } },
	}));
	try {
		const { run, output, error } = await engine.runNode({ parameters, items, credentials }).promise;
		return { output, error, runData: run.data.resultData.runData['Document OCR']?.[0] };
	} finally {
		engine.inputEvents.onStored = undefined;
	}
}

/** Submit (+ wait) parameters, for the documents as binary data. */
function submitParameters({ wait = true, concurrency } = {}) {
	return {
		resource: 'task',
		operation: 'submit',
		documentSource: 'binary',
		binaryPropertyName: 'data',
		provider: 'provider-async',
		documentType: 'general',
		waitForCompletion: wait,
		options: concurrency ? { concurrency } : {},
	};
}

module.exports = { runNode, submitParameters };
