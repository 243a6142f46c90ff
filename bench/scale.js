'use strict';
/**
 * Scale in real n8n 2.x: N one-page documents (default 5,000) in ONE production execution, read
 * from disk with n8n's filesystem binary-data mode, through Document OCR → Submit + Wait for
 * Completion (default settings), against the emulator (W workers × t ms/page).
 *
 * The workflow starts from a Webhook (answered at once), as a production run would, on a running
 * n8n server whose process is measured from /proc (Linux):
 *   - peak RSS growth: the server's peak RSS is reset (clear_refs) once it is idle, the request is
 *     sent, and the peak is read when the execution has finished;
 *   - completes: the execution's status and the number of finished tasks in its output;
 *   - nothing left after it: requests the emulator receives in the 8 s after the end (must be 0),
 *     and the server's CPU time from 3 s to 8 s after it beside 5 idle seconds before the run (a
 *     leftover timer or loop would show as CPU);
 *   - beside it, the same workflow with Document OCR disabled (n8n reading the files and saving
 *     the run), and the same two requests per document made by n8n's own HTTP Request nodes
 *     (submit, then read the task once): what n8n's request path costs without the package.
 *   node bench/scale.js   (env: BENCH_SCALE_N=5000, BENCH_SCALE_W=32, BENCH_SCALE_T=10)
 */
const fs = require('node:fs');
const path = require('node:path');
const { createInstance, CREDENTIAL, KEYS } = require('../scripts/n8n-instance');
const documents = require('../emulator/documents');

const N = Number(process.env.BENCH_SCALE_N ?? 5000);
const W = Number(process.env.BENCH_SCALE_W ?? 32);
const T = Number(process.env.BENCH_SCALE_T ?? 10);
const HOOK = '5c0a3e1b-7d2f-4e6a-9b8c-1d2e3f4a5b6c';
const HOOK_CONTROL = '6d1b4f2c-8e3a-4f7b-8c9d-2e3f4a5b6c7d';
const HOOK_HTTP = '7e2c5a3d-9f4b-4a8c-9dae-3f4a5b6c7d8e';
const { node, chain, BEARER, bearerCredential, withoutPackage } = require('./workflow-nodes');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function workflow(inbox, { control = false } = {}) {
	return {
		id: control ? 'ocrBenchScaleCtl' : 'ocrBenchScale001',
		name: control
			? 'bench: the same, Document OCR disabled (n8n reading the files and saving the run)'
			: 'bench: 5,000 documents in one execution',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node(
				's1',
				'Start',
				'n8n-nodes-base.webhook',
				2,
				0,
				{
					httpMethod: 'POST',
					path: control ? 'bench-scale-control' : 'bench-scale',
					responseMode: 'onReceived',
					options: {},
				},
				{ webhookId: control ? HOOK_CONTROL : HOOK },
			),
			node('s2', 'Read PDFs', 'n8n-nodes-base.readWriteFile', 1, 200, {
				fileSelector: `${inbox}/*.pdf`,
				options: {},
			}),
			node(
				's3',
				'Document OCR',
				'n8n-nodes-document-ocr.documentOcr',
				1,
				400,
				{ resource: 'task', operation: 'submit', waitForCompletion: true, options: {} },
				{ credentials: { documentOcrApi: CREDENTIAL }, ...(control ? { disabled: true } : {}) },
			),
		],
		connections: chain('Start', 'Read PDFs', 'Document OCR'),
	};
}

/**
 * The same requests without the package: n8n's own HTTP Request node submitting every document
 * (Base64 in JSON, as the spec's /api/ocr takes it) and reading each task once: the two requests
 * per document that are the package's floor, through n8n's request path alone.
 */
function httpWorkflow(inbox, serviceUrl) {
	const user = withoutPackage(serviceUrl);
	return {
		id: 'ocrBenchScaleHttp',
		name: 'bench: the same requests with n8n HTTP Request nodes',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node(
				'h1',
				'Start',
				'n8n-nodes-base.webhook',
				2,
				0,
				{ httpMethod: 'POST', path: 'bench-scale-http', responseMode: 'onReceived', options: {} },
				{ webhookId: HOOK_HTTP },
			),
			node('h2', 'Read PDFs', 'n8n-nodes-base.readWriteFile', 1, 200, {
				fileSelector: `${inbox}/*.pdf`,
				options: {},
			}),
			node('h3', 'To Base64', 'n8n-nodes-base.extractFromFile', 1, 400, user.toBase64),
			node(
				'h4',
				'Submit (HTTP Request)',
				'n8n-nodes-base.httpRequest',
				4.2,
				600,
				user.submit,
				BEARER,
			),
			node(
				'h5',
				'Get task (HTTP Request)',
				'n8n-nodes-base.httpRequest',
				4.2,
				800,
				user.getTask,
				BEARER,
			),
		],
		connections: chain(
			'Start',
			'Read PDFs',
			'To Base64',
			'Submit (HTTP Request)',
			'Get task (HTTP Request)',
		),
	};
}

