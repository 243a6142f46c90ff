'use strict';
/**
 * Two tiers, run by `npm test` in this order (scripts/test.js):
 *  - fast: TypeScript unit tests of the pure modules (test/fast, mirroring nodes/), compiled on the
 *    fly from the sources — no dist/, no network, a fake clock instead of real sleeps;
 *  - engine: the built package (dist/) inside n8n-core's engine against the local emulator.
 */
module.exports = {
	projects: [
		{
			displayName: 'fast',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/fast'],
			testMatch: ['**/*.test.ts'],
			transform: {
				'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/fast/tsconfig.json' }],
			},
		},
		{
			displayName: 'engine',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.js'],
			testPathIgnorePatterns: ['/node_modules/', '/test/fast/'],
		},
	],
	// A test's timeout guards a hang only: generous, so that a loaded machine (CI beside other
	// work, two jest workers on two cores) never ends a test that is merely slow. What a test
	// promises about time it checks itself, against the node's own deadlines.
	testTimeout: 300_000,
	// Each engine file starts its own emulator on port 0; two workers match the CI machine's cores.
	// The five slowest files printed at the end (and collected by .ci/run through CI_TIMINGS).
	reporters: ['default', ['<rootDir>/test/harness/timings.reporter.js', { tier: 'test' }]],
	maxWorkers: 2,
	// Secret scan over every engine run (test/harness/secrets.js): totals printed at the end.
	globalSetup: '<rootDir>/test/harness/summary.js',
	globalTeardown: '<rootDir>/test/harness/summary.teardown.js',
};
