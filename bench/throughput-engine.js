'use strict';
/**
 * Profiling aid (not the published benchmark): N one-page documents (read from disk into n8n's
 * binary store) through Submit + Wait for Completion in n8n-core's engine against the emulator,
 * W workers and t ms per page. Prints wall time against the physical bound ceil(N/W)·t, status
 * requests per task, node start → first accepted submission, and the service's last finish →
 * the node's end. Run it under `node --cpu-prof` to see where the node's time goes.
 *   node bench/throughput-engine.js [N=1000] [W=32] [t=100] [concurrency]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startEmulator, KEYS } = require('../emulator');
const documents = require('../emulator/documents');
const { runNode, submitParameters } = require('./engine');

async function main() {
	const [N = 1000, W = 32, t = 100, concurrency] = process.argv.slice(2).map(Number);
	const emu = await startEmulator({ workers: W, msPerPage: t });
	emu.setBalance('acme', N + 1000);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-bench-engine-'));
	const files = Array.from({ length: N }, (_, i) => {
		const file = path.join(dir, `doc-${i}.pdf`);
		fs.writeFileSync(file, documents.makePdf([`Document ${i}`]));
		return { path: file, fileName: `doc-${i}.pdf`, mimeType: 'application/pdf' };
	});
	try {
		const { output, error, runData } = await runNode({
			parameters: submitParameters({ concurrency }),
			files,
			credentials: { apiKey: KEYS.full, baseUrl: emu.url },
		});
		if (error) throw error;
		const tasks = [...emu.taskMap.values()];
		const firstSubmit = Math.min(...tasks.map((task) => Date.parse(task.createdAt)));
		const lastDone = Math.max(...tasks.map((task) => Date.parse(task.completedAt)));
		const seconds = runData.executionTime / 1000;
		const bound = (Math.ceil(N / W) * t) / 1000;
		const stats = emu.stats();
		await emu.close();
		// Anything the node left behind: timers (a Timeout) still armed once the run is over.
		const timersLeft = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
		console.log(
			JSON.stringify({
				N,
				W,
				t,
				concurrency: concurrency ?? 'default',
				seconds,
				bound,
				ratio: +(seconds / bound).toFixed(2),
				done: output.filter((o) => o.json.status === 'done').length,
				pollsPerTask: +((stats.byRoute['GET /api/tasks/:id'] ?? 0) / N).toFixed(2),
				startMs: firstSubmit - runData.startTime,
				lateMs: runData.startTime + runData.executionTime - lastDone,
				timersLeft,
			}),
		);
	} finally {
		await emu.close().catch(() => undefined);
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
main().catch((e) => {
	console.error(e);
	process.exit(1);
});
