'use strict';
/**
 * Real n8n for `npm start` and the end-to-end suite, installed the way this machine allows:
 * Node 24 from the npm registry's `node` package, the newest installable n8n 2.x (install scripts
 * off, then sqlite3 and isolated-vm rebuilt against Node 24's headers), both cached OUTSIDE the
 * repository so the second start is fast. The package under test is packed with `npm pack` and
 * installed into n8n's community-nodes folder, exactly as users get it — once per content of
 * dist/, then copied into each n8n's user folder (installPackage).
 *
 * An n8n 1.x (N8N_VERSION=1.123.0, or `1` / `1.x` for the newest installable 1.x) is installed the
 * same way but runs on this machine's own Node 20 (process.execPath): n8n 1.x does not need
 * Node 24, and the compatibility suite proves the package on the Node 1.x users actually run.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;
const CACHE =
	process.env.DOCUMENT_OCR_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-document-ocr');
const NPM = 'npm';
/** Fixed so that every n8n command of one user folder decrypts what the others wrote. */
const ENCRYPTION_KEY = 'document-ocr-local-n8n-encryption-key';

const log = (line) => process.stdout.write(`${line}\n`);

/**
 * The environment for npm commands that install the runtime. When this script runs under `npm`
 * (npm start, npm test), npm exports the project's .npmrc as npm_config_* variables; its
 * ignore-scripts=true must not reach the `node` package's setup script or `npm rebuild`.
 */
function installEnv(extra = {}) {
	const env = { ...process.env, ...extra };
	for (const key of Object.keys(env)) if (/^npm_config_ignore_scripts$/i.test(key)) delete env[key];
	return env;
}

function elapsed(since) {
	return `${Math.round((Date.now() - since) / 1000)} s`;
}

/**
 * Install and CLI processes started here, each in its own process group, until they exit:
 * stopAll() ends them (a Ctrl-C during a first start's install leaves no npm behind).
 */
const running = new Set();

function track(child) {
	running.add(child);
	child.on('exit', () => running.delete(child));
	return child;
}

/** Ends every process that track() holds (SIGTERM to its group, SIGKILL after 5 s). */
async function stopAll() {
	await Promise.all([...running].map((child) => stopServer(child, { graceMs: 5_000 })));
}

/** Runs a long command with its output in a log file and a heartbeat on the console. */
function runLogged(command, args, { cwd, env, label, logFile }) {
	return new Promise((resolve) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = track(
			spawn(command, args, { cwd, env, stdio: ['ignore', out, out], detached: true }),
		);
		const beat = setInterval(() => log(`   … ${label} (${elapsed(started)})`), 15_000);
		child.on('exit', (code) => {
			clearInterval(beat);
			fs.closeSync(out);
			resolve({ code, seconds: (Date.now() - started) / 1000 });
		});
	});
}

function node24Paths() {
	const dir = path.join(CACHE, 'node24');
	const pkg = path.join(dir, 'node_modules', 'node');
	return {
		dir,
		bin: path.join(pkg, 'bin', 'node'),
		binDir: path.join(pkg, 'bin'),
		// node-gyp wants the folder holding include/node/*.h
		headers: path.join(pkg, 'node_modules', `node-${process.platform}-${process.arch}`),
	};
}

/** Node 24 from the registry's `node` package (n8n 2.x requires Node >= 24). */
async function ensureNode24() {
	const paths = node24Paths();
	const ok = () =>
		fs.existsSync(paths.bin) &&
		spawnSync(paths.bin, ['--version']).stdout?.toString().startsWith('v24.');
	if (ok()) return paths;
	fs.mkdirSync(paths.dir, { recursive: true });
	log('» installing Node 24 from the npm registry (package "node@24")');
	const { code, seconds } = await runLogged(
		NPM,
		['install', '--prefix', paths.dir, 'node@24', '--no-audit', '--no-fund'],
		{
			cwd: paths.dir,
			env: installEnv(),
			label: 'installing Node 24',
			logFile: path.join(CACHE, 'install-node24.log'),
		},
	);
	if (code !== 0 || !ok())
		throw new Error(`could not install Node 24 (see ${path.join(CACHE, 'install-node24.log')})`);
	log(`  Node 24 ready in ${Math.round(seconds)} s`);
	return paths;
}

