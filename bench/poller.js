'use strict';
/**
 * The poller alone on a virtual clock (test/support/simulation.js, a simulated service): status
 * requests per task and how late the end of a batch is noticed, for services that finish tasks in
 * order, at random, or smallest first. Runs the built poller (dist/): `npm run build` first.
 *   node bench/poller.js
 */
const { simulation } = require('../test/support/simulation');

const { simulate, mixedPages } = simulation(require('../dist/nodes/DocumentOcr/waiting/poller.js'));

const SCENARIOS = [
	['200 × 1 page, in order', { pages: Array(200).fill(1), order: 'fifo' }],
	['200 × 1 page, random order', { pages: Array(200).fill(1), order: 'random' }],
	['200 × 1–20 pages, random order', { pages: mixedPages(200, 20, 1), order: 'random', seed: 1 }],
	['200 × 1–20 pages, smallest first', { pages: mixedPages(200, 20, 1), order: 'smallest' }],
	['200 × 1–20 pages, in order', { pages: mixedPages(200, 20, 1), order: 'fifo' }],
	[
		'1000 × 1 page, 32 workers × 100 ms, random',
		{ pages: Array(1000).fill(1), order: 'random', workers: 32, msPerPage: 100 },
	],
	['one task of 40 pages', { pages: [40], workers: 1 }],
];

async function main() {
	const rows = [];
	for (const [name, options] of SCENARIOS) {
		const r = await simulate(options);
		rows.push({ name, pollsPerTask: +r.pollsPerTask.toFixed(2), lateMs: Math.round(r.lateMs) });
	}
	return rows;
}

module.exports = { main };
if (require.main === module) {
	main().then((rows) => {
		console.log('Poller on a virtual clock (4 workers × 250 ms/page unless said):');
		for (const r of rows)
			console.log(
				`  ${r.name.padEnd(44)} ${r.pollsPerTask.toFixed(2)} requests/task, end noticed +${r.lateMs} ms`,
			);
	});
}
