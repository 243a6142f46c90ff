'use strict';
/**
 * Real n8n for `npm start` and the end-to-end suite, installed the way this machine allows:
 * Node 24 from the npm registry's `node` package, the newest installable n8n 2.x (install scripts
 * off, then sqlite3 and isolated-vm rebuilt against Node 24's headers), both cached OUTSIDE the
 * repository so the second start is fast. The package under test is packed with `npm pack` and
 * installed into n8n's community-nodes folder, exactly as users get it.
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

/** Runs a long command with its output in a log file and a heartbeat on the console. */
function runLogged(command, args, { cwd, env, label, logFile }) {
	return new Promise((resolve) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
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

function envWithNode24(node24, extra = {}) {
	const env = installEnv({
		PATH: `${node24.binDir}${path.delimiter}${process.env.PATH}`,
		npm_config_nodedir: node24.headers,
		...extra,
	});
	// jest sets NODE_ENV=test, which silences n8n's logger (and so the output of `n8n execute`).
	delete env.NODE_ENV;
	delete env.JEST_WORKER_ID;
	return env;
}

function n8nCandidates(requested) {
	if (requested) return [requested];
	const result = spawnSync(NPM, ['view', 'n8n', 'versions', '--json'], { encoding: 'utf8' });
	let versions = [];
	try {
		versions = JSON.parse(result.stdout);
	} catch {
		versions = [];
	}
	const parse = (v) => v.split('.').map(Number);
	return versions
		.filter((v) => /^2\.\d+\.\d+$/.test(v))
		.sort((a, b) => {
			const [x, y] = [parse(a), parse(b)];
			return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
		})
		.slice(0, 6);
}

/**
 * The newest n8n 2.x that installs here (some newest releases pin @n8n/* packages the registry
 * does not have: those fail fast with ETARGET and the next version is tried). Cached per version.
 */
async function ensureN8n(node24, requested = process.env.N8N_VERSION) {
	const stampFile = path.join(CACHE, 'n8n-installed.json');
	if (fs.existsSync(stampFile)) {
		const stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
		if ((!requested || stamp.version === requested) && fs.existsSync(stamp.bin)) return stamp;
	}
	const env = envWithNode24(node24);
	for (const version of n8nCandidates(requested)) {
		const dir = path.join(CACHE, `n8n-${version}`);
		const bin = path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
		const logFile = path.join(CACHE, `install-n8n-${version}.log`);
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify(
				{
					name: 'document-ocr-n8n-runtime',
					private: true,
					dependencies: { n8n: version },
					// linkedom@0.18.15 depends on a package the registry does not have.
					overrides: { linkedom: '0.18.14' },
				},
				null,
				2,
			),
		);
		log(`» installing n8n ${version} (first start only; ~3–4 minutes, log: ${logFile})`);
		const install = await runLogged(
			NPM,
			['install', '--ignore-scripts', '--no-audit', '--no-fund'],
			{
				cwd: dir,
				env,
				label: `installing n8n ${version}`,
				logFile,
			},
		);
		if (install.code !== 0) {
			const text = fs.readFileSync(logFile, 'utf8');
			if (/ETARGET|E404|notarget/i.test(text)) {
				log(
					`  n8n ${version} cannot be installed from this registry (missing dependency); trying an older 2.x`,
				);
				fs.rmSync(dir, { recursive: true, force: true });
				continue;
			}
			throw new Error(`npm install of n8n ${version} failed (see ${logFile})`);
		}
		log(
			`  installed in ${Math.round(install.seconds)} s; building sqlite3 and isolated-vm for Node 24`,
		);
		const rebuild = await runLogged(NPM, ['rebuild', 'sqlite3', 'isolated-vm'], {
			cwd: dir,
			env,
			label: 'compiling sqlite3 / isolated-vm',
			logFile,
		});
		if (rebuild.code !== 0)
			throw new Error(`native rebuild for n8n ${version} failed (see ${logFile})`);
		log(`  native modules built in ${Math.round(rebuild.seconds)} s`);
		const stamp = {
			version,
			dir,
			bin,
			installSeconds: install.seconds,
			rebuildSeconds: rebuild.seconds,
		};
		fs.writeFileSync(stampFile, JSON.stringify(stamp, null, 2));
		return stamp;
	}
	throw new Error('no installable n8n 2.x was found in the registry');
}

/** `npm pack` this package and install the tarball into the user folder's community-nodes folder. */
function installPackage(userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-pack-'));
	const pack = spawnSync(NPM, ['pack', '--silent', '--pack-destination', packDir], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
	const tarball = path.join(packDir, pack.stdout.trim().split('\n').pop());
	if (!fs.existsSync(path.join(nodesDir, 'package.json'))) {
		fs.writeFileSync(
			path.join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true }, null, 2),
		);
	}
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
		{
			cwd: nodesDir,
			encoding: 'utf8',
		},
	);
	fs.rmSync(packDir, { recursive: true, force: true });
	if (install.status !== 0)
		throw new Error(`installing the packed package failed: ${install.stderr}`);
	return path.join(nodesDir, 'node_modules', PACKAGE_NAME);
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
		...extra,
	});
}

/** Runs an n8n CLI command to completion; output goes to a file (never to a pipe: see README). */
function n8nCommand(runtime, node24, env, args, logFile) {
	return new Promise((resolve, reject) => {
		const out = fs.openSync(logFile, 'w');
		const child = spawn(node24.bin, [runtime.bin, ...args], { env, stdio: ['ignore', out, out] });
		child.on('error', reject);
		child.on('exit', (code) => {
			fs.closeSync(out);
			resolve({ code, output: fs.readFileSync(logFile, 'utf8') });
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

/** Starts `n8n start` in its own process group and waits until the editor (and webhooks) are up. */
async function startServer(runtime, node24, env, logFile, { timeoutMs = 120_000 } = {}) {
	const out = fs.openSync(logFile, 'w');
	const child = spawn(node24.bin, [runtime.bin, 'start'], {
		env,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	let exited = null;
	child.on('exit', (code, signal) => (exited = { code, signal }));
	const started = Date.now();
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	while (Date.now() - started < timeoutMs) {
		if (exited)
			throw new Error(`n8n exited during start (${JSON.stringify(exited)}); see ${logFile}`);
		const ready = (await httpGet(`${url}/healthz/readiness`)) === 200;
		if (ready && /Editor is now accessible/.test(fs.readFileSync(logFile, 'utf8'))) {
			return { child, url, seconds: (Date.now() - started) / 1000 };
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	await stopServer(child);
	throw new Error(`n8n did not become ready in ${timeoutMs / 1000} s; see ${logFile}`);
}

/** Stops a server started by startServer: SIGTERM to its whole process group, SIGKILL after 15 s. */
async function stopServer(child) {
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
	}, 15_000);
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

module.exports = {
	ROOT,
	CACHE,
	PACKAGE_NAME,
	ensureNode24,
	ensureN8n,
	installPackage,
	n8nEnv,
	n8nCommand,
	startServer,
	stopServer,
	freePort,
	parseExecuteOutput,
	log,
};
