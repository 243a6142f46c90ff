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

/**
 * GET with node:http: the status, headers, the bytes read and how the body ended — 'still open'
 * when it had not ended after `readMs`, or once `enough(bytes read)` said so.
 */
function get(url, { readMs = 1_000, enough = () => false } = {}) {
	return new Promise((resolve) => {
		const started = Date.now();
		const req = http.get(url, (res) => {
			const chunks = [];
			let bytes = 0;
			const done = (how) => {
				clearTimeout(timer);
				resolve({
					status: res.statusCode,
					headers: res.headers,
					body: Buffer.concat(chunks),
					how,
					headersAfterMs: headersAt - started,
					readForMs: Date.now() - headersAt,
				});
			};
			const headersAt = Date.now();
			const timer = setTimeout(() => {
				req.destroy();
				done('still open');
			}, readMs);
			res.on('data', (c) => {
				chunks.push(c);
				bytes += c.length;
				if (enough(bytes)) {
					req.destroy();
					done('still open');
				}
			});
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
	// Read until 5 bytes came (a drip of 20 ms takes at least 80 ms for them), or 30 s.
	const drip = await get(files.hostileUrl('drip', '/a.pdf'), {
		readMs: 30_000,
		enough: (bytes) => bytes >= 5,
	});
	expect(drip).toMatchObject({ status: 200, how: 'still open' });
	expect(drip.headers['content-length']).toBeUndefined();
	expect(drip.body.length).toBeGreaterThanOrEqual(5);
	// A byte at a time: no more bytes than drips in the time read (not the file at once).
	expect(drip.body.length).toBeLessThanOrEqual(Math.floor(drip.readForMs / 20) + 2);
	expect(drip.body.length).toBeLessThan(pdf.length);
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
	// The reads would stay open for 30 s: only the file server can end them sooner.
	const READ_MS = 30_000;
	// Each request is under way once the file server counted it.
	const arrived = async (n) => {
		while (files.stats.requests < n) await new Promise((resolve) => setTimeout(resolve, 10));
	};
	const open = get(files.hostileUrl('drip', '/a.pdf'), { readMs: READ_MS });
	await arrived(1);
	files.dropConnections();
	const result = await open;
	expect(result.how).not.toBe('still open');
	const stalled = get(files.hostileUrl('stall', '/a.pdf'), { readMs: READ_MS });
	await arrived(2);
	const started = Date.now();
	await files.close();
	expect((await stalled).how).not.toBe('still open');
	expect(Date.now() - started).toBeLessThan(READ_MS);
	files = await startFileServer();
	expect(files.requests).toEqual([]);
});
