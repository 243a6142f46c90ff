'use strict';
/**
 * Review 37, money: a Pages selection must bill (as the emulator counts `/Type /Page` in the body
 * it receives) exactly the pages selected, which is what the Page Budget admits.
 */
const h = require('../helpers');
const build = require('./build');

const emu = h.useEmulator({ perTest: true });

test('a /Length that runs over the next page: page 1 of 2 bills 1 page, under a Page Budget of 1', async () => {
	const doc = build.lyingLength();
	const { output, error } = await h.run(
		emu,
		h.doc('recognize', { options: { pageBudget: 1, pages: '1' } }),
		[h.binaryItem(doc, 'two.pdf')],
	);
	expect(error).toBeUndefined();
	expect(output[0].json).toMatchObject({ pagesCounted: 2, pagesSent: '1' });
	// Fails: page 2's dictionary and content are copied inside page 1's content stream.
	expect(h.netCharged(emu)).toBe(1);
});
