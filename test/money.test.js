'use strict';
/**
 * Money-safe batches and waits, in n8n's engine against the emulator: a bad item bills nothing,
 * the first failure stops the spending, no billed ID is lost, every wait ends by its own
 * deadline, and lists are walked to their end whatever page size the service keeps to.
 */
const h = require('./helpers');
const { KEYS } = require('../emulator');
const { watchLateness } = require('./support/lateness');

const emu = h.useEmulator({ perTest: true, workers: 4, msPerPage: 40 });

const submissions = () => h.hits(emu, 'POST /api/ocr');
const docs = (n) => Array.from({ length: n }, (_, i) => h.pdfItem(`Document ${i}`, `doc-${i}.pdf`));

describe('a failing item stops the spending (Continue on Fail off)', () => {
	test('20 items with item 0 an empty file: the run fails with 0 submissions and 0 pages', async () => {
		const items = [h.binaryItem(Buffer.alloc(0), 'empty.pdf'), ...docs(19)];
		const { error, output } = await h.run(emu, h.submit(), items);
		expect(error.message).toMatch(/^Item 0: the document is empty/);
		expect(error.context.itemIndex).toBe(0);
		expect(output).toEqual([]);
		expect(submissions()).toBe(0);
		expect(h.netCharged(emu)).toBe(0);
	});

	test('a bad item late in the batch is found before anything is sent', async () => {
		const items = [...docs(12), h.binaryItem(Buffer.from('not a document'), 'x.pdf')];
		const { error } = await h.run(emu, h.submit({ options: { concurrency: 5 } }), items);
		expect(error.context.itemIndex).toBe(12);
		expect(submissions()).toBe(0);
		expect(h.netCharged(emu)).toBe(0);
	});

	test.each([1, 5])(
		'a 402 at item 5 of 20 (Concurrency %i): the run fails, and its error lists the task IDs of items 0–4',
		async (concurrency) => {
			emu.setBalance('acme', 5);
			const { error, output } = await h.run(emu, h.submit({ options: { concurrency } }), docs(20));
			expect(output).toEqual([]);
			expect(error.context.itemIndex).toBe(5);
			expect(error.message).toMatch(/page balance|pages/i);
			const created = error.context.created;
			expect(created.map((c) => c.itemIndex)).toEqual([0, 1, 2, 3, 4]);
			const charged = emu
				.ledger('acme')
				.filter((e) => e.delta < 0)
				.map((e) => e.taskId);
			expect(created.map((c) => c.id).sort()).toEqual([...charged].sort());
			for (const c of created)
				expect(error.description).toContain(`item ${c.itemIndex}: task ${c.id}`);
			expect(error.description).toMatch(
				/Re-running the node submits them again and bills them again/,
			);
			expect(error.description).toMatch(/Task → Get/);
			expect(h.netCharged(emu)).toBe(5);
			// Items after the failure: no submission started once it was known (in flight at most
			// Concurrency − 1 more, each refused for the balance, so none billed).
			expect(submissions()).toBeLessThanOrEqual(6 + (concurrency - 1));
		},
	);

	test('an answer that refuses a submission (success: false) stops the next one from taking its freed request slot (Concurrency 2)', async () => {
		// Item 0 is refused at once; item 1 is slow, so item 2 waits for the slot item 0 frees. A
		// one-at-a-time loop would stop at item 0: item 2 must not be sent.
		const refusal = { success: false, message: 'unreadable document' };
		emu.faults.add({ kind: 'body', method: 'POST', path: '/api/ocr', times: 1, body: refusal });
		emu.faults.add({ kind: 'latency', method: 'POST', path: '/api/ocr', ms: 1500, every: 2 });
		const params = h.submit({ waitForCompletion: false, options: { concurrency: 2 } });
		const { error } = await h.run(emu, params, docs(3));
		expect(error.context.itemIndex).toBe(0);
		expect(error.message).toMatch(/success: false/);
		expect(submissions()).toBe(2);
		expect(error.context.created.map((c) => c.itemIndex)).toEqual([1]);
		expect(h.netCharged(emu)).toBe(1);
	});

	test('which items are billed when the balance runs out is item order, not timing (Concurrency 1)', async () => {
		emu.setBalance('acme', 3);
		const items = [
			h.binaryItem(h.documents.makePdf(['a', 'b']), 'two-pages.pdf'),
			h.pdfItem('one page', 'one.pdf'),
			h.pdfItem('another page', 'another.pdf'),
		];
		const { error } = await h.run(emu, h.submit({ options: { concurrency: 1 } }), items);
		expect(error.context.itemIndex).toBe(2);
		expect(error.context.created.map((c) => c.itemIndex)).toEqual([0, 1]);
	});
});

