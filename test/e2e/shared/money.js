'use strict';
/**
 * Money-safe batches in real n8n 2.x (the packed package as a community package, `n8n execute`,
 * the emulator's page ledger): a bad item among 20 costs nothing, a 402 at item 5 stops the
 * spending and the node's error lists what was billed, the 10 MB limit is the request body's, and
 * with Skip Already Submitted Documents a re-run after a failure bills only what was not billed,
 * and a Page Budget stops a batch before it passes the budget (Count Pages costing nothing); a
 * 25 MB scan is sent in parts that each fit (Split Large Documents) and gives one item.
 * A suite of the shared n8n (test/e2e/shared.e2e.js): every check is on the ledger and request
 * counts since a mark, and each balance it sets is put back.
 */
const fs = require('node:fs');
const path = require('node:path');
const { nodeOutput, KEYS } = require('../../../scripts/n8n-instance');
const { folderWorkflow: batchWorkflow, ocrNode, startWorkflow } = require('../scenarios');
const { startFileServer } = require('../../support/file-server');
const documents = require('../../../emulator/documents');

let n8n;
let files;

/**
 * Document Source: URL in real n8n — one Document OCR node per link, all from one Manual
 * Trigger, each with Continue on Fail so that every link's outcome is its node's item.
 */
const URL_CASES = {
	'A PDF by URL': '/letters/welcome.pdf',
	'A large PDF by URL': '/letters/large.pdf',
	'A missing file': '/letters/missing.pdf',
	'A web page': '/page.html',
	'A file over the limit': '/huge',
};
function urlWorkflow(id) {
	const nodes = Object.entries(URL_CASES).map(([name, link], i) =>
		ocrNode(
			`${id}-${i + 1}`,
			name,
			{ ...submit, documentSource: 'url', documentUrl: files.url(link) },
			{ position: [300, i * 150], onError: 'continueRegularOutput' },
		),
	);
	return startWorkflow(id, `e2e: ${id}`, nodes);
}

const SUBMIT_ONLY = { id: 'ocrSubmitOnlyKey', name: 'Document OCR (submit-only key)' };

const submit = { resource: 'task', operation: 'submit', waitForCompletion: true, options: {} };

/**
 * Read Files (`/data/ocr-inbox/<dir>/*.pdf`) → n8n's own Loop Over Items (batches of
 * `batchSize`) → Document OCR → back to the loop: the node runs once per batch, in one execution.
 */
function loopWorkflow(id, dir, parameters, batchSize) {
	const workflow = batchWorkflow(id, dir, parameters);
	workflow.nodes.push({
		id: `${id}-loop`,
		name: 'Loop Over Items',
		type: 'n8n-nodes-base.splitInBatches',
		typeVersion: 3,
		position: [300, 0],
		parameters: { batchSize, options: {} },
	});
	workflow.connections['Read files'] = {
		main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]],
	};
	workflow.connections['Loop Over Items'] = {
		main: [[], [{ node: 'Document OCR', type: 'main', index: 0 }]],
	};
	workflow.connections['Document OCR'] = {
		main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]],
	};
	return workflow;
}

/** Runs `work` with the account's page balance set to `pages`; `restore()` (or the end) puts it back. */
async function withBalance(pages, work) {
	const balance = n8n.emu.balance('acme');
	const restore = () => n8n.emu.setBalance('acme', balance);
	n8n.emu.setBalance('acme', pages);
	try {
		await work(restore);
	} finally {
		restore();
	}
}

function writeBatch(dir, count, first) {
	const folder = path.join(n8n.inbox, dir);
	fs.mkdirSync(folder, { recursive: true });
	for (let i = 0; i < count; i++) {
		const name = `doc-${String(i).padStart(2, '0')}.pdf`;
		const bytes = i === 0 && first ? first : documents.makePdf([`Batch document ${i}`]);
		fs.writeFileSync(path.join(folder, name), bytes);
	}
}

/**
 * Before the shared instance's one import: its file server, its credential queued, its workflows.
 */
