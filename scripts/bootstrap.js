'use strict';
/**
 * Makes `npm start` and `npm test` work on a fresh clone: installs the dev dependencies from the
 * lockfile when they are missing or older than it, then builds the package into dist/ — unless
 * dist/ was built from the sources as they are (CI builds once, then runs `npm test`).
 *
 *   node scripts/bootstrap.js            install if needed, build if dist/ is stale
 *   node scripts/bootstrap.js --build    install if needed, build (what `npm start` does, in a
 *                                        child process while it installs n8n)
 *   node scripts/bootstrap.js --stamp    record what dist/ was built from (end of `npm run build`)
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
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

/** What the build reads: the sources, their compiler settings and the asset copy. */
const BUILD_INPUTS = ['nodes', 'credentials', 'tsconfig.json', 'gulpfile.js', 'package.json'];
const STAMP = path.join(ROOT, 'dist', '.build-inputs');

function filesUnder(entry) {
	const full = path.join(ROOT, entry);
	if (!fs.existsSync(full)) return [];
	if (!fs.statSync(full).isDirectory()) return [entry];
	return fs
		.readdirSync(full, { recursive: true, withFileTypes: true })
		.filter((dirent) => dirent.isFile())
		.map((dirent) => path.relative(ROOT, path.join(dirent.parentPath ?? dirent.path, dirent.name)));
}

/** A hash of every build input's path and content: a renamed or deleted source changes it too. */
function buildInputsHash() {
	const hash = crypto.createHash('sha256');
	for (const file of BUILD_INPUTS.flatMap(filesUnder).sort()) {
		hash.update(`${file}\0`);
		hash.update(fs.readFileSync(path.join(ROOT, file)));
		hash.update('\0');
	}
	return hash.digest('hex');
}

/** dist/ was built (by `npm run build`, which stamps it) from the sources as they are now. */
function distIsFresh() {
	try {
		return fs.readFileSync(STAMP, 'utf8').trim() === buildInputsHash();
	} catch {
		return false;
	}
}

function build() {
	run(NPM, ['run', '--silent', 'build'], 'building the package (tsc + icons/codex into dist/)');
}

/** Builds unless dist/ is fresh: `npm test` after CI's own `npm run build` does not build again. */
function buildIfStale() {
	if (distIsFresh()) process.stdout.write('» dist/ is up to date with the sources: not rebuilt\n');
	else build();
}

module.exports = { ROOT, ensureInstalled, build, buildIfStale, buildInputsHash, run };

if (require.main === module) {
	if (process.argv.includes('--stamp')) {
		fs.writeFileSync(STAMP, `${buildInputsHash()}\n`);
	} else {
		ensureInstalled();
		if (process.argv.includes('--build')) build();
		else buildIfStale();
	}
}