async function main() {
	const n8n = await createInstance({
		label: 'bench-scale',
		emulator: { workers: W, msPerPage: T },
		extraEnv: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
		packageTarball: process.env.BENCH_PACKAGE_TGZ,
	});
	try {
		await n8n.importCredential();
		// The HTTP Request baseline's key, in n8n's own Bearer Auth credential.
		await n8n.importOtherCredential(bearerCredential(KEYS.full), KEYS.full);
		n8n.emu.setBalance('acme', 2 * N + 1000);
		const inbox = path.join(n8n.inbox, 'scale');
		fs.mkdirSync(inbox, { recursive: true });
		for (let i = 0; i < N; i++)
			fs.writeFileSync(
				path.join(inbox, `doc-${String(i).padStart(5, '0')}.pdf`),
				documents.makePdf([`Scale document ${i}`]),
			);
		const flow = workflow(inbox);
		const control = workflow(inbox, { control: true });
		const http = httpWorkflow(inbox, n8n.emu.url);
		await n8n.importWorkflows([flow, control, http]);
		await n8n.publish(flow.id);
		await n8n.publish(control.id);
		await n8n.publish(http.id);
		const server = await n8n.startServer();
		await n8n.setupOwner();
		const pid = server.child.pid;

		// Idle baseline: 5 s of the server doing nothing.
		await sleep(3000);
		const idleStart = n8n.serverStats();
		await sleep(5000);
		const idleEnd = n8n.serverStats();

		/** One production execution through the webhook: peak RSS growth, time, what came after. */
		const measure = async (workflowId, webhookPath) => {
			// The run measured is a new execution: one listed before the request is an earlier run.
			const seen = new Set(
				(await n8n.executions(workflowId, { includeData: false })).map((e) => e.id),
			);
			global.gc?.();
			fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
			const before = n8n.serverStats();
			const started = Date.now();
			const response = await fetch(`${n8n.url}/webhook/${webhookPath}`, { method: 'POST' });
			await response.text();
			if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
			let peakRss = before.rss;
			let peakAt = 0;
			let execution;
			for (let tick = 0; ; tick++) {
				const s = n8n.serverStats();
				if (s && Math.max(s.hwm, s.rss) > peakRss) {
					peakRss = Math.max(s.hwm, s.rss);
					peakAt = Date.now() - started;
				}
				if (tick % 10 === 9) {
					// A server busy with a large run can answer 503 ("Database is not ready"): ask again.
					const list = await n8n.executions(workflowId, { includeData: false }).catch((error) => {
						if (/HTTP 503/.test(String(error?.message))) return [];
						throw error;
					});
					const latest = list.find((e) => !seen.has(e.id));
					if (latest?.stoppedAt && latest.status !== 'running') {
						execution = latest;
						break;
					}
				}
				if (Date.now() - started > 15 * 60_000)
					throw new Error('the execution did not end in 15 min');
				await sleep(100);
			}
			const after = n8n.serverStats();
			peakRss = Math.max(peakRss, after.hwm);
			// Nothing left: no request in the 8 s after the end, and the server's CPU from 3 s to 8 s
			// after it (n8n's own saving of the run is over by then) beside 5 idle seconds.
			const requestsAtEnd = n8n.emu.stats().requests;
			await sleep(3000);
			const from = n8n.serverStats();
			await sleep(5000);
			const to = n8n.serverStats();
			return {
				execution,
				seconds: (Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt)) / 1000,
				rssBefore: before.rss,
				peakRss,
				peakAtSeconds: peakAt / 1000,
				growth: peakRss - before.rss,
				requestsAfter: n8n.emu.stats().requests - requestsAtEnd,
				cpuTicksAfter: to.cpuTicks - from.cpuTicks,
			};
		};

		// n8n's resident size after start is not what it settles at after a run (the first run
		// grows and collects its heap): a first run of the control workflow brings it there, so the
		// two measured runs start from the same kind of state.
		await measure(control.id, 'bench-scale-control');
		const baseline = await measure(control.id, 'bench-scale-control');
		n8n.emu.resetStats();
		const ours = await measure(flow.id, 'bench-scale');
		const execution = ours.execution;
		const stats = n8n.emu.stats();
		const [full] = await n8n.executions(flow.id, { includeData: true });
		const out = full.data?.resultData?.runData?.['Document OCR']?.[0]?.data?.main?.[0] ?? [];
		const done = out.filter((item) => item.json?.status === 'done').length;
		// Last: n8n does not give back what the HTTP Request run takes, so nothing is measured after it.
		const viaHttp = await measure(http.id, 'bench-scale-http');
		const [httpRun] = await n8n.executions(http.id, { includeData: true });
		const httpOut =
			httpRun.data?.resultData?.runData?.['Get task (HTTP Request)']?.[0]?.data?.main?.[0] ?? [];
		return {
			N,
			W,
			t: T,
			status: execution.status,
			seconds: ours.seconds,
			done,
			pollsPerTask: +((stats.byRoute['GET /api/tasks/:id'] ?? 0) / N).toFixed(2),
			rssBeforeMb: +(ours.rssBefore / 1e6).toFixed(1),
			peakRssMb: +(ours.peakRss / 1e6).toFixed(1),
			peakAtSeconds: ours.peakAtSeconds,
			peakRssGrowthMb: +(ours.growth / 1e6).toFixed(1),
			controlRssBeforeMb: +(baseline.rssBefore / 1e6).toFixed(1),
			controlPeakRssMb: +(baseline.peakRss / 1e6).toFixed(1),
			// The same workflow with Document OCR disabled: n8n reading 5,000 files and saving the run.
			controlSeconds: baseline.seconds,
			controlPeakRssGrowthMb: +(baseline.growth / 1e6).toFixed(1),
			// n8n's HTTP Request node making the same two requests per document.
			httpRequestStatus: viaHttp.execution.status,
			httpRequestTasksRead: httpOut.length,
			httpRequestSeconds: viaHttp.seconds,
			httpRequestRssBeforeMb: +(viaHttp.rssBefore / 1e6).toFixed(1),
			httpRequestPeakRssGrowthMb: +(viaHttp.growth / 1e6).toFixed(1),
			requestsAfterEnd: ours.requestsAfter,
			idleCpuTicksPer5s: idleEnd.cpuTicks - idleStart.cpuTicks,
			cpuTicksPer5sAfterEnd: ours.cpuTicksAfter,
		};
	} finally {
		await n8n.close();
	}
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(r) => console.log(JSON.stringify(r, null, 2)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
