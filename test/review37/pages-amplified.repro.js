'use strict';
/**
 * Review 37, hangs: a small crafted file whose selection is thousands of times its size. The
 * writers hand out chunks that are views of the input (no copy), so overlapping data cost nothing
 * to write, but the node then hashes every byte of the selection (select.ts digestOfChunks) in
 * one synchronous loop before any size check: the event loop of the whole n8n instance stops for
 * as long as it takes (a 10 MB input reaches terabytes). The item should fail at once (the
 * selection is past the 10 MB limit, or its data overlap), the event loop running.
 */
const h = require('../helpers');
const build = require('./build');

const emu = h.useEmulator({ perTest: true });

/** Runs `work`; the longest the event loop was held meanwhile, in ms. */
async function longestStall(work) {
	let last = Date.now();
	let longest = 0;
	const timer = setInterval(() => {
		const now = Date.now();
		longest = Math.max(longest, now - last);
		last = now;
	}, 10);
	try {
		const result = await work();
		return { result, longest: Math.max(longest, Date.now() - last) };
	} finally {
		clearInterval(timer);
	}
}

test('a TIFF of 160 kB whose page 1 has 20,000 strips each the whole file: "1" fails the item without stopping the event loop', async () => {
	const tiff = build.overlappingStripsTiff({ strips: 20_000 });
	expect(tiff.length).toBeLessThan(200_000);
	const { result, longest } = await longestStall(
		async () =>
			await h.run(
				emu,
				h.submit({ options: { pages: '1' } }),
				[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
				{ continueOnFail: true },
			),
	);
	// The item fails (its selection is 3.2 GB), nothing sent...
	expect(result.output[0].json.error).toBeDefined();
	expect(h.hits(emu, 'POST /api/ocr')).toBe(0);
	// ...but only after seconds of SHA-256 over 3.2 GB with the event loop held (fails here). Past
	// 4 GB of selection the item fails instead with Node's RangeError from writeUInt32 ("The value
	// of "value" is out of range"), a message that says nothing of the file.
	expect(longest).toBeLessThan(1000);
});

test('a PDF of 390 kB, 2,000 pages under one node whose direct /Resources is 200 kB: "2-" fails the item without building 400 MB', async () => {
	const pdf = build.inheritedResources(2000, 200);
	expect(pdf.length).toBeLessThan(400_000);
	const base = process.memoryUsage().arrayBuffers;
	let peak = 0;
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
	}, 5);
	let result;
	try {
		result = await h.run(
			emu,
			h.doc('recognize', { options: { pages: '2-' } }),
			[h.binaryItem(pdf, 'shared.pdf')],
			{ continueOnFail: true },
		);
	} finally {
		clearInterval(timer);
	}
	// The item fails ("the request to /v1/ocr would be 400.21 MB"), nothing sent...
	expect(result.output[0].json.error).toBeDefined();
	expect(h.hits(emu, 'POST /v1/ocr')).toBe(0);
	// ...after each page was written with its own copy of the inherited 200 kB dictionary
	// (pdf-write.ts Part.write: Buffer.concat of the page and its inherited fragments), all held
	// until the part is finished. A 10 MB file (a 2 MB dictionary, 40,000 pages) asks for 80 GB:
	// n8n's process dies out of memory. Fails here: about 400 MB at the peak.
	expect(peak).toBeLessThan(100_000_000);
});
