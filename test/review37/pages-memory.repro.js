'use strict';
/**
 * Review 37, memory: a selection kept until sent is written as views of the original's bytes
 * (pdf-write.ts: "a stream's bytes are the input's, not copied"), so keeping the selection's
 * chunks (read.ts selectionOf: kept when the *selection's* size fits the kept bytes) keeps the
 * whole original alive. URL documents past the 64 kB kept whole are let go after their count, by
 * design, and every item is checked before the first is sent: with "Pages: 1" each item holds its
 * whole file (2 MB here) until the run ends, past the execution's limit of kept bytes (32 MB),
 * while the ledger counts a 1 kB selection.
 */
const h = require('../helpers');
const { collector } = require('../support/gc');
const { startFileServer } = require('../support/file-server');

const emu = h.useEmulator();
let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => {
	await files?.close();
});

test('URL documents waiting to be sent with "Pages: 1" hold their selection, not their whole file', async () => {
	// Page 1 tiny, page 2 2 MB of text that does not compress.
	const noise = require('node:crypto').randomBytes(1_000_000).toString('hex');
	const file = h.documents.makePdf(['page one', noise]);
	expect(file.length).toBeGreaterThan(2_000_000);
	files.put('/two-mb.pdf', file, { 'content-type': 'application/pdf' });
	const gc = collector();
	const N = 40;
	gc();
	await new Promise((resolve) => setTimeout(resolve, 200));
	gc();
	const before = process.memoryUsage().arrayBuffers;
	emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'latency', ms: 1_500, times: 1 });
	let measuring;
	const timer = setInterval(() => {
		if (measuring !== undefined || h.hits(emu, 'POST /v1/markdown') === 0) return;
		measuring = (async () => {
			gc();
			await new Promise((resolve) => setTimeout(resolve, 100));
			gc();
			return process.memoryUsage().arrayBuffers - before;
		})();
	}, 5);
	const params = h.doc('markdown', {
		documentSource: 'url',
		documentUrl: `=${files.url('/two-mb.pdf')}?n={{ $itemIndex }}`,
		options: { pages: '1', concurrency: 1 },
	});
	const { output, error } = await h.run(
		emu,
		params,
		Array.from({ length: N }, () => ({ json: {} })),
	);
	clearInterval(timer);
	expect(error).toBeUndefined();
	expect(output).toHaveLength(N);
	expect(output[0].json).toMatchObject({ pagesSent: '1', pagesCounted: 2 });
	const held = await measuring;
	console.log(
		`${N} items of ${file.length} bytes, "Pages: 1": ${(held / 1e6).toFixed(1)} MB of ArrayBuffers held at the first request`,
	);
	// The selections are about 1 kB each; the kept bytes' limit is 32 MB. Fails: ~80 MB held.
	expect(held).toBeLessThan(32_000_000);
});
