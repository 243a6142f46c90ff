'use strict';
/**
 * A stored binary (n8n's filesystem store, the engine's default here) of 64 kB–10 MB has its
 * chunks kept from the check phase; split for the task API (JSON: 4/3 of it past 10 MB), its parts
 * are written from one kept reading. The check phase's chunks are let go once that reading is
 * made: nothing holds them a second time, uncounted, until the item is over (issue 44's review:
 * a reader that held the kept chunks made 3 such files hold 50.7 MB while the first part went
 * out, against 25.5 MB).
 */

const h = require('./helpers');
const { scanPdf } = require('./support/sources');
const { heldWhileFirst } = require('./support/gc');

const emu = h.useEmulator({ perTest: true });

test('3 stored 8.4 MB PDFs split for Task → Submit: memory held while the first part is sent', async () => {
	const N = 3;
	const docs = Array.from({ length: N }, (_, i) =>
		scanPdf(12, 700_000, { prefix: `Doc ${i} page` }),
	);
	for (const d of docs) {
		expect(d.pdf.length).toBeGreaterThan(7_600_000);
		expect(d.pdf.length).toBeLessThan(10_000_000);
	}
	const items = docs.map((d, i) => h.binaryItem(d.pdf, `scan${i}.pdf`));
	const watch = await heldWhileFirst(emu, 'POST /api/ocr', 3_000);
	const { output, error } = await h.run(
		emu,
		h.submit({ waitForCompletion: false, options: { splitLargeDocuments: true, concurrency: 1 } }),
		items,
	);
	const held = await watch.held();
	expect(error).toBeUndefined();
	expect(output).toHaveLength(N);
	expect(output[0].json.parts).toHaveLength(2);
	// Before: each item kept one reading (8.4 MB, counted) for its parts: about 25 MB for 3.
	expect(held).toBeLessThan(40_000_000);
});
