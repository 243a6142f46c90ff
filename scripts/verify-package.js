#!/usr/bin/env node
'use strict';
/**
 * `npm run verify` — checks the package exactly as it would be published (the `npm pack` tarball)
 * against what n8n's community-package verification checks, without publishing it.
 *
 * n8n verifies a community package with `@n8n/scan-community-package` (`npx
 * @n8n/scan-community-package <name>`). Its `analyzePackageByName()` (scanner/scanner.mjs):
 *   1. reads the package's metadata from registry.npmjs.org and requires an npm provenance
 *      attestation (predicate https://slsa.dev/provenance/v1) on the version;
 *   2. reads the attestation, takes the GitHub repository and commit the package was built from,
 *      downloads that commit from GitHub, and finds the directory whose package.json has the
 *      package's name;
 *   3. downloads the published tarball (`npm pack <name>@<version>`, `tar -xzf --strip-components=1`);
 *   4. runs ESLint (`analyzePackage()`) twice with one flat config (`buildScanConfig()`):
 *      @n8n/eslint-plugin-community-nodes `recommended` + `no-console: error` + eslint-plugin-n8n-
 *      nodes-base's `community` rules on package.json, its `credentials` / `nodes` rules on .ts
 *      sources (with n8n-node lint's overrides), inline eslint-disable comments ignored
 *      (`allowInlineConfig: false`) — over the source checkout (`SOURCE_FILE_PATTERNS`: package.json
 *      and {nodes,credentials}/**\/*.{js,ts,json}) and over the tarball (**\/*.js and package.json).
 *      Any ESLint *error* fails the package; warnings do not.
 *
 * Steps 1–3 need a version published to npm from GitHub Actions, so they cannot run here. Step 4 is
 * REUSED, not replicated: this script imports the scanner's own module from node_modules (pinned
 * devDependency @n8n/scan-community-package, with its own pinned rule plugins) and calls its exported
 * `analyzePackage()` with its own file patterns on local directories standing in for the downloads:
 *   - source:  the files git would publish to GitHub (tracked + untracked-not-ignored), copied to a
 *              temporary directory, located with the scanner's own `findPackageRoot()`;
 *   - tarball: `npm pack` of this directory, extracted with the same tar command as the scanner.
 * A canary package with known violations is scanned first, so a scanner that silently checks
 * nothing (a broken parser, no files matched) fails this script instead of passing it.
 *
 * Around the scan it checks what the scanner takes for granted or only learns from the registry:
 * the packed file list, the package.json fields n8n requires (against the manifest inside the
 * tarball), node/credential paths present in the tarball, codex files, a dist/ in step with the
 * sources, n8n-node's strict-mode ESLint config (compared with @n8n/node-cli's own template, as
 * `n8n-node lint` does) and readiness for provenance. `npm run lint` (n8n-node lint) stays a
 * separate step: it lints the whole repository with the node-cli's rule versions.
 *
 * Usage: npm run build && npm run verify      (--keep: keep the temporary directory and print it)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');

const ROOT = path.resolve(__dirname, '..');
const KEEP = process.argv.includes('--keep');
const WIN = process.platform === 'win32';

/** Categories n8n's codex documentation allows (docs.n8n.io, "Node codex files" → Node categories). */
const CODEX_CATEGORIES = [
	'Data & Storage',
	'Finance & Accounting',
	'Marketing & Content',
	'Productivity',
	'Miscellaneous',
	'Sales',
	'Development',
	'Analytics',
	'Communication',
	'Utility',
];
/** What the published tarball may contain. */
const ALLOWED_TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'LICENSE.md']);

const failures = [];
const warnings = [];
let currentCheck = '';

function section(title) {
	currentCheck = title;
	process.stdout.write(`\n== ${title}\n`);
}
function pass(message) {
	process.stdout.write(`  ✔ ${message}\n`);
}
function fail(message, detail) {
	failures.push({ check: currentCheck, message });
	process.stdout.write(`  ✖ ${message}\n`);
	if (detail) process.stdout.write(`${indent(detail, 6)}\n`);
}
function warn(message) {
	warnings.push({ check: currentCheck, message });
	process.stdout.write(`  ! ${message}\n`);
}
function info(message) {
	process.stdout.write(`  · ${message}\n`);
}
function check(condition, okMessage, failMessage) {
	if (condition) pass(okMessage);
	else fail(failMessage);
	return Boolean(condition);
}
function indent(text, spaces) {
	const pad = ' '.repeat(spaces);
	return String(text)
		.trim()
		.split('\n')
		.map((line) => pad + line)
		.join('\n');
}
function isNonEmptyString(value) {
	return typeof value === 'string' && value.trim().length > 0;
}

