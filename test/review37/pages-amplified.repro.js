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