describe('no billed ID is lost', () => {
	test('a key with only the submit scope and Wait for Completion on: nothing is sent, the error names the read scope', async () => {
		const { error } = await h.run(emu, h.submit(), docs(3), { apiKey: KEYS.submitOnly });
		expect(error.message).toMatch(/read/);
		expect(error.description).toMatch(
			/checks before submitting anything that the key can read tasks/,
		);
		expect(submissions()).toBe(0);
		expect(h.netCharged(emu)).toBe(0);
	});

	test('Continue on Fail: an item that fails after its submission carries its task ID and billed pages', async () => {
		const { output, error } = await h.run(
			emu,
			h.submit(),
			[h.pdfItem('fine', 'fine.pdf'), h.pdfItem('this one will FAIL', 'bad.pdf')],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('done');
		expect(output[1].json.error).toMatch(/failed/);
		expect(output[1].json.taskId).toMatch(/\S/);
		const charged = emu
			.ledger('acme')
			.filter((e) => e.delta < 0)
			.map((e) => e.taskId);
		expect(charged).toContain(output[1].json.taskId);
	});

	test('without a billed count in the submission answer, the finished task reports its pages', async () => {
		const items = [h.binaryItem(h.documents.makePdf(['one', 'two']), 'two.pdf')];
		// A service whose task carries `pages` (not shown by the spec: the rich profile).
		const rich = await h.withEmulator({ fields: 'rich' });
		const { output } = await h.run(rich, h.submit(), items).finally(() => rich.close());
		expect(output[0].json.pagesBilled).toBe(2);
		// The spec's service shows no page count anywhere: none is made up.
		const strict = await h.run(emu, h.submit(), items);
		expect(strict.output[0].json.pagesBilled).toBeUndefined();
		expect(strict.output[0].json.resultText).toContain('two');
	});
});

describe('deadlines: each item its own, from the moment the service accepted it', () => {
	test('Concurrency 1, a 3 s Wait Timeout, 4 items taking 1 s each: all finish (the timeout does not start before the upload)', async () => {
		emu.options.msPerPage = 1000;
		const started = Date.now();
		const { output, error } = await h.run(
			emu,
			h.submit({ options: { concurrency: 1, waitTimeout: 0.05 } }),
			docs(4),
		);
		expect(error).toBeUndefined();
		expect(output.map((o) => o.json.status)).toEqual(['done', 'done', 'done', 'done']);
		expect(Date.now() - started).toBeGreaterThan(3000); // longer than one timeout, in all
	});

	test('a 503 with Retry-After: 3600 on a status check: the item ends at its deadline, not an hour later', async () => {
		emu.pauseQueue();
		emu.fault({
			kind: 'status',
			status: 503,
			retryAfter: 3600,
			method: 'GET',
			path: '/api/tasks/',
			times: 100,
		});
		const late = watchLateness();
		const started = Date.now();
		const { output, error } = await h
			.run(emu, h.submit({ options: { waitTimeout: 0.05 } }), docs(3), { continueOnFail: true })
			.finally(late.stop);
		expect(error).toBeUndefined();
		// Its 3 s, what a quiet machine adds and the machine's stalls meanwhile: not the hour.
		expect(Date.now() - started).toBeLessThan(3000 + late.allowance(5000));
		for (const item of output) {
			expect(item.json.error).toBeDefined();
			expect(item.json.taskId).toMatch(/\S/);
		}
	});
});

test('a status check held 6 s by a Retry-After holds only its own task: the others are seen done while it waits', async () => {
	// The first status read (the oldest task's) answers 503 with Retry-After: 6.
	emu.fault({ kind: 'status', status: 503, retryAfter: 6, method: 'GET', path: '/api/tasks/' });
	const { output, error } = await h.run(emu, h.submit({ options: { concurrency: 5 } }), docs(8));
	expect(error).toBeUndefined();
	expect(output.map((o) => o.json.status)).toEqual(Array(8).fill('done'));
	const { pollLog } = emu.stats();
	const [fault] = emu.faults.log;
	const held = fault.path.split('/').pop();
	const heldUntil = Date.parse(fault.at) + 6000;
	const seenDone = (id) => pollLog.find((p) => p.taskId === id && p.status === 'done').at;
	const others = output.map((o) => o.json.taskId).filter((id) => id !== held);
	expect(others).toHaveLength(7);
	// The held one is read again only after its 6 s; each of the 7 others is seen done within
	// them — a Retry-After that held every read would let none be read before it ends.
	expect(pollLog.filter((p) => p.taskId === held).every((p) => p.at >= heldUntil)).toBe(true);
	for (const id of others) expect(seenDone(id)).toBeLessThan(heldUntil);
});

describe('answers the reference describes', () => {
	test('a refunded task creation failure is sent once more: the document is charged exactly once', async () => {
		emu.fault({ kind: 'failCreation', path: '/api/ocr' });
		const { output, error } = await h.run(emu, h.submit(), [h.pdfItem('refunded then fine')]);
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('done');
		expect(submissions()).toBe(2);
		expect(h.netCharged(emu)).toBe(1);
	});

	test("success: false on a 200 is an item error with the service's message and the refund note", async () => {
		emu.fault({
			kind: 'body',
			method: 'POST',
			path: '/api/ocr',
			status: 200,
			body: { success: false, message: 'document could not be queued' },
		});
		const { output } = await h.run(emu, h.submit(), [h.pdfItem('x')], { continueOnFail: true });
		expect(output[0].json.error).toBe(
			'The OCR service did not accept the document (success: false): document could not be queued',
		);
		expect(output[0].json.description).toMatch(/refunds/);
	});
});

describe('Get Many walks the list to its end, whatever page size the service keeps to', () => {
	const seed = async (n) => {
		emu.options.msPerPage = 0;
		const { error } = await h.run(
			emu,
			h.submit({ waitForCompletion: false, options: { concurrency: 10 } }),
			docs(n),
		);
		expect(error).toBeUndefined();
	};

	test.each([
		['items (with total and the page size used)', 'items'],
		['a bare array (no paging fields at all)', 'array'],
		['data + pagination', 'data'],
	])(
		'120 tasks, a cap of 10 per page, %s: Return All gives 120, Limit 30 gives 30',
		async (_label, shape) => {
			await seed(120);
			emu.options.maxPageSize = 10;
			emu.options.shapes.list = shape;
			const all = await h.run(
				emu,
				h.task('getMany', { returnAll: true, filters: {}, options: {} }),
			);
			expect(all.error).toBeUndefined();
			expect(new Set(all.output.map((o) => o.json.taskId)).size).toBe(120);
			const some = await h.run(
				emu,
				h.task('getMany', { returnAll: false, limit: 30, filters: {}, options: {} }),
			);
			expect(some.output).toHaveLength(30);
		},
	);
});

describe('Get Many on a list that moves while it is read', () => {
	test.each([1, 2])(
		'45 tasks, %i × 20 more submitted by another client between page reads: Return All outputs every task once and does not end early',
		async (shifts) => {
			emu.options.msPerPage = 0;
			const { output: sent } = await h.run(
				emu,
				h.submit({ waitForCompletion: false, options: { concurrency: 10 } }),
				docs(45),
			);
			emu.options.listShift = { probability: 1, tasks: 20, times: shifts };
			const { output, error } = await h.run(
				emu,
				h.task('getMany', { returnAll: true, filters: {}, options: {} }),
			);
			emu.options.listShift = null;
			expect(error).toBeUndefined();
			const ids = output.map((o) => o.json.taskId);
			expect(ids).toHaveLength(new Set(ids).size);
			for (const o of sent) expect(ids).toContain(o.json.taskId);
		},
	);
});

describe('Retry On Fail: a try reuses what the tries before it billed, in the same execution', () => {
	const { runShape, flatten } = require('./support/shapes');
	const retried = async (params, items, nodeSettings = {}) => {
		const { executions } = await runShape('retry', {
			parameters: params,
			items,
			credentials: h.credentials(emu),
			nodeSettings,
		});
		return flatten(executions[0]);
	};
	// The third submission is refused once (415: the service created nothing).
	const refuseThird = (path) =>
		emu.faults.add({
			kind: 'status',
			status: 415,
			code: 'unsupported_media_type',
			method: 'POST',
			path,
			every: 3,
			times: 1,
		});

	test.each([
		['Task → Submit', () => h.submit({ waitForCompletion: false }), '/api/ocr'],
		['Task → Submit, waiting', () => h.submit({ options: { waitTimeout: 0.2 } }), '/api/ocr'],
		['Job → Create', () => h.job('create', { waitForCompletion: false }), '/v1/jobs'],
		['Document → Convert to Markdown', () => h.doc('markdown'), '/v1/markdown'],
	])(
		'%s: the node fails at item 2, n8n tries again: items 0 and 1 are not billed again, and are output as the first try had them',
		async (name, params, path) => {
			refuseThird(path);
			const { output, error } = await retried(params(), docs(3));
			expect(error).toBeUndefined();
			expect(output).toHaveLength(3);
			expect(h.netCharged(emu)).toBe(3);
			// The retry's output is what one try would have given: no "previously" flags, the
			// answer's fields and the pages.
			for (const { json } of output) {
				expect(json.previouslySubmitted ?? json.previouslyBilled).toBeUndefined();
				expect(json.pagesCounted).toBe(1);
			}
			if (name === 'Task → Submit')
				expect(output[0].json).toMatchObject({ success: true, provider: 'provider-async' });
		},
	);

	test('with Retry On Fail and Continue on Fail, the last try is kept: the next batch of a loop finds nothing of it', async () => {
		// Loop Over Items in batches of 2: [bad, A], [B, bad]. Batch 1's first item is an error
		// item, so n8n tries it twice and keeps the second; batch 2 must not see batch 1's A.
		const bad = h.binaryItem(Buffer.from('not a document'), 'bad.pdf');
		const { executions } = await runShape('loop2', {
			parameters: h.submit({ waitForCompletion: false }),
			items: [bad, h.pdfItem('A', 'a.pdf'), h.pdfItem('B', 'b.pdf'), bad],
			credentials: h.credentials(emu),
			nodeSettings: {
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 1,
				onError: 'continueRegularOutput',
			},
		});
		const { output } = flatten(executions[0]);
		const [, a, b, last] = output;
		expect(h.netCharged(emu)).toBe(2);
		expect(submissions()).toBe(2);
		expect(b.json.taskId).not.toBe(a.json.taskId);
		expect(last.json.error).toMatch(/^Item 1: /);
		expect(last.json.taskId).toBeUndefined();
	});

	test('an answer whose "error" field is empty: n8n counts the item as failed and tries again; nothing is billed twice', async () => {
		// n8n retries when the first item's `error` is anything but undefined, null or false.
		const send = emu.sendJson.bind(emu);
		emu.sendJson = (ctx, status, body, ...rest) =>
			send(ctx, status, body?.taskId && body.success ? { ...body, error: '' } : body, ...rest);
		const { output } = await retried(h.submit({ waitForCompletion: false }), docs(2));
		expect(output).toHaveLength(2);
		expect(h.netCharged(emu)).toBe(2);
		expect(submissions()).toBe(2);
	});

	test('Continue on Fail with the first item an error item: n8n tries again, and only that item is sent again', async () => {
		emu.faults.add({
			kind: 'status',
			status: 415,
			code: 'unsupported_media_type',
			method: 'POST',
			path: '/api/ocr',
			times: 1,
		});
		const { output } = await retried(h.submit({ waitForCompletion: false }), docs(3), {
			onError: 'continueRegularOutput',
		});
		expect(output.map((o) => o.json.error)).toEqual([undefined, undefined, undefined]);
		expect(h.netCharged(emu)).toBe(3);
		expect(submissions()).toBe(4);
	});

	test('a try whose answer was lost (the service created the task) is not sent again by the next try', async () => {
		emu.faults.add({ kind: 'lostResponse', method: 'POST', path: '/api/ocr', every: 3, times: 1 });
		const { error } = await retried(h.submit({ waitForCompletion: false }), docs(3));
		expect(error.message).toMatch(
			/^Item 2 was not sent again: an earlier try of this run \(Retry On Fail\) sent this document and its answer was lost/,
		);
		expect(h.netCharged(emu)).toBe(3);
		expect(submissions()).toBe(3);
	});

	test('Loop Over Items: each batch is a run of its own; nothing of one batch is reused by the next', async () => {
		const same = h.pdfItem('the same document', 'same.pdf');
		const { executions } = await runShape('loop1', {
			parameters: h.submit({ waitForCompletion: false }),
			items: [same, same],
			credentials: h.credentials(emu),
			nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 1 },
		});
		const { output, error } = flatten(executions[0]);
		expect(error).toBeUndefined();
		expect(output.map((o) => o.json.previouslySubmitted)).toEqual([undefined, undefined]);
		expect(h.netCharged(emu)).toBe(2);
	});
});

