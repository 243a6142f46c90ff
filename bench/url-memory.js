'use strict';
/**
 * What a URL document holds while it waits to be sent (issue 35, finding 7): n8n-core's engine
 * (scripts/n8n-engine.js) runs Document → Convert to Markdown on N items, each a link to a 70 kB
 * PDF (just over the 64 kB kept whole, so each is checked, let go, and would be fetched again
 * when sent), with a Page Budget of 1 page and Concurrency 1: item 0 is sent, and every later one
 * waits for it to finish, then is refused without a second fetch. So when the first request
 * reaches the emulator (which holds it a second) every item has been checked and is waiting to be
 * sent. Then, after full collections, the ArrayBuffers and the V8 heap in use beyond what was in
 * use before the run are read. Per item: (held at N − held at 100) / (N − 100), so what a run
 * holds whatever its size (the engine, the emulator, the agents) cancels out.
 *
 * Each build is measured in a fresh process (`--expose-gc`): this one (`dist/`, or BENCH_DIST),
 * and beside it, in the same run, BENCH_BEFORE_DIST if given (e.g. a copy of `dist/` built at the
 * commit before the change). Env: BENCH_URL_ITEMS (default "1600,10000").
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const FILE_BYTES = 70_000;
const BASE_ITEMS = 100;

/** In the child: N items through the node, what is held at the first request. */
async function heldAtFirstRequest(engine, emu, fileUrl, n) {
	const gc = global.gc;
	// What the run before still held (its sockets closing, its timers ending) is let go first.
	gc();
	await new Promise((resolve) => setTimeout(resolve, 200));
	gc();
	const before = process.memoryUsage();
	const posts = () => emu.stats().byRoute['POST /v1/markdown'] ?? 0;
	const postsBefore = posts();
	// The emulator holds the first request a second before it reads it: every other item waits
	// meanwhile (Concurrency 1), and the measure has time for two collections.
	emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'latency', ms: 1_000, times: 1 });
	let measuring;
	const read = () => {
		const now = process.memoryUsage();
		return {
			arrayBuffers: now.arrayBuffers - before.arrayBuffers,
			heap: now.heapUsed - before.heapUsed,
		};
	};
	// Looked for every 5 ms: the first request is measured as soon as the emulator sees it.
	const timer = setInterval(() => {
		if (measuring !== undefined || posts() === postsBefore) return;
		// Two collections 100 ms apart: V8 frees the memory of dead ArrayBuffers after a collection,
		// in the background, so a read right after one can count megabytes already let go.
		measuring = (async () => {
			gc();
			await new Promise((resolve) => setTimeout(resolve, 100));
			gc();
			return read();
		})();
	}, 5);
	const parameters = {
		resource: 'document',
		operation: 'markdown',
		documentSource: 'url',
		documentUrl: `=${fileUrl}?n={{ $itemIndex }}`,
		fileName: '',
		options: { pageBudget: 1, concurrency: 1 },
	};
	const items = Array.from({ length: n }, () => ({ json: {} }));
	const started = Date.now();
	const { output, error } = await engine.runNode({
		parameters,
		items,
		credentials: { apiKey: 'ocr_test_full', baseUrl: emu.url, apiUrl: '' },
		nodeSettings: { onError: 'continueRegularOutput' },
	}).promise;
	clearInterval(timer);
	if (error) throw error;
	const held = await measuring;
	if (output.length !== n || output[0].json.pagesBilled !== 1 || held === undefined)
		throw new Error(`unexpected run: ${JSON.stringify(output[0]?.json).slice(0, 300)}`);
	return { ...held, ms: Date.now() - started };
}

async function child() {
	const http = require('node:http');
	const engine = require('../scripts/n8n-engine');
	const { startEmulator } = require('../emulator');
	const { makePdf } = require('../emulator/documents');
	const file = makePdf(['y'.repeat(FILE_BYTES)]);
	const server = http.createServer((_req, res) =>
		res.writeHead(200, { 'content-type': 'application/pdf' }).end(file),
	);
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const fileUrl = `http://127.0.0.1:${server.address().port}/scan.pdf`;
	const emu = await startEmulator({ workers: 2, msPerPage: 0, syncMsPerPage: 0 });
	try {
		const sizes = (process.env.BENCH_URL_ITEMS ?? '1600,10000').split(',').map(Number);
		await heldAtFirstRequest(engine, emu, fileUrl, 50); // warm-up: what allocates once
		const base = await heldAtFirstRequest(engine, emu, fileUrl, BASE_ITEMS);
		const rows = [];
		for (const n of sizes) {
			const held = await heldAtFirstRequest(engine, emu, fileUrl, n);
			const per = (key) => Math.round((held[key] - base[key]) / (n - BASE_ITEMS));
			rows.push({
				items: n,
				arrayBuffersPerItem: per('arrayBuffers'),
				heapPerItem: per('heap'),
				heldMB: {
					arrayBuffers: +(held.arrayBuffers / 1e6).toFixed(1),
					heap: +(held.heap / 1e6).toFixed(1),
				},
				runMs: held.ms,
			});
		}
		return { fileBytes: file.length, base, rows };
	} finally {
		server.closeAllConnections?.();
		server.close();
		await emu.close();
	}
}

/** Runs the child for one build; resolves with what it printed. */
function measure(dist) {
	return new Promise((resolve, reject) => {
		const env = { ...process.env, OCR_DIST: path.resolve(dist) };
		// A build outside the repository finds n8n-workflow here.
		env.NODE_PATH = [path.resolve(__dirname, '../node_modules'), env.NODE_PATH]
			.filter(Boolean)
			.join(path.delimiter);
		const proc = spawn(process.execPath, ['--expose-gc', __filename, '--child'], {
			env,
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		proc.stdout.on('data', (d) => (out += d));
		proc.on('error', reject);
		proc.on('close', (code) =>
			code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`)),
		);
	});
}

async function main() {
	const builds = [['this build', process.env.BENCH_DIST || path.resolve(__dirname, '../dist')]];
	if (process.env.BENCH_BEFORE_DIST) builds.unshift(['before', process.env.BENCH_BEFORE_DIST]);
	const results = {};
	for (const [name, dist] of builds) {
		results[name] = { dist, ...(await measure(dist)) };
		for (const row of results[name].rows)
			console.error(
				`${name}: ${row.items} URL items waiting to be sent: ${row.arrayBuffersPerItem} bytes of ArrayBuffers and ${row.heapPerItem} bytes of heap per item (held at the first request: ${row.heldMB.arrayBuffers} MB ArrayBuffers, ${row.heldMB.heap} MB heap; run ${(row.runMs / 1000).toFixed(1)} s)`,
			);
	}
	return results;
}

module.exports = { main };
if (process.argv.includes('--child'))
	child().then(
		(result) => process.stdout.write(JSON.stringify(result)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
else if (require.main === module)
	main().then(
		(result) => console.log(JSON.stringify(result, null, 2)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