function run(command, args, options = {}) {
	const result = spawnSync(command, args, {
		cwd: ROOT,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		shell: WIN,
		...options,
	});
	if (result.error) throw result.error;
	return result;
}

/** `npm pack --json` prints one JSON array on stdout (notices go to stderr). */
function npmPackJson(extraArgs) {
	const result = run('npm', ['pack', '--json', ...extraArgs]);
	if (result.status !== 0) {
		throw new Error(`npm pack ${extraArgs.join(' ')} failed:\n${result.stderr}`);
	}
	const start = result.stdout.indexOf('[');
	return JSON.parse(result.stdout.slice(start))[0];
}

async function main() {
	const repoManifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-package-'));
	process.stdout.write(
		`Verifying ${repoManifest.name}@${repoManifest.version} as n8n's community-package verification would\n`,
	);
	try {
		// ── 1. The file list npm would publish ────────────────────────────────────────────────
		section('Packed files (npm pack --dry-run --json)');
		const dry = npmPackJson(['--dry-run']);
		const packedPaths = dry.files.map((file) => file.path.replace(/\\/g, '/')).sort();
		const extra = packedPaths.filter(
			(file) => !file.startsWith('dist/') && !ALLOWED_TOP_LEVEL.has(file),
		);
		info(`${packedPaths.length} files, ${dry.size} bytes packed, ${dry.unpackedSize} unpacked`);
		if (extra.length === 0) pass('only dist/**, README.md, LICENSE(.md) and package.json');
		else fail(`files outside dist/, README.md, LICENSE(.md), package.json: ${extra.join(', ')}`);
		check(packedPaths.includes('README.md'), 'README.md is packed', 'README.md is not packed');
		const licenseFile = packedPaths.find((file) => file === 'LICENSE' || file === 'LICENSE.md');
		check(licenseFile, `${licenseFile} is packed`, 'no LICENSE or LICENSE.md is packed');
		checkDistAgainstSources(packedPaths);

		// ── 2. The real tarball, extracted as the scanner extracts it ─────────────────────────
		section('Tarball (npm pack, tar -xzf --strip-components=1)');
		const packDir = path.join(work, 'pack');
		fs.mkdirSync(packDir);
		const packed = npmPackJson(['--pack-destination', packDir]);
		const tarball = path.join(packDir, packed.filename);
		const packageDir = path.join(work, 'package');
		fs.mkdirSync(packageDir);
		const tar = run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
		if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
		const missing = packedPaths.filter((file) => !fs.existsSync(path.join(packageDir, file)));
		check(
			missing.length === 0 && packed.files.length === dry.files.length,
			`${packed.filename}: the same ${packed.files.length} files as the dry run`,
			`the tarball differs from the dry run (missing: ${missing.join(', ') || 'none'})`,
		);
		const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));

		// ── 3. package.json fields (the manifest inside the tarball) ──────────────────────────
		section('package.json (as packed)');
		checkManifest(manifest, packageDir, licenseFile);

		// ── 4. Nodes, credentials and codex files in the tarball ─────────────────────────────
		section('Nodes, credentials and codex files (as packed)');
		checkNodesAndCodex(manifest, packageDir);

		// ── 5. n8n-node's strict mode (the node-cli's own template) ───────────────────────────
		section('Strict mode (n8n-node lint / cloud-support)');
		checkStrictMode(manifest);

		// ── 6. The scanner's ESLint rule sets ─────────────────────────────────────────────────
		section('n8n community-package scanner (@n8n/scan-community-package analyzePackage)');
		await runScanner(manifest, work, packageDir);

		// ── 7. Provenance ─────────────────────────────────────────────────────────────────────
		section('npm provenance (scanner steps 1–2)');
		checkProvenanceReadiness(manifest);

		// ── 8. Release notes ─────────────────────────────────────────────────────────────────
		section('CHANGELOG.md');
		checkChangelog(manifest.version);
	} finally {
		if (KEEP) process.stdout.write(`\n(kept ${work})\n`);
		else fs.rmSync(work, { recursive: true, force: true });
	}

	process.stdout.write('\n');
	if (warnings.length) {
		process.stdout.write(`${warnings.length} warning(s):\n`);
		for (const w of warnings) process.stdout.write(`  ! [${w.check}] ${w.message}\n`);
	}
	if (failures.length) {
		process.stdout.write(`\nFAIL: ${failures.length} problem(s):\n`);
		for (const f of failures) process.stdout.write(`  ✖ [${f.check}] ${f.message}\n`);
		process.exitCode = 1;
	} else {
		process.stdout.write(
			`\nPASS: ${repoManifest.name}@${repoManifest.version} passes the scanner's rule sets and the package checks (provenance: checked after publishing)\n`,
		);
	}
}

