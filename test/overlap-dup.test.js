'use strict';
/**
 * Executions that overlap (issue 43): the same document twice in each, and an execution whose
 * own later item fails while it waits for another's submission.
 */
const h = require('./helpers');
const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });
const submissions = () => h.hits(emu, 'POST /api/ocr');
const remembering = (options = {}) =>
	h.submit({ waitForCompletion: true, options: { skipSubmitted: true, ...options } });

test('the same document twice in each of three overlapping executions: one submission, every item its result', async () => {
	const saved = {};
	const items = [h.pdfItem('D', 'd.pdf'), h.pdfItem('D', 'd.pdf'), h.pdfItem('E', 'e.pdf')];
	const runs = await Promise.all(
		[0, 1, 2].map(
			async () =>
				await h.run(emu, remembering(), items, { saved, mode: 'trigger', workflowId: 'wf-dup' }),
		),
	);
	for (const r of runs) {
		expect(r.error).toBeUndefined();
		expect(r.output.map((o) => o.json.resultText)).toEqual(['D', 'D', 'E']);
	}
	expect(submissions()).toBe(2);
});

test('a waiting execution that halts (its own later item fails) stops waiting, and nothing more is billed', async () => {
	const saved = {};
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 1500, times: 1 });
	let firstEnded = 0;
	const first = h
		.run(emu, remembering(), [h.pdfItem('D', 'd.pdf')], {
			saved,
			mode: 'trigger',
			workflowId: 'wf-halt',
		})
		.then((result) => {
			firstEnded = Date.now();
			return result;
		});
	// The first execution's submission is under way (held 1.5 s by the service).
	while (h.hits(emu, 'POST /api/ocr') === 0) await new Promise((r) => setTimeout(r, 10));
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'status', status: 400, times: 1 });
	const second = await h.run(
		emu,
		remembering(),
		[h.pdfItem('D', 'd.pdf'), h.pdfItem('X', 'x.pdf')],
		{ saved, mode: 'trigger', workflowId: 'wf-halt' },
	);
	const secondEnded = Date.now();
	const a = await first;
	expect(a.error).toBeUndefined();
	expect(second.error).toBeDefined();
	// Its item 0 stopped waiting for the first execution's submission when item 1 failed.
	expect(firstEnded).toBeGreaterThan(secondEnded);
	expect(h.netCharged(emu)).toBe(1);
});
