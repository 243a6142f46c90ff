'use strict';
/** End-to-end: real n8n 2.x (installed and cached by scripts/n8n-runtime.js) + the emulator. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.js'],
	// The first run on a machine installs Node 24 and n8n (~5 minutes) inside beforeAll.
	testTimeout: 15 * 60_000,
	// The five slowest files printed at the end (and collected by .ci/run through CI_TIMINGS).
	reporters: ['default', ['<rootDir>/test/harness/timings.reporter.js', { tier: 'e2e' }]],
	maxWorkers: 1,
};
