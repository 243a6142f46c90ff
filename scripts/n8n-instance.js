'use strict';
/**
 * One real n8n instance, for the end-to-end suites and the benchmarks: its own user folder, ports
 * and emulator; this package packed and installed as a community package (or `packageTarball`, a
 * packed variant to measure); credentials and workflows imported with n8n's own CLI. Everything it
 * starts is stopped by `close()`, which fails when a key or secret handed to it appears in any
 * n8n log.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const rt = require('./n8n-runtime');
const { startEmulator, KEYS } = require('../emulator');

const { OWNER, EXAMPLE_INBOX } = rt;
const CREDENTIAL = rt.EXAMPLE_CREDENTIAL;
const WEBHOOK_CREDENTIAL = rt.EXAMPLE_WEBHOOK_CREDENTIAL;
const CREDENTIAL_ID = CREDENTIAL.id;
const CREDENTIAL_NAME = CREDENTIAL.name;
const WEBHOOK_CREDENTIAL_ID = WEBHOOK_CREDENTIAL.id;
const WEBHOOK_CREDENTIAL_NAME = WEBHOOK_CREDENTIAL.name;

/**
 * `count` different free loopback ports: all held open at once while they are picked, so that
 * ports picked together for one process (or for a server and a CLI command) cannot coincide.
 */
async function freePorts(count) {
	const net = require('node:net');
	const servers = [];
	try {
		for (let i = 0; i < count; i++) {
			const server = net.createServer();
			servers.push(server);
			await new Promise((resolve, reject) => {
				server.once('error', reject);
				server.listen(0, '127.0.0.1', resolve);
			});
		}
		return servers.map((server) => server.address().port);
	} finally {
		await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
	}
}

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

/**
 * `extraEnv` is merged into the environment of every n8n process of the instance (server, CLI
 * commands, workers, webhook processes), e.g. the queue-mode settings.
 *
 * `runsOverRest`: once the server runs and setupOwner() was called, execute() starts the workflow
 * at its Manual Trigger through n8n's REST API (`POST /rest/workflows/:id/run`, what the editor's
 * Execute button sends) and reads the finished execution through the public API, instead of a
 * cold `n8n execute` process per run (3-10 s each on 2 busy cores). Such a run is a *manual* one:
 * n8n keeps no node memory (static data) after it, so suites that test that memory across runs
 * keep `n8n execute`.
 */
