'use strict';
/**
 * The action node's promises as invariants, over many seeds, in n8n's engine against the
 * emulator's hostile profile (slow answers, a rate limit with Retry-After, another client
 * submitting, a backlog, submissions created and then answered 502 or dropped, tasks finishing out
 * of order) — not only against the fast, polite default:
 *
 *  1. nothing is billed twice;
 *  2. no billed ID or result is lost without an error naming it: every document the service
 *     charged reaches the user as an output item, or as an error (the item's, or the node's)
 *     that names it;
 *  3. every wait ends by its deadline, and no task that finished before its deadline (less the
 *     time a status answer takes: 3 s, or the node's own lead measured from the run's status
 *     reads when they were slower — support/status-reads.js) is reported as timed out;
 *  4. every output item carries `pairedItem`.
 *
 * The poll trigger's invariant is `invariants-poll.test.js`.
 *
 * Each seed draws an operation, a batch (some documents failing, some never finishing, some
 * refused for the balance), Continue on Fail, Concurrency and the service's randomness. The
 * long variant (answers of 0.5–5 s) is `test/reliability/hostile.rel.js`.
 */
const { actionRun } = require('./invariants');

const SEEDS = Number(process.env.INVARIANT_SEEDS || 16);

describe('the action node on a hostile service: its promises hold on every seed', () => {
	test.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i', async (seed) => {
		const { plan, violations } = await actionRun(seed, {
			timeScale: 0.02,
			rateLimit: { perSecond: 10, burst: 4 },
		});
		expect({ seed, plan: plan.summary, violations }).toEqual({
			seed,
			plan: plan.summary,
			violations: [],
		});
	});
});
