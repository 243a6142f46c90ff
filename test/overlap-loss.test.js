'use strict';
/**
 * Executions that overlap (issue 43): an execution that only reads node X's memory, saved last
 * because another node changed its static data, saves X's records as the process knows them,
 * not the copy it loaded; after a restart nothing is sent again.
 */
const h = require('./helpers');
const { ocrNode, input, link } = require('./support/shapes');
const harness = require('./harness');

const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });
const submissions = () => h.hits(emu, 'POST /api/ocr');

/** Input → Fork → (first half) OCR X, (second half) OCR Y. */
function workflow(items) {
	return {
		nodes: [
			input(items),
			{
				id: 'fork',
				name: 'Fork',
				type: 'test.fork',
				typeVersion: 1,
				position: [200, 0],
				parameters: {},
			},
			ocrNode(
				h.submit({ waitForCompletion: false, options: { skipSubmitted: true } }),
				{},
				{ name: 'OCR X', y: 0 },
			),
			ocrNode(
				h.submit({ waitForCompletion: true, options: { skipSubmitted: true } }),
				{},
				{ name: 'OCR Y', y: 200 },
			),
		],
		connections: {
			Input: { main: [[link('Fork')]] },
			Fork: { main: [[link('OCR X')], [link('OCR Y')]] },
		},
	};
}

const run = (items, saved) =>
	harness.runWorkflow({
		...workflow(items),
		resultNode: 'OCR X',
		credentials: h.credentials(emu),
		saved,
		workflowId: 'wf-read-only',
		mode: 'trigger',
	}).promise;

function savedKeys(saved, node) {
	const gens = saved.staticData?.[`node:${node}`]?.submitted?.gens ?? [];
	return gens.flatMap((gen) => Object.keys(gen));
}

test("an execution that only reads node X's memory, saved last, keeps what an overlapping one remembered", async () => {
	const saved = {};
	const docS = h.pdfItem('Seen before', 'seen.pdf');
	const doc0 = h.pdfItem('New in A', 'a.pdf');
	const docY = h.pdfItem('For Y in B', 'y.pdf');
	// Before: X remembers docS.
	const p = await run([docS], saved);
	expect(p.error).toBeUndefined();
	expect(savedKeys(saved, 'OCR X')).toHaveLength(1);
	expect(submissions()).toBe(1);

	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 400, times: 1 });
	emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'latency', ms: 1500, times: 1000 });
	// A: X sends doc0 (remembered in the shared memory), A ends quickly.
	const a = run([doc0], saved);
	await new Promise((resolve) => setTimeout(resolve, 100));
	// B (starts while A runs): X only reads (docS known), Y sends docY and waits: B ends last.
	const b = run([docS, docY], saved);
	const [ra, rb] = await Promise.all([a, b]);
	expect(ra.error).toBeUndefined();
	expect(rb.error).toBeUndefined();
	expect(rb.output[0].json.previouslySubmitted).toBe(true);
	expect(submissions()).toBe(3);
	// What n8n saved last must still hold X's record of doc0.
	expect(savedKeys(saved, 'OCR X')).toHaveLength(2);
});

test('after a restart (a new process memory from what was saved) nothing is sent again', async () => {
	const saved = {};
	const docS = h.pdfItem('Seen before', 'seen.pdf');
	const doc0 = h.pdfItem('New in A', 'a.pdf');
	const docY = h.pdfItem('For Y in B', 'y.pdf');
	const runAs = (items, workflowId) =>
		harness.runWorkflow({
			...workflow(items),
			resultNode: 'OCR X',
			credentials: h.credentials(emu),
			saved,
			workflowId,
			mode: 'trigger',
		}).promise;
	await runAs([docS], 'wf-read-only-2');
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 400, times: 1 });
	emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'latency', ms: 1500, times: 1000 });
	const a = runAs([doc0], 'wf-read-only-2');
	await new Promise((resolve) => setTimeout(resolve, 100));
	const b = runAs([docS, docY], 'wf-read-only-2');
	await Promise.all([a, b]);
	const before = submissions();
	// n8n restarted: another workflow ID stands for a fresh process memory reading what was saved.
	const later = await runAs([doc0], 'wf-read-only-2-restarted');
	expect(later.error).toBeUndefined();
	expect(later.output[0].json.previouslySubmitted).toBe(true);
	expect(submissions()).toBe(before);
});
