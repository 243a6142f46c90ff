'use strict';
/**
 * Executions that overlap (issue 43): an execution cancelled while its submission is in flight
 * (n8n aborts the request through the cancel signal) may have created a task, so the execution
 * waiting for that submission of the same document does not send it again.
 */
const h = require('./helpers');
const harness = require('./harness');

const emu = h.useEmulator({ perTest: true, workers: 2, msPerPage: 150 });
const submissions = () => h.hits(emu, 'POST /api/ocr');

test('one execution cancelled mid-submission: the other, waiting for it, does not send the document again', async () => {
	const saved = {};
	emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 800, times: 1 });
	const params = h.submit({ waitForCompletion: false, options: { skipSubmitted: true } });
	const items = [h.pdfItem('Doc', 'doc.pdf')];
	const a = harness.runNode({
		parameters: params,
		items,
		credentials: h.credentials(emu),
		saved,
		mode: 'trigger',
		workflowId: 'wf-cancel',
	});
	await new Promise((resolve) => setTimeout(resolve, 300));
	const b = harness.runNode({
		parameters: params,
		items,
		credentials: h.credentials(emu),
		saved,
		mode: 'trigger',
		workflowId: 'wf-cancel',
	}).promise;
	await new Promise((resolve) => setTimeout(resolve, 200));
	a.cancel();
	const ra = await a.promise;
	const rb = await b;
	await new Promise((resolve) => setTimeout(resolve, 1000));
	console.log(
		'A',
		ra.status,
		ra.error?.message,
		'B',
		rb.error?.message,
		JSON.stringify(rb.output[0]?.json),
		'POSTs',
		submissions(),
		'charged',
		h.netCharged(emu),
	);
	// A's request reached the service before the cancel: B must not send it again.
	expect(submissions()).toBe(1);
});
