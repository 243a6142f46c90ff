'use strict';
/**
 * Makes `npm start` and `npm test` work on a fresh clone: installs the dev dependencies from the
 * lockfile when they are missing or older than it, then builds the package into dist/.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args, label) {
	process.stdout.write(`» ${label}\n`);
	const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
	if (result.status !== 0) {
		process.stderr.write(`✖ ${label} failed (exit ${result.status ?? result.signal})\n`);
		process.exit(result.status ?? 1);
	}
}

function ensureInstalled() {
	const marker = path.join(ROOT, 'node_modules', '.package-lock.json');
	const lock = path.join(ROOT, 'package-lock.json');
	const stale = !fs.existsSync(marker) || fs.statSync(marker).mtimeMs < fs.statSync(lock).mtimeMs;
	// `npm install`, not `npm ci`: same locked versions, but it tolerates optional platform
	// packages a registry mirror may lack (see .ci/run).
	if (stale)
		run(
			NPM,
			['install', '--no-audit', '--no-fund'],
			'installing dev dependencies from package-lock.json',
		);
}

function build() {
	run(NPM, ['run', '--silent', 'build'], 'building the package (tsc + icons/codex into dist/)');
}

module.exports = { ROOT, ensureInstalled, build, run };

if (require.main === module) {
	ensureInstalled();
	build();
}
