'use strict';
/**
 * Split Large Documents (issue 37) in n8n's engine against the emulator, on every operation that
 * sends a document and from each source (binary, Base64, URL): a PDF or TIFF whose request body
 * would pass the service's 10 MB limit is sent in page order in as few parts as fit, each a
 * submission of its own, and the item gives ONE output — the parts' text joined in page order,
 * pages billed summed, each part's ID and pages. Without the option an over-limit file is refused
 * before any request, naming the option; a single page past the limit cannot be split (nothing
 * billed). The money rules extend to parts: the Page Budget admits a document's parts all or
 * none; a part whose answer is lost is named with the parts billed before it and nothing after
 * it is sent; Skip Submitted Documents remembers each part; concurrency bills no later item
 * before an item's last part.
 */
const h = require('./helpers');
const { startFileServer } = require('./support/file-server');
const { withDocument, scanPdf, billedPages } = require('./support/sources');
const { SENDING, posts: postsIn } = require('./support/sending');

const emu = h.useEmulator({ perTest: true });

let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => {
	await files?.close();
});

const LIMIT = 10_000_000;

const scan = (pages, bytes, prefix) => scanPdf(pages, bytes, { prefix });

// 16 pages of 750 kB: 12 MB, two parts on either surface (7.5 MB of file per JSON body).
const TWELVE = scan(16, 750_000);

/** The parameters and items of `operation` with `bytes` as the document from `source`. */
function sending(operation, source, bytes, options, name = 'scan.pdf') {
	const { params } = SENDING[operation];
	return withDocument({ params, source, bytes, options, name, files, tag: operation });
}

const posts = () => postsIn(emu);

const received = () => billedPages(emu);

const SPLIT = { splitLargeDocuments: true };

