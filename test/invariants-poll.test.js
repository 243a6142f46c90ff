'use strict';
/**
 * The poll trigger's promise as an invariant, over seeds, in n8n's engine (a real PollContext per
 * poll) against the emulator's hostile profile: every task that finishes after the activation is
 * emitted exactly once, whatever the list does while it is read (other clients submitting between
 * page reads), the rate limit (429 with Retry-After), bursts of hundreds of tasks between polls and
 * a backlog at activation. The long variant is `test/reliability/hostile.rel.js`.
 */
const { pollTriggerRun } = require('./invariants');

const SEEDS = Number(process.env.INVARIANT_POLL_SEEDS || 6);

jest.setTimeout(180_000);

describe('the poll trigger on a hostile service: every task that finishes is emitted exactly once', () => {
	test.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i', async (seed) => {
		const { twice, missing } = await pollTriggerRun(seed, { timeScale: 0.01 });
		expect({ seed, twice, missing }).toEqual({ seed, twice: [], missing: [] });
	});
});
