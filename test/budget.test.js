'use strict';
/**
 * Knowing the cost before spending it, in n8n's engine against the emulator:
 *  - Document → Count Pages: the kind, size and pages of each document, with nothing sent;
 *  - the Page Budget of every billing operation: no run bills past it — at concurrency 16, with
 *    Continue on Fail on and off, across re-runs with Skip Submitted Documents — every refused
 *    item names the budget, and a document of unknown count is not sent while a budget is set;
 *  - every billing output item says the pages counted before sending and the pages billed.
 */
const fs = require('node:fs');
const path = require('node:path');

const h = require('./helpers');
const { startFileServer } = require('./support/file-server');
const { SENDING, posts } = require('./support/sending');

const emu = h.useEmulator({ perTest: true });

const CORPUS = path.join(__dirname, 'fixtures', 'pages');
const corpus = (name) => fs.readFileSync(path.join(CORPUS, name));

/** A PDF of `pages` pages. */
const pdf = (pages, name = `doc-${pages}p.pdf`) =>
	h.binaryItem(
		h.documents.makePdf(Array.from({ length: pages }, (_, i) => `Page ${i + 1} of ${name}`)),
		name,
	);

/**
 * A 2-page PDF that also holds a page object no page tree lists (as left by an edit that removed
 * a page): 2 pages to a reader, 3 to a count of page objects — a service may bill either.
 */
function pdfWithOrphanPage() {
	const text = h.documents
		.makePdf(['First', 'Second'])
		.toString('latin1')
		.replace('%%EOF', '')
		.trimEnd();
	// An incremental update that only appends an unlisted page object (no new xref needed to read
	// the two pages: readers follow the original table).
	return h.binaryItem(
		Buffer.from(`${text}\n99 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n%%EOF\n`, 'latin1'),
		'orphan.pdf',
	);
}

/** A PDF whose pages cannot be counted with certainty: no cross-reference, no page tree. */
const uncountable = () =>
	h.binaryItem(
		Buffer.from(
			'%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n',
			'latin1',
		),
		'broken.pdf',
	);

const withBudget = (params, pageBudget, options = {}) => ({
	...params,
	options: { ...params.options, pageBudget, ...options },
});

const submitted = () => posts(emu);

