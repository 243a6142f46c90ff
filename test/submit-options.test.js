'use strict';
/**
 * The submitting operations' Options are checked before their document is read (issue 44's
 * review): a wrong Wait Timeout fails the item whether or not the node waits, and before a URL is
 * fetched or a stored file read — the read would cost time and kept bytes for an item refused.
 */
const h = require('./helpers');
const { startFileServer } = require('./support/file-server');

const emu = h.useEmulator();

/** The requests the service got that could create something. */
const posts = () =>
	Object.entries(emu.stats().byRoute)
		.filter(([route]) => route.startsWith('POST '))
		.reduce((sum, [, count]) => sum + count, 0);
let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => {
	await files?.close();
});

const SUBMITTING = {
	submit: (o) => h.submit(o),
	submitV2: (o) => h.submit({ operation: 'submitV2', format: 'markdown', ...o }),
	create: (o) => h.job('create', { jobFields: {}, ...o }),
};

describe.each(Object.keys(SUBMITTING))('%s', (operation) => {
	test('a Wait Timeout of 0 fails the item, Wait for Completion off too; nothing sent', async () => {
		const { output } = await h.run(
			emu,
			SUBMITTING[operation]({ waitForCompletion: false, options: { waitTimeout: 0 } }),
			[h.pdfItem()],
			{ continueOnFail: true },
		);
		expect(output[0].json.error).toMatch(/Wait Timeout/i);
		expect(posts()).toBe(0);
	});

	test('a wrong Wait Timeout fails the item before its URL is fetched', async () => {
		files.put('/doc.pdf', h.documents.makePdf(['x']), { 'content-type': 'application/pdf' });
		const { output } = await h.run(
			emu,
			SUBMITTING[operation]({
				documentSource: 'url',
				documentUrl: files.url('/doc.pdf'),
				options: { waitTimeout: 0 },
			}),
			[{ json: {} }],
			{ continueOnFail: true },
		);
		expect(output[0].json.error).toMatch(/Wait Timeout/i);
		expect(files.requests.filter((r) => r.url === '/doc.pdf')).toHaveLength(0);
	});
});