describe.each(Object.entries(SENDING))(
	'%s',
	(operation, { route, id: idField, text: textField }) => {
		describe.each(['binary', 'base64', 'url'])('from %s', (source) => {
			test('a 12 MB, 16-page PDF: one item, its pages in order, two parts billed 16 pages', async () => {
				const { params, items } = sending(operation, source, TWELVE.pdf, SPLIT);
				const { output, error } = await h.run(emu, params, items);
				expect(error).toBeUndefined();
				expect(output).toHaveLength(1);
				const { json } = output[0];
				expect(json.parts).toHaveLength(2);
				const [first, second] = json.parts.map((part) => part.pagesSent);
				expect(first).toMatch(/^1-\d+$/);
				expect(second).toBe(`${Number(first.split('-')[1]) + 1}-16`);
				// Recognize and Extract: the spec shows no ID in the answer (the strict emulator sends none).
				if (idField) for (const part of json.parts) expect(typeof part[idField]).toBe('string');
				expect(json).toMatchObject({ pagesCounted: 16, pagesSent: '1-16' });
				expect(h.netCharged(emu)).toBe(16);
				// What the service received: the pages in order, each part a document of its own.
				expect(received().flat()).toEqual(TWELVE.texts);
				expect(h.hits(emu, route)).toBe(2);
				if (textField) {
					const text = json[textField];
					let at = -1;
					for (const page of TWELVE.texts) {
						const next =
							text.indexOf(`${page}\n`) === -1 ? text.indexOf(page) : text.indexOf(`${page}\n`);
						expect(next).toBeGreaterThan(at);
						at = next;
					}
				}
			});
		});

		test('without the option: refused before any request, naming the option', async () => {
			const { params, items } = sending(operation, 'binary', TWELVE.pdf, {});
			const { error } = await h.run(emu, params, items);
			expect(error?.message).toMatch(/over the service's 10\.00 MB limit/);
			expect(error.description).toMatch(/Split Large Documents/);
			expect(posts()).toBe(0);
		});

		test('a single page past the limit cannot be split: refused, nothing billed', async () => {
			// Each page carries 10.5 MB of image: page 1 alone passes the limit.
			const pdf = h.documents.makePdf(['small one', 'huge page'], { imageBytes: 10_500_000 });
			const { params, items } = sending(operation, 'binary', pdf, SPLIT);
			const { error } = await h.run(emu, params, items);
			expect(error?.message).toMatch(
				/page 1 alone makes a request over the service's 10\.00 MB limit/,
			);
			expect(error.description).toMatch(/Nothing was sent or charged/);
			expect(posts()).toBe(0);
			expect(h.netCharged(emu)).toBe(0);
		});
	},
);

describe('the 25 MB, 40-page scan', () => {
	const FORTY = scan(40, 625_000);

	test.each([
		['submit', 4],
		['markdown', 3],
	])(
		'%s: one item with all 40 pages in order; every part within the limit',
		async (operation, parts) => {
			expect(FORTY.pdf.length).toBeGreaterThan(25_000_000);
			const { params, items } = sending(operation, 'binary', FORTY.pdf, SPLIT);
			const { output, error } = await h.run(emu, params, items);
			expect(error).toBeUndefined();
			expect(output).toHaveLength(1);
			expect(output[0].json.parts).toHaveLength(parts);
			expect(h.netCharged(emu)).toBe(40);
			expect(received().flat()).toEqual(FORTY.texts);
			// The emulator refuses a body past 10,000,000 bytes (413): every part was within it.
			expect(h.hits(emu, SENDING[operation].route)).toBe(parts);
		},
	);
});

describe('money rules over parts', () => {
	test("the Page Budget admits a document's parts all or none", async () => {
		const refused = await h.run(emu, h.submit({ options: { ...SPLIT, pageBudget: 15 } }), [
			h.binaryItem(TWELVE.pdf, 'scan.pdf'),
		]);
		expect(refused.error?.message).toMatch(/its 16 pages would pass the Page Budget of 15 pages/);
		expect(posts()).toBe(0);
		const admitted = await h.run(emu, h.submit({ options: { ...SPLIT, pageBudget: 16 } }), [
			h.binaryItem(TWELVE.pdf, 'scan.pdf'),
		]);
		expect(admitted.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(16);
	});

	test('a lost answer on part 2 of 3: named with part 1 billed, part 3 not sent', async () => {
		const eighteen = scan(18, 1_200_000);
		emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'lostResponse', every: 2, times: 1 });
		const { error } = await h.run(emu, h.doc('markdown', { options: SPLIT }), [
			h.binaryItem(eighteen.pdf, 'scan.pdf'),
		]);
		expect(error).toBeDefined();
		expect(error.description).toMatch(/part 2 of 3 of the document \(pages \d+-\d+\)/);
		expect(error.description).toMatch(/Part 3 was not sent\./);
		expect(error.description).toMatch(/item 0, pages 1-\d+: document/);
		expect(h.hits(emu, 'POST /v1/markdown')).toBe(2);
	});

	test('Continue on Fail: the failed item names every part billed (IDs and pages)', async () => {
		const eighteen = scan(18, 1_200_000);
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			every: 2,
			times: 1,
		});
		const { output, error } = await h.run(
			emu,
			h.submit({ options: SPLIT }),
			[h.binaryItem(eighteen.pdf, 'scan.pdf')],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeDefined();
		expect(output[0].json.partsBilled?.[0]).toMatchObject({ pagesSent: expect.any(String) });
		expect(typeof output[0].json.partsBilled[0].taskId).toBe('string');
	});

	test('429s between parts: each part billed once, the item whole', async () => {
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'rateLimit',
			retryAfter: 1,
			every: 2,
			times: 1,
		});
		const { output, error } = await h.run(emu, h.submit({ options: SPLIT }), [
			h.binaryItem(TWELVE.pdf, 'scan.pdf'),
		]);
		expect(error).toBeUndefined();
		expect(output[0].json.parts).toHaveLength(2);
		expect(received().flat()).toEqual(TWELVE.texts);
		expect(h.netCharged(emu)).toBe(16);
	});

	test('Skip Submitted Documents remembers each part: a re-run after part 2 failed sends part 2 only', async () => {
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
		const first = await h.run(emu, params, [h.binaryItem(TWELVE.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(first.error).toBeDefined();
		const billedFirst = h.netCharged(emu);
		const again = await h.run(emu, params, [h.binaryItem(TWELVE.pdf, 'scan.pdf')], {
			staticData,
			mode: 'cli',
		});
		expect(again.error).toBeUndefined();
		expect(h.netCharged(emu)).toBe(16);
		expect(billedFirst).toBe(Number(again.output[0].json.parts[0].pagesSent.split('-')[1]));
		expect(again.output[0].json.parts[0].previouslySubmitted).toBe(true);
	});

	test('Concurrency 5, no Continue on Fail: a part before the last that fails bills no later item', async () => {
		// 18 pages of 1.2 MB: three parts; part 2 is refused. Parts before the last hold the item's
		// turn, so items 1 and 2 are not sent (as a one-at-a-time loop would not send them).
		const eighteen = scan(18, 1_200_000);
		const items = [
			h.binaryItem(eighteen.pdf, 'scan.pdf'),
			h.pdfItem('later one', 'a.pdf'),
			h.pdfItem('later two', 'b.pdf'),
		];
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			every: 2,
			times: 1,
		});
		const { error } = await h.run(emu, h.submit({ options: { ...SPLIT, concurrency: 5 } }), items);
		expect(error?.context.itemIndex).toBe(0);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
		const texts = received().flat();
		expect(texts.length).toBeLessThan(18);
		expect(texts).toEqual(eighteen.texts.slice(0, texts.length));
	});

	test('a URL whose file changes between the check and the send: its parts are not sent', async () => {
		const at = `/changing-${Math.random().toString(36).slice(2)}/scan.pdf`;
		files.put(at, TWELVE.pdf, { 'content-type': 'application/pdf' });
		const other = scan(16, 750_000, 'Other page');
		// Item 0 (a small PDF) is sent first and answered slowly; item 1 is the URL's document.
		emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'latency', ms: 500, times: 1 });
		const first = `/first-${Math.random().toString(36).slice(2)}/first.pdf`;
		files.put(first, h.documents.makePdf(['first']), { 'content-type': 'application/pdf' });
		const items = [{ json: { url: files.url(first) } }, { json: { url: files.url(at) } }];
		const running = h.run(
			emu,
			h.doc('markdown', {
				documentSource: 'url',
				documentUrl: '={{ $json.url }}',
				options: { ...SPLIT, concurrency: 1 },
			}),
			items,
			{ continueOnFail: true },
		);
		// Once item 0 is on its way (every item was checked), the file changes.
		for (let i = 0; i < 400 && h.hits(emu, 'POST /v1/markdown') === 0; i++)
			await new Promise((resolve) => setTimeout(resolve, 25));
		files.put(at, other.pdf, { 'content-type': 'application/pdf' });
		const { output, error } = await running;
		expect(error).toBeUndefined();
		expect(output[1].json.error).toMatch(/changed after it was checked/);
		expect(h.netCharged(emu)).toBe(1);
		// Its first part's request was cut off before its end: the service billed nothing for it.
		expect(received().flat()).toEqual(['first']);
	});
});

describe('Count Pages', () => {
	test('says how many parts a document needs on each surface', async () => {
		const forty = scan(40, 625_000);
		const { output, error } = await h.run(emu, h.doc('countPages'), [
			h.binaryItem(forty.pdf, 'scan.pdf'),
			h.binaryItem(TWELVE.pdf, 'twelve.pdf'),
			h.pdfItem('one page', 'small.pdf'),
		]);
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.partsNeeded)).toEqual([
			{ taskApi: 4, v1Api: 3 },
			{ taskApi: 2, v1Api: 2 },
			{ taskApi: 1, v1Api: 1 },
		]);
		expect(posts()).toBe(0);
	});
});