/** The major version of an n8n version string ("1.123.0" -> 1); 2 when none is given. */
function n8nMajor(version) {
	const match = /^(\d+)/.exec(String(version ?? ''));
	return match ? Number(match[1]) : 2;
}

/** This machine's own Node (the one running this script), shaped like ensureNode24's result. */
function systemNode() {
	const bin = process.execPath;
	const headers = spawnSync(NPM, ['config', 'get', 'nodedir'], { encoding: 'utf8' })
		.stdout?.trim()
		.split('\n')
		.pop();
	return {
		dir: path.dirname(path.dirname(bin)),
		bin,
		binDir: path.dirname(bin),
		// npm's own nodedir (e.g. /usr with include/node/*.h for this Node) when it has one.
		headers: headers && headers !== 'undefined' && headers !== 'null' ? headers : undefined,
		version: process.version,
	};
}

/**
 * The Node an n8n version runs on: Node 24 from the registry for n8n 2.x (and the default),
 * this machine's own Node for n8n 1.x (which needs Node >= 20.19 and refuses nothing newer than 24).
 */
async function nodeForN8n(version = process.env.N8N_VERSION) {
	if (n8nMajor(version) >= 2) return await ensureNode24();
	const node = systemNode();
	const [major, minor] = process.versions.node.split('.').map(Number);
	if (major < 20 || (major === 20 && minor < 19) || major > 24)
		throw new Error(`n8n ${version} needs Node 20.19 to 24; this is Node ${process.version}`);
	return node;
}

function envWithNode24(node24, extra = {}) {
	const env = installEnv({
		PATH: `${node24.binDir}${path.delimiter}${process.env.PATH}`,
		...(node24.headers ? { npm_config_nodedir: node24.headers } : {}),
		...extra,
	});
	// jest sets NODE_ENV=test, which silences n8n's logger (and so the output of `n8n execute`).
	delete env.NODE_ENV;
	delete env.JEST_WORKER_ID;
	return env;
}

/**
 * The versions to try, newest first: `requested` when it is an exact version; the newest six of a
 * major when it is `1`, `1.x` or `2.x`; the newest six 2.x by default.
 */
function n8nCandidates(requested) {
	if (requested && !/^\d+(\.x)?$/.test(requested)) return [requested];
	const major = requested ? n8nMajor(requested) : 2;
	const result = spawnSync(NPM, ['view', 'n8n', 'versions', '--json'], { encoding: 'utf8' });
	let versions = [];
	try {
		versions = JSON.parse(result.stdout);
	} catch {
		versions = [];
	}
	const parse = (v) => v.split('.').map(Number);
	return versions
		.filter((v) => new RegExp(`^${major}\\.\\d+\\.\\d+$`).test(v))
		.sort((a, b) => {
			const [x, y] = [parse(a), parse(b)];
			return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
		})
		.slice(0, 6);
}

/** The npm registry npm itself uses here (ends with a slash). */
function registryUrl() {
	const out = spawnSync(NPM, ['config', 'get', 'registry'], { encoding: 'utf8' }).stdout ?? '';
	const url = out.trim().split('\n').pop() || 'https://registry.npmjs.org/';
	return url.endsWith('/') ? url : `${url}/`;
}

/**
 * Whether every n8n-family package that `n8n@version` pins exactly (`@n8n/*`, `n8n-*`, and theirs
 * in turn) exists in the registry — the cause of the ETARGET failures of freshly published n8n
 * releases, whose lock-step packages are not all published (or mirrored) yet. Reads the small
 * per-version manifests (`<registry>/<name>/<version>`, ~10 kB each), ~40 of them, in about a
 * second — instead of a full `npm install` that fails after a minute. Answers
 * `{ ok: true }`, `{ ok: false, missing: 'name@version' }`, or `{ ok: undefined }` when the
 * registry could not be asked (then the install itself decides).
 */
