'use strict';
/**
 * Long waits: a task (or job) that never finishes ends at the user's deadline with a clear error,
 * whatever the operation; a cancelled execution stops at once — while polling many tasks, while
 * the whole execution waits out a long Retry-After, and while a read backs off after 5xx — and
 * sends nothing after the cancel. Figures printed at the end.
 */
const diagnostics = require('node:diagnostics_channel');
const h = require('../helpers');
const { runNode } = require('../harness');
const { watchLateness } = require('../support/lateness');
const report = require('./report');

const emu = h.useEmulator({ perTest: true, workers: 4 });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rows = [];
const QUIET_MS = 3_000;

const v2 = (overrides = {}) =>
	h.submit({ operation: 'submitV2', format: 'markdown', ...overrides });
const jobCreate = (overrides = {}) => h.job('create', overrides);

describe('a task that never finishes ends at the deadline with a clear error', () => {
	test.each([
		[
			'Task → Submit',
			h.submit({ options: { waitTimeout: 0.05 } }),
			/^Task "tsk_[^"]+" did not finish within 3 second\(s\) \(last status "processing"\)$/,
		],
		[
			'Task → Submit (V2)',
			v2({ options: { waitTimeout: 0.05 } }),
			/^Task "[^"]+" did not finish within 3 second\(s\) \(last status "[a-z]+"\)$/,
		],
		[
			'Job → Create',
			jobCreate({ options: { waitTimeout: 0.05 } }),
			/^Job "[^"]+" did not finish within 3 second\(s\) \(last status "[a-z]+"\)$/,
		],
	])('%s', async (operation, parameters, message) => {
		const late = watchLateness();
		const started = Date.now();
		const { error, output } = await h
			.run(emu, parameters, [h.pdfItem('STUCK forever', 'stuck.pdf')])
			.finally(late.stop);
		const elapsed = Date.now() - started;
		expect(output).toEqual([]);
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(/goes on at the service|still running|Get/);
		// Not before its 3 s; after it, what a quiet machine needs and the machine's stalls meanwhile.
		expect(elapsed).toBeGreaterThanOrEqual(3_000);
		expect(elapsed).toBeLessThan(3_000 + late.allowance(4_000));
		const polls = Object.values(emu.stats().polls).reduce((a, b) => a + b, 0);
		rows.push([
			`${operation}: never finishes, Wait Timeout 3 s`,
			`error after ${(elapsed / 1000).toFixed(1)} s`,
			`${polls} status requests`,
			'—',
		]);
	});

	test('with Continue on Fail, the stuck item fails at its deadline and the others are delivered', async () => {
		const items = [h.pdfItem('fine one'), h.pdfItem('STUCK one'), h.pdfItem('fine two')];
		const { output, error } = await h.run(
			emu,
			h.submit({ options: { waitTimeout: 0.05 } }),
			items,
			{
				continueOnFail: true,
			},
		);
		expect(error).toBeUndefined();
		expect(output.map((o) => o.json.status ?? 'error')).toEqual(['done', 'error', 'done']);
		expect(output[1].json.error).toMatch(/did not finish within 3 second/);
	});
});

/**
 * When each HTTP request to the emulator was started by this process (the node runs in it: n8n's
 * HTTP helper sends through node:http), from Node's `http.client.request.start` channel. A request
 * started before the cancel may reach the emulator after it on a loaded machine; "nothing more"
 * is about the requests the node starts.
 */
function watchRequestStarts(url) {
	const { host } = new URL(url);
	const starts = [];
	const onStart = ({ request }) => {
		if (request.getHeader('host') === host) starts.push(Date.now());
	};
	diagnostics.subscribe('http.client.request.start', onStart);
	return {
		after: (time) => starts.filter((at) => at > time).length,
		upTo: (time) => starts.filter((at) => at <= time).length,
		stop: () => diagnostics.unsubscribe('http.client.request.start', onStart),
	};
}

