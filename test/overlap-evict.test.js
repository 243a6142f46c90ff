'use strict';
/**
 * Executions that overlap (issue 43): a node's memory is kept after its run ends, while its
 * execution (not saved yet) runs on; 64 other Document OCR nodes used in the process meanwhile
 * do not push it out, so a later execution reuses what the first sent.
 */
const h = require('./helpers');
const { ocrNode, input, link } = require('./support/shapes');
const harness = require('./harness');

const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });
const submissions = () => h.hits(emu, 'POST /api/ocr');

test("a memory whose execution is not saved yet outlives 64 other nodes' use: a later execution reuses its document", async () => {
	const saved = {};
	const doc = h.pdfItem('Doc', 'doc.pdf');
	const x = h.submit({ waitForCompletion: false, options: { skipSubmitted: true } });
	const a = harness.runWorkflow({
		nodes: [
			input([doc]),
			ocrNode(x, {}, { name: 'OCR X', y: 200 }),
			ocrNode(h.task('get', { taskId: '={{ $json.taskId }}' }), {}, { name: 'OCR Y', y: 400 }),
		],
		connections: { Input: { main: [[link('OCR X')]] }, 'OCR X': { main: [[link('OCR Y')]] } },
		resultNode: 'OCR X',
		credentials: h.credentials(emu),
		saved,
		workflowId: 'wf-evict',
		mode: 'trigger',
	}).promise;
	// Y (downstream of X in A) is slow: A is saved only after it.
	emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'latency', ms: 4000, times: 1 });
	await new Promise((resolve) => setTimeout(resolve, 1200));
	expect(submissions()).toBe(1);
	// 64 other workflows' Document OCR nodes run in this process (each fails fast in its check phase).
	for (let i = 0; i < Number(process.env.FILLERS ?? 64); i++) {
		await harness.runNode({
			parameters: h.task('get', { taskId: '={{ $json.nothing }}' }),
			items: [{ json: {} }],
			credentials: h.credentials(emu),
			mode: 'trigger',
			workflowId: `wf-filler-${i}`,
			saved: {},
		}).promise;
	}
	// C: same workflow, same node X, same document, while A still runs.
	const c = await harness.runWorkflow({
		nodes: [input([doc]), ocrNode(x, {}, { name: 'OCR X', y: 200 })],
		connections: { Input: { main: [[link('OCR X')]] } },
		resultNode: 'OCR X',
		credentials: h.credentials(emu),
		saved,
		workflowId: 'wf-evict',
		mode: 'trigger',
	}).promise;
	const ra = await a;
	expect(ra.error).toBeUndefined();
	expect(c.error).toBeUndefined();
	expect(c.output[0].json.previouslySubmitted).toBe(true);
	expect(submissions()).toBe(1);
}, 60_000);
