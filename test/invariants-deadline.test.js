'use strict';
/**
 * Issue 29, the deadline of a URL document: a file server that sends its headers and then one
 * byte every 200 ms forever (drip), or nothing at all (stall). The node's fetch deadline is 60 s
 * (FETCH_TIMEOUT_MS in nodes/DocumentOcr/documents/url.ts, not settable from a test), so each run
 * takes at least a minute: the two run side by side, once, on one operation per seed
 * (INVARIANT_DEADLINE_SEEDS, 1 by default: Convert to Markdown). Item 0 drips or stalls, the
 * others are plain files. Every invariant of `invariants-ops.js` is checked on both runs; a run
 * still going 10 s past the deadline is ended by dropping the file server's connections, and
 * counted as late.
 */
const { FAMILIES, INVARIANTS, TITLES, opsRun, violationsOf } = require('./invariants-ops');

const SEEDS = Number(process.env.INVARIANT_DEADLINE_SEEDS || 1);
const OPERATIONS = ['markdown', 'recognize', 'extract', 'submit', 'jobCreate'];

jest.setTimeout(60_000);

describe.each(
	Array.from({ length: SEEDS }, (_, i) => {
		const family = FAMILIES.find(
			(f) => f.source === 'url' && f.operation === OPERATIONS[i % OPERATIONS.length],
		);
		return [i + 1, family.label, family];
	}),
)('seed %i: %s, the file drips or stalls', (seed, _label, family) => {
	const results = {};
	beforeAll(async () => {
		const [drip, stall] = await Promise.all(
			['drip', 'stall'].map((mode) =>
				opsRun(family, seed, {
					urlModes: (i) => (i === 0 ? mode : 'plain'),
					allowanceMs: 10_000,
					fileServer: { dripMs: 200 },
				}),
			),
		);
		Object.assign(results, { drip, stall });
	}, 400_000);

	describe.each(['drip', 'stall'])('%s', (mode) => {
		test.each(INVARIANTS.map((name) => [TITLES[name], name]))('%s', (_title, invariant) => {
			const result = results[mode];
			const runs = result.runs.map(
				(r) => `${(r.ms / 1000).toFixed(1)} s, deadline ${r.budgetMs / 1000} s`,
			);
			expect({ runs, violations: violationsOf([result], invariant) }).toEqual({
				runs,
				violations: [],
			});
		});
	});
});