async function n8nResolvable(version, registry = registryUrl()) {
	const family = (name) => name.startsWith('@n8n/') || name.startsWith('n8n-') || name === 'n8n';
	const exact = (range) => /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(range);
	const seen = new Set();
	let queue = [['n8n', version]];
	try {
		while (queue.length) {
			const batch = queue.filter(([name, v]) => !seen.has(`${name}@${v}`));
			batch.forEach(([name, v]) => seen.add(`${name}@${v}`));
			queue = [];
			const answers = await Promise.all(
				batch.map(async ([name, v]) => {
					const url = `${registry}${name.replace('/', '%2f')}/${v}`;
					const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
					if (response.status === 404) return { missing: `${name}@${v}` };
					if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
					return { manifest: await response.json() };
				}),
			);
			for (const answer of answers) {
				if (answer.missing) return { ok: false, missing: answer.missing, checked: seen.size };
				for (const [name, range] of Object.entries(answer.manifest.dependencies ?? {}))
					if (family(name) && exact(range)) queue.push([name, range]);
			}
		}
		return { ok: true, checked: seen.size };
	} catch (error) {
		return { ok: undefined, reason: error.message };
	}
}

/** Native modules n8n needs built for the Node it runs on (those the installed n8n has). */
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];

/**
 * The native modules of an install to build for `nodeVersion` ("v20.20.2"). One whose `engines`
 * excludes that Node cannot be built for it and is left out: isolated-vm 6 (Node >= 22), which the
 * last n8n 1.123.x patches load only for N8N_EXPRESSION_ENGINE=vm.
 */
function nativeModules(dir, nodeVersion) {
	const major = Number(/^v?(\d+)/.exec(nodeVersion)?.[1]);
	return NATIVE_MODULES.filter((name) => {
		const file = path.join(dir, 'node_modules', name, 'package.json');
		if (!fs.existsSync(file)) return false;
		const { version, engines } = JSON.parse(fs.readFileSync(file, 'utf8'));
		const minimum = Number(/^>=\s*(\d+)/.exec(engines?.node ?? '')?.[1] ?? 0);
		if (major >= minimum) return true;
		log(`  ${name}@${version} needs Node >= ${minimum}: not built for Node ${nodeVersion}`);
		return false;
	});
}

