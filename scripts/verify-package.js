#!/usr/bin/env node
'use strict';
/**
 * `npm run verify` — the package as it would be published (the `npm pack` tarball), checked with
 * what `npm run lint` cannot see. CI runs `npm run lint` first (n8n-node lint: @n8n/node-cli's
 * config, i.e. @n8n/eslint-plugin-community-nodes `recommended` and eslint-plugin-n8n-nodes-base's
 * `community` rules on package.json, `credentials` / `nodes` rules on the .ts sources; in strict
 * mode it also fails when eslint.config.mjs is not the node-cli template), so nothing here
 * repeats a lint rule: package name, keywords, the "n8n" block, licence, author, description,
 * runtime dependencies, peer dependencies and credential references are lint's.
 *
 * n8n verifies a community package with `@n8n/scan-community-package`: npm provenance, then
 * ESLint with its rule plugins and inline disables ignored over the attested GitHub source and
 * the published tarball. Its public interface is the CLI on a published version, which the publish
 * workflow runs; before publishing, this script runs the same rules through ESLint's API
 * (runScannerRules below), with a canary that proves they fire.
 *
 * What else is checked here, none of it by a lint rule: only dist/**, README, LICENSE and
 * package.json are packed; LICENSE is the MIT text; dist/ is built from every source with no
 * orphans (stale: a warning); the n8n.nodes / n8n.credentials files are in the tarball and load;
 * n8n.strict is true; no optionalDependencies / bundleDependencies; "main", when set, is packed;
 * the codex files (.node.json: ids, version, categories, documentation links); provenance
 * readiness (publishConfig, a GitHub repository, the publish workflow); a CHANGELOG section for
 * the version.
 *
 * Usage: npm run build && npm run lint && npm run verify   (--keep: keep the temporary directory)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { n8nCommunityNodesPlugin } = require('@n8n/eslint-plugin-community-nodes');
const tsParser = require('@typescript-eslint/parser');
const { ESLint } = require('eslint');

const ROOT = path.resolve(__dirname, '..');
const KEEP = process.argv.includes('--keep');

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
/** What the published tarball may contain besides dist/. */
const ALLOWED_TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'LICENSE.md']);

const failures = [];
let currentCheck = '';
const out = (line) => process.stdout.write(`${line}\n`);

function section(title) {
	currentCheck = title;
	out(`\n== ${title}`);
}
function fail(message, detail) {
	failures.push(`[${currentCheck}] ${message}`);
	out(`  ✖ ${message}`);
	if (detail) out(detail.replace(/^/gm, '      '));
}
function check(condition, okMessage, failMessage) {
	if (condition) out(`  ✔ ${okMessage}`);
	else fail(failMessage);
}
function run(command, args) {
	const result = spawnSync(command, args, {
		cwd: ROOT,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		shell: process.platform === 'win32',
	});
	if (result.error) throw result.error;
	return result;
}

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-package-'));
	try {
		// ── The tarball, extracted as the scanner extracts it ─────────────────────────────────
		section('Tarball (npm pack, tar -xzf --strip-components=1)');
		const pack = run('npm', ['pack', '--json', '--pack-destination', work]);
		if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
		const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')))[0];
		const packageDir = path.join(work, 'package');
		fs.mkdirSync(packageDir);
		const tar = run('tar', [
			'-xzf',
			path.join(work, packed.filename),
			'-C',
			packageDir,
			'--strip-components=1',
		]);
		if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
		const files = packed.files.map((file) => file.path.replace(/\\/g, '/')).sort();
		out(`  · ${packed.filename}: ${files.length} files, ${packed.size} bytes packed`);
		const extra = files.filter((file) => !file.startsWith('dist/') && !ALLOWED_TOP_LEVEL.has(file));
		check(
			extra.length === 0,
			'only dist/**, README.md, LICENSE(.md) and package.json',
			`files outside dist/, README.md, LICENSE(.md), package.json: ${extra.join(', ')}`,
		);
		check(files.includes('README.md'), 'README.md is packed', 'README.md is not packed');
		const license = files.find((file) => file === 'LICENSE' || file === 'LICENSE.md');
		const licenseText = license ? fs.readFileSync(path.join(packageDir, license), 'utf8') : '';
		check(
			/^\s*MIT License/.test(licenseText),
			`${license} is packed and is the MIT License`,
			'no LICENSE(.md) with the MIT License text is packed (package.json says MIT)',
		);
		checkDistAgainstSources(files);
		const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));

		section('package.json as packed (what the lint rules do not check)');
		checkManifest(manifest, packageDir);

		section('Nodes, credentials and codex files (as packed)');
		checkNodesAndCodex(manifest, packageDir);

		section("n8n community-package scanner's rules (ESLint, inline disables ignored)");
		await runScannerRules(packageDir);

		section('npm provenance (scanner steps 1–2)');
		checkProvenanceReadiness(manifest);

		section('CHANGELOG.md');
		const changelog = path.join(ROOT, 'CHANGELOG.md');
		const text = fs.existsSync(changelog) ? fs.readFileSync(changelog, 'utf8') : '';
		check(
			new RegExp(`^## \\[${manifest.version.replace(/[.+]/g, '\\$&')}\\]`, 'm').test(text),
			`CHANGELOG.md has a section for ${manifest.version}`,
			`CHANGELOG.md has no "## [${manifest.version}]" section for the version being published`,
		);
	} finally {
		if (KEEP) out(`\n(kept ${work})`);
		else fs.rmSync(work, { recursive: true, force: true });
	}

	if (failures.length) {
		out(`\nFAIL: ${failures.length} problem(s):`);
		for (const failure of failures) out(`  ✖ ${failure}`);
		process.exitCode = 1;
	} else {
		out(
			"\nPASS: the packed package passes the scanner's rules and the package checks (lint: npm run lint)",
		);
	}
}