/** Every packed dist/ file comes from a current source, and every source is built. */
function checkDistAgainstSources(packedPaths) {
	const dist = packedPaths.filter((file) => file.startsWith('dist/'));
	const orphans = [];
	for (const file of dist) {
		const rel = file.slice('dist/'.length);
		if (rel.endsWith('.tsbuildinfo')) {
			orphans.push(`${file} (tsc's build cache)`);
			continue;
		}
		const source = /\.(d\.ts|js\.map|js)$/.test(rel)
			? rel.replace(/\.(d\.ts|js\.map|js)$/, '.ts')
			: rel;
		if (!fs.existsSync(path.join(ROOT, source))) orphans.push(file);
	}
	if (orphans.length === 0) pass('every dist/ file comes from a source in nodes/ or credentials/');
	else
		fail(
			`dist/ files no source produces (run \`npm run clean && npm run build\`, or exclude them in "files"): ${orphans.join(', ')}`,
		);

	const sources = listSourceFiles().filter((file) => /^(nodes|credentials)\/.*\.ts$/.test(file));
	const unbuilt = [];
	const older = [];
	for (const source of sources) {
		const out = `dist/${source.replace(/\.ts$/, '.js')}`;
		if (!dist.includes(out)) {
			unbuilt.push(source);
			continue;
		}
		if (fs.statSync(path.join(ROOT, source)).mtimeMs > fs.statSync(path.join(ROOT, out)).mtimeMs)
			older.push(out);
	}
	if (unbuilt.length === 0) pass(`all ${sources.length} TypeScript sources are built into dist/`);
	else fail(`sources missing from the package (run \`npm run build\`): ${unbuilt.join(', ')}`);
	if (older.length)
		warn(`dist/ is older than its source for ${older.join(', ')} — run \`npm run build\``);
}

