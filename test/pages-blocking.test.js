'use strict';
/**
 * The page count lets n8n's event loop run (issue 35): crafted files of about 10 MB (the service's
 * limit), counted by the built counter (dist/) while a 1 ms timer ticks. The longest gap between
 * two ticks is the longest time the count held the event loop; beside it, the same timer's longest
 * gap with nothing counted (what the machine alone adds). The bench (bench/pages-blocking.js)
 * measures the same against the target of 50 ms; here the bound is a share of the count's own
 * time — its longest hold under a fifth of it, or 250 ms — so that a loaded machine, which
 * stretches the count and its holds alike (a collection starved of cores included), passes, and a
 * count that held the loop for its whole run (seconds), or for one long stretch of it, fails. A
 * cancelled count ends, null. The same for the format room's copies (formats/pdf-write.ts,
 * tiff-write.ts) of such files: every page selected, a split into parts of 1 MB.
 */
const path = require('node:path');
const {
	classic,
	tree,
	oneEntrySubsections,
	inheritedTree,
	pagedTiff,
} = require('./fixtures/pages/crafted');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../dist');
const { countPages, selectPdfPages, splitPdf, splitTiff } = require(
	path.join(DIST, 'nodes/DocumentOcr/formats'),
);
/** The pause the node gives the count (n8n's sleep(0) is a timer of 0 ms). */
const PAUSE = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs `fn` while a 1 ms timer ticks: its result, its time and the longest gap between ticks. */
async function blocking(fn) {
	let last = performance.now();
	let longest = 0;
	let ticking = true;
	const tick = () => {
		const now = performance.now();
		longest = Math.max(longest, now - last);
		last = now;
		if (ticking) setTimeout(tick, 1);
	};
	setTimeout(tick, 1);
	const started = performance.now();
	const result = await fn();
	const ms = performance.now() - started;
	await new Promise((resolve) => setTimeout(resolve, 5));
	ticking = false;
	return { result, ms: Math.round(ms), longest: Math.round(longest) };
}

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const ONE_PAGE = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
const deep = `${'['.repeat(28)}1${']'.repeat(28)} `;
const FILES = [
	['345,000 one-entry cross-reference subsections', () => oneEntrySubsections(345_000), 1],
	['100,000 tiny pages', () => classic(tree(100_000)), 100_000],
	[
		'100,000 tiny pages through the object scan',
		() =>
			Buffer.from(
				classic(tree(100_000))
					.toString('latin1')
					.replace(/startxref\n\d+/, 'startxref\n1'),
				'latin1',
			),
		100_000,
	],
	[
		'10 MB of nested arrays in a page',
		() =>
			classic([
				CATALOG,
				ONE_PAGE,
				`<< /Type /Page /X [${deep.repeat(10_000_000 / deep.length)}] >>`,
			]),
		null,
	],
];

describe('a count of a 10 MB crafted file lets the event loop run', () => {
	test.each(FILES)('%s', async (_name, make, pages) => {
		const bytes = make();
		expect(bytes.length).toBeGreaterThan(9_000_000);
		const idle = await blocking(() => new Promise((resolve) => setTimeout(resolve, 300)));
		const run = await blocking(() => countPages(bytes, 'pdf', undefined, PAUSE));
		console.log(
			`${_name}: ${(bytes.length / 1e6).toFixed(1)} MB, pages ${run.result.pages} in ${run.ms} ms; longest block ${run.longest} ms (the timer alone: ${idle.longest} ms)`,
		);
		expect(run.result.pages).toBe(pages);
		expect(run.longest).toBeLessThan(Math.max(250, run.ms / 5));
	});

	test('a cancelled count ends at its next pause: null, and why', async () => {
		const bytes = oneEntrySubsections(345_000);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 20);
		const run = await blocking(() => countPages(bytes, 'pdf', controller.signal, PAUSE));
		expect(run.result).toEqual({ pages: null, reason: 'the count was cancelled' });
	});
});

describe('a copy of a 10 MB crafted file lets the event loop run', () => {
	const pages = 100_000;
	const COPIES = [
		[
			'100,000 pages inheriting their resources, every page selected',
			() => inheritedTree(pages),
			async (bytes) =>
				(
					await selectPdfPages(
						bytes,
						Array.from({ length: pages }, (_, i) => i + 1),
						{ pause: PAUSE },
					)
				).length,
		],
		[
			'the same split into parts of 1 MB',
			() => inheritedTree(pages),
			async (bytes) =>
				(await splitPdf(bytes, (size) => size <= 1_000_000, { pause: PAUSE })).length,
		],
		[
			'a TIFF of 40,000 pages split into parts of 1 MB',
			() =>
				pagedTiff(
					Array.from({ length: 40_000 }, (_, i) => `page ${i + 1}`),
					{ strips: 4 },
				),
			async (bytes) =>
				(await splitTiff(bytes, (size) => size <= 1_000_000, { pause: PAUSE })).length,
		],
	];
	test.each(COPIES)('%s', async (name, make, copy) => {
		const bytes = make();
		expect(bytes.length).toBeGreaterThan(9_000_000);
		const idle = await blocking(() => new Promise((resolve) => setTimeout(resolve, 300)));
		const run = await blocking(() => copy(bytes));
		console.log(
			`${name}: ${(bytes.length / 1e6).toFixed(1)} MB, ${run.result} in ${run.ms} ms; longest block ${run.longest} ms (the timer alone: ${idle.longest} ms)`,
		);
		expect(run.result).toBeGreaterThan(0);
		expect(run.longest).toBeLessThan(Math.max(250, run.ms / 5));
	});
});