/** Every packed dist/ file comes from a current source, and every source is built. */
function checkDistAgainstSources(files) {
	const dist = files.filter((file) => file.startsWith('dist/'));
	const orphans = dist.filter((file) => {
		const rel = file.slice('dist/'.length);
		if (rel.endsWith('.tsbuildinfo')) return true;
		return !fs.existsSync(path.join(ROOT, rel.replace(/\.(d\.ts|js\.map|js)$/, '.ts')));
	});
	check(
		orphans.length === 0,
		'every dist/ file comes from a source in nodes/ or credentials/',
		`dist/ files no source produces (run \`npm run clean && npm run build\`): ${orphans.join(', ')}`,
	);
	const sources = listSourceFiles().filter((file) => /^(nodes|credentials)\/.*\.ts$/.test(file));
	const built = (source) => `dist/${source.replace(/\.ts$/, '.js')}`;
	const unbuilt = sources.filter((source) => !dist.includes(built(source)));
	check(
		unbuilt.length === 0,
		`all ${sources.length} TypeScript sources are built into dist/`,
		`sources missing from the package (run \`npm run build\`): ${unbuilt.join(', ')}`,
	);
	const stale = sources.filter(
		(source) =>
			!unbuilt.includes(source) &&
			fs.statSync(path.join(ROOT, source)).mtimeMs >
				fs.statSync(path.join(ROOT, built(source))).mtimeMs,
	);
	if (stale.length)
		out(
			`  ! dist/ is older than its source for ${stale.map(built).join(', ')} — run \`npm run build\``,
		);
}

function checkManifest(manifest, packageDir) {
	check(
		manifest.n8n?.strict === true,
		'n8n.strict = true (n8n-node lint enforces the node-cli ESLint config)',
		`n8n.strict must be true: only then does n8n-node lint insist on the default config (is ${JSON.stringify(manifest.n8n?.strict)})`,
	);
	const bundled = ['optionalDependencies', 'bundleDependencies', 'bundledDependencies'].filter(
		(key) => Object.keys(manifest[key] ?? {}).length > 0,
	);
	check(
		bundled.length === 0,
		'no optionalDependencies / bundleDependencies',
		`runtime dependencies are not allowed: ${bundled.join(', ')}`,
	);
	if (manifest.main !== undefined && !fs.existsSync(path.join(packageDir, manifest.main)))
		fail(
			`"main" is ${manifest.main}, which is not in the tarball (n8n loads n8n.nodes; drop "main")`,
		);
}

