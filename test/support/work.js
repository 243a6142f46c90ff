'use strict';
/**
 * A work counter for the product's JavaScript, not its time: V8's precise block coverage, through
 * the inspector, counts how many times each block of code ran — loops by their iterations. The
 * sum over the product's files (`nodes/DocumentOcr/`) while a function runs is its work, the same
 * on a busy machine as on a quiet one. Native work (a regular expression, JSON.parse, indexOf) is
 * not counted: the regular expressions are checked on their own (./regexes.js, with recheck).
 */
const { Session } = require('node:inspector');

const session = new Session();

/**
 * Precise block coverage starts when this file is loaded (the inspector answers at once): a test
 * file loads it before the product's modules, so that every function of the product is compiled
 * with its block counters. A function compiled before would count only its calls until V8
 * happened to flush and compile it again — at a moment set by the garbage collector, which made
 * the counts differ from run to run.
 */
function post(method, params) {
	let answer;
	session.post(method, params, (error, result) => (answer = { error, result }));
	if (!answer) throw new Error(`the inspector did not answer ${method} at once`);
	if (answer.error) throw answer.error;
	return answer.result;
}

// V8 reuses a script it compiled before in this process (its compilation cache): a module of the
// product that an earlier test file of this jest worker loaded would come back compiled without
// the counters. Off from here on, the product's modules loaded after this file are compiled anew.
require('node:v8').setFlagsFromString('--no-compilation-cache');
session.connect();
post('Profiler.enable');
post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

/** The blocks of the product's code that `work` ran (awaited when it returns a promise). */
async function workOf(work) {
	// Taking the coverage resets the counts: what was counted before is dropped.
	post('Profiler.takePreciseCoverage');
	await work();
	const { result } = post('Profiler.takePreciseCoverage');
	let sum = 0;
	for (const script of result) {
		if (!script.url.includes('/nodes/DocumentOcr/')) continue;
		for (const fn of script.functions) for (const range of fn.ranges) sum += range.count;
	}
	return sum;
}

/**
 * The work of `run` on inputs made by `make` at each size, and each doubling's ratio: a reader
 * linear in its input grows at most about twice per doubling.
 */
async function workPerDoubling(make, run, sizes) {
	const counts = [];
	for (const size of sizes) {
		const input = make(size);
		counts.push(await workOf(() => run(input)));
	}
	// Each size runs the product's code: a count of 0 is the counter failing (code compiled without
	// its block counters), which would make any bound on the growth pass.
	if (counts.some((count) => count === 0))
		throw new Error(`the work counter counted nothing at a size: ${counts.join(', ')}`);
	const ratios = counts.slice(1).map((count, i) => count / Math.max(1, counts[i]));
	return { counts, ratios };
}

module.exports = { workOf, workPerDoubling };