function readStamp(file) {
	if (!fs.existsSync(file)) return undefined;
	try {
		const stamp = JSON.parse(fs.readFileSync(file, 'utf8'));
		return fs.existsSync(stamp.bin) ? stamp : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Which cached install answers a request. The default (and `2` / `2.x`) is the newest installable
 * 2.x, remembered in n8n-installed.json as before; `1` / `1.x` in n8n-installed-1.json; an exact
 * version in its own folder's installed.json (or n8n-installed.json, where older runs put it).
 */
function stampFiles(requested) {
	const majorOnly = !requested || /^\d+(\.x)?$/.test(requested);
	const major = n8nMajor(requested);
	const majorStamp = path.join(
		CACHE,
		major === 2 ? 'n8n-installed.json' : `n8n-installed-${major}.json`,
	);
	if (majorOnly) return { read: [majorStamp], write: majorStamp };
	return {
		read: [path.join(CACHE, `n8n-${requested}`, 'installed.json'), majorStamp],
		write: undefined,
	};
}

/** `npm install` of n8n `version` into `dir`, install scripts off (built by `npm rebuild` later). */
async function installN8n(version, dir, env, logFile, nodeVersion) {
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify(
			{
				name: 'document-ocr-n8n-runtime',
				private: true,
				dependencies: { n8n: version },
				overrides:
					n8nMajor(version) >= 2
						? // linkedom@0.18.15 (n8n 2.x) depends on a package the registry does not have.
							{ linkedom: '0.18.14' }
						: // n8n-nodes-base 1.x takes xlsx 0.20.2 from cdn.sheetjs.com (not a registry):
							// the same release as republished on the registry (what n8n 2.x uses).
							{ xlsx: 'npm:@e965/xlsx@0.20.2' },
			},
			null,
			2,
		),
	);
	log(
		`» installing n8n ${version} for Node ${nodeVersion} (first start only; ~3–6 minutes, log: ${logFile})`,
	);
	return await runLogged(NPM, ['install', '--ignore-scripts', '--no-audit', '--no-fund'], {
		cwd: dir,
		env,
		label: `installing n8n ${version}`,
		logFile,
	});
}

/**
 * The newest n8n of a major (2.x by default) that installs here, or exactly `requested` (some
 * newest releases pin @n8n/* packages the registry does not have: those fail fast with ETARGET
 * and the next version is tried). `node` is what nodeForN8n(requested) returns: Node 24 for 2.x,
 * this machine's Node for 1.x; the native modules are built against its headers. Cached per
 * version (CACHE/n8n-<version>/installed.json).
 */
async function ensureN8n(node24, requested = process.env.N8N_VERSION) {
	const stamps = stampFiles(requested);
	const major = n8nMajor(requested);
	// Native modules are built for one Node (stamps without `node` were all built for Node 24).
	const sameNode = (stamp) => (stamp.node ?? node24Paths().bin) === node24.bin;
	for (const file of stamps.read) {
		const stamp = readStamp(file);
		if (!stamp || !sameNode(stamp)) continue;
		const fits = stamps.write ? n8nMajor(stamp.version) === major : stamp.version === requested;
		if (fits) return stamp;
	}
	const nodeVersion = spawnSync(node24.bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
	const env = envWithNode24(node24);
	for (const version of n8nCandidates(requested)) {
		const dir = path.join(CACHE, `n8n-${version}`);
		const bin = path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
		const logFile = path.join(CACHE, `install-n8n-${version}.log`);
		const cached = readStamp(path.join(dir, 'installed.json'));
		if (cached && sameNode(cached)) {
			if (stamps.write) fs.writeFileSync(stamps.write, JSON.stringify(cached, null, 2));
			return cached;
		}
		if (!cached) {
			const check = await n8nResolvable(version);
			if (check.ok === false) {
				log(
					`  n8n ${version} cannot be installed from this registry (${check.missing} is not published there); trying an older ${major}.x`,
				);
				continue;
			}
		}
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(logFile, '');
		// Installed for another Node: only the native modules are built again.
		const install = cached
			? { code: 0, seconds: 0 }
			: await installN8n(version, dir, env, logFile, nodeVersion);
		if (install.code !== 0) {
			const text = fs.readFileSync(logFile, 'utf8');
			if (/ETARGET|E404|notarget/i.test(text)) {
				log(
					`  n8n ${version} cannot be installed from this registry (missing dependency); trying an older ${major}.x`,
				);
				fs.rmSync(dir, { recursive: true, force: true });
				continue;
			}
			throw new Error(`npm install of n8n ${version} failed (see ${logFile})`);
		}
		const natives = nativeModules(dir, nodeVersion);
		log(
			`  ${cached ? `n8n ${version} already installed (for Node ${cached.nodeVersion})` : `installed in ${Math.round(install.seconds)} s`}; building ${natives.join(' and ')} for Node ${nodeVersion}`,
		);
		// (`npm rebuild` without names would rebuild every package.)
		const rebuild = natives.length
			? await runLogged(NPM, ['rebuild', ...natives], {
					cwd: dir,
					env,
					label: `compiling ${natives.join(' / ')}`,
					logFile,
				})
			: { code: 0, seconds: 0 };
		if (rebuild.code !== 0)
			throw new Error(`native rebuild for n8n ${version} failed (see ${logFile})`);
		log(`  native modules built in ${Math.round(rebuild.seconds)} s`);
		const stamp = {
			version,
			dir,
			bin,
			node: node24.bin,
			nodeVersion,
			installSeconds: install.seconds,
			rebuildSeconds: rebuild.seconds,
		};
		fs.writeFileSync(path.join(dir, 'installed.json'), JSON.stringify(stamp, null, 2));
		if (stamps.write) fs.writeFileSync(stamps.write, JSON.stringify(stamp, null, 2));
		return stamp;
	}
	throw new Error(`no installable n8n ${requested ?? '2.x'} was found in the registry`);
}

/**
 * What `npm pack` puts in the tarball, as a hash: dist/ (less what "files" leaves out) and the
 * files npm always packs. The packed and installed package is cached under this key.
 */
function packedContentHash() {
	const crypto = require('node:crypto');
	const hash = crypto.createHash('sha256');
	const dist = path.join(ROOT, 'dist');
	const files = fs
		.readdirSync(dist, { recursive: true, withFileTypes: true })
		.filter((dirent) => dirent.isFile())
		.map((dirent) => path.relative(ROOT, path.join(dirent.parentPath ?? dirent.path, dirent.name)))
		.filter((file) => !/(^|\/)\.(tsbuildinfo|build-inputs)$/.test(file));
	for (const file of ['package.json', 'README.md', 'LICENSE', ...files.sort()]) {
		const full = path.join(ROOT, file);
		if (!fs.existsSync(full)) continue;
		hash.update(`${file}\0`);
		hash.update(fs.readFileSync(full));
		hash.update('\0');
	}
	return hash.digest('hex').slice(0, 16);
}

/**
 * This package packed with `npm pack` and installed (as n8n installs community packages) into a
 * community-nodes folder, once per content of dist/: `<tmp>/ocr-packed-<hash>/nodes`. Every n8n
 * of a CI run (smoke, e2e, reliability, benches) copies that folder instead of packing and
 * installing again. Built in a scratch folder and renamed into place, so two processes that
 * build it at once both end with a whole folder.
 */
function packedPackage() {
	const dir = path.join(os.tmpdir(), `ocr-packed-${packedContentHash()}`);
	const nodes = path.join(dir, 'nodes');
	if (fs.existsSync(path.join(nodes, 'node_modules', PACKAGE_NAME, 'package.json'))) return nodes;
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-pack-'));
	try {
		const pack = spawnSync(NPM, ['pack', '--silent', '--pack-destination', scratch], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
		const tarball = path.join(scratch, pack.stdout.trim().split('\n').pop());
		const scratchNodes = path.join(scratch, 'nodes');
		fs.mkdirSync(scratchNodes);
		fs.writeFileSync(
			path.join(scratchNodes, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true }, null, 2),
		);
		// As n8n installs community packages: no peer dependencies (n8n-workflow comes from n8n itself).
		const install = spawnSync(
			NPM,
			[
				'install',
				tarball,
				'--legacy-peer-deps',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--no-save',
			],
			{ cwd: scratchNodes, encoding: 'utf8' },
		);
		if (install.status !== 0)
			throw new Error(`installing the packed package failed: ${install.stderr}`);
		fs.rmSync(tarball);
		try {
			fs.renameSync(scratch, dir);
		} catch (error) {
			// Another process put the same package there first.
			if (!fs.existsSync(path.join(nodes, 'node_modules', PACKAGE_NAME, 'package.json')))
				throw error;
		}
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
	return nodes;
}

/** This package, packed and installed once (packedPackage), copied into the user folder's community-nodes folder. */
function installPackage(userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const packed = packedPackage();
	if (!fs.existsSync(path.join(nodesDir, 'package.json')))
		fs.copyFileSync(path.join(packed, 'package.json'), path.join(nodesDir, 'package.json'));
	// Replaced whole, as npm replaces an installed package: nothing of an earlier build stays (the
	// demo's .n8n-local/ keeps its folder across starts). Other packages there are left alone.
	const target = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.rmSync(target, { recursive: true, force: true });
	fs.cpSync(path.join(packed, 'node_modules', PACKAGE_NAME), target, { recursive: true });
	return target;
}

/** The environment every n8n command of one instance shares. */
function n8nEnv(node24, { userFolder, port, brokerPort, filesDir, extra = {} }) {
	return envWithNode24(node24, {
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_LEVEL: 'info',
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true',
		N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		// n8n 1.123.76+ evaluates expressions in isolated-vm 6 by default, which needs Node >= 22 (and
		// is not built for an older Node): on Node 20 those n8n crash at start unless told otherwise.
		...(nodeMajor(node24) < 22 ? { N8N_EXPRESSION_ENGINE: 'legacy' } : {}),
		...extra,
	});
}

/** The major version of a Node returned by nodeForN8n / ensureNode24. */
function nodeMajor(node) {
	const version =
		node.version ?? spawnSync(node.bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
	return Number(/^v?(\d+)/.exec(version)?.[1]);
}

/**
 * Runs an n8n CLI command to completion; output goes to a file (never to a pipe: see README).
 * Resolves with its exit code, or the signal that ended it (code null).
 */
function n8nCommand(runtime, node24, env, args, logFile) {
	return new Promise((resolve, reject) => {
		const out = fs.openSync(logFile, 'w');
		const child = track(
			spawn(node24.bin, [runtime.bin, ...args], {
				env,
				stdio: ['ignore', out, out],
				detached: true,
			}),
		);
		child.on('error', reject);
		child.on('exit', (code, signal) => {
			fs.closeSync(out);
			resolve({ code, signal, output: fs.readFileSync(logFile, 'utf8') });
		});
	});
}

function httpGet(url) {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			res.on('end', () => resolve(res.statusCode));
		});
		req.on('error', () => resolve(0));
		req.setTimeout(2000, () => req.destroy());
	});
}