describe('re-run safety: Skip Already Submitted Documents', () => {
	const remembering = (overrides = {}) =>
		h.submit({ options: { skipSubmitted: true }, ...overrides });

	test('a re-run after a failure bills only the documents not submitted before, and returns the earlier tasks', async () => {
		// n8n saves a workflow's static data after each production execution, also a failed one,
		// and loads it for the next: the same object passed from run to run does that here.
		const staticData = {};
		const items = docs(6);
		emu.setBalance('acme', 4);
		const first = await h.run(emu, remembering(), items, { staticData });
		expect(first.error.message).toMatch(/Insufficient page balance|page balance/i);
		expect(h.netCharged(emu)).toBe(4);

		emu.setBalance('acme', 100);
		const second = await h.run(emu, remembering(), items, { staticData });
		expect(second.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(6); // only items 4 and 5 billed now
		expect(second.output.map((o) => o.json.resultText)).toEqual(
			items.map((_, i) => `Document ${i}`),
		);
		expect(second.output.map((o) => o.json.previouslySubmitted === true)).toEqual([
			true,
			true,
			true,
			true,
			false,
			false,
		]);
		second.output.forEach((o, i) => expect(o.pairedItem).toEqual({ item: i }));

		// A third run bills nothing at all.
		const third = await h.run(emu, remembering(), items, { staticData });
		expect(third.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(6);
	});

	test('the same file twice in one run is sent once; other settings or other bytes are sent anew', async () => {
		const staticData = {};
		const same = h.pdfItem('Same bytes', 'a.pdf');
		const { output, error } = await h.run(emu, remembering(), [same, same, h.pdfItem('Other')], {
			staticData,
		});
		expect(error).toBeUndefined();
		expect(submissions()).toBe(2);
		expect(output[1].json.taskId).toBe(output[0].json.taskId);
		expect(output[1].json.previouslySubmitted).toBe(true);
		const invoice = await h.run(emu, remembering({ documentType: 'invoice' }), [same], {
			staticData,
		});
		expect(invoice.output[0].json.previouslySubmitted).toBeUndefined();
		expect(submissions()).toBe(3);
	});

	test('a remembered task deleted at the service is submitted again; without the option nothing is remembered', async () => {
		const staticData = {};
		const item = h.pdfItem('Deleted later');
		const first = await h.run(emu, remembering(), [item], { staticData });
		await h.run(emu, h.task('delete', { taskId: first.output[0].json.taskId }));
		const again = await h.run(emu, remembering(), [item], { staticData });
		expect(again.error).toBeUndefined();
		expect(again.output[0].json.taskId).not.toBe(first.output[0].json.taskId);
		expect(submissions()).toBe(2);

		const plain = {};
		await h.run(emu, h.submit(), [item], { staticData: plain });
		expect(plain).toEqual({});
	});

	test('with 10,000 documents remembered, a submission does not sort the memory; the oldest are forgotten first', async () => {
		const submitted = {};
		for (let i = 0; i < 10_000; i++)
			submitted[`task:old:${i}`] = { kind: 'task', id: `tsk_old_${i}`, at: i };
		const staticData = { 'node:Document OCR': { submitted } };
		const sort = jest.spyOn(Array.prototype, 'sort');
		try {
			const { error } = await h.run(emu, remembering(), docs(20), { staticData });
			expect(error).toBeUndefined();
			expect(sort.mock.contexts.filter((array) => array.length >= 10_000)).toHaveLength(0);
		} finally {
			sort.mockRestore();
		}
		// The memory (saved in the flat shape of before issue 29) was converted and kept in order;
		// full, it made room by forgetting its oldest tenth at once (see batch/store.ts).
		const { gens } = staticData['node:Document OCR'].submitted;
		const kept = gens.flatMap((generation) => Object.keys(generation));
		expect(kept).toHaveLength(9_000 + 20);
		expect(kept[0]).toBe('task:old:1000');
		expect(kept[8_999]).toBe('task:old:9999');
	});

	test('a remembered task that failed is sent again on the next run, once', async () => {
		const staticData = {};
		const item = h.pdfItem('Failed once');
		emu.failNextTasks(1);
		const first = await h.run(emu, remembering(), [item], { staticData });
		expect(first.error.message).toMatch(/failed/);
		const second = await h.run(emu, remembering(), [item], { staticData });
		expect(second.error).toBeUndefined();
		expect(second.output[0].json.status).toBe('done');
		expect(second.output[0].json.previouslySubmitted).toBeUndefined();
		expect(submissions()).toBe(2);
		const third = await h.run(emu, remembering(), [item], { staticData });
		expect(third.output[0].json.previouslySubmitted).toBe(true);
		expect(submissions()).toBe(2);
	});

	test('Wait for Completion off: a remembered document is returned by its ID, with no read (a submit-only key)', async () => {
		const staticData = {};
		const item = h.pdfItem('Submitted, not waited for');
		const params = remembering({ waitForCompletion: false });
		const first = await h.run(emu, params, [item], { staticData, apiKey: KEYS.submitOnly });
		const second = await h.run(emu, params, [item], { staticData, apiKey: KEYS.submitOnly });
		expect(second.error).toBeUndefined();
		expect(second.output[0].json).toEqual({
			taskId: first.output[0].json.taskId,
			previouslySubmitted: true,
			previouslySubmittedBy: {
				executionId: first.executionId,
				submittedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
			},
		});
		expect(h.hits(emu, 'GET /api/tasks/:id')).toBe(0);
		expect(submissions()).toBe(1);
	});

	test('the same document in two items, the first answer lost after the send (Continue on Fail): sent once, the second names the first', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', times: 1 });
		const same = h.pdfItem('Answer lost', 'lost.pdf');
		const { output } = await h.run(emu, remembering(), [same, same], {
			staticData: {},
			continueOnFail: true,
		});
		expect(submissions()).toBe(1);
		expect(h.netCharged(emu)).toBe(1);
		expect(output[0].json.error).toMatch(/may have been created/);
		expect(output[1].json.error).toMatch(/same document as item 0/);
		expect(output[1].pairedItem).toEqual({ item: 1 });
	});

	describe('a document whose answer was lost is not sent again by a later run', () => {
		const production = { mode: 'cli', continueOnFail: true };
		const resending = (options = {}) =>
			remembering({ options: { skipSubmitted: true, resendUnconfirmed: true, ...options } });
		const notSent = (i) =>
			new RegExp(
				`^Item ${i} was not sent: an earlier run sent this document at about \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z and its answer was lost, so it may have been charged already$`,
			);
		/** Charges per document of the account's ledger (refunds subtracted). */
		const billsPerDocument = (documents) => h.netCharged(emu) / documents;

		test('two documents created and charged but answered by a dropped connection and a 502 (Continue on Fail): the production re-run sends neither and says what to do; 1 bill per document', async () => {
			const staticData = {};
			const items = [
				h.pdfItem('Lost by a reset', 'reset.pdf'),
				h.pdfItem('Lost at a gateway', 'gw.pdf'),
			];
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', times: 1 });
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError', every: 2, times: 1 });
			const first = await h.run(emu, remembering(), items, { staticData, ...production });
			expect(first.output.map((o) => o.json.error)).toEqual([
				expect.stringMatching(/may have been created/),
				expect.stringMatching(/may have been created/),
			]);
			expect(submissions()).toBe(2);
			expect(h.netCharged(emu)).toBe(2);

			const second = await h.run(emu, remembering(), items, { staticData, ...production });
			expect(second.error).toBeUndefined();
			expect(submissions()).toBe(2);
			expect(billsPerDocument(items.length)).toBe(1);
			second.output.forEach((o, i) => {
				expect(o.json.error).toMatch(notSent(i));
				expect(o.json.description).toMatch(/Task → Get Many/);
				expect(o.json.description).toMatch(/service's dashboard/);
				expect(o.json.description).toMatch(/turn on "Resend Unconfirmed Documents"/);
				expect(o.pairedItem).toEqual({ item: i });
			});

			// Sent again on purpose: billed again, and from then on remembered as any other.
			const resent = await h.run(emu, resending(), items, { staticData, ...production });
			expect(resent.output.map((o) => o.json.status)).toEqual(['done', 'done']);
			expect(resent.output.map((o) => o.json.previouslySubmitted)).toEqual([undefined, undefined]);
			expect(submissions()).toBe(4);
			const again = await h.run(emu, remembering(), items, { staticData, ...production });
			expect(again.output.map((o) => o.json.taskId)).toEqual(
				resent.output.map((o) => o.json.taskId),
			);
			expect(again.output.map((o) => o.json.previouslySubmitted)).toEqual([true, true]);
			expect(submissions()).toBe(4);
		});

		test('without Continue on Fail the re-run fails the node at that item, before sending anything', async () => {
			const staticData = {};
			const items = [h.pdfItem('Lost once', 'lost.pdf'), h.pdfItem('Fine', 'fine.pdf')];
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError', times: 1 });
			await h.run(emu, remembering(), items, { staticData, ...production });
			expect(submissions()).toBe(2);
			const second = await h.run(emu, remembering(), items, { staticData, mode: 'cli' });
			expect(second.error.message).toMatch(notSent(0));
			expect(second.error.context.itemIndex).toBe(0);
			expect(submissions()).toBe(2);
			expect(billsPerDocument(items.length)).toBe(1);
		});

		test('a lost answer remembered 40 days ago still stops the send (it does not expire), and names its date', async () => {
			const staticData = {};
			const item = h.pdfItem('Lost long ago', 'old.pdf');
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', times: 1 });
			await h.run(emu, remembering(), [item], { staticData, ...production });
			// The remembered send, made 40 days older ([kind, id, time] in the store's generations).
			const days40 = 40 * 24 * 3600 * 1000;
			for (const generation of staticData['node:Document OCR'].unconfirmed.gens)
				for (const [key, value] of Object.entries(generation)) {
					const [kind, id, at] = JSON.parse(value);
					generation[key] = JSON.stringify([kind, id, at - days40]);
				}
			const second = await h.run(emu, remembering(), [item], { staticData, ...production });
			const day = new Date(Date.now() - days40).toISOString().slice(0, 10);
			expect(second.output[0].json.error).toMatch(notSent(0));
			expect(second.output[0].json.error).toContain(`at about ${day}T`);
			expect(submissions()).toBe(1);
		});

		test('a lost answer still stops the send after 20,000 newer documents were remembered', async () => {
			const { BoundedStore, MEMORY_LIMIT } = require('../dist/nodes/DocumentOcr/batch/store');
			const staticData = {};
			const item = h.pdfItem('Lost, then many others', 'lost.pdf');
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', times: 1 });
			await h.run(emu, remembering(), [item], { staticData, ...production });
			// 20,000 documents sent later, each remembered as the node remembers a created task.
			const memory = new BoundedStore(
				() => staticData['node:Document OCR'],
				'submitted',
				MEMORY_LIMIT,
			);
			for (let i = 0; i < 20_000; i++)
				memory.set(`task:other:${i}`, JSON.stringify(['task', `tsk_other_${i}`, Date.now()]));
			const again = await h.run(emu, remembering(), [item], { staticData, ...production });
			expect(again.output[0].json.error).toMatch(notSent(0));
			expect(submissions()).toBe(1);
			expect(h.netCharged(emu)).toBe(1);
		});

		test('Concurrency 16, 24 documents, every third answer lost: the re-run sends nothing, the resend only the 8 lost ones', async () => {
			const staticData = {};
			const items = docs(24);
			const params = (options) =>
				remembering({ options: { skipSubmitted: true, concurrency: 16, ...options } });
			emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError', every: 3, times: 8 });
			const first = await h.run(emu, params(), items, { staticData, ...production });
			const lost = first.output.flatMap((o, i) => (o.json.error ? [i] : []));
			expect(lost).toHaveLength(8);
			expect(submissions()).toBe(24);

			const second = await h.run(emu, params(), items, { staticData, ...production });
			expect(submissions()).toBe(24);
			expect(billsPerDocument(items.length)).toBe(1);
			second.output.forEach((o, i) => {
				if (lost.includes(i)) expect(o.json.error).toMatch(notSent(i));
				else expect(o.json).toMatchObject({ status: 'done', previouslySubmitted: true });
			});

			const resent = await h.run(emu, params({ resendUnconfirmed: true }), items, {
				staticData,
				...production,
			});
			expect(submissions()).toBe(32);
			expect(resent.output.map((o) => o.json.status)).toEqual(Array(24).fill('done'));
			resent.output.forEach((o, i) =>
				expect(o.json.previouslySubmitted).toBe(lost.includes(i) ? undefined : true),
			);
			await h.run(emu, params(), items, { staticData, ...production });
			expect(submissions()).toBe(32);
		});
	});

	test("another account's memory is not consulted: a switched credential sends the document anew without reading the other account's task", async () => {
		const staticData = {};
		const item = h.pdfItem('Two accounts');
		const first = await h.run(emu, remembering(), [item], { staticData });
		emu.setBalance('broke', 10);
		const reads = h.hits(emu, 'GET /api/tasks/:id');
		const second = await h.run(emu, remembering(), [item], { staticData, apiKey: KEYS.broke });
		expect(second.error).toBeUndefined();
		expect(second.output[0].json.taskId).not.toBe(first.output[0].json.taskId);
		expect(second.output[0].json.previouslySubmitted).toBeUndefined();
		expect(emu.getTask(second.output[0].json.taskId).account).toBe('broke');
		// Only the new task was read (its wait): not the first account's (a 404 for this key).
		const newId = second.output[0].json.taskId;
		const ownReads = emu.stats().pollLog.filter((p) => p.taskId === newId).length;
		expect(h.hits(emu, 'GET /api/tasks/:id') - reads).toBe(ownReads);
	});
});

describe('an answer too wide or too deep to walk by recursion', () => {
	// A stand-in service: POST /api/ocr bills a task and answers with `words` of `width` entries.
	async function wideService(width) {
		const http = require('node:http');
		const billed = [];
		const server = http.createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				if (req.method === 'POST' && req.url === '/api/ocr') {
					const taskId = `tsk_wide_${billed.length + 1}`;
					billed.push(taskId);
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ success: true, taskId, words: new Array(width).fill(0) }));
					return;
				}
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end('{"error":"not_found"}');
			});
		});
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		const url = `http://127.0.0.1:${server.address().port}`;
		return { url, billed, close: () => new Promise((resolve) => server.close(resolve)) };
	}

	test('a billed answer holding an array of 300,000 entries is read, and Retry On Fail bills nothing twice', async () => {
		const service = await wideService(300_000);
		try {
			const creds = { apiKey: h.FULL_KEY, baseUrl: service.url, apiUrl: '' };
			const params = h.submit({ waitForCompletion: false });
			const { output, error } = await h.run(emu, params, [h.pdfItem('A', 'a.pdf')], { creds });
			expect(error).toBeUndefined();
			expect(output[0].json.taskId).toBe('tsk_wide_1');
			expect(output[0].json.words).toHaveLength(300_000);
		} finally {
			await service.close();
		}
	});
});
