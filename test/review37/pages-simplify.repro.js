'use strict';
/**
 * Review 37, outputs: Simplify keeps the first ten of SIMPLE_TASK_FIELDS (shared/records.ts);
 * pagesSent, new in the list before the bill's fields, pushes Submit (V2)'s `creditsUsed` (what
 * the task cost, which records.ts says a simplified task keeps) out of a simplified item as soon as
 * the count carries an assumption and a note: a selection of a multi-page TIFF.
 */
const h = require('../helpers');
const { pagedTiff } = require('../fixtures/pages/crafted');

const emu = h.useEmulator({ perTest: true });

test('Submit (V2), Simplify, "Pages: 1-2" of a 3-page TIFF: the item keeps pagesSent and creditsUsed', async () => {
	const tiff = pagedTiff(['first page', 'second page', 'third page']);
	const params = h.submit({ operation: 'submitV2', format: 'markdown', options: { pages: '1-2' } });
	const whole = await h.run(
		emu,
		{ ...params, simplify: false },
		[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
		{ typeVersion: 2 },
	);
	expect(whole.output[0].json).toMatchObject({ pagesSent: '1-2', creditsUsed: 1 });
	const simple = await h.run(
		emu,
		{ ...params, simplify: true },
		[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
		{ typeVersion: 2 },
	);
	expect(simple.output[0].json.pagesSent).toBe('1-2');
	// Fails: taskId, status, resultText, metadata, pagesCounted, pagesSent, pagesBilled,
	// pageCountNote, pageCountAssumption, pages are the ten kept; creditsUsed is dropped.
	expect(simple.output[0].json.creditsUsed).toBe(1);
});
