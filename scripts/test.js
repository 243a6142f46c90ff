'use strict';
// `npm test`: install if needed, build, then run jest (which runs the built nodes in n8n's engine).
const { ensureInstalled, build, run } = require('./bootstrap');

ensureInstalled();
build();
run(
	process.execPath,
	[require.resolve('jest/bin/jest'), ...process.argv.slice(2)],
	'running the tests (jest)',
);