async function createInstance({
	emulator = {},
	label = 'e2e',
	extraEnv = {},
	n8nVersion,
	packageTarball,
	runsOverRest = false,
} = {}) {
	// `n8nVersion` (e.g. '1.123.0') picks another n8n than the default newest 2.x; an n8n 1.x runs
	// on this machine's own Node 20 (`node24` is then that Node).
	const node24 = n8nVersion ? await rt.nodeForN8n(n8nVersion) : await rt.ensureNode24();
	const runtime = n8nVersion ? await rt.ensureN8n(node24, n8nVersion) : await rt.ensureN8n(node24);
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `ocr-${label}-`));
	const filesDir = path.join(userFolder, 'files');
	const inbox = path.join(filesDir, 'ocr-inbox');
	fs.mkdirSync(inbox, { recursive: true });
	rt.installPackage(userFolder);
	// Measuring a variant (e.g. a changed credential) without touching dist/: a packed tarball.
	if (packageTarball)
		execFileSync(
			'npm',
			[
				'install',
				packageTarball,
				'--legacy-peer-deps',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--no-save',
			],
			{ cwd: path.join(userFolder, '.n8n', 'nodes'), stdio: 'ignore' },
		);

	const emu = await startEmulator({ workers: 2, msPerPage: 50, ...emulator });
	const [port, brokerPort, cliBrokerPort] = await freePorts(3);
	const env = rt.n8nEnv(node24, { userFolder, port, brokerPort, filesDir, extra: extraEnv });
	// CLI commands (n8n execute) start their own task broker: give them a port the server does not use.
	const cliEnv = { ...env, N8N_RUNNERS_BROKER_PORT: String(cliBrokerPort) };
	let counter = 0;
	let server;
	/** Workers and webhook processes, in start order (stopped by close()). */
	const processes = [];
	/** Keys and secrets handed to this instance: no log may contain them (see close()). */
	const secrets = new Set();
	/**
	 * Credentials imported before the server starts, by ID (the last import of an ID wins): written
	 * in ONE `n8n import:credentials` call before the next n8n command or the server's start, not
	 * one cold n8n process each.
	 */
	const pendingCredentials = new Map();
	/** The workflows imported, by ID: a run over REST starts at the workflow's Manual Trigger. */
	const workflowsById = new Map();

	const importPendingCredentials = async () => {
		if (!pendingCredentials.size) return;
		const credentials = [...pendingCredentials.values()];
		pendingCredentials.clear();
		const file = path.join(userFolder, `credentials-${++counter}.json`);
		fs.writeFileSync(file, JSON.stringify(credentials));
		await cli('import:credentials', `--input=${file}`);
	};

	/** Queues a credential, or imports it at once while the server runs (it reads the database). */
	const importCredentials = async (credential) => {
		pendingCredentials.set(credential.id, credential);
		if (server) await importPendingCredentials();
	};

	const run = async (args) => {
		await importPendingCredentials();
		const logFile = path.join(
			userFolder,
			`cli-${++counter}-${args[0].replace(/[^a-z]/gi, '')}.log`,
		);
		return await rt.n8nCommand(runtime, node24, cliEnv, args, logFile);
	};
	const failed = (args, result) =>
		new Error(
			`n8n ${args.join(' ')} ${result.signal ? `was ended by ${result.signal}` : `exited ${result.code}`}:\n${result.output.slice(-2000)}`,
		);
	const cli = async (...args) => {
		const result = await run(args);
		if (result.code !== 0) throw failed(args, result);
		return result.output;
	};

	const instance = {
		runtime,
		node24,
		env,
		emu,
		userFolder,
		filesDir,
		inbox,
		port,
		url: `http://127.0.0.1:${port}`,
		cli,
		processes,

		/** Imports the webhook signing-secret credential the example trigger workflow uses. */
		async importWebhookCredential(
			secret,
			{ id = WEBHOOK_CREDENTIAL_ID, name = WEBHOOK_CREDENTIAL_NAME } = {},
		) {
			// An empty secret (the fail-closed tests) is nothing to look for in the logs.
			if (secret) secrets.add(secret);
			await importCredentials({ id, name, type: 'documentOcrWebhookApi', data: { secret } });
		},

		/** Marks a workflow active (published) before the server starts. */
		async publish(id) {
			// n8n 1.x has no publish:workflow; it activates with update:workflow --active=true.
			if (rt.n8nMajor(runtime.version) < 2)
				await cli('update:workflow', `--id=${id}`, '--active=true');
			else await cli('publish:workflow', `--id=${id}`);
		},

		/** Imports (or overwrites) the Document OCR credential pointing at the emulator. */
		async importCredential({
			apiKey = KEYS.full,
			id = CREDENTIAL_ID,
			name = CREDENTIAL_NAME,
			baseUrl = emu.url,
		} = {}) {
			secrets.add(apiKey);
			await importCredentials({
				id,
				name,
				type: 'documentOcrApi',
				data: { apiKey, baseUrl, apiUrl: '' },
			});
		},

		/** Any other credential (e.g. a baseline's Bearer Auth); `secret` is scanned for in logs. */
		async importOtherCredential(credential, secret) {
			if (secret) secrets.add(secret);
			await importCredentials(credential);
		},

		/** Imports workflow JSON objects (the inbox path rewritten to this instance's folder). */
		async importWorkflows(workflows) {
			const dir = fs.mkdtempSync(path.join(userFolder, 'workflows-'));
			workflows.forEach((workflow, i) => {
				workflowsById.set(workflow.id, workflow);
				const text = JSON.stringify(workflow).split(EXAMPLE_INBOX).join(inbox);
				fs.writeFileSync(path.join(dir, `${i}.json`), text);
			});
			await cli('import:workflow', '--separate', `--input=${dir}`);
		},

		/**
		 * `n8n execute --id=…` of a workflow that must fail (it exits 1 and prints no run data):
		 * the failed execution as n8n saved it, read through the public API (server started and
		 * setupOwner() called first).
		 */
		async executeExpectingFailure(id) {
			const before = (await instance.executions(id)).length;
			const result = await run(['execute', `--id=${id}`]);
			if (result.code === 0)
				throw new Error(`n8n execute --id=${id} succeeded; a failure was expected`);
			const after = await instance.executions(id);
			if (after.length !== before + 1)
				throw new Error(`expected one new execution of ${id}, found ${after.length - before}`);
			return after.sort((a, b) => Number(b.id) - Number(a.id))[0];
		},

		/**
		 * The workflow run from its Manual Trigger as the editor runs it (`POST
		 * /rest/workflows/:id/run`, a manual execution); resolves with the finished execution, with
		 * its data, read through the public API. Needs the server and setupOwner().
		 */
		async runManually(id, { timeoutMs = 300_000 } = {}) {
			const trigger = workflowsById
				.get(id)
				?.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
			if (!trigger) throw new Error(`workflow ${id}: no Manual Trigger to run it from`);
			const response = await fetch(`${instance.url}/rest/workflows/${id}/run`, {
				method: 'POST',
				headers: {
					cookie: instance.cookie,
					'browser-id': rt.BROWSER_ID,
					'content-type': 'application/json',
				},
				body: JSON.stringify({ triggerToStartFrom: { name: trigger.name } }),
			});
			const body = await response.json().catch(() => ({}));
			const executionId = body.data?.executionId;
			if (response.status !== 200 || !executionId)
				throw new Error(`running ${id} over REST: HTTP ${response.status} ${JSON.stringify(body)}`);
			const started = Date.now();
			for (;;) {
				// A read that fails on the way (a kept-alive connection the server closed as it was
				// reused: ECONNRESET, seen on a loaded machine) is read again at the next turn.
				const read = await fetch(
					`${instance.url}/api/v1/executions/${executionId}?includeData=true`,
					{ headers: { 'x-n8n-api-key': instance.apiKey, accept: 'application/json' } },
				).catch((error) => ({ status: 0, error }));
				const execution =
					read.status === 200 ? await read.json().catch(() => undefined) : undefined;
				if (execution?.stoppedAt && !['running', 'new'].includes(execution.status))
					return execution;
				if (Date.now() - started > timeoutMs)
					throw new Error(
						`execution ${executionId} of ${id} did not finish in ${timeoutMs / 1000} s${read.error ? ` (the last read: ${read.error.cause?.code ?? read.error.message})` : ''}`,
					);
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
		},

		/**
		 * runManually(), a failed run thrown: execute() over REST for one run, whatever
		 * `runsOverRest` says (an instance shared by suites that run both ways).
		 */
		async executeOverRest(id) {
			const execution = await instance.runManually(id);
			if (execution.status !== 'success') {
				const error = execution.data?.resultData?.error;
				throw new Error(
					`${id} ended ${execution.status}: ${error?.message ?? ''} ${error?.description ?? ''}`,
				);
			}
			return execution;
		},

		/**
		 * `n8n execute --id=… --rawOutput`: the run's data as n8n reports it. With `runsOverRest`
		 * and the server up, runManually() instead; a failed run throws in both.
		 */
		async execute(id) {
			if (runsOverRest && server && instance.cookie) return await instance.executeOverRest(id);
			const args = ['execute', `--id=${id}`, '--rawOutput'];
			const result = await run(args);
			const done = rt.parseExecuteOutput(result.output);
			// n8n 2.41's `execute` has been seen ended by a signal on a loaded machine after it
			// printed the finished run (its teardown, not the workflow): the run as printed is what
			// the caller asked for. Without a finished run printed, the signal fails the call.
			if (result.code !== 0 && !(result.signal && done?.finished === true))
				throw failed(args, result);
			if (result.signal)
				process.stdout.write(
					`n8n execute of ${id} was ended by ${result.signal} after its run finished\n`,
				);
			if (!done)
				throw new Error(`no run data in the output of n8n execute:\n${result.output.slice(-2000)}`);
			return done;
		},

		/**
		 * Sets up the owner on a fresh server; returns its cookie and a public-API key (with
		 * `scopes`: by default reading workflows and executions).
		 */
		async setupOwner({ scopes = ['execution:list', 'execution:read', 'workflow:read'] } = {}) {
			const { cookie } = await rt.setupOwner(instance.url, OWNER);
			if (!cookie) throw new Error('could not sign in as the owner');
			instance.cookie = cookie;
			instance.apiKey = await rt.createApiKey(instance.url, cookie, scopes, label);
			return { cookie, apiKey: instance.apiKey };
		},

		/** A workflow, through n8n's public API (its static data included). */
		async workflow(id) {
			const response = await fetch(`${instance.url}/api/v1/workflows/${id}`, {
				headers: { 'x-n8n-api-key': instance.apiKey, accept: 'application/json' },
			});
			const body = await response.json().catch(() => ({}));
			if (response.status !== 200)
				throw new Error(`n8n public API /workflows/${id}: HTTP ${response.status}`);
			return body;
		},

		/** Executions of a workflow, through n8n's public API (with their data unless told). */
		async executions(workflowId, { includeData = true } = {}) {
			return await rt.publicApiList(
				instance.url,
				instance.apiKey,
				`/executions?workflowId=${workflowId}&limit=250&includeData=${includeData}`,
			);
		},

		/** RSS, peak RSS and CPU ticks of the n8n server process (Linux /proc). */
		serverStats() {
			return server ? procStats(server.child.pid) : undefined;
		},

		/** `n8n start`; `more` is added to its environment only (not to the other processes'). */
		async startServer({ env: more = {} } = {}) {
			await importPendingCredentials();
			server = await rt.startServer(
				runtime,
				node24,
				{ ...env, ...more },
				path.join(userFolder, 'server.log'),
			);
			return server;
		},

		async stopServer() {
			await rt.stopServer(server?.child);
			server = undefined;
		},

		/**
		 * `n8n worker` (queue mode) in its own process group, with its own task-broker port and its
		 * health endpoint on a free port; resolves once it is ready. Stopped by close().
		 */
		async startWorker({ concurrency = 10, env: more = {}, timeoutMs = 300_000 } = {}) {
			await importPendingCredentials();
			const [healthPort, workerBrokerPort] = await freePorts(2);
			const name = `worker-${processes.filter((p) => p.kind === 'worker').length + 1}`;
			const logFile = path.join(userFolder, `${name}.log`);
			const { child, seconds } = await rt.startProcess(
				runtime,
				node24,
				{
					...env,
					N8N_RUNNERS_BROKER_PORT: String(workerBrokerPort),
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					...more,
				},
				['worker', `--concurrency=${concurrency}`],
				{
					logFile,
					readyUrl: `http://127.0.0.1:${healthPort}/healthz/readiness`,
					readyLine: /n8n worker is now ready/,
					timeoutMs,
				},
			);
			const handle = { kind: 'worker', name, child, seconds, logFile, healthPort };
			processes.push(handle);
			return handle;
		},

		/**
		 * `n8n webhook` (queue mode) in its own process group on `port` (a free one by default),
		 * with its own task-broker port; resolves once it serves requests. Stopped by close().
		 */
		async startWebhook({ port: webhookPort, env: more = {}, timeoutMs = 300_000 } = {}) {
			await importPendingCredentials();
			// The given port is not bound yet: keep it out of the ports picked here.
			const picked = (await freePorts(3)).filter((p) => p !== webhookPort);
			webhookPort ??= picked[1];
			const webhookBrokerPort = picked[0];
			const name = `webhook-${processes.filter((p) => p.kind === 'webhook').length + 1}`;
			const logFile = path.join(userFolder, `${name}.log`);
			const url = `http://127.0.0.1:${webhookPort}`;
			const { child, seconds } = await rt.startProcess(
				runtime,
				node24,
				{
					...env,
					N8N_PORT: String(webhookPort),
					N8N_RUNNERS_BROKER_PORT: String(webhookBrokerPort),
					...more,
				},
				['webhook'],
				{
					logFile,
					readyUrl: `${url}/healthz/readiness`,
					readyLine: /Webhook listener waiting for requests/,
					timeoutMs,
				},
			);
			const handle = { kind: 'webhook', name, child, seconds, logFile, port: webhookPort, url };
			processes.push(handle);
			return handle;
		},

		/**
		 * Waits until a workflow has at least `min` executions, none still running or queued, and
		 * the count has not changed for `quietMs`; returns them. The timeout only guards a hang.
		 */
		async settledExecutions(workflowId, min, { quietMs = 3000, timeoutMs = 300_000 } = {}) {
			const started = Date.now();
			let last = -1;
			let since = Date.now();
			for (;;) {
				const list = await instance.executions(workflowId);
				if (list.length !== last) {
					last = list.length;
					since = Date.now();
				}
				if (
					list.length >= min &&
					Date.now() - since >= quietMs &&
					list.every((e) => e.finished || !['running', 'new', 'waiting'].includes(e.status))
				)
					return list;
				if (Date.now() - started > timeoutMs)
					throw new Error(`executions of ${workflowId}: ${list.length}, expected ≥ ${min}`);
				await new Promise((resolve) => setTimeout(resolve, 400));
			}
		},

		/** Pages charged to the emulator account since `mark` (a ledger length taken before). */
		chargedSince(mark, account = 'acme') {
			return (
				0 -
				emu
					.ledger(account)
					.slice(mark)
					.reduce((sum, e) => sum + e.delta, 0)
			);
		},

		/** The log files of every n8n process so far: server, workers, webhook processes, CLI commands. */
		logFiles() {
			const cliLogs = fs
				.readdirSync(userFolder)
				.filter((name) => /^cli-.*\.log$/.test(name))
				.map((name) => path.join(userFolder, name));
			const files = [
				path.join(userFolder, 'server.log'),
				...processes.map((p) => p.logFile),
				...cliLogs,
			];
			return files.filter((file) => fs.existsSync(file));
		},

		/** Stops one worker or webhook process (its whole process group). */
		async stopProcess(handle) {
			await rt.stopServer(handle.child);
		},

		/**
		 * Scans every log of every n8n process (server, workers, webhook processes, CLI commands —
		 * `n8n execute --rawOutput` prints the whole run data) for the API keys and webhook secrets
		 * imported. Returns { files, lines, leaks }.
		 */
		scanLogsForSecrets() {
			const result = { files: 0, lines: 0, leaks: [] };
			for (const file of instance.logFiles()) {
				const text = fs.readFileSync(file, 'utf8');
				result.files++;
				result.lines += text.split('\n').length;
				for (const secret of secrets) {
					const at = text.indexOf(secret);
					if (at !== -1)
						result.leaks.push(
							`${path.basename(file)}: …${text.slice(Math.max(0, at - 80), at)}[secret]`,
						);
				}
			}
			return result;
		},

		/** Stops everything; fails if any log of this instance contained a key or secret. */
		async close() {
			for (const handle of [...processes].reverse()) await rt.stopServer(handle.child);
			await instance.stopServer();
			await emu.close();
			// Scanned before the list is emptied: workers' and webhook processes' logs count too.
			const scan = instance.scanLogsForSecrets();
			processes.length = 0;
			if (!process.env.KEEP_E2E_FOLDERS) fs.rmSync(userFolder, { recursive: true, force: true });
			process.stdout.write(
				`\nSecret scan (${label}): ${scan.files} n8n log files, ${scan.lines} lines — ${scan.leaks.length} leak(s).\n`,
			);
			if (scan.leaks.length) throw new Error(`SECRET LEAK in n8n logs:\n${scan.leaks.join('\n')}`);
		},
	};
	return instance;
}

/** The Manual Trigger node ("Start") that the suites' own workflows begin with. */
function startNode(id) {
	return {
		id,
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/** A workflow file of examples/ as an object. */
function example(file) {
	return JSON.parse(fs.readFileSync(path.join(rt.ROOT, 'examples', file), 'utf8'));
}

/** The output items of a node in a run (first run of the node, first output). */
function nodeOutput(run, nodeName) {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs) return undefined;
	return runs[0].data?.main?.[0] ?? [];
}

function nodeError(run, nodeName) {
	return run.data.resultData.runData[nodeName]?.[0]?.error;
}

module.exports = {
	createInstance,
	procStats,
	CREDENTIAL,
	WEBHOOK_CREDENTIAL,
	startNode,
	example,
	nodeOutput,
	nodeError,
	CREDENTIAL_ID,
	EXAMPLE_INBOX,
	KEYS,
	OWNER,
};
