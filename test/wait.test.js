'use strict';
const h = require('./helpers');
const { runNode } = require('./harness');
const { watchLateness } = require('./support/lateness');

const emu = h.useEmulator({ perTest: true });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Wait for Completion', () => {
	test('a task that never finishes ends at the deadline with its last status', async () => {
		const late = watchLateness();
		const started = Date.now();
		const { error } = await h
			.run(emu, h.submit({ options: { waitTimeout: 0.04 } }), [h.pdfItem('STUCK here')])
			.finally(late.stop);
		const elapsed = Date.now() - started;
		expect(error.message).toMatch(
			/^Task "tsk_[^"]+" did not finish within 2 second\(s\) \(last status "processing"\)$/,
		);
		expect(error.description).toMatch(/Task → Get/);
		// Not before its 2.4 s; after it, the upload and a status answer on a quiet machine, and the
		// machine's stalls meanwhile (support/lateness.js).
		expect(elapsed).toBeGreaterThanOrEqual(2400);
		expect(elapsed).toBeLessThan(2400 + late.allowance(5600));
	});

	test('unknown status values keep the wait going and are named at the deadline', async () => {
		emu.options.statuses.processing = 'needs_review';
		const { error } = await h.run(emu, h.submit({ options: { waitTimeout: 0.03 } }), [
			h.pdfItem('STUCK again'),
		]);
		expect(error.message).toMatch(/last status "needs_review" — a status this node does not know/);
	});

	test('a renamed failure status is recognised as a failure', async () => {
		emu.options.statuses.failed = 'error';
		const { error } = await h.run(emu, h.submit(), [h.pdfItem('FAIL please')]);
		expect(error.message).toMatch(/failed \(status "error"\)/);
	});

	test('Retry-After on a poll is honoured', async () => {
		emu.options.pollRetryAfterSeconds = 2;
		const { error } = await h.run(emu, h.submit({ options: { waitTimeout: 0.1 } }), [
			h.pdfItem('STUCK slow'),
		]);
		expect(error).toBeDefined();
		// 6 s deadline, first poll after 1 s, then no sooner than every 2 s: at most 4 polls.
		expect(h.hits(emu, 'GET /api/tasks/:id')).toBeLessThanOrEqual(4);
	});

	test('cancelling the execution stops polling at once', async () => {
		const handle = runNode({
			parameters: h.submit({ options: { waitTimeout: 5 } }),
			items: [h.pdfItem('STUCK until cancelled')],
			credentials: h.credentials(emu),
		});
		while (h.hits(emu, 'GET /api/tasks/:id') < 1) await sleep(50);
		handle.cancel();
		const result = await handle.promise;
		const pollsAtCancel = h.hits(emu, 'GET /api/tasks/:id');
		await sleep(2500);
		expect(h.hits(emu, 'GET /api/tasks/:id')).toBe(pollsAtCancel);
		expect(result.status).toBe('canceled');
	});
});
