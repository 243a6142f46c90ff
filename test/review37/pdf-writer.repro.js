'use strict';
/**
 * Review 37, the format room's writers (dist/ after `npm run build`): what a selection holds.
 */
const { selectPages, countPages } = require('../../dist/nodes/DocumentOcr/formats');
const build = require('./build');

test.each([
	[
		'tiff',
		'160 kB, overlapping strips: 3.2 GB',
		() => build.overlappingStripsTiff({ strips: 20_000 }),
	],
])(
	'a %s selection is never much larger than the file it is made from (%s)',
	async (kind, _label, make) => {
		const bytes = make();
		const pages = kind === 'pdf' && bytes.length < 300_000 ? [1] : kind === 'tiff' ? [1] : null;
		const total = (await countPages(bytes, kind)).pages;
		const selected = pages ?? Array.from({ length: total - 1 }, (_, i) => i + 2);
		let written;
		try {
			written = await selectPages(bytes, kind, selected);
		} catch {
			return; // a refusal is a fix
		}
		// Fails: the selection is thousands of times the file (the node then hashes it whole, and a
		// PDF's inherited values are copied into memory for every page).
		expect(written.length).toBeLessThanOrEqual(2 * bytes.length);
	},
);

test('a TIFF selection past 4 GB is refused in words about the file, not a RangeError of Node', async () => {
	const tiff = build.overlappingStripsTiff({ strips: 40_000 });
	// Fails: "The value of "value" is out of range. It must be >= 0 and <= 4294967295. Received
	// 4_295_212_814" (writeUInt32), which is what the item's error then says.
	await expect(selectPages(tiff, 'tiff', [1])).rejects.toThrow(/TIFF/);
});