function checkManifest(manifest, packageDir, licenseFile) {
	const name = manifest.name ?? '';
	check(
		/^n8n-nodes-.+$/.test(name) || /^@[^/]+\/n8n-nodes-.+$/.test(name),
		`name "${name}" follows n8n-nodes-*`,
		`name "${name}" must be n8n-nodes-<name> (or @scope/n8n-nodes-<name>)`,
	);
	check(
		Array.isArray(manifest.keywords) && manifest.keywords.includes('n8n-community-node-package'),
		'keyword "n8n-community-node-package"',
		'keywords must include "n8n-community-node-package" (how n8n finds community packages)',
	);

	const n8n = manifest.n8n;
	if (!n8n || typeof n8n !== 'object') {
		fail('no "n8n" block');
	} else {
		check(
			Number.isInteger(n8n.n8nNodesApiVersion) && n8n.n8nNodesApiVersion > 0,
			`n8n.n8nNodesApiVersion = ${n8n.n8nNodesApiVersion}`,
			`n8n.n8nNodesApiVersion must be a positive integer (is ${JSON.stringify(n8n.n8nNodesApiVersion)})`,
		);
		check(
			n8n.strict === true,
			'n8n.strict = true',
			`n8n.strict must be true for n8n Cloud verification (is ${JSON.stringify(n8n.strict)})`,
		);
		check(
			Array.isArray(n8n.nodes) && n8n.nodes.length > 0,
			`n8n.nodes lists ${n8n.nodes?.length ?? 0} node(s)`,
			'n8n.nodes must be a non-empty array',
		);
		if (n8n.credentials !== undefined && !Array.isArray(n8n.credentials))
			fail('n8n.credentials must be an array');
		for (const [key, list] of [
			['nodes', n8n.nodes],
			['credentials', n8n.credentials],
		]) {
			for (const entry of Array.isArray(list) ? list : []) {
				const ok =
					typeof entry === 'string' &&
					entry.startsWith('dist/') &&
					entry.endsWith('.js') &&
					fs.existsSync(path.join(packageDir, entry));
				check(
					ok,
					`n8n.${key}: ${entry} is in the tarball`,
					`n8n.${key}: ${entry} must be a dist/**/*.js path present in the tarball`,
				);
			}
		}
	}

	let licenseText = '';
	if (licenseFile) licenseText = fs.readFileSync(path.join(packageDir, licenseFile), 'utf8');
	check(
		manifest.license === 'MIT' && /^\s*MIT License/.test(licenseText),
		`license MIT (${licenseFile} is the MIT License)`,
		`license must be "MIT" with an MIT ${licenseFile ?? 'LICENSE'} file (is ${JSON.stringify(manifest.license)})`,
	);

	const repoUrl =
		typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
	check(
		isNonEmptyString(repoUrl) && !repoUrl.includes('<...>'),
		`repository ${repoUrl}`,
		'repository.url is missing (n8n checks it matches the public GitHub repository)',
	);
	check(
		isNonEmptyString(manifest.author?.name ?? manifest.author) &&
			(typeof manifest.author === 'string'
				? /<[^>]+@[^>]+>/.test(manifest.author)
				: isNonEmptyString(manifest.author?.email)),
		`author ${manifest.author?.name ?? manifest.author} <${manifest.author?.email ?? ''}>`,
		'author needs a name and an email',
	);
	check(isNonEmptyString(manifest.description), 'description present', 'description is missing');
	check(
		isNonEmptyString(manifest.homepage),
		`homepage ${manifest.homepage}`,
		'homepage is missing',
	);

	const runtime = [
		'dependencies',
		'optionalDependencies',
		'bundleDependencies',
		'bundledDependencies',
	]
		.map((key) => [key, manifest[key]])
		.filter(
			([, value]) => value && (Array.isArray(value) ? value.length : Object.keys(value).length),
		);
	check(
		runtime.length === 0,
		'no runtime dependencies (dependencies / optionalDependencies / bundleDependencies)',
		`runtime dependencies are not allowed: ${runtime.map(([key, value]) => `${key}: ${(Array.isArray(value) ? value : Object.keys(value)).join(', ')}`).join('; ')}`,
	);
	check(
		manifest.peerDependencies?.['n8n-workflow'] === '*',
		'peerDependencies: n8n-workflow "*"',
		'peerDependencies must be { "n8n-workflow": "*" }',
	);
	if (manifest.main !== undefined && !fs.existsSync(path.join(packageDir, manifest.main)))
		fail(
			`"main" is ${manifest.main}, which is not in the tarball (n8n loads n8n.nodes; drop "main")`,
		);
}

