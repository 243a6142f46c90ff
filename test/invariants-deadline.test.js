'use strict';
/**
 * Issue 29, the deadline of a URL document: a file server that sends its headers and then one
 * byte every 200 ms forever (drip), or nothing at all (stall). The node's fetch deadline (60 s,
 * `URL_FETCH` in nodes/DocumentOcr/documents/url.ts) is shortened here to 2 s — still ten drips
 * long, so only a deadline for the whole file ends a drip. One run per seed: item 0 drips and
 * item 1 stalls at once, the others are plain files, on one operation per seed (by default each
 * operation that takes a document once: those that bill, test/support/sending.js, and Count
 * Pages; INVARIANT_DEADLINE_SEEDS for more; the runs one after the other, since the engine's
 * credentials are shared by the runs of a process). Every invariant of `invariants-ops.js` is
 * checked; a run still going 10 s past the deadline is ended by dropping the file server's
 * connections, counted late, and its message says what each item got.
 */
const { FAMILIES, INVARIANTS, TITLES, opsRun, violationsOf } = require('./invariants-ops');
const { SENDING } = require('./support/sending');

const FETCH_DEADLINE_MS = 2_000;
require('../dist/nodes/DocumentOcr/documents/url').URL_FETCH.timeoutMs = FETCH_DEADLINE_MS;

const OPERATIONS = [...Object.keys(SENDING), 'countPages'];
const SEEDS = Number(process.env.INVARIANT_DEADLINE_SEEDS || OPERATIONS.length);
const MODES = ['drip', 'stall'];

describe.each(
	Array.from({ length: SEEDS }, (_, i) => {
		const family = FAMILIES.find(
			(f) => f.source === 'url' && f.operation === OPERATIONS[i % OPERATIONS.length],
		);
		return [i + 1, family.label, family];
	}),
)('seed %i: %s, item 0 drips and item 1 stalls', (seed, _label, family) => {
	let result;
	beforeAll(async () => {
		result = await opsRun(family, seed, {
			urlModes: (i) => MODES[i] ?? 'plain',
			fetchDeadlineMs: FETCH_DEADLINE_MS,
			allowanceMs: 10_000,
			fileServer: { dripMs: 200 },
		});
	}, 300_000);

	test.each(INVARIANTS.map((name) => [TITLES[name], name]))('%s', (_title, invariant) => {
		const runs = result.runs.map(
			(r) => `${(r.ms / 1000).toFixed(1)} s, deadline ${r.budgetMs / 1000} s`,
		);
		expect({ runs, violations: violationsOf([result], invariant) }).toEqual({
			runs,
			violations: [],
		});
	});
});
