'use strict';
/** The test file server's hostile modes (test/support/file-server.js), on their own. */
const http = require('node:http');
const { startFileServer } = require('./support/file-server');
const docs = require('../emulator/documents');

let files;
const pdf = docs.makePdf(['A file by URL']);
beforeEach(async () => {
	files = await startFileServer({ dripMs: 20, slowHeadersMs: 150, chunkedBytes: 10_500_000 });
	files.put('/a.pdf', pdf, { 'content-type': 'application/pdf' });
});
afterEach(async () => await files.close());

/** GET with node:http: the status, headers, the bytes read and how the body ended. */
function get(url, { readMs = 1_000 } = {}) {
	return new Promise((resolve) => {
		const started = Date.now();
		const req = http.get(url, (res) => {
			const chunks = [];
			const done = (how) => {
				clearTimeout(timer);
				resolve({
					status: res.statusCode,
					headers: res.headers,
					body: Buffer.concat(chunks),
					how,
					headersAfterMs: headersAt - started,
				});
			};
			const headersAt = Date.now();
			const timer = setTimeout(() => {
				req.destroy();
				done('still open');
			}, readMs);
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => done('ended'));
			res.on('aborted', () => done('reset'));
			res.on('error', () => done('reset'));
		});
		req.on('error', () => resolve({ how: 'connection error' }));
	});
}

test('plain and slow: the file, the slow one after its headers delay', async () => {
	const plain = await get(files.url('/a.pdf'));
	expect(plain).toMatchObject({ status: 200, how: 'ended' });
	expect(plain.body.equals(pdf)).toBe(true);
	const slow = await get(files.hostileUrl('slow', '/a.pdf'));
	expect(slow.headersAfterMs).toBeGreaterThanOrEqual(140);
	expect(slow.body.equals(pdf)).toBe(true);
});

test('drip: headers, then a byte at a time, never the end; stall: headers, then nothing', async () => {
	const drip = await get(files.hostileUrl('drip', '/a.pdf'), { readMs: 400 });
	expect(drip).toMatchObject({ status: 200, how: 'still open' });
	expect(drip.headers['content-length']).toBeUndefined();
	expect(drip.body.length).toBeGreaterThan(3);
	expect(drip.body.length).toBeLessThan(40);
	const stall = await get(files.hostileUrl('stall', '/a.pdf'), { readMs: 300 });
	expect(stall).toMatchObject({ status: 200, how: 'still open' });
	expect(stall.body.length).toBe(0);
});

test('reset: the full Content-Length announced, part of the file, then the connection destroyed', async () => {
	const reset = await get(files.hostileUrl('reset', '/a.pdf'));
	expect(reset.how).toBe('reset');
	expect(Number(reset.headers['content-length'])).toBe(pdf.length);
	expect(reset.body.length).toBeLessThan(pdf.length);
});

test('chunked past the limit (no Content-Length); redirect loops, one path or two', async () => {
	const huge = await get(files.hostileUrl('chunkedHuge'), { readMs: 10_000 });
	expect(huge.headers['content-length']).toBeUndefined();
	expect(huge.headers['transfer-encoding']).toBe('chunked');
	expect(huge.body.length).toBe(10_500_000);
	const loop = await get(files.hostileUrl('loopPair'));
	expect(loop.status).toBe(302);
	expect(loop.headers.location).toBe('/loop-b');
	expect((await get(files.url('/loop-b'))).headers.location).toBe('/loop-a');
});

test('dropConnections ends an open drip at once; close ends everything', async () => {
	const open = get(files.hostileUrl('drip', '/a.pdf'), { readMs: 5_000 });
	await new Promise((resolve) => setTimeout(resolve, 100));
	files.dropConnections();
	const result = await open;
	expect(result.how).not.toBe('still open');
	const stalled = get(files.hostileUrl('stall', '/a.pdf'), { readMs: 5_000 });
	await new Promise((resolve) => setTimeout(resolve, 100));
	const started = Date.now();
	await files.close();
	expect((await stalled).how).not.toBe('still open');
	expect(Date.now() - started).toBeLessThan(1_000);
	files = await startFileServer();
	expect(files.requests).toEqual([]);
});
