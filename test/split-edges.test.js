'use strict';
/**
 * Split Large Documents at its edges (issue 37): the cases a review of the feature found wrong,
 * each as it should be, and the ones it tried that held. Count Pages counts documents that
 * cannot be split (and says why); a job's text in its `result`, counts and `pages` are joined
 * over the parts; Simplify keeps `parts`; a part's error tells the parts sent after it from those
 * never sent; Retry On Fail, Skip Submitted Documents and held /v1 results with parts; the body
 * limit exactly; expressions for the option; Pages with splitting.
 */
const h = require('./helpers');
const { scanPdf, billedPages } = require('./support/sources');
const { startFileServer } = require('./support/file-server');

const emu = h.useEmulator({ perTest: true });

let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => {
	await files?.close();
});

const SPLIT = { splitLargeDocuments: true };
const scan = (pages, bytes, prefix) => scanPdf(pages, bytes, { prefix });
const received = () => billedPages(emu);

/** A PNG of about `size` bytes (a private ancillary chunk pads it). */
function bigPng(size) {
	const png = h.documents.makePng('big');
	const iend = png.length - 12;
	const len = Buffer.alloc(4);
	len.writeUInt32BE(size);
	const chunk = Buffer.concat([
		len,
		Buffer.from('prVt', 'latin1'),
		Buffer.alloc(size, 7),
		Buffer.alloc(4),
	]);
	return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

describe('Count Pages: documents that cannot be split are counted all the same', () => {
	test('an 8 MB one-page PDF (fits /v1, not the task API) is still counted', async () => {
		const pdf = h.documents.makePdf(['only page'], { imageBytes: 8_000_000 });
		const { output, error } = await h.run(
			emu,
			h.doc('countPages'),
			[h.binaryItem(pdf, 'one.pdf')],
			{
				continueOnFail: true,
			},
		);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeUndefined();
		expect(output[0].json.pages).toBe(1);
		// One page of 8 MB: too large for the task API's Base64 body alone, one part on /v1.
		expect(output[0].json.partsNeeded).toEqual({ taskApi: null, v1Api: 1 });
		expect(output[0].json.partsNeededNote).toMatch(/page 1 alone makes a request over/);
	});

	test('an 8 MB PNG (fits /v1) is still counted', async () => {
		const png = bigPng(8_000_000);
		const { output, error } = await h.run(
			emu,
			h.doc('countPages'),
			[h.binaryItem(png, 'photo.png', 'image/png')],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeUndefined();
		expect(output[0].json.pages).toBe(1);
	});

	test('an 8 MB PDF whose pages cannot be counted gives pages null with the reason (as before)', async () => {
		const pdf = h.documents.makePdfOfSize(8_000_000);
		const { output, error } = await h.run(emu, h.doc('countPages'), [h.binaryItem(pdf, 'u.pdf')], {
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeUndefined();
		expect(output[0].json.pages).toBeNull();
	});
});

describe('a part that fails after it was accepted (its wait), with Wait for Completion', () => {
	test('task API: part 1 of 3 fails in the service; the message must not say parts 2-3 were not sent when they were billed', async () => {
		// 18 pages of 1.2 MB: three parts on the task API; page 1 says FAIL (the emulator fails that task).
		const texts = Array.from({ length: 18 }, (_, i) =>
			i === 0 ? 'FAIL page 1' : `Scan page ${i + 1}`,
		);
		const pdf = h.documents.makePdf(texts, { imageBytes: 1_200_000 });
		// Part 1 fails after 8 pages x 400 ms: parts 2 and 3 are sent before, however busy the
		// machine (at the default 50 ms a page, a loaded machine sent part 3 after part 1 failed).
		emu.options.msPerPage = 400;
		const { output, error } = await h.run(
			emu,
			h.submit({ options: SPLIT }),
			[h.binaryItem(pdf, 'scan.pdf')],
			{
				continueOnFail: true,
			},
		);
		expect(error).toBeUndefined();
		const json = output[0].json;
		const sent = h.hits(emu, 'POST /api/ocr');
		const billed = h.netCharged(emu);
		expect(sent).toBe(3);
		expect(billed).toBe(18);
		// Every part that was billed is named.
		expect(json.partsBilled?.length).toBe(3);
		// The item's description must not claim that parts that were sent and billed were not sent.
		expect(`${json.error} ${json.description ?? ''}`).not.toMatch(/not sent/);
		expect(json.description).toMatch(
			/part 1 of 3 of the document \(pages 1-\d+\).*Parts 2 and 3 were sent before it failed/s,
		);
	});
});

describe('joined output', () => {
	test('Convert to Markdown: the answer field `pages` (spec: integer) is kept, as on a document that fits', async () => {
		const twelve = scan(16, 750_000);
		const { output, error } = await h.run(emu, h.doc('markdown', { options: SPLIT }), [
			h.binaryItem(twelve.pdf, 'scan.pdf'),
		]);
		expect(error).toBeUndefined();
		const small = await h.run(emu, h.doc('markdown', { options: SPLIT }), [
			h.pdfItem('one', 'one.pdf'),
		]);
		expect(typeof small.output[0].json.pages).toBe('number');
		expect(output[0].json.pages).toBe(16);
	});
});

describe('n8n Retry On Fail over a split document', () => {
	const { runShape, flatten } = require('./support/shapes');
	const shapeRun = (shape, params, items, extra = {}) =>
		runShape(shape, { parameters: params, items, credentials: h.credentials(emu), ...extra });

	test.each([
		['markdown', 'POST /v1/markdown', '/v1/markdown', 'actThenError'],
		['submit', 'POST /api/ocr', '/api/ocr', 'actThenError'],
	])(
		'%s, %s fault on part 2 of 3 once: the retried try does not bill part 1 again',
		async (op, route, path, kind) => {
			const eighteen = scan(18, 1_200_000);
			const params =
				op === 'markdown' ? h.doc('markdown', { options: SPLIT }) : h.submit({ options: SPLIT });
			emu.fault({
				method: 'POST',
				path,
				kind,
				...(kind === 'status' ? { status: 500 } : {}),
				every: 2,
				times: 1,
			});
			const { executions } = await shapeRun('retry', params, [
				h.binaryItem(eighteen.pdf, 'scan.pdf'),
			]);
			const { output, error } = flatten(executions[0]);
			const result = {
				hits: h.hits(emu, route),
				billed: h.netCharged(emu),
				received: received().map((d) => d[0]),
				error: error?.message,
				out: output.map((o) => o.json.parts),
			};
			// actThenError: part 2 was billed and its answer lost; at most one more part-2 bill is defensible.
			expect(received().filter((d) => d[0] === 'Scan page 1')).toHaveLength(1);
			if (kind === 'status') expect(h.netCharged(emu)).toBe(18);
		},
	);
});

describe('node version 2 (Simplify on by default)', () => {
	test("Task → Submit without waiting: the simplified item still carries every part's task ID", async () => {
		const twelve = scan(16, 750_000);
		const { output, error } = await h.run(
			emu,
			h.submit({ waitForCompletion: false, options: SPLIT }),
			[h.binaryItem(twelve.pdf, 'scan.pdf')],
			{ typeVersion: 2 },
		);
		expect(error).toBeUndefined();
		expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
		expect(h.netCharged(emu)).toBe(16);
		const json = output[0].json;
		const ids = JSON.stringify(json).match(/tsk_[0-9a-f]+/g) ?? [];
		// Two tasks were created and billed: the output must name both (to fetch them with Task → Get).
		expect(new Set(ids).size).toBe(2);
	});

	test('Task → Submit with waiting: the simplified item still says the parts', async () => {
		const twelve = scan(16, 750_000);
		const { output, error } = await h.run(
			emu,
			h.submit({ options: SPLIT }),
			[h.binaryItem(twelve.pdf, 'scan.pdf')],
			{
				typeVersion: 2,
			},
		);
		expect(error).toBeUndefined();
		const json = output[0].json;
		expect(json.parts).toHaveLength(2);
	});
});

describe('joined output of the record-shaped answers', () => {
	test('Job → Create (wait): the joined job result carries the text of every part, not the first part only', async () => {
		const twelve = scan(16, 750_000);
		const { output, error } = await h.run(
			emu,
			h.job('create', { jobFields: {}, waitForCompletion: true, options: SPLIT }),
			[h.binaryItem(twelve.pdf, 'scan.pdf')],
		);
		expect(error).toBeUndefined();
		expect(output[0].json.parts).toHaveLength(2);
		expect(h.netCharged(emu)).toBe(16);
		const text =
			JSON.stringify(output[0].json.result ?? {}) +
			(output[0].json.text ?? '') +
			(output[0].json.markdown ?? '');
		// Pages 14-16 were billed (part 2): their text must be in the item's output.
		expect(text).toContain('Scan page 16');
	});

	test("Submit (V2): creditsUsed of the joined item is the parts' sum (16), not the first part's", async () => {
		const twelve = scan(16, 750_000);
		const { output, error } = await h.run(
			emu,
			h.submit({ operation: 'submitV2', format: 'markdown', options: SPLIT }),
			[h.binaryItem(twelve.pdf, 'scan.pdf')],
		);
		expect(error).toBeUndefined();
		expect(output[0].json.pagesBilled).toBe(16);
		expect(output[0].json.creditsUsed).toBe(16);
	});
});

describe('Page Budget over parts, more shapes', () => {
	const { runShape, flatten } = require('./support/shapes');
	test('Retry On Fail: part 2 of 2 refused (400) once; the retry sends part 2 under a budget exactly the document', async () => {
		const twelve = scan(16, 750_000);
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			every: 2,
			times: 1,
		});
		const { executions } = await runShape('retry', {
			parameters: h.submit({ options: { ...SPLIT, pageBudget: 16 } }),
			items: [h.binaryItem(twelve.pdf, 'scan.pdf')],
			credentials: h.credentials(emu),
		});
		const { output, error } = flatten(executions[0]);
		expect(error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(16);
		expect(received().flat()).toEqual(twelve.texts);
	});

	test("Skip Submitted: run 2 reuses part 1 and sends part 2 under a budget of part 2's pages", async () => {
		const twelve = scan(16, 750_000);
		const staticData = {};
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			every: 2,
			times: 1,
		});
		const params = (budget) =>
			h.submit({
				options: { ...SPLIT, skipSubmitted: true, ...(budget ? { pageBudget: budget } : {}) },
			});
		const first = await h.run(emu, params(), [h.binaryItem(twelve.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(first.error).toBeDefined();
		const billed = h.netCharged(emu);
		const again = await h.run(emu, params(16 - billed), [h.binaryItem(twelve.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(again.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(16);
	});
});

/** A one-page scan PDF of exactly `size` bytes. */
function pdfOfExactly(size) {
	let lo = 1;
	let hi = size;
	while (lo <= hi) {
		const mid = Math.floor((lo + hi) / 2);
		const got = h.documents.makePdf(['Edge page'], { imageBytes: mid }).length;
		if (got === size) return h.documents.makePdf(['Edge page'], { imageBytes: mid });
		if (got < size) lo = mid + 1;
		else hi = mid - 1;
	}
	throw new Error(`no PDF of exactly ${size} bytes`);
}

describe('the limit boundary', () => {
	test('Task → Submit: a body of exactly 10,000,000 bytes is sent whole; split on or off', async () => {
		// {"filename":"<name>","provider":"provider-async","documentType":"general","imageBase64":"…"}
		let name = 'scan.pdf';
		const text = (n) =>
			Buffer.byteLength(
				`${JSON.stringify({ filename: n, provider: 'provider-async', documentType: 'general' }).slice(0, -1)},"imageBase64":""}`,
			);
		while ((10_000_000 - text(name)) % 4 !== 0) name = `x${name}`;
		const file = ((10_000_000 - text(name)) / 4) * 3;
		const pdf = pdfOfExactly(file);
		for (const options of [SPLIT, {}]) {
			const { output, error } = await h.run(emu, h.submit({ options }), [h.binaryItem(pdf, name)]);
			expect(error).toBeUndefined();
			expect(output[0].json.parts).toBeUndefined();
		}
		expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
		// One byte more of file is a body over the limit: refused without the option.
		const over = pdfOfExactly(file + 1);
		const refused = await h.run(emu, h.submit({ options: {} }), [h.binaryItem(over, name)]);
		expect(refused.error?.message).toMatch(/over the service's 10\.00 MB limit/);
	});
});

describe('the option given by an expression', () => {
	test.each([['={{ undefined }}'], ['={{ "yes" }}'], ['={{ 1 }}']])(
		'%s fails the item naming the option, before any request',
		async (value) => {
			const twelve = scan(16, 750_000);
			const { error } = await h.run(
				emu,
				h.doc('markdown', { options: { splitLargeDocuments: value } }),
				[h.binaryItem(twelve.pdf, 'scan.pdf')],
			);
			expect(error?.message).toMatch(/Split Large Documents/);
			expect(h.hits(emu, 'POST /v1/markdown')).toBe(0);
		},
	);
});

describe('how often a URL document is fetched', () => {
	test('Convert to Markdown of a 12 MB URL in 2 parts: fetched once to check, once to send (commit: "read once per phase")', async () => {
		const twelve = scan(16, 750_000);
		const at = `/count-${Math.random().toString(36).slice(2)}/scan.pdf`;
		files.put(at, twelve.pdf, { 'content-type': 'application/pdf' });
		const before = files.stats.bytesSent;
		const { error } = await h.run(
			emu,
			h.doc('markdown', { documentSource: 'url', documentUrl: files.url(at), options: SPLIT }),
		);
		expect(error).toBeUndefined();
		const fetches = (files.stats.bytesSent - before) / twelve.pdf.length;
		expect(fetches).toBeLessThanOrEqual(2);
	});
});

describe('held /v1 results per part', () => {
	test('Convert to Markdown: part 3 of 3 refused; the next run sends part 3 only and outputs all pages', async () => {
		const eighteen = scan(18, 1_200_000);
		const staticData = {};
		emu.fault({
			method: 'POST',
			path: '/v1/markdown',
			kind: 'status',
			status: 400,
			every: 3,
			times: 1,
		});
		const params = h.doc('markdown', { options: SPLIT });
		const first = await h.run(emu, params, [h.binaryItem(eighteen.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(first.error).toBeDefined();
		expect(first.error.description).toMatch(/part 3 of 3/);
		const billedFirst = h.netCharged(emu);
		const again = await h.run(emu, params, [h.binaryItem(eighteen.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(again.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(18);
		expect(again.output[0].json.markdown).toContain('Scan page 18');
		expect(again.output[0].json.markdown).toContain('Scan page 1\n');
	});
});

describe('concurrency with several split documents', () => {
	test('Concurrency 5, Continue on Fail, a lost answer on the 3rd request: parts go in item order, one item per document', async () => {
		const docs = [0, 1, 2].map((d) => scan(16, 750_000, `Doc${d} page`));
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', every: 3, times: 1 });
		const { output, error } = await h.run(
			emu,
			h.submit({ options: { ...SPLIT, concurrency: 5 } }),
			docs.map((d, i) => h.binaryItem(d.pdf, `d${i}.pdf`)),
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(3);
		const firsts = received().map((d) => d[0]);
		// In item order: item i's first part is billed before item i+1's (item i+1 goes out only
		// once item i's last part does, which is after its first part was accepted; the last part
		// and the next item's first may then be billed in either order); each item's parts in
		// page order.
		const items = firsts.map((t) => Number(/^Doc(\d)/.exec(t)[1]));
		const firstOf = [0, 1, 2].map((item) => items.indexOf(item)).filter((at) => at >= 0);
		expect([...firstOf].sort((a, b) => a - b)).toEqual(firstOf);
		for (const item of [0, 1, 2]) {
			const pages = firsts
				.filter((_, at) => items[at] === item)
				.map((t) => Number(/page (\d+)$/.exec(t)[1]));
			expect([...pages].sort((a, b) => a - b)).toEqual(pages);
		}
		expect(output[1].json.error).toMatch(/lost|may have/i);
		expect(output[0].json.parts).toHaveLength(2);
		expect(output[2].json.parts).toHaveLength(2);
	});
});

describe('Pages with splitting', () => {
	test('a 25 MB scan, Pages "3,5-20,40": only those pages billed, in parts, in order', async () => {
		const forty = scan(40, 625_000);
		const { output, error } = await h.run(
			emu,
			h.submit({ options: { ...SPLIT, pages: '3,5-20,40' } }),
			[h.binaryItem(forty.pdf, 'scan.pdf')],
		);
		expect(error).toBeUndefined();
		const want = [3, ...Array.from({ length: 16 }, (_, i) => i + 5), 40].map(
			(p) => `Scan page ${p}`,
		);
		expect(received().flat()).toEqual(want);
		expect(h.netCharged(emu)).toBe(18);
		expect(output[0].json).toMatchObject({ pagesCounted: 40, pagesSent: '3, 5-20, 40' });
	});
});

// A second review: a part that fails while a later one is submitted, a reused part beside a sent
// one, Count Pages against what is sent.
const scanFirst = (pages, bytes, first) => scanPdf(pages, bytes, { first });

/**
 * Holds part 2's submission (the second POST) until the node has seen part 1 fail — a poll of its
 * task after it failed — or 2 minutes: the order the A tests need, by what happened, not by how
 * fast the machine is. `seen` says when part 1 failed and whether part 3 was ever created.
 */
function holdPart2UntilPart1FailSeen() {
	let release;
	const until = new Promise((resolve) => (release = resolve));
	emu.fault({
		method: 'POST',
		path: '/api/ocr',
		kind: 'latency',
		ms: 120_000,
		until,
		every: 2,
		times: 1,
	});
	const seen = {};
	const timer = setInterval(() => {
		const [first] = emu.tasks;
		if (!first) return;
		const polls = emu.stats().polls[first.taskId] ?? 0;
		if (first.status === 'failed') seen.pollsWhenFailed ??= polls;
		if (seen.pollsWhenFailed !== undefined && polls > seen.pollsWhenFailed && !seen.failSeen) {
			seen.failSeen = true;
			release();
		}
		if (emu.tasks.length >= 3) seen.part3 = true;
	}, 20);
	return { seen, stop: () => clearInterval(timer) };
}

describe('a part that fails in its wait while a later part is being submitted', () => {
	test('A1 part 1 fails (seen by the node) before part 3 is submitted: part 3 must not be sent, nor be called "sent before it failed"', async () => {
		const d = scanFirst(18, 1_200_000, 'FAIL page 1');
		// Part 2's submission is answered once the node has seen part 1 (6 pages) fail.
		const hold = holdPart2UntilPart1FailSeen();
		let result;
		try {
			result = await h.run(
				emu,
				h.submit({ options: { ...SPLIT, concurrency: 5 } }),
				[h.binaryItem(d.pdf, 'scan.pdf')],
				{ continueOnFail: true },
			);
		} finally {
			hold.stop();
		}
		const json = result.output[0].json;
		// Part 1's failure was seen while part 2's submission was on its way: part 3 never created.
		expect(hold.seen.failSeen).toBe(true);
		expect(hold.seen.part3).toBeUndefined();
		// The first part that fails fails the item: no part after it is sent (batch/send.ts).
		expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
		expect(h.netCharged(emu)).toBe(12);
		expect(json.description).toMatch(
			/part 1 of 3 .*Part 2 was sent before it failed \(see what was billed\)\. Part 3 was not sent\./s,
		);
	}, 300_000);
});

test('A2 halt (no Continue on Fail): part 1 failed before the item’s last part went out; the next item must not be billed', async () => {
	const d = scanFirst(18, 1_200_000, 'FAIL page 1');
	const hold = holdPart2UntilPart1FailSeen();
	let error;
	try {
		({ error } = await h.run(emu, h.submit({ options: { ...SPLIT, concurrency: 5 } }), [
			h.binaryItem(d.pdf, 'scan.pdf'),
			h.pdfItem('Next item', 'next.pdf'),
		]));
	} finally {
		hold.stop();
	}
	expect(hold.seen.failSeen).toBe(true);
	expect(error).toBeDefined();
	const billedDocs = emu
		.ledger('acme')
		.filter((e) => e.delta < 0)
		.map((e) => e.document);
	// Expected: the run halts on part 1's failure; neither part 3 nor item 1 is billed.
	expect(billedDocs.some((t) => /Next item/.test(t))).toBe(false);
	expect(h.netCharged(emu)).toBe(12);
}, 300_000);

describe('joined output with a reused part', () => {
	test('B1 Skip Submitted: run 2 reuses part 1 and sends part 2; the joined text has every page', async () => {
		const d = scan(16, 750_000);
		const staticData = {};
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			every: 2,
			times: 1,
		});
		const params = h.submit({ options: { ...SPLIT, skipSubmitted: true } });
		await h.run(emu, params, [h.binaryItem(d.pdf, 'scan.pdf')], { staticData, mode: 'cli' });
		const again = await h.run(emu, params, [h.binaryItem(d.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(again.error).toBeUndefined();
		const json = again.output[0].json;
		for (const t of d.texts) expect(json.resultText).toContain(t);
		expect(json.previouslySubmitted).toBeUndefined();
		expect(json.parts.map((p) => p.previouslySubmitted === true)).toEqual([true, false]);
	}, 60000);

	test('B2 Skip Submitted: both remembered parts deleted at the service; part 1 refused when sent anew: part 2 must not be sent', async () => {
		// A remembered part whose task the service no longer has is sent anew. The next part may go
		// only once it was (as when it is sent the first time): if part 1's new submission fails,
		// part 2 is not sent, and nothing goes out of page order.
		const d = scan(16, 750_000);
		const staticData = {};
		const params = h.submit({ options: { ...SPLIT, skipSubmitted: true } });
		const first = await h.run(emu, params, [h.binaryItem(d.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(first.error).toBeUndefined();
		const ids = first.output[0].json.parts.map((p) => p.taskId);
		expect(ids).toHaveLength(2);
		for (const taskId of ids) await h.run(emu, h.task('delete', { taskId }));
		const before = h.hits(emu, 'POST /api/ocr');
		const charged = h.netCharged(emu);
		// Part 1's look-up is slow: a part 2 started early is found gone and sent first.
		emu.fault({ method: 'GET', path: `/api/tasks/${ids[0]}`, kind: 'latency', ms: 1500 });
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'status', status: 400 });
		const again = await h.run(emu, params, [h.binaryItem(d.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(again.error).toBeDefined();
		expect(again.error.description).toMatch(/part 1 of 2/);
		expect(h.hits(emu, 'POST /api/ocr') - before).toBe(1);
		expect(h.netCharged(emu)).toBe(charged);
	}, 60000);
}, 300_000);

describe('Count Pages against what is sent', () => {
	test('C1 a 9 MB 12-page PDF: partsNeeded matches the sends of Task → Submit and Convert to Markdown; Count Pages sends nothing', async () => {
		const d = scan(12, 750_000);
		const c = await h.run(emu, h.doc('countPages'), [h.binaryItem(d.pdf, 'scan.pdf')]);
		expect(emu.stats().requests).toBe(0);
		const { partsNeeded } = c.output[0].json;
		await h.run(emu, h.submit({ options: SPLIT }), [h.binaryItem(d.pdf, 'scan.pdf')]);
		await h.run(emu, h.doc('markdown', { options: SPLIT }), [h.binaryItem(d.pdf, 'scan.pdf')]);
		expect(partsNeeded).toEqual({
			taskApi: h.hits(emu, 'POST /api/ocr'),
			v1Api: h.hits(emu, 'POST /v1/markdown'),
		});
	}, 60000);
});
