'use strict';
/**
 * How long the page counter holds the event loop (issue 35): crafted files of up to 10 MB
 * (bench/page-files.js, craftedFiles), each counted while a timer ticks every millisecond, after
 * a full collection (the garbage of making the file is not collected during the count); the
 * longest gap between two ticks is the longest block, in wall time and in CPU time (beside it,
 * the same timer's longest gap in a second with nothing to do: what the machine alone adds).
 * Then the 4.5 MB PDF whose cross-reference lists 160,000 one-entry subsections, counted by the
 * counter of an earlier commit (built from git into a temporary folder; BENCH_BEFORE, default
 * 46611e3) and by this build (dist/, `npm run build` first), one after the other in this run.
 * `BENCH_BEFORE=0` skips the earlier build (it takes a minute on that file).
 */
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');
const { craftedFiles, quadraticXref } = require('./page-files');
const { counterAt, counterFile, PAUSE } = require('./page-counters');

// A full collection before each count: the garbage of making a file is not collected during it.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');

/**
 * Runs `fn` while a 1 ms timer ticks: its result, its time, the longest gap between two ticks
 * (wall time) and the most CPU time the process used between two ticks: on a machine shared with
 * other work the wall time also counts the moments the system ran something else, the CPU time
 * only what this process did (zlib's threads included).
 */
async function blocking(fn) {
	let last = performance.now();
	let lastCpu = process.cpuUsage();
	let longest = 0;
	let longestCpu = 0;
	let ticking = true;
	const tick = () => {
		const now = performance.now();
		const cpu = process.cpuUsage();
		longest = Math.max(longest, now - last);
		longestCpu = Math.max(
			longestCpu,
			(cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000,
		);
		last = now;
		lastCpu = cpu;
		if (ticking) setTimeout(tick, 1);
	};
	setTimeout(tick, 1);
	const started = performance.now();
	const result = await fn();
	const ms = performance.now() - started;
	// One more tick, so a block that ended with the count is seen.
	await new Promise((resolve) => setTimeout(resolve, 5));
	ticking = false;
	return {
		result,
		ms: Math.round(ms),
		longestBlockMs: Math.round(longest),
		longestBlockCpuMs: Math.round(longestCpu),
	};
}

async function main() {
	const { countPages } = require(counterFile(path.join(__dirname, '../dist')));
	// What the machine alone adds: the same timer while nothing runs, for a second.
	const idle = await blocking(() => new Promise((resolve) => setTimeout(resolve, 1000)));
	const rows = [];
	for (const { name, kind, make } of craftedFiles()) {
		const bytes = make();
		collect();
		const run = await blocking(() => countPages(bytes, kind, undefined, PAUSE));
		rows.push({
			file: name,
			MB: +(bytes.length / 1e6).toFixed(2),
			pages: run.result.pages ?? `null (${run.result.reason.slice(0, 60)})`,
			ms: run.ms,
			longestBlockMs: run.longestBlockMs,
			longestBlockCpuMs: run.longestBlockCpuMs,
		});
	}
	const quadratic = quadraticXref(160_000);
	collect();
	const after = await blocking(() => countPages(quadratic, 'pdf', undefined, PAUSE));
	let before;
	const commit = process.env.BENCH_BEFORE ?? '46611e3';
	if (commit !== '0') {
		const old = counterAt(commit);
		collect();
		try {
			before = {
				commit,
				...(await blocking(() => old.countPages(quadratic, 'pdf', undefined, PAUSE))),
			};
		} finally {
			old.remove();
		}
	}
	return {
		rows,
		idleBlockMs: idle.longestBlockMs,
		longestBlockMs: Math.max(...rows.map((r) => r.longestBlockMs)),
		longestBlockCpuMs: Math.max(...rows.map((r) => r.longestBlockCpuMs)),
		quadratic: { MB: +(quadratic.length / 1e6).toFixed(2), before, after },
	};
}

module.exports = { main };
if (require.main === module) {
	main().then(({ rows, idleBlockMs, longestBlockMs, longestBlockCpuMs, quadratic }) => {
		console.table(rows);
		console.log(
			`longest block over the crafted files: ${longestBlockMs} ms of wall time, ${longestBlockCpuMs} ms of CPU (the timer alone, idle: ${idleBlockMs} ms)`,
		);
		const show = (run) =>
			run
				? `${run.ms} ms, pages ${run.result.pages ?? 'null'}, longest block ${run.longestBlockMs} ms (${run.longestBlockCpuMs} ms of CPU)`
				: 'skipped';
		console.log(
			`${quadratic.MB} MB, 160,000 one-entry subsections: before (${quadratic.before?.commit ?? '—'}) ${show(quadratic.before)}; after ${show(quadratic.after)}`,
		);
	});
}
