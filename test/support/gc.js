'use strict';
/**
 * For tests that look at what is still held: V8's full collection, exposed for this process (jest
 * runs without --expose-gc), and a turn of the event loop (so that nothing of a finished request
 * is left on the stack). Plain JavaScript, so that the fast tier's TypeScript, linted by n8n's
 * rules for nodes, can use Node's modules through it.
 */
const v8 = require('node:v8');
const vm = require('node:vm');

function collector() {
	v8.setFlagsFromString('--expose-gc');
	return vm.runInNewContext('gc');
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * What a run holds while its first request on `route` is answered (held `latencyMs` by the
 * emulator): the growth of the process's ArrayBuffers over a baseline taken now, both after a
 * full collection. Start it before the run; `held` settles once that request has come in.
 */
async function heldWhileFirst(emu, route, latencyMs) {
	const gc = collector();
	gc();
	await new Promise((resolve) => setTimeout(resolve, 200));
	gc();
	const before = process.memoryUsage().arrayBuffers;
	const [method, path] = route.split(' ');
	emu.fault({ method, path, kind: 'latency', ms: latencyMs, times: 1 });
	let held;
	const timer = setInterval(() => {
		if (held !== undefined || (emu.stats().byRoute[route] ?? 0) === 0) return;
		held = (async () => {
			gc();
			await new Promise((resolve) => setTimeout(resolve, 100));
			gc();
			return process.memoryUsage().arrayBuffers - before;
		})();
	}, 5);
	return {
		/** The growth measured, once the run is over (stops the watch). */
		async held() {
			clearInterval(timer);
			return await held;
		},
	};
}

module.exports = { collector, nextTurn, heldWhileFirst };