function checkNodesAndCodex(manifest, packageDir) {
	const nodes = Array.isArray(manifest.n8n?.nodes) ? manifest.n8n.nodes : [];
	const credentials = Array.isArray(manifest.n8n?.credentials) ? manifest.n8n.credentials : [];
	const credentialNames = new Set();

	for (const entry of credentials) {
		const Credential = loadPackedClass(entry, packageDir);
		if (!Credential) continue;
		const credential = new Credential();
		credentialNames.add(credential.name);
		check(
			isNonEmptyString(credential.name) && isNonEmptyString(credential.displayName),
			`${entry}: credential "${credential.name}" loads`,
			`${entry}: the credential class has no name / displayName`,
		);
	}

	for (const entry of nodes) {
		const NodeClass = loadPackedClass(entry, packageDir);
		if (!NodeClass) continue;
		const description = new NodeClass().description ?? {};
		const versions = [].concat(description.version ?? []);
		check(
			isNonEmptyString(description.name),
			`${entry}: node "${description.name}" (version ${versions.join(', ')}) loads`,
			`${entry}: the node class has no description.name`,
		);
		for (const { name } of description.credentials ?? []) {
			if (!credentialNames.has(name))
				fail(`${entry}: uses credential "${name}", which n8n.credentials does not register`);
		}

		const codexPath = `${entry}on`; // X.node.js → X.node.json, as n8n's DirectoryLoader looks it up
		const codexFile = path.join(packageDir, codexPath);
		if (!fs.existsSync(codexFile)) {
			fail(`${codexPath} is not in the tarball (n8n reads categories and doc links from it)`);
			continue;
		}
		let codex;
		try {
			codex = JSON.parse(fs.readFileSync(codexFile, 'utf8'));
		} catch (error) {
			fail(`${codexPath} is not valid JSON: ${error.message}`);
			continue;
		}
		const problems = [];
		const nodeIds = [manifest.name, `${manifest.name}.${description.name}`];
		if (!nodeIds.includes(codex.node))
			problems.push(
				`"node" must be "${nodeIds[1]}" (or "${nodeIds[0]}"), is ${JSON.stringify(codex.node)}`,
			);
		if (codex.codexVersion !== '1.0') problems.push('"codexVersion" must be "1.0"');
		if (!isNonEmptyString(codex.nodeVersion) || !versions.includes(Number(codex.nodeVersion)))
			problems.push(
				`"nodeVersion" ${JSON.stringify(codex.nodeVersion)} is not a version of the node (${versions.join(', ')})`,
			);
		const categories = Array.isArray(codex.categories) ? codex.categories : [];
		const unknown = categories.filter((category) => !CODEX_CATEGORIES.includes(category));
		if (categories.length === 0) problems.push('"categories" is empty');
		if (unknown.length)
			problems.push(
				`categories not in n8n's list (${CODEX_CATEGORIES.join(', ')}): ${unknown.join(', ')}`,
			);
		const links = (key) =>
			Array.isArray(codex.resources?.[key]) ? codex.resources[key].map((link) => link?.url) : [];
		const primary = links('primaryDocumentation');
		const credentialDocs = links('credentialDocumentation');
		if (primary.length === 0 || !primary.every((url) => /^https:\/\/\S+$/.test(url ?? '')))
			problems.push('resources.primaryDocumentation needs https URLs');
		if ((description.credentials ?? []).length > 0 && credentialDocs.length === 0)
			problems.push('resources.credentialDocumentation is missing (the node uses credentials)');
		if (!credentialDocs.every((url) => /^https:\/\/\S+$/.test(url ?? '')))
			problems.push('resources.credentialDocumentation needs https URLs');
		if (problems.length === 0)
			pass(`${codexPath}: categories ${categories.join(', ')}; documentation links set`);
		else for (const problem of problems) fail(`${codexPath}: ${problem}`);
	}
}

/**
 * Loads a node or credential class from the packed path. The extracted tarball has no
 * node_modules (n8n-workflow is a peer dependency), so the identical file in this repository's
 * dist/ is loaded — after checking it is byte-for-byte the packed one.
 */
function loadPackedClass(entry, packageDir) {
	const packedFile = path.join(packageDir, entry);
	const localFile = path.join(ROOT, entry);
	if (!fs.existsSync(packedFile)) return null; // reported by the package.json checks
	if (
		!fs.existsSync(localFile) ||
		!fs.readFileSync(localFile).equals(fs.readFileSync(packedFile))
	) {
		fail(`${entry}: the packed file differs from ${path.relative(ROOT, localFile)}`);
		return null;
	}
	try {
		const exported = require(localFile);
		const base = path.basename(entry).replace(/\.(node|credentials)\.js$/, '');
		const Class =
			exported[base] ?? Object.values(exported).find((value) => typeof value === 'function');
		if (typeof Class !== 'function') throw new Error(`no exported class "${base}"`);
		return Class;
	} catch (error) {
		fail(`${entry}: cannot be loaded: ${error.message}`);
		return null;
	}
}

function checkStrictMode(manifest) {
	if (manifest.n8n?.strict !== true) {
		fail('n8n.strict is not true: n8n-node lint does not enforce the default ESLint config');
		return;
	}
	// The same comparison `n8n-node lint` makes in strict mode (commands/lint.js verifyEslintConfig).
	// @n8n/node-cli exports only ./eslint (dist/configs/eslint.js): its package root is three up.
	const cliDir = path.resolve(require.resolve('@n8n/node-cli/eslint'), '..', '..', '..');
	const template = path.join(cliDir, 'dist/template/templates/shared/default/eslint.config.mjs');
	const normalize = (text) => text.replace(/\s+/g, ' ').trim();
	const configFile = path.join(ROOT, 'eslint.config.mjs');
	if (!fs.existsSync(configFile)) {
		fail('eslint.config.mjs is missing');
		return;
	}
	check(
		normalize(fs.readFileSync(configFile, 'utf8')) === normalize(fs.readFileSync(template, 'utf8')),
		'eslint.config.mjs is the node-cli default (`config` from @n8n/node-cli/eslint: n8n Cloud rules on)',
		'eslint.config.mjs differs from the node-cli default: n8n-node lint fails in strict mode',
	);
}

