'use strict';
/**
 * `npm run test:reliability`: fault soak, bad-input corpus, secret scan, long waits and queue mode.
 * One file at a time: the soak and the queue-mode suite each load the machine on their own, and
 * every suite prints its figures (test/reliability/report.js) where they cannot interleave.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/reliability'],
	testMatch: ['**/*.rel.js'],
	testTimeout: 15 * 60_000,
	// The five slowest files printed at the end (and collected by .ci/run through CI_TIMINGS).
	reporters: ['default', ['<rootDir>/test/harness/timings.reporter.js', { tier: 'reliability' }]],
	maxWorkers: 1,
	globalSetup: '<rootDir>/test/reliability/report.js',
	globalTeardown: '<rootDir>/test/harness/summary.teardown.js',
};