/**
 * Loads a node or credential class from a packed path. The extracted tarball has no node_modules
 * (n8n-workflow is a peer dependency), so the identical file in this repository's dist/ is loaded
 * — after checking it is byte-for-byte the packed one.
 */
function loadPackedClass(entry, packageDir) {
	const packedFile = path.join(packageDir, entry);
	const localFile = path.join(ROOT, entry);
	if (!entry.endsWith('.js') || !fs.existsSync(packedFile)) {
		fail(`${entry} must be a .js file in the tarball`);
		return null;
	}
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
		const Class = exported[base] ?? Object.values(exported).find((v) => typeof v === 'function');
		if (typeof Class !== 'function') throw new Error(`no exported class "${base}"`);
		out(`  ✔ ${entry} is packed and loads`);
		return Class;
	} catch (error) {
		fail(`${entry}: cannot be loaded: ${error.message}`);
		return null;
	}
}

function checkNodesAndCodex(manifest, packageDir) {
	for (const entry of manifest.n8n?.credentials ?? []) loadPackedClass(entry, packageDir);
	for (const entry of manifest.n8n?.nodes ?? []) {
		const NodeClass = loadPackedClass(entry, packageDir);
		if (!NodeClass) continue;
		const description = new NodeClass().description ?? {};
		const versions = [].concat(description.version ?? []);
		const codexPath = `${entry}on`; // X.node.js → X.node.json, as n8n's DirectoryLoader looks it up
		let codex;
		try {
			codex = JSON.parse(fs.readFileSync(path.join(packageDir, codexPath), 'utf8'));
		} catch (error) {
			fail(`${codexPath} is missing from the tarball or not JSON (${error.message})`);
			continue;
		}
		const problems = [];
		const nodeIds = [manifest.name, `${manifest.name}.${description.name}`];
		if (!nodeIds.includes(codex.node))
			problems.push(
				`"node" must be "${nodeIds[1]}" (or "${nodeIds[0]}"), is ${JSON.stringify(codex.node)}`,
			);
		if (codex.codexVersion !== '1.0') problems.push('"codexVersion" must be "1.0"');
		if (!versions.includes(Number(codex.nodeVersion)))
			problems.push(
				`"nodeVersion" ${JSON.stringify(codex.nodeVersion)} is not a version of the node (${versions.join(', ')})`,
			);
		const categories = Array.isArray(codex.categories) ? codex.categories : [];
		const unknown = categories.filter((category) => !CODEX_CATEGORIES.includes(category));
		if (categories.length === 0 || unknown.length)
			problems.push(
				`"categories" must be non-empty, from n8n's list (${CODEX_CATEGORIES.join(', ')}); unknown: ${unknown.join(', ') || 'none'}`,
			);
		const links = (key) => (codex.resources?.[key] ?? []).map((link) => link?.url);
		const https = (urls) => urls.every((url) => /^https:\/\/\S+$/.test(url ?? ''));
		if (links('primaryDocumentation').length === 0 || !https(links('primaryDocumentation')))
			problems.push('resources.primaryDocumentation needs https URLs');
		const credentialDocs = links('credentialDocumentation');
		if (
			(description.credentials ?? []).length > 0 &&
			(credentialDocs.length === 0 || !https(credentialDocs))
		)
			problems.push(
				'resources.credentialDocumentation needs https URLs (the node uses credentials)',
			);
		if (problems.length === 0)
			out(`  ✔ ${codexPath}: categories ${categories.join(', ')}; documentation links set`);
		for (const problem of problems) fail(`${codexPath}: ${problem}`);
	}
}

/**
 * n8n's scanner lints the attested source and the published tarball with its rule plugins and
 * inline disables ignored; its only public interface is the CLI on a published version (run by
 * the publish workflow). Before publishing, the same thing through public interfaces: ESLint with
 * `allowInlineConfig: false` on the sources with the node-cli config (the scanner's source rules
 * are node-cli's, so n8n-node lint differs only by honouring disables), and on the tarball's
 * `.js` and package.json with @n8n/eslint-plugin-community-nodes' `recommended` and no-console
 * (the scanner's tarball leg), after a canary proves those rules fire.
 */
