'use strict';
/**
 * A web server that hands out documents by URL, for the "URL" document source: files at paths
 * the test chooses, and the ways a link goes wrong — a 404, a web page instead of the file, a file
 * over the limit (with or without Content-Length), a redirect loop. It counts the bytes it sent,
 * so a test can see that reading stopped at the limit. Not part of the emulator: the OCR service
 * serves no files.
 *
 *   const files = await startFileServer();
 *   files.put('/scan.pdf', pdfBytes, { 'content-type': 'application/pdf' });
 *   files.url('/scan.pdf') -> http://127.0.0.1:<port>/scan.pdf
 */
const http = require('node:http');

/** A page big enough to pass any limit: chunks of `chunk` bytes, `total` in all. */
function* chunks(total, chunk = 64 * 1024) {
	for (let sent = 0; sent < total; sent += chunk)
		yield Buffer.alloc(Math.min(chunk, total - sent), 0x25);
}

async function startFileServer() {
	const files = new Map();
	const stats = { requests: 0, bytesSent: 0 };
	const server = http.createServer((req, res) => {
		stats.requests++;
		const path = new URL(req.url, 'http://x').pathname;
		if (path === '/loop') {
			res.writeHead(302, { location: '/loop' });
			return res.end();
		}
		if (path === '/page.html') {
			const page = Buffer.from('<!doctype html><html><body><h1>Invoice 0042</h1></body></html>');
			stats.bytesSent += page.length;
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
			return res.end(page);
		}
		if (path === '/huge' || path === '/huge-declared') {
			const total = 30_000_000;
			res.writeHead(200, {
				'content-type': 'application/pdf',
				...(path === '/huge-declared' ? { 'content-length': String(total) } : {}),
			});
			const source = chunks(total);
			const pump = () => {
				for (let next = source.next(); !next.done; next = source.next()) {
					stats.bytesSent += next.value.length;
					if (!res.write(next.value)) return res.once('drain', pump);
				}
				res.end();
			};
			res.on('close', () => source.return());
			return pump();
		}
		const file = files.get(path);
		if (!file) {
			res.writeHead(404, { 'content-type': 'text/plain' });
			return res.end('not found');
		}
		stats.bytesSent += file.body.length;
		res.writeHead(200, { 'content-length': String(file.body.length), ...file.headers });
		res.end(file.body);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${server.address().port}`;
	return {
		stats,
		url: (path) => `${base}${path}`,
		put(path, body, headers = {}) {
			files.set(path, { body, headers });
		},
		async close() {
			server.closeAllConnections?.();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

module.exports = { startFileServer };
