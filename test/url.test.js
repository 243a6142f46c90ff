'use strict';
/**
 * Document Source: URL, in n8n's engine: the file is fetched through n8n's HTTP helper, checked
 * like any other input, and only then sent; a link that goes wrong fails its item with a clear
 * message, and nothing is sent to the service or charged.
 */
const h = require('./helpers');
const { startFileServer } = require('./support/file-server');

const emu = h.useEmulator();
let files;
beforeAll(async () => {
	files = await startFileServer();
	files.put('/scans/invoice%200042.pdf', h.documents.makePdf(['Fetched by URL']), {
		'content-type': 'application/pdf',
	});
	files.put('/download', h.documents.makePdf(['Named by the server']), {
		'content-type': 'application/octet-stream',
		'content-disposition': 'attachment; filename="receipt-7.pdf"',
	});
});
afterAll(async () => await files.close());

const byUrl = (url, overrides = {}) =>
	h.submit({ documentSource: 'url', documentUrl: url, ...overrides });

test('Submit by URL: the task with its text, the file name from the URL, one page billed', async () => {
	const before = h.netCharged(emu);
	const { output, error } = await h.run(emu, byUrl(files.url('/scans/invoice%200042.pdf')));
	expect(error).toBeUndefined();
	expect(output[0].json.status).toBe('done');
	expect(output[0].json.resultText).toContain('Fetched by URL');
	expect(emu.getTask(output[0].json.taskId).filename).toBe('invoice 0042.pdf');
	expect(h.netCharged(emu) - before).toBe(1);
});

test("Convert to Markdown by URL: the file name from the server's Content-Disposition", async () => {
	const params = h.doc('markdown', { documentSource: 'url', documentUrl: files.url('/download') });
	const { output, error } = await h.run(emu, params);
	expect(error).toBeUndefined();
	expect(output[0].json.fileName).toBe('receipt-7.pdf');
	expect(output[0].json.markdown).toContain('Named by the server');
});

describe('a link that goes wrong fails its item before anything is sent or charged', () => {
	test.each([
		['a 404', '/missing.pdf', /answered HTTP 404/],
		[
			'a web page instead of the file',
			'/page.html',
			/is a web page \(text\/html\), not a PDF or image/,
		],
		['a file over the limit, no Content-Length', '/huge', /is over the service's 10\.00 MB limit/],
		[
			'a file over the limit, by its Content-Length',
			'/huge-declared',
			/is 30\.00 MB, over the service's 10\.00 MB limit/,
		],
		['a redirect loop', '/loop', /redirected more than 5 times/],
	])('%s', async (_name, path, message) => {
		const posts = h.hits(emu, 'POST /api/ocr');
		const before = h.netCharged(emu);
		const sentBefore = files.stats.bytesSent;
		const { error } = await h.run(emu, byUrl(files.url(path)));
		expect(error?.message).toMatch(message);
		expect(error.description).toMatch(/Nothing was sent to the OCR service or charged/);
		expect(error.context.itemIndex).toBe(0);
		expect(h.hits(emu, 'POST /api/ocr')).toBe(posts);
		expect(h.netCharged(emu)).toBe(before);
		// Reading stops at the limit: far less than the 30 MB the server would send.
		expect(files.stats.bytesSent - sentBefore).toBeLessThan(20_000_000);
	});

	test('not an http(s) address; the URL in a message never shows its query (it may hold a token)', async () => {
		const { error } = await h.run(emu, byUrl('ftp://files.example.com/a.pdf'));
		expect(error.message).toMatch(/not an http\(s\) address/);
		const missing = await h.run(emu, byUrl(`${files.url('/gone.pdf')}?token=s3cr3t-signature`));
		expect(missing.error.message).toMatch(/gone\.pdf answered HTTP 404/);
		// (n8n itself keeps the node's parameters on the error: what the user typed.)
		expect(`${missing.error.message} ${missing.error.description}`).not.toContain('s3cr3t');
	});

	test('Continue on Fail: the bad link is an error item, the good one is processed', async () => {
		const parameters = byUrl('={{ $json.url }}');
		const items = [
			{ json: { url: files.url('/missing.pdf') } },
			{ json: { url: files.url('/scans/invoice%200042.pdf') } },
		];
		const { output, error } = await h.run(emu, parameters, items, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output[0].json.error).toMatch(/answered HTTP 404/);
		expect(output[1].json.status).toBe('done');
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});

test('Skip Already Submitted Documents: the same file by URL in a second production run is not billed again', async () => {
	const staticData = {};
	const params = byUrl(files.url('/scans/invoice%200042.pdf'), {
		options: { skipSubmitted: true },
	});
	const first = await h.run(emu, params, undefined, { staticData, mode: 'cli' });
	expect(first.error).toBeUndefined();
	const before = h.netCharged(emu);
	const second = await h.run(emu, params, undefined, { staticData, mode: 'cli' });
	expect(second.error).toBeUndefined();
	expect(second.output[0].json).toMatchObject({
		taskId: first.output[0].json.taskId,
		previouslySubmitted: true,
	});
	expect(h.netCharged(emu)).toBe(before);
});