async function runScannerRules(packageDir) {
	const report = (label, dir, results) => {
		const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
		if (errors === 0) return out(`  ✔ ${label}: ${results.length} files, no ESLint errors`);
		const details = results
			.filter((result) => result.errorCount > 0)
			.flatMap((result) =>
				result.messages.map(
					(m) => `${path.relative(dir, result.filePath)}:${m.line} ${m.ruleId}: ${m.message}`,
				),
			);
		fail(`${label}: ${errors} ESLint error(s)`, details.join('\n'));
	};

	const source = new ESLint({ cwd: ROOT, allowInlineConfig: false });
	report(
		'source (inline disables ignored)',
		ROOT,
		await source.lintFiles(['package.json', 'nodes', 'credentials']),
	);

	const tarball = new ESLint({
		cwd: packageDir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: [
			n8nCommunityNodesPlugin.configs.recommended,
			{ rules: { 'no-console': 'error' } },
			{ files: ['**/*.json'], languageOptions: { parser: tsParser } },
		],
	});
	const canary = [
		...(await tarball.lintText("console.log('canary');\n", {
			filePath: path.join(packageDir, 'dist', 'canary.js'),
		})),
		...(await tarball.lintText('{ "name": "canary", "version": "1.0.0" }\n', {
			filePath: path.join(packageDir, 'package.json'),
		})),
	].flatMap((result) => result.messages.map((m) => m.ruleId));
	check(
		canary.includes('no-console') && canary.some((rule) => /package-name-convention/.test(rule)),
		'canary with known violations (.js, package.json) is rejected: the rules are active',
		`the tarball rules did not reject the canary (${canary.join(', ') || 'no errors'})`,
	);
	report('tarball', packageDir, await tarball.lintFiles(['**/*.js', 'package.json']));
}

function checkProvenanceReadiness(manifest) {
	out(
		'  · the attestation itself exists only once published: then run ' +
			`npx @n8n/scan-community-package ${manifest.name}@${manifest.version}`,
	);
	check(
		manifest.publishConfig?.provenance === true && manifest.publishConfig?.access === 'public',
		'publishConfig: provenance true, access public',
		'publishConfig needs provenance: true and access: "public"',
	);
	// npm checks at publish time that repository.url is the repository running the workflow; the
	// scanner accepts only GitHub sources (parseSourceRepo).
	const repoUrl = manifest.repository?.url ?? manifest.repository;
	const match = /^(?:git\+)?https:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(
		repoUrl ?? '',
	);
	check(
		match,
		`repository is on GitHub (${match?.slice(1).join('/')}): where provenance must come from`,
		`repository.url must be https://github.com/<owner>/<repo>(.git) for provenance (is ${repoUrl})`,
	);
	const workflowFile = path.join(ROOT, '.github', 'workflows', 'publish.yml');
	const workflow = fs.existsSync(workflowFile) ? fs.readFileSync(workflowFile, 'utf8') : '';
	check(
		/id-token:\s*write/.test(workflow) && /--provenance|NPM_CONFIG_PROVENANCE/.test(workflow),
		'.github/workflows/publish.yml publishes with --provenance and id-token: write',
		'.github/workflows/publish.yml needs permissions id-token: write and npm publish --provenance',
	);
}

/** Files git would publish: tracked plus untracked-but-not-ignored. */
let sourceFiles;
function listSourceFiles() {
	if (sourceFiles) return sourceFiles;
	const git = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
	if (git.status !== 0)
		throw new Error(`git ls-files failed (run in a git checkout): ${git.stderr}`);
	sourceFiles = [...new Set(git.stdout.split('\0').filter(Boolean))].sort();
	return sourceFiles;
}

main().catch((error) => {
	process.stderr.write(`\nverify-package failed to run: ${error.stack ?? error}\n`);
	process.exitCode = 1;
});