/**
 * Starts a run, waits until `ready()`, cancels, then watches the emulator for QUIET_MS. Returns
 * the run's result, the requests the node started after the cancel (and those that reached the
 * emulator after it), how long the run took to end after it and what "at once" allows this
 * machine: 1 s, plus its stalls meanwhile (support/lateness.js).
 */
async function cancelWhen(parameters, items, ready, label) {
	const late = watchLateness();
	const starts = watchRequestStarts(emu.url);
	const handle = runNode({ parameters, items, credentials: h.credentials(emu) });
	const started = Date.now();
	while (!ready()) {
		if (Date.now() - started > 120_000) throw new Error('the run never got going');
		await sleep(20);
	}
	const requestsAtCancel = emu.stats().requests;
	const cancelledAt = Date.now();
	handle.cancel();
	const result = await handle.promise;
	const endedAfter = Date.now() - cancelledAt;
	const atOnce = late.allowance(1_000);
	late.stop();
	await sleep(QUIET_MS);
	const after = starts.after(cancelledAt);
	// The watch sees the node's requests: those it started before the cancel are there.
	expect(starts.upTo(cancelledAt)).toBeGreaterThan(0);
	starts.stop();
	const arrived = emu.stats().requests - requestsAtCancel;
	rows.push([
		label,
		`run ended ${endedAfter} ms after the cancel`,
		`${requestsAtCancel} requests before`,
		`${after} started after (watched ${QUIET_MS / 1000} s; ${arrived} reached the service after it)`,
	]);
	return { result, after, endedAfter, atOnce };
}

describe('a cancelled execution stops at once and sends nothing more', () => {
	test('while 40 tasks are being polled', async () => {
		const items = Array.from({ length: 40 }, (_, i) => h.pdfItem(`STUCK ${i}`, `s${i}.pdf`));
		const { result, after, endedAfter, atOnce } = await cancelWhen(
			h.submit({ options: { waitTimeout: 10 } }),
			items,
			() => h.hits(emu, 'GET /api/tasks/:id') >= 5,
			'cancel while polling 40 tasks',
		);
		expect(result.status).toBe('canceled');
		expect(after).toBe(0);
		expect(endedAfter).toBeLessThan(atOnce);
	});

	test('while the execution waits out a 60 s Retry-After', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'rateLimit', retryAfter: 60, times: 1 });
		const { result, after, endedAfter, atOnce } = await cancelWhen(
			h.submit({ waitForCompletion: false }),
			[h.pdfItem('a'), h.pdfItem('b'), h.pdfItem('c')],
			// All three submissions have arrived (they leave together) and one got the 429: whatever
			// follows the cancel would be a request the node started after it.
			() => h.hits(emu, 'POST /api/ocr') >= 3 && emu.stats().faultsFired >= 1,
			'cancel during a 60 s Retry-After',
		);
		expect(result.status).toBe('canceled');
		expect(after).toBe(0);
		expect(endedAfter).toBeLessThan(atOnce);
	});

	test('while a status request backs off after 5xx answers', async () => {
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'status', status: 503, times: 3 });
		const { result, after, endedAfter, atOnce } = await cancelWhen(
			h.submit({ options: { waitTimeout: 10 } }),
			[h.pdfItem('STUCK backing off')],
			() => emu.stats().faultsFired >= 2,
			'cancel during a 5xx back-off',
		);
		expect(result.status).toBe('canceled');
		expect(after).toBe(0);
		expect(endedAfter).toBeLessThan(atOnce);
	});

	test('while a job is being polled (/v1)', async () => {
		const { result, after } = await cancelWhen(
			jobCreate({ options: { waitTimeout: 10 } }),
			[h.pdfItem('STUCK job')],
			() => h.hits(emu, 'GET /v1/jobs/:id') >= 1,
			'cancel while polling a /v1 job',
		);
		expect(result.status).toBe('canceled');
		expect(after).toBe(0);
	});
});

afterAll(() => {
	report.table(
		'Long waits — deadlines and cancels (n8n-core engine)',
		['case', 'outcome', 'before', 'after'],
		rows,
	);
});