async function prepare(instance) {
	n8n = instance;
	files = await startFileServer();
	files.put('/letters/welcome.pdf', documents.makePdf(['Welcome letter fetched by n8n']), {
		'content-type': 'application/pdf',
	});
	// Over the 64 kB the check keeps: fetched again when it is sent, and streamed.
	const letter = documents.makePdf(['Large letter fetched twice']).toString('latin1');
	const start = letter.indexOf('\n') + 1;
	const large = `${letter.slice(0, start)}%${'A'.repeat(200_000)}\n${letter.slice(start)}`;
	files.put('/letters/large.pdf', Buffer.from(large, 'latin1'), {
		'content-type': 'application/pdf',
	});
	await n8n.importCredential({ apiKey: KEYS.submitOnly, ...SUBMIT_ONLY });
	const workflows = [
		urlWorkflow('ocrE2eByUrl0001'),
		batchWorkflow('ocrE2eSubmitOnly', 'submit-only', submit, SUBMIT_ONLY),
		batchWorkflow('ocrE2eBadFirst', 'bad-first', submit),
		batchWorkflow('ocrE2eBalance', 'balance', submit),
		batchWorkflow('ocrE2eEightMb', 'eight', { ...submit, waitForCompletion: false }),
		// Issue 37: a 25 MB, 40-page scan sent in parts; a page past the limit alone, refused.
		batchWorkflow('ocrE2eLargeScan', 'large-scan', {
			...submit,
			options: { splitLargeDocuments: true },
		}),
		batchWorkflow('ocrE2eHugePage', 'huge-page', {
			resource: 'document',
			operation: 'markdown',
			options: { splitLargeDocuments: true },
		}),
		batchWorkflow('ocrE2eRerun', 'rerun', { ...submit, options: { skipSubmitted: true } }),
		batchWorkflow('ocrE2eSevenMd', 'seven', {
			resource: 'document',
			operation: 'markdown',
			options: {},
		}),
		batchWorkflow('ocrE2eMarkdownRerun', 'md-rerun', {
			resource: 'document',
			operation: 'markdown',
			options: {},
		}),
		batchWorkflow('ocrE2eBudget', 'budget', {
			...submit,
			options: { pageBudget: 10, concurrency: 16 },
		}),
		batchWorkflow('ocrE2eCount', 'budget', {
			resource: 'document',
			operation: 'countPages',
			options: {},
		}),
		loopWorkflow(
			'ocrE2eLoopBudget',
			'budget',
			{ ...submit, waitForCompletion: false, options: { pageBudget: 10 } },
			2,
		),
		(() => {
			const retried = batchWorkflow('ocrE2eRetried', 'retried', { ...submit, options: {} });
			Object.assign(retried.nodes[2], { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 });
			return retried;
		})(),
	];
	return { workflows };
}

