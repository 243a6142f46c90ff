'use strict';
/**
 * How long the node's status reads take, as its waits see them: each read a wait makes (the
 * `fetch` a waiter hands the Poller of dist/nodes/DocumentOcr/waiting/poller.js) is timed from
 * the call to its answer — a request slot's queue, retries after a 429 and the machine's load
 * included. The Poller promises to ask a waiting record one last time early enough for its
 * answer to arrive before the deadline: `lead()`, 1.5 times the answer time it measured plus its
 * shortest pause. Its measure never exceeds the slowest read, so `leadMs()` below (from the
 * slowest read timed here) is the most the node may ask before its deadline; a test that holds
 * the node to its deadlines allows that much, and no more, whatever the machine's speed.
 *
 *   const reads = timeStatusReads();
 *   ... run the node ...
 *   reads.stop();
 *   reads.slowestMs(), reads.leadMs()
 */
const path = require('node:path');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../../dist');

function timeStatusReads() {
	const { Poller, DEFAULT_POLLER } = require(
		path.join(DIST, 'nodes/DocumentOcr/waiting/poller.js'),
	);
	const wait = Poller.prototype.wait;
	let slowest = 0;
	Poller.prototype.wait = function timedWait(fetch, options) {
		const timed = async (deadline) => {
			const started = Date.now();
			try {
				return await fetch(deadline);
			} finally {
				slowest = Math.max(slowest, Date.now() - started);
			}
		};
		return wait.call(this, timed, options);
	};
	return {
		/** The slowest status read so far, in ms. */
		slowestMs: () => slowest,
		/** The longest the node may ask a record before its deadline (its `lead`), in ms. */
		leadMs: () => 1.5 * slowest + DEFAULT_POLLER.minIntervalMs,
		stop: () => {
			Poller.prototype.wait = wait;
		},
	};
}

module.exports = { timeStatusReads };
