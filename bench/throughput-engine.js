'use strict';
/**
 * Profiling aid (not the published benchmark): 200 one-page documents through Submit + Wait for
 * Completion in n8n-core's engine against the emulator, W workers and t ms per page.
 * Prints wall time against the physical bound ceil(N/W)·t, and status requests per task.
 *   node bench/throughput-engine.js [N] [W] [t] [concurrency]
 */
const { startEmulator, KEYS } = require('../emulator');
const documents = require('../emulator/documents');
const { runNode } = require('../test/harness');

async function main() {
	const [N = 200, W = 4, t = 250, concurrency] = process.argv.slice(2).map(Number);
	const emu = await startEmulator({ workers: W, msPerPage: t });
	const pdf = documents.makePdf(['One page']).toString('base64');
	const items = Array.from({ length: N }, (_, i) => ({
		json: { i },
		binary: { data: { base64: pdf, fileName: `doc-${i}.pdf`, mimeType: 'application/pdf' } },
	}));
	const parameters = {
		resource: 'task',
		operation: 'submit',
		documentSource: 'binary',
		binaryPropertyName: 'data',
		provider: 'provider-async',
		documentType: 'general',
		waitForCompletion: true,
		options: concurrency ? { concurrency } : {},
	};
	const started = Date.now();
	const { output, error } = await runNode({
		parameters,
		items,
		credentials: { apiKey: KEYS.full, baseUrl: emu.url },
	}).promise;
	const seconds = (Date.now() - started) / 1000;
	const stats = emu.stats();
	await emu.close();
	if (error) throw error;
	const bound = (Math.ceil(N / W) * t) / 1000;
	const done = output.filter((o) => o.json.status === 'done').length;
	console.log(
		JSON.stringify({
			N,
			W,
			t,
			concurrency: concurrency ?? 'default',
			seconds,
			bound,
			ratio: +(seconds / bound).toFixed(2),
			done,
			pollsPerTask: +stats.avgPollsPerTask.toFixed(2),
			maxInFlight: stats.maxInFlight,
		}),
	);
}
main().catch((e) => {
	console.error(e);
	process.exit(1);
});
