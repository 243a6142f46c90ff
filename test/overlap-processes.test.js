'use strict';
/**
 * Executions of one workflow in two n8n processes (issue 43): this test's process and a child
 * process (scripts/engine-process.js) with the node's code of its own, as two queue-mode workers.
 * Each execution starts from empty static data, as a worker's does in n8n 2.41, and the processes
 * share n8n's database: the deduplication table (scripts/dedup-store.js, written as n8n writes
 * it) where the node claims each document it sends (batch/claims.ts). A document one process sent
 * is not sent by the other; its item says so and how to get the task; a refused submission is let
 * go for the other to send; Resend Unconfirmed Documents sends it on purpose.
 */
const h = require('./helpers');
const base = require('../scripts/n8n-engine');
const { startEngineProcess } = require('../scripts/engine-process');

const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });
const submissions = () => h.hits(emu, 'POST /api/ocr');
const docs = (from, to) =>
	Array.from({ length: to - from }, (_, i) =>
		h.pdfItem(`Document ${from + i}`, `doc-${from + i}.pdf`),
	);
const remembering = (options = {}) =>
	h.submit({ waitForCompletion: true, options: { skipSubmitted: true, ...options } });

let other;
beforeAll(async () => {
	other = await startEngineProcess(base.processedData);
}, 60_000);
afterAll(async () => {
	await other?.close();
});

/** Each test its own workflow: its own row in the table, its own memories. */
let workflows = 0;
const newWorkflow = () => `wf-processes-${++workflows}`;

/** An execution on the worker that is this process (empty static data, as a worker's). */
const here = (workflowId, parameters, items) =>
	h.run(emu, parameters, items, {
		workflowId,
		saved: { staticData: {} },
		mode: 'trigger',
		continueOnFail: true,
	});

/** An execution on the other worker. */
const there = (workflowId, parameters, items) =>
	other.run({
		...base.nodeWorkflow({
			parameters,
			items,
			nodeSettings: { onError: 'continueRegularOutput' },
		}),
		credentials: h.credentials(emu),
		workflowId,
		saved: { staticData: {} },
		mode: 'trigger',
	});

const elsewhere =
	/Item \d+ was not sent: this node submitted the same document before from another n8n process/;

test('a document one process sent is not sent by the other: its item says so, and a new one is sent once', async () => {
	const workflowId = newWorkflow();
	const first = await here(workflowId, remembering(), docs(0, 3));
	expect(first.output.map((o) => o.json.status)).toEqual(['done', 'done', 'done']);
	expect(submissions()).toBe(3);

	const second = await there(workflowId, remembering(), docs(0, 4));
	expect(second.error).toBeUndefined();
	expect(second.output.slice(0, 3).map((o) => o.json.error)).toEqual([
		expect.stringMatching(elsewhere),
		expect.stringMatching(elsewhere),
		expect.stringMatching(elsewhere),
	]);
	expect(second.output[3].json.resultText).toBe('Document 3');
	expect(submissions()).toBe(4);
	expect(h.netCharged(emu)).toBe(4);

	// And back: what the other process sent is known here too; what this one sent, from memory.
	const third = await here(workflowId, remembering(), docs(0, 4));
	expect(third.output.slice(0, 3).every((o) => o.json.previouslySubmitted === true)).toBe(true);
	expect(third.output[3].json.error).toMatch(elsewhere);
	expect(submissions()).toBe(4);
});

test('Resend Unconfirmed Documents sends a document another process claimed, on purpose', async () => {
	const workflowId = newWorkflow();
	await here(workflowId, remembering(), docs(0, 2));
	const again = await there(workflowId, remembering({ resendUnconfirmed: true }), docs(0, 2));
	expect(again.output.map((o) => o.json.resultText)).toEqual(['Document 0', 'Document 1']);
	expect(submissions()).toBe(4);
});

test('a submission the service refused is let go: the other process sends the document', async () => {
	const workflowId = newWorkflow();
	emu.setBalance('acme', 0);
	const refused = await here(workflowId, remembering(), docs(0, 1));
	expect(refused.output[0].json.error).toMatch(/balance|credit|402/i);
	expect(h.netCharged(emu)).toBe(0);
	emu.setBalance('acme', 100);
	const sent = await there(workflowId, remembering(), docs(0, 1));
	expect(sent.output[0].json.resultText).toBe('Document 0');
	expect(h.netCharged(emu)).toBe(1);
});

