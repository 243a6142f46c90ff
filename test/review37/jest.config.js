'use strict';
/**
 * Review 37's repro tests: each FAILS while its defect is there. Not matched by the default
 * projects (the files are *.repro.js), run one at a time after `npm run build`:
 *   npx jest -c test/review37/jest.config.js -w 1 --runTestsByPath test/review37/<file>.repro.js
 */
const path = require('node:path');

module.exports = {
	rootDir: path.join(__dirname, '..', '..'),
	testEnvironment: 'node',
	roots: ['<rootDir>/test/review37'],
	testMatch: ['**/*.repro.js'],
	testTimeout: 300_000,
};