async function runScanner(manifest, work, packageDir) {
	const scannerPkgFile = require.resolve('@n8n/scan-community-package/package.json');
	const scannerDir = path.dirname(scannerPkgFile);
	const scannerFile = path.join(scannerDir, 'scanner', 'scanner.mjs');
	const scannerRequire = createRequire(scannerFile);
	// The versions Node's resolution gives the scanner (some of these packages export no ./package.json).
	const version = (pkg) => {
		for (let dir = scannerDir; ; dir = path.dirname(dir)) {
			const file = path.join(dir, 'node_modules', pkg, 'package.json');
			if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version;
			if (path.dirname(dir) === dir) return '?';
		}
	};
	info(
		`@n8n/scan-community-package ${require(scannerPkgFile).version} (rules: @n8n/eslint-plugin-community-nodes ${version('@n8n/eslint-plugin-community-nodes')}, eslint-plugin-n8n-nodes-base ${version('eslint-plugin-n8n-nodes-base')}, eslint ${version('eslint')})`,
	);
	// The scanner makes a temporary directory when it is imported; have `tmp` remove it on exit.
	scannerRequire('tmp').setGracefulCleanup();
	const scanner = await import(pathToFileURL(scannerFile).href);

	const report = (label, dir, result) => {
		if (result.passed) {
			pass(`${label}: no ESLint errors`);
			return;
		}
		const details = (result.details ?? '').split(dir + path.sep).join(`<${label}>/`);
		fail(`${label}: ${result.message}`, details);
	};

	// Canary: a package that must fail, in all three languages the scanner parses (js, ts, json).
	const canary = path.join(work, 'canary');
	fs.mkdirSync(path.join(canary, 'nodes', 'Canary'), { recursive: true });
	fs.writeFileSync(path.join(canary, 'package.json'), '{ "name": "canary", "version": "1.0.0" }\n');
	fs.writeFileSync(path.join(canary, 'nodes', 'Canary', 'Canary.node.ts'), "console.log('ts');\n");
	fs.writeFileSync(path.join(canary, 'nodes', 'Canary', 'helper.js'), "console.log('js');\n");
	const canaryResult = await scanner.analyzePackage(canary, scanner.SOURCE_FILE_PATTERNS);
	const canaryDetails = canaryResult.details ?? '';
	check(
		!canaryResult.passed &&
			(canaryDetails.match(/no-console/g) ?? []).length === 2 &&
			canaryDetails.includes('package-name-convention'),
		'canary with known violations (.ts, .js, package.json) is rejected: the rules are active',
		`the scanner did not reject the canary package — its rules are not running (${canaryResult.message ?? 'passed'})`,
	);

	// Source leg: the files git would put on GitHub, as the scanner fetches the attested commit.
	const sourceDir = path.join(work, 'source');
	const files = listSourceFiles();
	for (const file of files) {
		const from = path.join(ROOT, file);
		if (!fs.existsSync(from) || !fs.statSync(from).isFile()) continue; // deleted, not yet committed
		const to = path.join(sourceDir, file);
		fs.mkdirSync(path.dirname(to), { recursive: true });
		fs.copyFileSync(from, to);
	}
	const sourceRoot = scanner.findPackageRoot(sourceDir, manifest.name);
	if (!sourceRoot) {
		fail(`no package.json named "${manifest.name}" in the source: the scanner would stop here`);
	} else {
		info(
			`source: ${files.length} files (git tracked + untracked-not-ignored); package root "${path.relative(sourceDir, sourceRoot) || '.'}"; patterns ${scanner.SOURCE_FILE_PATTERNS.join(' ')}`,
		);
		report(
			'source',
			sourceRoot,
			await scanner.analyzePackage(sourceRoot, scanner.SOURCE_FILE_PATTERNS),
		);
	}

	// Tarball leg: the extracted `npm pack`, with the scanner's patterns for the published package.
	const distPatterns = ['**/*.js', 'package.json']; // as in analyzePackageByName()
	info(`tarball: patterns ${distPatterns.join(' ')}`);
	report('tarball', packageDir, await scanner.analyzePackage(packageDir, distPatterns));
}