describe('Document → Count Pages: what a document costs, for nothing', () => {
	const countPages = (overrides = {}) => h.doc('countPages', overrides);

	test('kind, size and pages of PDFs, TIFFs and images, what a count assumes; nothing is sent or charged', async () => {
		const items = [
			pdf(3, 'three.pdf'),
			h.binaryItem(corpus('qpdf-linear-3.pdf'), 'linear.pdf'),
			h.binaryItem(corpus('tiffcp-5.tif'), 'scan.tif', 'image/tiff'),
			h.binaryItem(h.documents.makePng('x'), 'photo.png', 'image/png'),
			h.binaryItem(corpus('review/23-animated-3frames.gif'), 'anim.gif', 'image/gif'),
		];
		const { output, error } = await h.run(emu, countPages(), items);
		expect(error).toBeUndefined();
		expect(output.map((o) => o.json)).toEqual([
			{
				fileName: 'three.pdf',
				kind: 'pdf',
				mimeType: 'application/pdf',
				size: expect.any(Number),
				pages: 3,
				partsNeeded: { taskApi: 1, v1Api: 1 },
			},
			{
				fileName: 'linear.pdf',
				kind: 'pdf',
				mimeType: 'application/pdf',
				size: corpus('qpdf-linear-3.pdf').length,
				pages: 3,
				partsNeeded: { taskApi: 1, v1Api: 1 },
			},
			{
				fileName: 'scan.tif',
				kind: 'tiff',
				mimeType: 'image/tiff',
				size: expect.any(Number),
				pages: 5,
				partsNeeded: { taskApi: 1, v1Api: null },
				pageCountAssumption:
					"the service's spec does not say how the directories (pages) of a multi-page TIFF are billed; counted as one page per directory",
			},
			{
				fileName: 'photo.png',
				kind: 'png',
				mimeType: 'image/png',
				size: expect.any(Number),
				pages: 1,
				partsNeeded: { taskApi: 1, v1Api: 1 },
			},
			{
				fileName: 'anim.gif',
				kind: 'gif',
				mimeType: 'image/gif',
				size: 108,
				pages: 3,
				partsNeeded: { taskApi: 1, v1Api: null },
				pageCountAssumption:
					"the service's spec does not say how the frames of an animated GIF are billed; counted as one page per frame",
			},
		]);
		expect(output.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		expect(emu.stats().total ?? Object.values(emu.stats().byRoute).reduce((a, b) => a + b, 0)).toBe(
			0,
		);
		expect(h.netCharged(emu)).toBe(0);
	});

	test('a count that is not certain is null, with the reason', async () => {
		const { output, error } = await h.run(emu, countPages(), [uncountable()]);
		expect(error).toBeUndefined();
		expect(output[0].json.pages).toBeNull();
		expect(output[0].json.pagesUnknownReason).toEqual(expect.any(String));
		expect(output[0].json.pagesUnknownReason.length).toBeGreaterThan(10);
	});

	test('from a URL (as an AI agent calls it) and from Base64; a file of another type fails its item', async () => {
		const files = await startFileServer();
		try {
			files.put('/big.pdf', h.documents.makePdf(Array.from({ length: 40 }, (_, i) => `p${i}`)), {
				'content-type': 'application/pdf',
			});
			const { output, error } = await h.run(
				emu,
				countPages({ documentSource: 'url', documentUrl: files.url('/big.pdf') }),
			);
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ fileName: 'big.pdf', kind: 'pdf', pages: 40 });
		} finally {
			await files.close();
		}
		const base64 = h.documents.makePdf(['a', 'b']).toString('base64');
		const fromBase64 = await h.run(
			emu,
			countPages({ documentSource: 'base64', base64Data: base64 }),
		);
		expect(fromBase64.output[0].json).toMatchObject({ kind: 'pdf', pages: 2 });

		const text = h.binaryItem(Buffer.from('just text'), 'notes.txt', 'text/plain');
		const { output, error } = await h.run(emu, countPages(), [text, pdf(1)], {
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(output[0].json.error).toMatch(/not a file type the service reads/);
		expect(output[1].json.pages).toBe(1);
		expect(submitted()).toBe(0);
	});
});

describe('every billing output item says the pages counted and the pages billed', () => {
	test('Submit (V2) and Convert to Markdown: counted = billed, no note', async () => {
		const v2 = await h.run(emu, h.submit({ operation: 'submitV2', format: 'markdown' }), [pdf(3)]);
		expect(v2.error).toBeUndefined();
		expect(v2.output[0].json).toMatchObject({ pagesCounted: 3, pagesBilled: 3 });
		expect(v2.output[0].json.pageCountNote).toBeUndefined();
		const md = await h.run(emu, h.doc('markdown'), [pdf(2)]);
		expect(md.output[0].json).toMatchObject({ pages: 2, pagesCounted: 2, pagesBilled: 2 });
	});

	// Every operation that bills; for Submit, Recognize, Extract and Job → Create, whose answer
	// shows no bill, the count is what the item can say.
	test.each(Object.values(SENDING).map(({ label, params }) => [label, params]))(
		'%s: the pages counted',
		async (_label, params) => {
			const { output, error } = await h.run(emu, params(), [pdf(2)]);
			expect(error).toBeUndefined();
			expect(output[0].json.pagesCounted).toBe(2);
		},
	);

	test('a bill that differs from the count is reported on the item; Simplify keeps both', async () => {
		const { output, error } = await h.run(
			emu,
			h.submit({ operation: 'submitV2', format: 'markdown', simplify: true }),
			[pdfWithOrphanPage()],
			{ typeVersion: 2 },
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 2, pagesBilled: 3 });
		expect(output[0].json.pageCountNote).toBe(
			'2 pages counted before sending; the service billed 3 pages',
		);
		expect(Object.keys(output[0].json).length).toBeLessThanOrEqual(10);
	});
});

