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
 *
 * Hostile modes (the user's own file server misbehaving), each a path prefix before a file put
 * with `put` (the file is what the server would have sent):
 *
 *   /drip/<file>     headers, then one byte every `dripMs`, and never the end (until `dripCapMs`,
 *                    a bound so that no test leaves it running; far past any fetch deadline)
 *   /stall/<file>    headers, then nothing (until the connection is dropped or the server closed)
 *   /reset/<file>    headers with the full Content-Length, part of the file, then the connection
 *                    destroyed
 *   /slow/<file>     the headers only after `slowHeadersMs`, then the file
 *   /chunked-huge    a chunked body (no Content-Length) of `chunkedBytes`, past the 10 MB limit
 *   /loop, /loop-a   a redirect to itself; /loop-a ↔ /loop-b two paths redirecting to each other
 *   /changes/<file>  the file on its first request, then the same size with one byte changed: a
 *                    file that changes between the node's check and its send
 *
 * `hostileLink(random)` draws one of the modes with a seeded `random()`. Every timer and socket
 * is tracked: `dropConnections()` ends every open answer (a drip or a stall) at once, `close()`
 * stops the server with them. Each request's headers are kept (`requests`, the last 500), so a
 * test can see what the node sent to a server that is not the OCR service.
 */
const http = require('node:http');

/** A page big enough to pass any limit: chunks of `chunk` bytes, `total` in all. */
function* chunks(total, chunk = 64 * 1024) {
	for (let sent = 0; sent < total; sent += chunk)
		yield Buffer.alloc(Math.min(chunk, total - sent), 0x25);
}

/** The hostile modes, and the path each uses for a file put at `path`. */
const HOSTILE_MODES = {
	drip: (path) => `/drip${path}`,
	stall: (path) => `/stall${path}`,
	reset: (path) => `/reset${path}`,
	slow: (path) => `/slow${path}`,
	chunkedHuge: () => '/chunked-huge',
	loop: () => '/loop',
	loopPair: () => '/loop-a',
	changes: (path) => `/changes${path}`,
};

/** The modes that end by themselves (a drip or a stall ends only at the reader's deadline). */
const ENDING_MODES = ['reset', 'slow', 'chunkedHuge', 'loop', 'loopPair', 'changes'];

async function startFileServer({
	dripMs = 200,
	dripCapMs = 600_000,
	slowHeadersMs = 300,
	chunkedBytes = 12_000_000,
	resetAfterBytes = 1024,
} = {}) {
	const files = new Map();
	/** Requests per path of the `changes` mode. */
	const changed = new Map();
	const stats = { requests: 0, bytesSent: 0, byMode: {} };
	const requests = [];
	const timers = new Set();
	const sockets = new Set();
	let closed = false;
	const later = (fn, ms) => {
		if (closed) return undefined;
		const t = setTimeout(() => {
			timers.delete(t);
			fn();
		}, ms);
		timers.add(t);
		return t;
	};
	const cancel = (t) => {
		if (!t) return;
		clearTimeout(t);
		timers.delete(t);
	};
	const count = (mode) => (stats.byMode[mode] = (stats.byMode[mode] ?? 0) + 1);

	const server = http.createServer((req, res) => {
		stats.requests++;
		requests.push({ method: req.method, url: req.url, headers: { ...req.headers } });
		if (requests.length > 500) requests.splice(0, requests.length - 500);
		const path = new URL(req.url, 'http://x').pathname;
		if (path === '/loop') {
			count('loop');
			res.writeHead(302, { location: '/loop' });
			return res.end();
		}
		if (path === '/loop-a' || path === '/loop-b') {
			count('loopPair');
			res.writeHead(302, { location: path === '/loop-a' ? '/loop-b' : '/loop-a' });
			return res.end();
		}
		if (path === '/page.html') {
			const page = Buffer.from('<!doctype html><html><body><h1>Invoice 0042</h1></body></html>');
			stats.bytesSent += page.length;
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
			return res.end(page);
		}
		if (path === '/huge' || path === '/huge-declared' || path === '/chunked-huge') {
			const total = path === '/chunked-huge' ? chunkedBytes : 30_000_000;
			if (path === '/chunked-huge') count('chunkedHuge');
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
		const mode = /^\/(drip|stall|reset|slow|changes)(\/.*)$/.exec(path);
		const file = files.get(mode ? mode[2] : path);
		if (!file) {
			res.writeHead(404, { 'content-type': 'text/plain' });
			return res.end('not found');
		}
		if (mode?.[1] === 'changes') {
			// The file as put on the first request, then the same size with one byte changed in the
			// middle: a file that changes between the node's check and its send.
			count('changes');
			const seen = (changed.get(mode[2]) ?? 0) + 1;
			changed.set(mode[2], seen);
			const body = seen === 1 ? file.body : Buffer.from(file.body);
			if (seen > 1) body[Math.floor(body.length / 2)] ^= 0x01;
			stats.bytesSent += body.length;
			res.writeHead(200, { 'content-length': String(body.length), ...file.headers });
			return res.end(body);
		}
		const headers = { 'content-length': String(file.body.length), ...file.headers };
		if (!mode) {
			stats.bytesSent += file.body.length;
			res.writeHead(200, headers);
			return res.end(file.body);
		}
		count(mode[1]);
		switch (mode[1]) {
			case 'slow': {
				const t = later(() => {
					if (res.destroyed) return;
					stats.bytesSent += file.body.length;
					res.writeHead(200, headers);
					res.end(file.body);
				}, slowHeadersMs);
				res.on('close', () => cancel(t));
				return;
			}
			case 'reset': {
				res.writeHead(200, headers);
				const part = file.body.subarray(0, Math.min(resetAfterBytes, file.body.length - 1));
				stats.bytesSent += part.length;
				res.write(part);
				const t = later(() => req.socket.destroy(), 20);
				res.on('close', () => cancel(t));
				return;
			}
			case 'stall': {
				// No Content-Length: a reader cannot tell how much is missing.
				delete headers['content-length'];
				res.writeHead(200, headers);
				res.flushHeaders();
				const t = later(() => req.socket.destroy(), dripCapMs);
				res.on('close', () => cancel(t));
				return;
			}
			case 'drip': {
				delete headers['content-length'];
				res.writeHead(200, headers);
				const until = Date.now() + dripCapMs;
				let offset = 0;
				let t;
				const drip = () => {
					if (res.destroyed || closed) return;
					if (Date.now() >= until) return req.socket.destroy();
					// The file's bytes, then padding: a reader never sees the end.
					const byte = offset < file.body.length ? file.body.subarray(offset, offset + 1) : ' ';
					offset++;
					stats.bytesSent++;
					res.write(byte);
					t = later(drip, dripMs);
				};
				res.on('close', () => cancel(t));
				return drip();
			}
		}
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${server.address().port}`;
	const url = (path) => `${base}${path}`;
	return {
		stats,
		requests,
		url,
		put(path, body, headers = {}) {
			files.set(path, { body, headers });
		},
		/** The URL of the file at `path` served in a hostile mode (HOSTILE_MODES). */
		hostileUrl(mode, path) {
			if (!HOSTILE_MODES[mode]) throw new Error(`unknown file server mode "${mode}"`);
			return url(HOSTILE_MODES[mode](path));
		},
		/** Ends every open answer (drips and stalls) now: their readers see the connection close. */
		dropConnections() {
			for (const t of timers) clearTimeout(t);
			timers.clear();
			for (const socket of sockets) socket.destroy();
		},
		async close() {
			closed = true;
			for (const t of timers) clearTimeout(t);
			timers.clear();
			server.closeAllConnections?.();
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** A seeded draw of one hostile mode: `modes` to draw from (all that end by themselves by default). */
function hostileLink(random, modes = ENDING_MODES) {
	return modes[Math.floor(random() * modes.length)];
}

module.exports = { startFileServer, hostileLink, HOSTILE_MODES, ENDING_MODES };