function describeTests() {
	afterAll(async () => {
		await files?.close();
	});

	test('documents by URL: a PDF gets its text, a large one too (fetched again and streamed when sent); a 404, a web page and a file over the limit each fail their item, 0 pages charged for them', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const posts = n8n.emu.stats().byRoute['POST /api/ocr'] ?? 0;

		const run = await n8n.execute('ocrE2eByUrl0001');

		expect(run.data.resultData.error).toBeUndefined();
		const [ok] = nodeOutput(run, 'A PDF by URL');
		expect(ok.json).toMatchObject({ status: 'done', resultText: 'Welcome letter fetched by n8n' });
		expect(n8n.emu.getTask(ok.json.taskId).filename).toBe('welcome.pdf');
		const [large] = nodeOutput(run, 'A large PDF by URL');
		expect(large.json).toMatchObject({ status: 'done', resultText: 'Large letter fetched twice' });
		const failed = (name) => nodeOutput(run, name)[0].json.error;
		expect(failed('A missing file')).toMatch(
			/^Item 0: the document URL .*\/letters\/missing\.pdf answered HTTP 404/,
		);
		expect(failed('A web page')).toMatch(
			/page\.html is a web page \(text\/html\), not a PDF or image/,
		);
		expect(failed('A file over the limit')).toMatch(/is over the service's 10\.00 MB limit/);
		// Two documents sent, one page billed each: the three bad links cost nothing.
		expect((n8n.emu.stats().byRoute['POST /api/ocr'] ?? 0) - posts).toBe(2);
		expect(n8n.chargedSince(mark)).toBe(2);
	});

	test('20 PDFs, the first one empty, Continue on Fail off: the run fails before anything is sent', async () => {
		writeBatch('bad-first', 20, Buffer.alloc(0));
		const mark = n8n.emu.ledger('acme').length;
		const requests = n8n.emu.stats().requests;

		const run = await n8n.executeExpectingFailure('ocrE2eBadFirst');

		const error = run.data.resultData.error;
		expect(error.message).toMatch(/^Item 0: the document is empty/);
		expect(n8n.emu.stats().requests).toBe(requests);
		expect(n8n.chargedSince(mark)).toBe(0);
	});

	test('a 402 at item 5 of 20: the run fails, and its error lists the task IDs of items 0–4', async () => {
		writeBatch('balance', 20);
		const mark = n8n.emu.ledger('acme').length;
		await withBalance(5, async () => {
			const run = await n8n.executeExpectingFailure('ocrE2eBalance');

			const error = run.data.resultData.error;
			expect(error.message).toMatch(/page balance|pages/i);
			const charged = n8n.emu
				.ledger('acme')
				.slice(mark)
				.filter((e) => e.delta < 0)
				.map((e) => e.taskId);
			expect(charged).toHaveLength(5);
			const listed = [...error.description.matchAll(/item (\d+): task ([\w-]+)/g)];
			expect(listed.map((m) => Number(m[1]))).toEqual([0, 1, 2, 3, 4]);
			expect(listed.map((m) => m[2]).sort()).toEqual([...charged].sort());
			expect(error.description).toMatch(/bills them again/);
			expect(n8n.chargedSince(mark)).toBe(5);
		});
	});

	test('a key with only the submit scope and Wait for Completion on: nothing is charged, the error names the read scope', async () => {
		writeBatch('submit-only', 3);
		const mark = n8n.emu.ledger('acme').length;
		const posts = () => n8n.emu.stats().byRoute['POST /api/ocr'] ?? 0;
		const before = posts();

		const run = await n8n.executeExpectingFailure('ocrE2eSubmitOnly');

		const error = run.data.resultData.error;
		expect(`${error.message} ${error.description}`).toMatch(/read/);
		expect(n8n.chargedSince(mark)).toBe(0);
		expect(posts()).toBe(before);
	});

	test('the 10 MB limit is the request body: an 8 MB PDF is refused on the task API, a 7 MB one converts to Markdown', async () => {
		fs.mkdirSync(path.join(n8n.inbox, 'eight'), { recursive: true });
		fs.writeFileSync(
			path.join(n8n.inbox, 'eight', 'eight.pdf'),
			documents.makePdfOfSize(8_000_000),
		);
		fs.mkdirSync(path.join(n8n.inbox, 'seven'), { recursive: true });
		fs.writeFileSync(
			path.join(n8n.inbox, 'seven', 'seven.pdf'),
			documents.makePdfOfSize(7_000_000),
		);
		const requests = n8n.emu.stats().requests;
		const mark = n8n.emu.ledger('acme').length;

		const refused = await n8n.executeExpectingFailure('ocrE2eEightMb');

		expect(refused.data.resultData.error.message).toMatch(
			/would be 10\.67 MB, over the service's 10\.00 MB limit \(the file is 8\.00 MB, sent as Base64\)/,
		);
		expect(n8n.emu.stats().requests).toBe(requests);
		expect(n8n.chargedSince(mark)).toBe(0);

		const converted = await n8n.execute('ocrE2eSevenMd');

		expect(converted.data.resultData.error).toBeUndefined();
		const [item] = nodeOutput(converted, 'Document OCR');
		expect(typeof item.json.markdown).toBe('string');
		expect(item.json.fileName).toBe('seven.pdf');
	});

	test('Split Large Documents: a 25 MB, 40-page scan gives one item with all 40 pages in order, every part within 10 MB; a single page past the limit is refused with 0 pages', async () => {
		const texts = Array.from({ length: 40 }, (_, i) => `Scanned page ${i + 1} of forty`);
		const scan = documents.makePdf(texts, { imageBytes: 625_000 });
		expect(scan.length).toBeGreaterThan(25_000_000);
		fs.mkdirSync(path.join(n8n.inbox, 'large-scan'), { recursive: true });
		fs.writeFileSync(path.join(n8n.inbox, 'large-scan', 'scan.pdf'), scan);
		const mark = n8n.emu.ledger('acme').length;

		const run = await n8n.execute('ocrE2eLargeScan');

		expect(run.data.resultData.error).toBeUndefined();
		const output = nodeOutput(run, 'Document OCR');
		expect(output).toHaveLength(1);
		const { json } = output[0];
		expect(json.parts).toHaveLength(4);
		expect(json.parts.map((part) => part.pagesSent).join(', ')).toMatch(
			/^1-\d+, \d+-\d+, \d+-\d+, \d+-40$/,
		);
		expect(json).toMatchObject({ pagesCounted: 40, pagesSent: '1-40' });
		// All 40 pages' text, in page order, in the one item.
		const at = texts.map((text) => json.resultText.indexOf(text));
		expect(at.every((position) => position >= 0)).toBe(true);
		expect([...at].sort((a, b) => a - b)).toEqual(at);
		expect(n8n.chargedSince(mark)).toBe(40);
		// The emulator refuses a request body past 10,000,000 bytes (413): every part was within it.
		const charged = n8n.emu
			.ledger('acme')
			.slice(mark)
			.filter((entry) => entry.delta < 0);
		expect(charged).toHaveLength(4);

		// One page alone past the limit: nothing can be sent, nothing is billed.
		const huge = documents.makePdf(['a page of 10.5 MB'], { imageBytes: 10_500_000 });
		fs.mkdirSync(path.join(n8n.inbox, 'huge-page'), { recursive: true });
		fs.writeFileSync(path.join(n8n.inbox, 'huge-page', 'huge.pdf'), huge);
		const requests = n8n.emu.stats().requests;
		const hugeMark = n8n.emu.ledger('acme').length;

		const refused = await n8n.executeExpectingFailure('ocrE2eHugePage');

		expect(refused.data.resultData.error.message).toMatch(
			/page 1 alone makes a request over the service's 10\.00 MB limit/,
		);
		expect(n8n.emu.stats().requests).toBe(requests);
		expect(n8n.chargedSince(hugeMark)).toBe(0);
	});

	test('Skip Already Submitted Documents: after a 402 at item 3 of 6, the re-run bills items 3–5 only and returns the earlier tasks', async () => {
		writeBatch('rerun', 6);
		const mark = n8n.emu.ledger('acme').length;
		await withBalance(3, async (restore) => {
			// `n8n execute` is not a manual run: n8n saves the node's memory (static data) after it,
			// also after a failure, as it does for schedule, trigger and webhook executions.
			const failed = await n8n.executeExpectingFailure('ocrE2eRerun');
			expect(failed.data.resultData.error.message).toMatch(/page balance|pages/i);
			expect(n8n.chargedSince(mark)).toBe(3);

			restore();
			const rerun = await n8n.execute('ocrE2eRerun');
			expect(rerun.data.resultData.error).toBeUndefined();
			expect(n8n.chargedSince(mark)).toBe(6);
			const output = nodeOutput(rerun, 'Document OCR');
			expect(output.map((o) => o.json.resultText)).toEqual(
				[0, 1, 2, 3, 4, 5].map((i) => `Batch document ${i}`),
			);
			expect(output.map((o) => o.json.previouslySubmitted === true)).toEqual([
				true,
				true,
				true,
				false,
				false,
				false,
			]);

			const third = await n8n.execute('ocrE2eRerun');
			expect(third.data.resultData.error).toBeUndefined();
			expect(n8n.chargedSince(mark)).toBe(6);
		});
	});

	test('3 documents through Convert to Markdown, the third refused (402): the error names both billed documents, and the re-run after topping up bills the third only', async () => {
		writeBatch('md-rerun', 3);
		const mark = n8n.emu.ledger('acme').length;
		await withBalance(2, async (restore) => {
			const failed = await n8n.executeExpectingFailure('ocrE2eMarkdownRerun');
			const error = failed.data.resultData.error;
			expect(error.message).toMatch(/page balance/);
			expect(error.description).toContain('item 0: document doc-00.pdf');
			expect(error.description).toContain('item 1: document doc-01.pdf');
			expect(error.description).toMatch(/kept by this node: its next run outputs them/);
			expect(n8n.chargedSince(mark)).toBe(2);

			restore();
			const rerun = await n8n.execute('ocrE2eMarkdownRerun');
			expect(rerun.data.resultData.error).toBeUndefined();
			expect(n8n.chargedSince(mark)).toBe(3);
			const output = nodeOutput(rerun, 'Document OCR');
			expect(output.map((o) => o.json.previouslyBilled === true)).toEqual([true, true, false]);
			expect(output.map((o) => o.json.markdown)).toEqual(
				[0, 1, 2].map((i) => expect.stringContaining(`Batch document ${i}`)),
			);
		});
	});

	test('Page Budget 10, concurrency 16, eight PDFs of 3 pages: 9 pages billed, the run fails at item 3 naming the budget and the billed tasks; Count Pages on the same files costs nothing', async () => {
		const folder = path.join(n8n.inbox, 'budget');
		fs.mkdirSync(folder, { recursive: true });
		for (let i = 0; i < 8; i++) {
			const pages = [1, 2, 3].map((p) => `Budget document ${i}, page ${p}`);
			fs.writeFileSync(path.join(folder, `doc-${i}.pdf`), documents.makePdf(pages));
		}
		const mark = n8n.emu.ledger('acme').length;
		const requests = n8n.emu.stats().requests;
		const counted = await n8n.execute('ocrE2eCount');
		expect(counted.data.resultData.error).toBeUndefined();
		expect(nodeOutput(counted, 'Document OCR').map((o) => [o.json.kind, o.json.pages])).toEqual(
			Array.from({ length: 8 }, () => ['pdf', 3]),
		);
		expect(n8n.emu.stats().requests).toBe(requests);

		const run = await n8n.executeExpectingFailure('ocrE2eBudget');
		const error = run.data.resultData.error;
		expect(error.message).toBe(
			'Item 3 was not sent: its 3 pages would pass the Page Budget of 10 pages; 9 pages billed so far in this workflow execution',
		);
		const charged = n8n.emu
			.ledger('acme')
			.slice(mark)
			.filter((e) => e.delta < 0)
			.map((e) => e.taskId);
		expect(charged).toHaveLength(3);
		for (const taskId of charged) expect(error.description).toContain(taskId);
		expect(n8n.chargedSince(mark)).toBe(9);

		// The same files through n8n's own Loop Over Items, two at a time: the node runs once per
		// batch, and the budget is the execution's, not the batch's.
		const looped = await n8n.executeExpectingFailure('ocrE2eLoopBudget');
		const loopError = looped.data.resultData.error;
		expect(looped.data.resultData.runData['Document OCR']).toHaveLength(2);
		expect(loopError.message).toBe(
			'Item 1 was not sent: its 3 pages would pass the Page Budget of 10 pages; 9 pages billed so far in this workflow execution',
		);
		expect(n8n.chargedSince(mark)).toBe(18);
	});

	test('Retry On Fail: the third of three documents is refused once (415), n8n runs the node again, and only the third is sent again; each billed once', async () => {
		writeBatch('retried', 3);
		const mark = n8n.emu.ledger('acme').length;
		const posts = () => n8n.emu.stats().byRoute['POST /api/ocr'] ?? 0;
		const before = posts();
		const refusal = n8n.emu.faults.add({
			kind: 'status',
			status: 415,
			code: 'unsupported_media_type',
			method: 'POST',
			path: '/api/ocr',
			every: 3,
			times: 1,
		});

		const run = await n8n.execute('ocrE2eRetried');

		expect(run.data.resultData.error).toBeUndefined();
		const output = nodeOutput(run, 'Document OCR');
		expect(output.map((o) => o.json.resultText)).toEqual(
			[0, 1, 2].map((i) => `Batch document ${i}`),
		);
		// A retried try outputs what the first try would have: nothing says it was a retry.
		expect(output.map((o) => o.json.previouslySubmitted)).toEqual([
			undefined,
			undefined,
			undefined,
		]);
		expect(posts() - before).toBe(4);
		expect(n8n.chargedSince(mark)).toBe(3);
		// The end-to-end suites check their one fault here (the engine tier's useEmulator checks
		// every test's): it fired, so the retry above is n8n's answer to it.
		expect(refusal.fired).toBe(1);
	});
}

module.exports = { name: 'money', prepare, describeTests };
