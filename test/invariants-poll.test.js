'use strict';
/**
 * The poll trigger's promise as an invariant, over seeds, in n8n's engine (a real PollContext per
 * poll) against the emulator's hostile profile: every task that finishes after the activation is
 * emitted exactly once, whatever the list does while it is read (other clients submitting between
 * page reads), the rate limit (429 with Retry-After), bursts of hundreds of tasks between polls and
 * a backlog at activation. The long variant is `test/reliability/hostile.rel.js`.
 */
const { pollTriggerRun, pollTriggerStormRun } = require('./invariants');

const SEEDS = Number(process.env.INVARIANT_POLL_SEEDS || 6);

describe('the poll trigger on a hostile service: every task that finishes is emitted exactly once', () => {
	test.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i', async (seed) => {
		const { twice, missing } = await pollTriggerRun(seed, { timeScale: 0.01 });
		expect({ seed, twice, missing }).toEqual({ seed, twice: [], missing: [] });
	});
});

describe('the poll trigger after a storm of submissions (a page of new tasks per page read, pages of 5; issue 29, finding 8)', () => {
	test.each([1, 2, 3])(
		'seed %i: every task that finishes is emitted exactly once, within the polls that reading the storm takes',
		async (seed) => {
			const run = await pollTriggerStormRun(seed);
			// The figure of the finding: tasks emitted after a storm, and the polls it took.
			console.log(
				`storm seed ${seed}: ${run.emitted} of ${run.expected} tasks emitted (${run.missing.length} missing, ${run.twice.length} twice), ${run.stormPolls} polls in the storm, ${run.pollsAfter} after it (Max Pages per Poll ${run.maxPages})`,
			);
			expect({ seed, twice: run.twice, missing: run.missing }).toEqual({
				seed,
				twice: [],
				missing: [],
			});
			// What the storm added is read once, a poll's pages at a time; each poll also reads the top
			// and finds where a gap goes on, so at most twice that, and a few polls more.
			const pages = Math.ceil(run.expected / 5);
			expect(run.pollsAfter).toBeLessThanOrEqual(2 * Math.ceil(pages / run.maxPages) + 3);
		},
	);
});
