'use strict';
/**
 * `npm test`: the fast tier first (TypeScript unit tests of the pure modules, compiled on the fly:
 * no build, no network, seconds), then the build (skipped when dist/ was built from the sources as
 * they are, e.g. by CI's own build step) and the engine tier (the built nodes inside n8n-core's
 * engine against the local emulator). Arguments go to one jest run over both tiers.
 */
const { ensureInstalled, buildIfStale: build, run } = require('./bootstrap');

const jest = (args, what) =>
	run(process.execPath, [require.resolve('jest/bin/jest'), ...args], what);

ensureInstalled();
const args = process.argv.slice(2);
if (args.length) {
	build();
	jest(args, 'running the tests (jest)');
} else {
	jest(['--selectProjects', 'fast'], 'fast tier: unit tests of the pure modules (TypeScript)');
	build();
	jest(['--selectProjects', 'engine'], 'engine tier: the built nodes in n8n-core + the emulator');
}
