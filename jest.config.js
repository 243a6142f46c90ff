'use strict';
/** Tests run the built package (dist/) inside n8n-core's engine against the local emulator. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.js'],
	testTimeout: 60_000,
	// Each file starts its own emulator on port 0; two workers match the CI machine's cores.
	maxWorkers: 2,
	// Secret scan over every run (test/harness/secrets.js): totals printed at the end.
	globalSetup: '<rootDir>/test/harness/summary.js',
	globalTeardown: '<rootDir>/test/harness/summary.teardown.js',
};
