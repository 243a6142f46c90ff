'use strict';
/**
 * What a test allows the machine when it checks that the node ended by a time (a deadline, a
 * cancel "at once"). On a loaded machine (other processes on the cores, a collection in this
 * one) the node's timers fire late and its work waits for a core — and so do the ticks of a
 * watch running beside it in this process. `watchLateness()` ticks every 10 ms and keeps the
 * longest a tick came late; `allowance(ms)` is `ms` (what the test allows a quiet machine) plus
 * twice that: a bound grows with the stalls the machine made while the node ran, and only with
 * them, so a node that ends seconds past its deadline on a quiet machine still fails.
 *
 *   const late = watchLateness();
 *   ... run the node ...
 *   expect(elapsed).toBeLessThan(deadlineMs + late.allowance(5_000));
 *   late.stop();
 */
function watchLateness(everyMs = 10) {
	let worst = 0;
	let due = Date.now() + everyMs;
	const timer = setInterval(() => {
		const now = Date.now();
		worst = Math.max(worst, now - due);
		due = now + everyMs;
	}, everyMs);
	timer.unref();
	return {
		/** The longest a tick came late so far, in ms. */
		worstMs: () => worst,
		/** `ms` plus twice the longest stall seen so far. */
		allowance: (ms) => ms + 2 * worst,
		stop: () => clearInterval(timer),
	};
}

module.exports = { watchLateness };
