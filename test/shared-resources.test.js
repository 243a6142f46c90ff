'use strict';
/**
 * Issue 42 (review 2026-12-02, finding 1) in n8n's engine: a scan whose pages share one
 * /Resources dictionary naming every page's image (the layout jsPDF writes; or /Resources
 * inherited from the page tree) sends with each page only its own image. Pages: 1 sends 450 kB,
 * not the 10.8 MB of every image; Split Large Documents cuts it into parts that each fit, and
 * Count Pages' `partsNeeded` is the number of requests then made, on the task API and on /v1.
 */
const crypto = require('node:crypto');
const h = require('./helpers');
const { classic } = require('./fixtures/pages/crafted');

const emu = h.useEmulator({ perTest: true });

const L = (text) => Buffer.from(text, 'latin1');
const stream = (data, dict = '') =>
	Buffer.concat([L(`<< /Length ${data.length} ${dict}>>\nstream\n`), data, L('\nendstream')]);

/**
 * `n` pages, one image of `bytes` each (DCT, random bytes); `layout`: 'own' (a /Resources per
 * page), 'shared' (one /Resources object every page names) or 'inherited' (the tree node's).
 */
function scan(n, bytes, layout) {
	const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', ''];
	const kids = [];
	const names = [];
	for (let i = 1; i <= n; i++) {
		const page = objects.length + 1;
		kids.push(`${page} 0 R`);
		names.push(`/Im${i} ${page + 1} 0 R`);
		const resources =
			layout === 'own'
				? `/Resources << /XObject << /Im${i} ${page + 1} 0 R >> >>`
				: layout === 'shared'
					? '/Resources 3 0 R'
					: '';
		objects.push(
			`<< /Type /Page /Parent 2 0 R ${resources} /Contents ${page + 2} 0 R >>`,
			stream(
				crypto.randomBytes(bytes),
				'/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode ',
			),
			stream(L(`q 200 0 0 200 0 0 cm /Im${i} Do Q`)),
		);
	}
	const inherited =
		layout === 'inherited' ? `/Resources << /XObject << ${names.join(' ')} >> >>` : '';
	objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${n} /MediaBox [0 0 200 200] ${inherited} >>`;
	objects[2] = `<< /XObject << ${names.join(' ')} >> >>`;
	return classic(objects.map((body) => (Buffer.isBuffer(body) ? body.toString('latin1') : body)));
}

describe.each(['own', 'shared', 'inherited'])(
	'a 24-page scan of 450 kB a page, /Resources %s',
	(layout) => {
		const pdf = scan(24, 450_000, layout);

		test('Count Pages: 2 parts on /v1 and on the task API (Base64: 14.4 MB); Split Large Documents makes as many requests', async () => {
			const count = await h.run(emu, h.doc('countPages'), [h.binaryItem(pdf, 'scan.pdf')]);
			expect(count.output[0].json).toMatchObject({
				pages: 24,
				partsNeeded: { v1Api: 2, taskApi: 2 },
			});
			const v1 = await h.run(emu, h.doc('recognize', { options: { splitLargeDocuments: true } }), [
				h.binaryItem(pdf, 'scan.pdf'),
			]);
			expect(v1.error).toBeUndefined();
			expect(h.hits(emu, 'POST /v1/ocr')).toBe(2);
			const task = await h.run(emu, h.submit({ options: { splitLargeDocuments: true } }), [
				h.binaryItem(pdf, 'scan.pdf'),
			]);
			expect(task.error).toBeUndefined();
			expect(h.hits(emu, 'POST /api/ocr')).toBe(2);
			expect(h.netCharged(emu)).toBe(48);
		});

		test('Pages: 1 sends page 1 alone (its image), billed 1 page', async () => {
			const { output, error } = await h.run(
				emu,
				h.submit({ options: { pages: '1', splitLargeDocuments: true } }),
				[h.binaryItem(pdf, 'scan.pdf')],
			);
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ pagesSent: '1', pagesCounted: 24 });
			expect(h.hits(emu, 'POST /api/ocr')).toBe(1);
			expect(h.netCharged(emu)).toBe(1);
			// The document sent held one image: about 450 kB, not the 10.8 MB of all of them.
			const size = emu.getTask(output[0].json.taskId).size;
			expect(size).toBeGreaterThan(450_000);
			expect(size).toBeLessThan(460_000);
		});
	},
);
