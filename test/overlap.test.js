'use strict';
/**
 * Executions of one workflow that overlap, in n8n's engine against the emulator (issue 43): each
 * execution starts from a copy of the workflow's saved static data and writes its own back when
 * it ends, as n8n 2.x does (`saved` in scripts/n8n-engine.js), and all of them run in this one
 * process, as on one n8n (regular mode) or one queue-mode worker. With Skip Submitted Documents
 * on, a document is billed once however the executions overlap and in whatever order they end,
 * every item holds its result or an error that says why, and what each of them remembered is
 * saved.
 */
const h = require('./helpers');

const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });

const submissions = () => h.hits(emu, 'POST /api/ocr');
const docs = (from, to) =>
	Array.from({ length: to - from }, (_, i) =>
		h.pdfItem(`Document ${from + i}`, `doc-${from + i}.pdf`),
	);
const remembering = (options = {}) =>
	h.submit({ waitForCompletion: true, options: { skipSubmitted: true, ...options } });
const production = { mode: 'trigger' };

/** The remembered submissions in what n8n saved: task IDs by record. */
function savedTasks(saved) {
	const gens = saved.staticData?.['node:Document OCR']?.submitted?.gens ?? [];
	return gens.flatMap((gen) => Object.values(gen).map((value) => JSON.parse(value)[1]));
}

/** Every item of `output` holds its document's text. */
function expectResults(output, from) {
	expect(output.map((o) => o.json.resultText)).toEqual(
		output.map((_, i) => `Document ${from + i}`),
	);
	output.forEach((o, i) => expect(o.pairedItem).toEqual({ item: i }));
}

test('three executions of the same six documents at once: each document billed once, every item its result', async () => {
	const saved = {};
	const runs = await Promise.all(
		[0, 1, 2].map(
			async () => await h.run(emu, remembering(), docs(0, 6), { saved, ...production }),
		),
	);
	for (const { error, output } of runs) {
		expect(error).toBeUndefined();
		expectResults(output, 0);
	}
	expect(submissions()).toBe(6);
	expect(h.netCharged(emu)).toBe(6);
	// Each document's task is one task, whoever sent it; the others say who did.
	const ids = runs.map(({ output }) => output.map((o) => o.json.taskId));
	expect(ids[1]).toEqual(ids[0]);
	expect(ids[2]).toEqual(ids[0]);
	const reused = runs.flatMap(({ output }) => output.filter((o) => o.json.previouslySubmitted));
	expect(reused).toHaveLength(12);
	const executions = runs.map(({ executionId }) => executionId);
	for (const { json } of reused) {
		expect(executions).toContain(json.previouslySubmittedBy.executionId);
		expect(json.previouslySubmittedBy.submittedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
	}
	// Nothing lost: what was saved last holds all six, and a later execution bills nothing.
	expect(new Set(savedTasks(saved))).toEqual(new Set(ids[0]));
	const later = await h.run(emu, remembering(), docs(0, 6), { saved, ...production });
	expectResults(later.output, 0);
	expect(later.output.every((o) => o.json.previouslySubmitted === true)).toBe(true);
	expect(submissions()).toBe(6);
});

test.each([
	['the first to start ends last', 0],
	['the first to start ends first', 1],
])('two executions with overlapping documents, %s: what both sent is saved', async (_, quick) => {
	const saved = {};
	// The quick one does not wait for its tasks: it ends as soon as they are accepted.
	const params = (i) =>
		i === quick ? h.submit({ options: { skipSubmitted: true } }) : remembering();
	const items = [docs(0, 6), docs(3, 9)];
	const runs = await Promise.all(
		[0, 1].map(async (i) => await h.run(emu, params(i), items[i], { saved, ...production })),
	);
	for (const { error } of runs) expect(error).toBeUndefined();
	expect(submissions()).toBe(9);
	expect(savedTasks(saved)).toHaveLength(9);
	const later = await h.run(emu, remembering(), docs(0, 9), { saved, ...production });
	expectResults(later.output, 0);
	expect(submissions()).toBe(9);
});

test('an execution that fails after sending keeps what it sent; one beside it reuses it; n8n restarted, nothing is sent again', async () => {
	const saved = {};
	// Every read of a task takes 1.5 s; the second execution waits 0.6 s for its tasks: it fails
	// after they were accepted.
	emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'latency', ms: 1500, times: 1000 });
	const impatient = h.submit({ options: { skipSubmitted: true, waitTimeout: 0.01 } });
	const [patient, failed] = await Promise.all([
		h.run(emu, remembering(), docs(0, 4), { saved, ...production }),
		h.run(emu, impatient, docs(2, 6), { saved, ...production }),
	]);
	expect(patient.error).toBeUndefined();
	expectResults(patient.output, 0);
	expect(failed.error).toBeDefined();
	expect(submissions()).toBe(6);
	expect(savedTasks(saved)).toHaveLength(6);
	// A new process (another workflow ID here: nothing shared in memory) starts from what was saved.
	const restarted = await h.run(emu, remembering(), docs(0, 6), {
		saved,
		workflowId: 'wf-after-restart',
		...production,
	});
	expectResults(restarted.output, 0);
	expect(submissions()).toBe(6);
});

test('the answer to one execution’s submission is lost: the execution beside it does not send that document, and says whose it is', async () => {
	const saved = {};
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 400, times: 1 });
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError', times: 1 });
	const first = h.run(emu, remembering(), docs(0, 1), {
		saved,
		continueOnFail: true,
		...production,
	});
	await new Promise((resolve) => setTimeout(resolve, 100));
	const second = await h.run(emu, remembering(), docs(0, 1), {
		saved,
		continueOnFail: true,
		...production,
	});
	const { output, executionId } = await first;
	expect(output[0].json.error).toMatch(/may have been created/);
	expect(second.output[0].json.error).toBe(
		`Item 0 was not sent: it is the same document as item 0 of execution ${executionId} of this workflow, running beside this one, whose submission may have created a task`,
	);
	expect(submissions()).toBe(1);
	expect(h.netCharged(emu)).toBe(1);
});

test('one execution’s submission is refused: the execution waiting for it sends the document itself, once', async () => {
	const saved = {};
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 400, times: 1 });
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'status', status: 400, times: 1 });
	const first = h.run(emu, remembering(), docs(0, 1), {
		saved,
		continueOnFail: true,
		...production,
	});
	await new Promise((resolve) => setTimeout(resolve, 100));
	const second = await h.run(emu, remembering(), docs(0, 1), { saved, ...production });
	expect((await first).output[0].json.error).toBeDefined();
	expect(second.error).toBeUndefined();
	expectResults(second.output, 0);
	expect(second.output[0].json.previouslySubmitted).toBeUndefined();
	expect(h.netCharged(emu)).toBe(1);
});

test('manual test runs keep their own memory: an overlapping production execution is not held up by one', async () => {
	const saved = {};
	const [manual, production1] = await Promise.all([
		h.run(emu, remembering(), docs(0, 2), { saved }),
		h.run(emu, remembering(), docs(0, 2), { saved, ...production }),
	]);
	expectResults(manual.output, 0);
	expectResults(production1.output, 0);
	// n8n keeps nothing of a manual run: both sent their documents (documented in the option).
	expect(submissions()).toBe(4);
	expect(savedTasks(saved)).toHaveLength(2);
});