/**
 * Starts `n8n <args>` in its own process group (stopped with stopServer), output in `logFile`,
 * and waits until `readyUrl` answers 200 and the log shows `readyLine`.
 */
async function startProcess(
	runtime,
	node24,
	env,
	args,
	{ logFile, readyUrl, readyLine, timeoutMs },
) {
	const out = fs.openSync(logFile, 'w');
	const child = spawn(node24.bin, [runtime.bin, ...args], {
		env,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	let exited = null;
	child.on('exit', (code, signal) => (exited = { code, signal }));
	const started = Date.now();
	while (Date.now() - started < timeoutMs) {
		if (exited)
			throw new Error(
				`n8n ${args[0]} exited during start (${JSON.stringify(exited)}); see ${logFile}`,
			);
		if ((await httpGet(readyUrl)) === 200 && readyLine.test(fs.readFileSync(logFile, 'utf8')))
			return { child, seconds: (Date.now() - started) / 1000 };
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	await stopServer(child);
	throw new Error(`n8n ${args[0]} did not become ready in ${timeoutMs / 1000} s; see ${logFile}`);
}

/** Starts `n8n start` in its own process group and waits until the editor (and webhooks) are up. */
async function startServer(runtime, node24, env, logFile, { timeoutMs = 300_000 } = {}) {
	const url = `http://${localAddress(env.N8N_LISTEN_ADDRESS)}:${env.N8N_PORT}`;
	const { child, seconds } = await startProcess(runtime, node24, env, ['start'], {
		logFile,
		readyUrl: `${url}/healthz/readiness`,
		readyLine: /Editor is now accessible/,
		timeoutMs,
	});
	return { child, url, seconds };
}

/** Where this machine reaches a server listening on `address` (a wildcard: loopback). */
function localAddress(address) {
	if (!address || address === '0.0.0.0' || address === '::') return '127.0.0.1';
	return address.includes(':') ? `[${address}]` : address;
}

/** Stops a server started by startServer: SIGTERM to its whole process group, SIGKILL after 15 s. */
async function stopServer(child, { graceMs = 15_000 } = {}) {
	if (!child || child.exitCode !== null || child.signalCode !== null) return;
	const done = new Promise((resolve) => child.once('exit', resolve));
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		return;
	}
	const timer = setTimeout(() => {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}, graceMs);
	await done;
	clearTimeout(timer);
}

/** A free loopback port. */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = require('node:net').createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/**
 * The `browser-id` header of every REST call the scripts and tests make: n8n binds its session
 * cookie to it, so a cookie works only with the same value.
 */
const BROWSER_ID = 'document-ocr-scripts';

/**
 * Sets up the owner of a fresh n8n (a started one answers 400: the owner exists) and signs in as
 * it; returns the session cookie (undefined when the owner's password was changed in the editor).
 */
async function setupOwner(serverUrl, owner) {
	const post = (route, body) =>
		fetch(`${serverUrl}${route}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify(body),
		});
	let response = await post('/rest/owner/setup', owner);
	if (response.status !== 200)
		response = await post('/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
	await response.text();
	const cookies = response.headers.getSetCookie?.() ?? [];
	const cookie = cookies.map((c) => c.split(';')[0]).join('; ');
	return { cookie: response.status === 200 && cookie ? cookie : undefined };
}

/** A public-API key of the signed-in owner (`scopes` e.g. execution:read). */
async function createApiKey(serverUrl, cookie, scopes, label = 'document-ocr-scripts') {
	const response = await fetch(`${serverUrl}/rest/api-keys`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'browser-id': BROWSER_ID,
			cookie,
		},
		body: JSON.stringify({ label, scopes, expiresAt: null }),
	});
	const body = await response.json().catch(() => ({}));
	if (!body.data?.rawApiKey) throw new Error(`no n8n API key: HTTP ${response.status}`);
	return body.data.rawApiKey;
}

/** Every page of a list of n8n's public API (`/api/v1${route}`, cursor-paginated). */
async function publicApiList(serverUrl, apiKey, route) {
	const list = [];
	let cursor;
	do {
		const joiner = route.includes('?') ? '&' : '?';
		const url = `${serverUrl}/api/v1${route}${cursor ? `${joiner}cursor=${cursor}` : ''}`;
		const response = await fetch(url, {
			headers: { 'x-n8n-api-key': apiKey, accept: 'application/json' },
		});
		const body = await response.json().catch(() => ({}));
		if (response.status !== 200)
			throw new Error(`n8n public API ${route}: HTTP ${response.status} ${JSON.stringify(body)}`);
		list.push(...body.data);
		cursor = body.nextCursor;
	} while (cursor);
	return list;
}

/** Parses the JSON result that `n8n execute --rawOutput` logs (last JSON-looking log message). */
function parseExecuteOutput(output) {
	let result;
	for (const line of output.split('\n')) {
		const trimmed = line.trim();
		if (!trimmed.startsWith('{')) continue;
		let parsed;
		try {
			parsed = JSON.parse(trimmed);
		} catch {
			continue;
		}
		const message = typeof parsed.message === 'string' ? parsed.message.trim() : undefined;
		if (message && message.startsWith('{')) {
			try {
				result = JSON.parse(message);
			} catch {
				// a log line that merely starts with a brace
			}
		} else if (parsed.data?.resultData) {
			result = parsed;
		}
	}
	return result;
}

/** The owner every local n8n of this project is set up with (demo, e2e suites, benchmarks). */
const OWNER = {
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Document-OCR-2026',
};
/** The credentials the example workflows reference, by ID and name. */
const EXAMPLE_CREDENTIAL = { id: 'ocrLocalEmulator', name: 'Document OCR (local emulator)' };
const EXAMPLE_WEBHOOK_CREDENTIAL = {
	id: 'ocrLocalWebhook1',
	name: 'Document OCR webhook secret (local emulator)',
};
/** The folder the example workflows read; rewritten to the instance's own inbox on import. */
const EXAMPLE_INBOX = '/data/ocr-inbox';

module.exports = {
	OWNER,
	EXAMPLE_CREDENTIAL,
	EXAMPLE_WEBHOOK_CREDENTIAL,
	EXAMPLE_INBOX,
	ROOT,
	CACHE,
	PACKAGE_NAME,
	ensureNode24,
	nodeForN8n,
	n8nMajor,
	ensureN8n,
	n8nResolvable,
	installPackage,
	packedPackage,
	n8nEnv,
	n8nCommand,
	startServer,
	startProcess,
	stopServer,
	stopAll,
	BROWSER_ID,
	setupOwner,
	createApiKey,
	publicApiList,
	freePort,
	parseExecuteOutput,
	log,
};

/**
 * `node scripts/n8n-runtime.js --install <version>`: installs n8n `version` (and the Node it runs
 * on) into the cache, or finds it there, and exits — nothing is started. `.ci/run` starts it in
 * the background early, so the suite that needs that n8n (compat.e2e.js, n8n 1.123.0) finds it
 * cached instead of installing it on the critical path. Exit 1 when the install failed (the suite
 * then installs it itself, as without this).
 */
if (require.main === module) {
	const at = process.argv.indexOf('--install');
	const version = at >= 0 ? process.argv[at + 1] : undefined;
	if (!version) {
		process.stderr.write('usage: node scripts/n8n-runtime.js --install <n8n version>\n');
		process.exit(2);
	}
	const started = Date.now();
	const stop = () => stopAll().then(() => process.exit(1));
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
	(async () => {
		const node = await nodeForN8n(version);
		const runtime = await ensureN8n(node, version);
		log(`n8n ${runtime.version} ready in ${CACHE} (${elapsed(started)})`);
	})().catch((error) => {
		log(`n8n ${version} not installed (${elapsed(started)}): ${error.message}`);
		process.exit(1);
	});
}