function checkProvenanceReadiness(manifest) {
	info(
		'SKIPPED: the scanner reads the provenance attestation of a version published on registry.npmjs.org ' +
			'(versions[v].dist.attestations.provenance, predicate https://slsa.dev/provenance/v1) and fetches ' +
			'the GitHub commit it names. Nothing is published from here, so there is nothing to read; ' +
			'after publishing, run: npx @n8n/scan-community-package ' +
			`${manifest.name}@${manifest.version}`,
	);
	check(
		manifest.publishConfig?.provenance === true,
		'publishConfig.provenance = true: every `npm publish` must produce an attestation (fails outside CI)',
		'publishConfig.provenance should be true',
	);
	check(
		manifest.publishConfig?.access === 'public',
		'publishConfig.access = public',
		'publishConfig.access should be "public"',
	);
	// npm checks at publish time that repository.url is the repository running the workflow; the
	// scanner accepts only GitHub sources (parseSourceRepo).
	const repoUrl =
		typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
	const match =
		/^(?:git\+)?https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?$/.exec(
			repoUrl ?? '',
		);
	check(
		match,
		`repository is on GitHub (${match ? `${match[1]}/${match[2]}` : ''}): where provenance must come from`,
		`repository.url must be https://github.com/<owner>/<repo>(.git) for provenance (is ${repoUrl})`,
	);
	const origin = run('git', ['remote', 'get-url', 'origin']);
	if (origin.status === 0 && match) {
		const remote = origin.stdout.trim().replace(/\.git$/, '');
		if (!remote.toLowerCase().endsWith(`${match[1]}/${match[2]}`.toLowerCase()))
			warn(`git remote origin ${remote} is not ${match[1]}/${match[2]} (repository.url)`);
	}
	const workflowFile = path.join(ROOT, '.github', 'workflows', 'publish.yml');
	if (!fs.existsSync(workflowFile)) {
		fail('.github/workflows/publish.yml is missing (provenance needs a GitHub Actions publish)');
		return;
	}
	const workflow = fs.readFileSync(workflowFile, 'utf8');
	check(
		/id-token:\s*write/.test(workflow) &&
			(/--provenance/.test(workflow) || /NPM_CONFIG_PROVENANCE/.test(workflow)),
		'.github/workflows/publish.yml publishes with --provenance and id-token: write',
		'.github/workflows/publish.yml needs permissions id-token: write and npm publish --provenance',
	);
}

function checkChangelog(version) {
	const file = path.join(ROOT, 'CHANGELOG.md');
	if (!fs.existsSync(file)) {
		fail('CHANGELOG.md is missing');
		return;
	}
	const text = fs.readFileSync(file, 'utf8');
	const escaped = version.replace(/[.+]/g, '\\$&');
	check(
		new RegExp(`^## \\[${escaped}\\]`, 'm').test(text),
		`CHANGELOG.md has a section for ${version}`,
		`CHANGELOG.md has no "## [${version}]" section for the version being published`,
	);
}

/** Files git would publish: tracked plus untracked-but-not-ignored (falls back to a walk). */
let sourceFilesCache;
function listSourceFiles() {
	if (sourceFilesCache) return sourceFilesCache;
	const git = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
	if (git.status === 0) {
		sourceFilesCache = [...new Set(git.stdout.split('\0').filter(Boolean))].sort();
	} else {
		warn('not a git checkout: using every file outside node_modules/, dist/ and dot-directories');
		sourceFilesCache = walk(ROOT, '');
	}
	return sourceFilesCache;
}
function walk(dir, prefix) {
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist')
			continue;
		const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
		if (entry.isDirectory()) out.push(...walk(path.join(dir, entry.name), rel));
		else out.push(rel);
	}
	return out;
}

main().catch((error) => {
	process.stderr.write(`\nverify-package failed to run: ${error.stack ?? error}\n`);
	process.exitCode = 1;
});