test('a run stopped by a failing item lets go of the documents it claimed and did not send before it ends: another process sends them', async () => {
	const workflowId = newWorkflow();
	// A slow database: the table's removal lands well after the item was stopped.
	const table = base.processedData;
	const remove = table.removeProcessed;
	table.removeProcessed = async (...args) => {
		await new Promise((resolve) => setTimeout(resolve, 500));
		return await remove.apply(table, args);
	};
	try {
		emu.setBalance('acme', 1);
		// Two requests at a time, each answered after 300 ms: item 0 is billed, item 1 is refused
		// (402) and stops the run; the items after it had claimed their documents in the table
		// before their turn (batch/claims.ts): those refused, and those stopped before they were
		// sent (item 3 at least), are let go.
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 300, times: 2 });
		const stopped = await h.run(emu, remembering({ concurrency: 2 }), docs(0, 4), {
			workflowId,
			saved: { staticData: {} },
			mode: 'trigger',
		});
		expect(stopped.error?.message).toMatch(/balance|credit|402/i);
		expect(submissions()).toBeLessThan(4);
	} finally {
		table.removeProcessed = remove;
	}
	emu.setBalance('acme', 100);
	const sent = await there(workflowId, remembering(), docs(1, 4));
	expect(sent.output.map((o) => o.json.error)).toEqual([undefined, undefined, undefined]);
	expect(sent.output.map((o) => o.json.resultText)).toEqual([
		'Document 1',
		'Document 2',
		'Document 3',
	]);
	expect(h.netCharged(emu)).toBe(4);
});

test('executions in two processes that overlap (the second starts while the first waits): each document billed once', async () => {
	const workflowId = newWorkflow();
	const first = here(workflowId, remembering(), docs(0, 4));
	// The first has claimed its documents once its submissions are out.
	while (submissions() < 4) await new Promise((resolve) => setTimeout(resolve, 20));
	const second = await there(workflowId, remembering(), docs(2, 6));
	const { output } = await first;
	expect(output.map((o) => o.json.resultText)).toEqual([0, 1, 2, 3].map((i) => `Document ${i}`));
	expect(second.output.slice(0, 2).map((o) => o.json.error)).toEqual([
		expect.stringMatching(elsewhere),
		expect.stringMatching(elsewhere),
	]);
	expect(second.output.slice(2).map((o) => o.json.resultText)).toEqual([
		'Document 4',
		'Document 5',
	]);
	expect(submissions()).toBe(6);
	expect(h.netCharged(emu)).toBe(6);
});

test('manual runs claim nothing in the table: a later production execution sends the document', async () => {
	const workflowId = newWorkflow();
	const calls = base.processedData.calls.checkProcessedAndRecord;
	await h.run(emu, remembering(), docs(0, 1), { workflowId, mode: 'manual' });
	expect(base.processedData.calls.checkProcessedAndRecord).toBe(calls);
	const later = await there(workflowId, remembering(), docs(0, 1));
	expect(later.output[0].json.resultText).toBe('Document 0');
	expect(submissions()).toBe(2);
});

test('executions in two processes started at the same moment: each document billed once', async () => {
	const workflowId = newWorkflow();
	// The table's row exists (its first insert is atomic): what follows races in read-then-write.
	await here(workflowId, remembering(), docs(10, 11));
	const [a, b] = await Promise.all([
		here(workflowId, remembering(), docs(0, 5)),
		there(workflowId, remembering(), docs(0, 5)),
	]);
	expect(submissions()).toBe(6);
	expect(h.netCharged(emu)).toBe(6);
	// Each document: its text in one process, and in the other its text or "another process".
	for (let i = 0; i < 5; i++) {
		const texts = [a.output[i].json, b.output[i].json];
		expect(texts.some((json) => json.resultText === `Document ${i}`)).toBe(true);
		for (const json of texts)
			if (json.resultText === undefined) expect(json.error).toMatch(elsewhere);
	}
});