describe('Page Budget: no run bills past it', () => {
	test('Continue on Fail off, concurrency 16: the node stops at the first document over the budget, naming the budget and every billed task', async () => {
		const items = Array.from({ length: 20 }, (_, i) => pdf(3, `part-${i}.pdf`));
		const params = withBudget(h.submit(), 30, { concurrency: 16 });
		const { output, error } = await h.run(emu, params, items);
		expect(error.message).toBe(
			'Item 10 was not sent: its 3 pages would pass the Page Budget of 30 pages; 30 pages billed so far in this workflow execution',
		);
		expect(error.context.itemIndex).toBe(10);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(10);
		expect(h.netCharged(emu)).toBe(30);
		// Every billed task is named, with its item.
		for (const created of error.context.created) expect(error.description).toContain(created.id);
		expect(error.context.created).toHaveLength(10);
	});

	test('Continue on Fail on: the refused item and every later one fail the same way; nothing more is sent', async () => {
		const items = [pdf(4), pdf(8), pdf(1), pdf(1)];
		const { output, error } = await h.run(emu, withBudget(h.submit(), 10), items, {
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'done', pagesCounted: 4 });
		expect(output[1].json.error).toBe(
			'Item 1 was not sent: its 8 pages would pass the Page Budget of 10 pages; 4 pages billed so far in this workflow execution',
		);
		for (const i of [2, 3])
			expect(output[i].json.error).toBe(
				`Item ${i} was not sent: the Page Budget of 10 pages was reached at item 1 (this document has 1 page); 4 pages billed so far in this workflow execution`,
			);
		expect(output[1].json.description).toContain(`item 0: task ${output[0].json.taskId}`);
		expect(output.map((o) => o.pairedItem.item)).toEqual([0, 1, 2, 3]);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
		expect(h.netCharged(emu)).toBe(4);
	});

	test('a document of unknown count is not sent while a budget is set (and is without one)', async () => {
		const refused = await h.run(emu, withBudget(h.submit(), 100), [pdf(1), uncountable()]);
		expect(refused.error.message).toMatch(
			/^Item 1: the document's pages could not be counted \(.+\), and a Page Budget is set$/,
		);
		expect(refused.error.description).toMatch(/remove the Page Budget/);
		expect(submitted()).toBe(0);
		const sent = await h.run(emu, h.doc('markdown'), [uncountable()]);
		expect(sent.error).toBeUndefined();
		expect(sent.output[0].json.pagesCounted).toBeNull();
	});

	test('what the service bills counts: a bill above the count leaves less for the next documents', async () => {
		// orphan.pdf: 2 counted, 3 billed; then 2 pages (5 of 5); then 1 page is over.
		const items = [pdfWithOrphanPage(), pdf(2), pdf(1)];
		const params = withBudget(h.submit({ operation: 'submitV2', format: 'markdown' }), 5, {
			concurrency: 1,
		});
		const { output, error } = await h.run(emu, params, items, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 2, pagesBilled: 3 });
		expect(output[1].json).toMatchObject({ pagesCounted: 2, pagesBilled: 2 });
		expect(output[2].json.error).toMatch(/Page Budget of 5 pages; 5 pages billed so far/);
		expect(h.netCharged(emu)).toBe(5);
	});

	test.each(Object.values(SENDING).map(({ label, params, route }) => [label, params, route]))(
		'%s: 6 documents of 2 pages under a budget of 7 at concurrency 16 bill 6 pages',
		async (_label, params, route) => {
			const items = Array.from({ length: 6 }, (_, i) => pdf(2, `d${i}.pdf`));
			const { output, error } = await h.run(
				emu,
				withBudget(params(), 7, { concurrency: 16 }),
				items,
				{
					continueOnFail: true,
				},
			);
			expect(error).toBeUndefined();
			expect(h.hits(emu, route)).toBe(3);
			expect(h.netCharged(emu)).toBe(6);
			expect(output.slice(3).every((o) => /Page Budget of 7 pages/.test(o.json.error))).toBe(true);
		},
	);

	test('re-runs with Skip Submitted Documents: a remembered document costs nothing, the budget goes to the others', async () => {
		const items = Array.from({ length: 4 }, (_, i) => pdf(3, `r${i}.pdf`));
		const staticData = {};
		const production = { mode: 'cli', continueOnFail: true, staticData };
		const params = withBudget(h.submit(), 6, { skipSubmitted: true, concurrency: 16 });
		const first = await h.run(emu, params, items, production);
		expect(first.output.filter((o) => o.json.error)).toHaveLength(2);
		expect(h.netCharged(emu)).toBe(6);
		const second = await h.run(emu, params, items, production);
		expect(second.output.slice(0, 2).map((o) => o.json.previouslySubmitted)).toEqual([true, true]);
		expect(second.output.slice(2).map((o) => o.json.pagesCounted)).toEqual([3, 3]);
		expect(h.netCharged(emu)).toBe(12);
		const third = await h.run(emu, params, items, production);
		expect(third.output.every((o) => o.json.previouslySubmitted)).toBe(true);
		expect(h.netCharged(emu)).toBe(12);
	});

	test('seeded: at any concurrency, with or without Continue on Fail, a run bills no more than its budget and exactly what a one-at-a-time loop would', async () => {
		let seed = 7;
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		for (let round = 0; round < 6; round++) {
			const pages = Array.from({ length: 12 }, () => 1 + Math.floor(random() * 5));
			const budget = 5 + Math.floor(random() * 20);
			const concurrency = [1, 4, 16][round % 3];
			const continueOnFail = round % 2 === 0;
			// What a one-at-a-time loop sends: documents in order until the first that does not fit.
			let loop = 0;
			let sentCount = 0;
			for (const p of pages) {
				if (loop + p > budget) break;
				loop += p;
				sentCount++;
			}
			const before = h.netCharged(emu);
			const hitsBefore = h.hits(emu, 'POST /v1/markdown');
			const items = pages.map((p, i) => pdf(p, `s${round}-${i}.pdf`));
			const { output, error } = await h.run(
				emu,
				withBudget(h.doc('markdown'), budget, { concurrency }),
				items,
				{ continueOnFail },
			);
			const charged = h.netCharged(emu) - before;
			expect(charged).toBeLessThanOrEqual(budget);
			expect(charged).toBe(loop);
			expect(h.hits(emu, 'POST /v1/markdown') - hitsBefore).toBe(sentCount);
			if (sentCount < pages.length) {
				const refused = continueOnFail ? output[sentCount].json.error : error.message;
				expect(refused).toContain(`Page Budget of ${budget} pages`);
			}
		}
	});
});

