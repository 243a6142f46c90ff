'use strict';
/**
 * One real n8n 2.x instance for the benchmarks (the e2e suite has its own, under test/): its own
 * user folder and ports, the emulator, this package packed and installed as a community package,
 * credentials and workflows imported with n8n's CLI. `close()` stops everything it started and
 * fails when a key or secret handed to the instance appears in any n8n log.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const rt = require('../scripts/n8n-runtime');
const { startEmulator, KEYS } = require('../emulator');

const OWNER = {
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Document-OCR-2026',
};
const CREDENTIAL = { id: 'ocrLocalEmulator', name: 'Document OCR (local emulator)' };
const WEBHOOK_CREDENTIAL = {
	id: 'ocrLocalWebhook1',
	name: 'Document OCR webhook secret (local emulator)',
};

/** Memory and CPU of a running process, from /proc (Linux): RSS and its peak, CPU ticks. */
function procStats(pid) {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return {
			rss: kb('VmRSS') * 1024,
			hwm: kb('VmHWM') * 1024,
			// utime + stime, in clock ticks (usually 1/100 s)
			cpuTicks: Number(fields[11]) + Number(fields[12]),
		};
	} catch {
		return undefined;
	}
}

async function createInstance({ label = 'bench', emulator = {}, extraEnv = {} } = {}) {
	const node24 = await rt.ensureNode24();
	const runtime = await rt.ensureN8n(node24);
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `ocr-${label}-`));
	const filesDir = path.join(userFolder, 'files');
	const inbox = path.join(filesDir, 'ocr-inbox');
	fs.mkdirSync(inbox, { recursive: true });
	rt.installPackage(userFolder);
	// Measuring a variant (e.g. a changed credential) without touching dist/: a packed tarball.
	if (process.env.BENCH_PACKAGE_TGZ)
		require('node:child_process').execFileSync(
			'npm',
			[
				'install',
				process.env.BENCH_PACKAGE_TGZ,
				'--legacy-peer-deps',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--no-save',
			],
			{ cwd: path.join(userFolder, '.n8n', 'nodes'), stdio: 'ignore' },
		);

	const emu = await startEmulator({ workers: 2, msPerPage: 50, ...emulator });
	const port = await rt.freePort();
	let brokerPort = await rt.freePort();
	while (brokerPort === port) brokerPort = await rt.freePort();
	const env = rt.n8nEnv(node24, { userFolder, port, brokerPort, filesDir, extra: extraEnv });
	let counter = 0;
	let server;
	const secrets = new Set();

	/** `n8n <args>` as a CLI command (its own task-broker port), output in a log file. */
	const run = async (args) => {
		const logFile = path.join(
			userFolder,
			`cli-${++counter}-${args[0].replace(/[^a-z]/gi, '')}.log`,
		);
		let cliBroker = await rt.freePort();
		while (cliBroker === port || cliBroker === brokerPort) cliBroker = await rt.freePort();
		return await rt.n8nCommand(
			runtime,
			node24,
			{ ...env, N8N_RUNNERS_BROKER_PORT: String(cliBroker) },
			args,
			logFile,
		);
	};
	const cli = async (...args) => {
		const result = await run(args);
		if (result.code !== 0)
			throw new Error(
				`n8n ${args.join(' ')} exited ${result.code}:\n${result.output.slice(-2000)}`,
			);
		return result.output;
	};
	const importJson = async (kind, name, data) => {
		const file = path.join(userFolder, `${name}.json`);
		fs.writeFileSync(file, JSON.stringify(data));
		await cli(`import:${kind}`, `--input=${file}`);
	};

	const instance = {
		runtime,
		emu,
		env,
		userFolder,
		inbox,
		url: `http://127.0.0.1:${port}`,
		cli,

		/** The Document OCR credential pointing at the emulator. */
		async importCredential(apiKey = KEYS.full) {
			secrets.add(apiKey);
			await importJson('credentials', 'credential-ocr', [
				{ ...CREDENTIAL, type: 'documentOcrApi', data: { apiKey, baseUrl: emu.url, apiUrl: '' } },
			]);
		},

		/** Any other credential (e.g. the baseline's Bearer Auth); `secret` is scanned for in logs. */
		async importOtherCredential(credential, secret) {
			if (secret) secrets.add(secret);
			await importJson('credentials', `credential-${credential.id}`, [credential]);
		},

		async importWebhookCredential(secret) {
			secrets.add(secret);
			await importJson('credentials', 'credential-webhook', [
				{ ...WEBHOOK_CREDENTIAL, type: 'documentOcrWebhookApi', data: { secret } },
			]);
		},

		async importWorkflows(workflows) {
			const dir = fs.mkdtempSync(path.join(userFolder, 'workflows-'));
			workflows.forEach((w, i) => fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(w)));
			await cli('import:workflow', '--separate', `--input=${dir}`);
		},

		async publish(id) {
			await cli('publish:workflow', `--id=${id}`);
		},

		/** `n8n execute --id=… --rawOutput`: the run's data as n8n reports it. */
		async execute(id) {
			const output = await cli('execute', `--id=${id}`, '--rawOutput');
			const result = rt.parseExecuteOutput(output);
			if (!result)
				throw new Error(`no run data in the output of n8n execute:\n${output.slice(-2000)}`);
			return result;
		},

		async startServer() {
			server = await rt.startServer(runtime, node24, env, path.join(userFolder, 'server.log'));
			return server;
		},

		/** RSS, peak RSS and CPU ticks of the n8n server process. */
		serverStats() {
			return server ? procStats(server.child.pid) : undefined;
		},

		/** Sets up the owner and a public-API key that reads workflows and executions. */
		async setupOwner() {
			const { cookie } = await rt.setupOwner(instance.url, OWNER);
			if (!cookie) throw new Error('could not sign in as the owner');
			instance.apiKey = await rt.createApiKey(
				instance.url,
				cookie,
				['execution:list', 'execution:read', 'workflow:read'],
				'bench',
			);
		},

		async executions(workflowId, { includeData = true } = {}) {
			return await rt.publicApiList(
				instance.url,
				instance.apiKey,
				`/executions?workflowId=${workflowId}&limit=250&includeData=${includeData}`,
			);
		},

		async close() {
			await rt.stopServer(server?.child);
			server = undefined;
			await emu.close();
			let leaks = 0;
			for (const name of fs.readdirSync(userFolder).filter((n) => n.endsWith('.log'))) {
				const text = fs.readFileSync(path.join(userFolder, name), 'utf8');
				for (const secret of secrets) if (text.includes(secret)) leaks++;
			}
			if (!process.env.KEEP_BENCH_FOLDERS) fs.rmSync(userFolder, { recursive: true, force: true });
			if (leaks) throw new Error(`SECRET LEAK: a key or secret appears in ${leaks} n8n log(s)`);
		},
	};
	return instance;
}

module.exports = { createInstance, procStats, KEYS, CREDENTIAL, WEBHOOK_CREDENTIAL };
