'use strict';
/**
 * Review 37, the format room's writers (dist/ after `npm run build`): what a selection holds.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { selectPages, countPages } = require('../../dist/nodes/DocumentOcr/formats');
const emulator = require('../../emulator/documents');
const build = require('./build');

const joined = (written) => Buffer.concat(written.chunks, written.length);

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

const pdfinfo = (() => {
	try {
		execFileSync('pdfinfo', ['-v'], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
})();

(pdfinfo ? test : test.skip)(
	"a page whose /MediaBox is null inherits its tree node's (ISO 32000 7.3.7: null is absent), and so does its selection",
	async () => {
		const doc = build.pdf({
			1: '<< /Type /Catalog /Pages 2 0 R >>',
			2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 300] /Resources << /Font << /F1 7 0 R >> >> >>',
			3: '<< /Type /Page /Parent 2 0 R /MediaBox null /Resources 8 0 R /Contents 5 0 R >>',
			4: '<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>',
			5: build.content('page one'),
			6: build.content('page two'),
			7: build.FONT,
			9: '<< >>',
		});
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'review37-'));
		try {
			const size = (bytes, name) => {
				const file = path.join(dir, name);
				fs.writeFileSync(file, bytes);
				const info = execFileSync('pdfinfo', ['-f', '1', '-l', '1', file]).toString();
				return /Page +1 size: +([\d.]+ x [\d.]+)/.exec(info)[1];
			};
			expect(size(doc, 'whole.pdf')).toBe('200 x 300');
			// Fails: the selection's page is written with "/MediaBox null /Resources null" and no
			// inherited value, so readers take it as US Letter (612 x 792), without its fonts.
			expect(size(joined(await selectPages(doc, 'pdf', [1])), 'page1.pdf')).toBe('200 x 300');
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	},
);
