'use strict';
/**
 * A slow network path from the node to a server (the OCR service behind a modest uplink): a TCP
 * proxy that forwards what the client sends at `bytesPerSecond`, and the server's answers at full
 * speed.
 *
 *   const uplink = await startSlowUplink(emu.url, 300_000);
 *   uplink.url -> http://127.0.0.1:<port>   (the credential's Base URL / API URL)
 *   uplink.stats.bytesUp                    bytes forwarded to the server so far
 *
 * The client's bytes wait on the client's side, as behind a real slow link: the proxy reads its
 * socket only as fast as the rate allows (the socket is paused between reads), so what the node
 * sends backs up into the kernel's buffers and then the node's own stream (backpressure), not
 * into this process's memory. Loopback's buffers still take a few MB before the node feels the
 * backpressure, so a test needs a file larger than that to see it.
 */
const net = require('node:net');

async function startSlowUplink(targetUrl, bytesPerSecond) {
	const target = new URL(targetUrl);
	const sockets = new Set();
	const timers = new Set();
	const stats = { connections: 0, bytesUp: 0 };
	const track = (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
	};
	const server = net.createServer((client) => {
		stats.connections++;
		const upstream = net.connect(Number(target.port), target.hostname);
		track(client);
		track(upstream);
		// Towards the server: one read at a time, then a pause as long as the link needs for it.
		client.on('data', (chunk) => {
			client.pause();
			stats.bytesUp += chunk.length;
			upstream.write(chunk);
			const timer = setTimeout(
				() => {
					timers.delete(timer);
					if (!client.destroyed) client.resume();
				},
				(chunk.length / bytesPerSecond) * 1000,
			);
			timers.add(timer);
		});
		client.on('end', () => upstream.end());
		upstream.pipe(client);
		client.on('close', () => upstream.destroy());
		upstream.on('close', () => client.destroy());
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		stats,
		close: async () => {
			for (const timer of timers) clearTimeout(timer);
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

module.exports = { startSlowUplink };
