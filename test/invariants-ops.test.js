'use strict';
/**
 * Issue 29: the action node's promises over every operation and every document source, in n8n's
 * engine against the hostile emulator (slow, rate-limited, answers lost after acting, and per seed
 * one in focus of: answers echoing the request, reads redirected to another origin, wrong-shaped
 * 2xx answers) and, for URL documents, a file server that resets, answers slowly, sends a chunked
 * body past the limit or redirects in loops. The runner and the invariants are
 * `invariants-ops.js`; drips and stalls, which end only at the 60 s fetch deadline, are
 * `invariants-deadline.test.js`.
 *
 * One describe per operation × source, one test per invariant, over INVARIANT_OPS_SEEDS seeds
 * (4 by default: the hostility in focus turns with the seed, so each family meets each one);
 * INVARIANT_OPS_ONLY runs the families whose name contains it (e.g. "export", "from url");
 * INVARIANT_OPS_SHAPE runs every seed in one shape (e.g. "overlap").
 */
const { FAMILIES, INVARIANTS, TITLES, opsRun, violationsOf } = require('./invariants-ops');

const SEEDS = Number(process.env.INVARIANT_OPS_SEEDS || 4);
const ONLY = process.env.INVARIANT_OPS_ONLY; // e.g. "export" or "markdown from url"

const families = FAMILIES.filter(
	(f) => !ONLY || f.label.toLowerCase().includes(ONLY.toLowerCase()) || f.operation === ONLY,
);

describe.each(families.map((f) => [f.label, f]))('%s on a hostile service', (_label, family) => {
	const results = [];
	beforeAll(async () => {
		for (let seed = 1; seed <= SEEDS; seed++) results.push(await opsRun(family, seed));
	}, 900_000);

	test.each(INVARIANTS.map((name) => [TITLES[name], name]))('%s', (_title, invariant) => {
		expect(violationsOf(results, invariant)).toEqual([]);
	});
});