describe('Page Budget: one workflow execution, however n8n runs the node', () => {
	const { runShape, flatten } = require('./support/shapes');
	const shapeRun = (shape, params, items, extra = {}) =>
		runShape(shape, { parameters: params, items, credentials: h.credentials(emu), ...extra });

	test.each([1, 2, 7])(
		'Loop Over Items in batches of %i: a budget of 9 pages holds over every run of the node, as one run would',
		async (batch) => {
			// Ten 2-page documents: one run of the node sends four (8 pages) and refuses the fifth.
			const items = Array.from({ length: 10 }, (_, i) => pdf(2, `loop-${batch}-${i}.pdf`));
			const params = withBudget(h.submit({ waitForCompletion: false }), 9, { concurrency: 4 });
			const { executions } = await shapeRun(`loop${batch}`, params, items);
			const { error } = flatten(executions[0]);
			expect(h.netCharged(emu)).toBe(8);
			expect(h.hits(emu, 'POST /api/ocr')).toBe(4);
			expect(error.message).toMatch(/Page Budget of 9 pages/);
			expect(error.context.itemIndex).toBe(4);
		},
	);

	test('Loop Over Items with Continue on Fail: later batches are refused once the budget was reached, naming it', async () => {
		const items = [pdf(3), pdf(3), pdf(3), pdf(1), pdf(1)];
		const params = withBudget(h.doc('markdown'), 7, { concurrency: 1 });
		const { executions } = await shapeRun('loop2', params, items, {
			nodeSettings: { onError: 'continueRegularOutput' },
		});
		const { output } = flatten(executions[0]);
		expect(h.netCharged(emu)).toBe(6);
		const errors = output.filter((o) => o.json.error).map((o) => [o.pairedItem.item, o.json.error]);
		expect(errors.map(([i]) => i)).toEqual([2, 3, 4]);
		// Batch 3 (item 4 of the input) is item 0 of its run.
		expect(errors[2][1]).toMatch(
			/^Item 0 was not sent: the Page Budget of 7 pages was reached earlier in this workflow execution, by an earlier run or try of this node \(this document has 1 page\); 6 pages billed so far in this workflow execution$/,
		);
	});

	test('the node run twice in one execution (two inputs): one budget for both runs', async () => {
		const items = Array.from({ length: 6 }, (_, i) => pdf(2, `twice-${i}.pdf`));
		const params = withBudget(h.doc('recognize'), 7, { concurrency: 16 });
		const { executions } = await shapeRun('twice', params, items, {
			nodeSettings: { onError: 'continueRegularOutput' },
		});
		expect(executions[0].runs).toHaveLength(2);
		expect(h.netCharged(emu)).toBe(6);
		const { output } = flatten(executions[0]);
		expect(output.filter((o) => /Page Budget of 7 pages/.test(o.json.error ?? ''))).toHaveLength(3);
	});

	test('a sub-workflow called per item is an execution of its own: its budget starts at zero', async () => {
		const items = [pdf(2, 'a.pdf'), pdf(2, 'b.pdf'), pdf(3, 'c.pdf')];
		const params = withBudget(h.doc('markdown'), 2);
		const { executions } = await shapeRun('subWorkflow', params, items, {
			nodeSettings: { onError: 'continueRegularOutput' },
		});
		expect(executions).toHaveLength(3);
		expect(h.netCharged(emu)).toBe(4);
		expect(flatten(executions[2]).output[0].json.error).toMatch(
			/its 3 pages would pass the Page Budget of 2 pages/,
		);
	});

	test('a partial execution from the editor is an execution of its own: its budget starts at zero', async () => {
		const items = [pdf(2, 'a.pdf'), pdf(2, 'b.pdf')];
		const params = withBudget(h.doc('markdown'), 3);
		const { executions } = await shapeRun('partial', params, items, {
			nodeSettings: { onError: 'continueRegularOutput' },
		});
		expect(executions).toHaveLength(2);
		for (const execution of executions) {
			const { output } = flatten(execution);
			expect(output[0].json.markdown).toContain('a.pdf');
			expect(output[1].json.error).toMatch(/would pass the Page Budget of 3 pages/);
		}
		expect(h.netCharged(emu)).toBe(4);
	});
});

