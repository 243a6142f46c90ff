'use strict';
/**
 * Document Source: URL behind a slow uplink, in n8n's engine: the file server answers at once,
 * the upload to the OCR service is slow. When the file is sent it is fetched again and streamed
 * into the upload, read only as fast as the upload goes (backpressure); the fetch's deadline is
 * the file server's, so a slow upload is not taken for a slow file server.
 */
const h = require('./helpers');
const { startFileServer } = require('./support/file-server');
const { startSlowUplink } = require('./support/slow-uplink');

const emu = h.useEmulator();
let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => await files.close());

test('a large URL document through a slow uplink: the upload takes many times the fetch deadline and goes through, billed once', async () => {
	// 60 s in the product; shortened as url.test.js does. The upload below takes ~25 s, of which
	// the node waits well over 3 s at a time on the upload once loopback's buffers (a few MB) are
	// full: the file server has sent everything long before.
	const fetchSettings = require('../dist/nodes/DocumentOcr/documents/url').URL_FETCH;
	fetchSettings.timeoutMs = 3_000;
	const file = h.documents.makePdf(['x'.repeat(9_000_000)]); // ~9 MB, one page
	files.put('/scan.pdf', file, { 'content-type': 'application/pdf' });
	const uplink = await startSlowUplink(emu.url, 360_000);
	try {
		const posts = h.hits(emu, 'POST /v1/markdown');
		const before = h.netCharged(emu);
		const fetchesBefore = files.stats.requests;
		const started = Date.now();
		const { output, error } = await h.run(
			emu,
			h.doc('markdown', { documentSource: 'url', documentUrl: files.url('/scan.pdf') }),
			undefined,
			{ creds: { ...h.credentials(emu), baseUrl: uplink.url } },
		);
		const took = Date.now() - started;
		console.log(
			`a ${(file.length / 1e6).toFixed(1)} MB URL document through a 360 kB/s uplink: ${error?.message ?? `ok, ${output[0].json.pagesBilled} page billed`} (${(took / 1000).toFixed(1)} s; fetch deadline 3 s)`,
		);
		expect(error).toBeUndefined();
		expect(output[0].json.pagesBilled).toBe(1);
		expect(h.hits(emu, 'POST /v1/markdown') - posts).toBe(1);
		expect(h.netCharged(emu) - before).toBe(1);
		// Checked, then fetched again to be sent: the file server was asked twice.
		expect(files.stats.requests - fetchesBefore).toBe(2);
		// The upload really was slow: the whole body went through the uplink, taking far longer
		// than the fetch's deadline.
		expect(uplink.stats.bytesUp).toBeGreaterThan(file.length);
		expect(took).toBeGreaterThan(15_000);
	} finally {
		fetchSettings.timeoutMs = 60_000;
		await uplink.close();
	}
});