describe('Page Budget: given by an expression', () => {
	test.each([
		['a missing field', '={{ $json.maxPages }}', 'nothing'],
		['null', '={{ null }}', 'null'],
		['an empty text', '={{ $json.limit ?? "" }}', 'an empty text'],
		['text', '={{ "ten" }}', '"ten"'],
		['a negative number', '={{ -1 }}', '"-1"'],
		['a fraction', '={{ 2.5 }}', '"2.5"'],
	])(
		'%s is an error before anything is sent, never "no budget"',
		async (_what, pageBudget, shown) => {
			const items = [pdf(3, 'a.pdf'), pdf(3, 'b.pdf')];
			const { error, output } = await h.run(emu, h.submit({ options: { pageBudget } }), items);
			expect(output).toEqual([]);
			expect(error.message).toBe(
				`Item 0: "Page Budget" must be a whole number of at least 1, but it is ${shown}`,
			);
			expect(error.description).toMatch(/Nothing was sent or charged/);
			expect(submitted()).toBe(0);
		},
	);

	test('a numeric text is its number', async () => {
		const params = h.submit({ options: { pageBudget: '={{ "4" }}' } });
		const { error } = await h.run(emu, params, [pdf(3, 'a.pdf'), pdf(3, 'b.pdf')]);
		expect(error.message).toMatch(/would pass the Page Budget of 4 pages/);
		expect(h.netCharged(emu)).toBe(3);
	});
});

describe('what the budget counts as spent', () => {
	test('Submit (V2): credits are not pages; a service answering fewer credits than pages cannot stretch the budget', async () => {
		// The service deducts `pages` but answers creditsUsed = pages / 2.
		const real = await h.withEmulator();
		try {
			const send = real.sendJson.bind(real);
			real.sendJson = (ctx, status, body, ...rest) =>
				send(
					ctx,
					status,
					body && typeof body === 'object' && 'creditsUsed' in body
						? { ...body, creditsUsed: body.pages / 2 }
						: body,
					...rest,
				);
			const items = [pdf(4, 'a.pdf'), pdf(4, 'b.pdf'), pdf(4, 'c.pdf'), pdf(4, 'd.pdf')];
			const params = h.submit({ operation: 'submitV2', format: 'markdown' });
			const { output, error } = await h.run(
				real,
				withBudget(params, 8, { concurrency: 1 }),
				items,
				{
					continueOnFail: true,
				},
			);
			expect(error).toBeUndefined();
			expect(h.netCharged(real)).toBe(8);
			expect(output[0].json).toMatchObject({ pagesCounted: 4, pagesBilled: 4, creditsUsed: 2 });
			expect(output[2].json.error).toMatch(/Page Budget of 8 pages/);
		} finally {
			await real.close();
		}
	});
});
