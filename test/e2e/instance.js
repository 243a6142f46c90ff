'use strict';
/**
 * One real n8n instance for the end-to-end suite: its own user folder, ports and emulator; this
 * package packed and installed as a community package; credential and workflows imported with
 * n8n's own CLI. Everything it starts is stopped by `close()`.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const rt = require('../../scripts/n8n-runtime');
const { request } = require('undici');
const { startEmulator, KEYS } = require('../emulator');

const OWNER = {
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Document-OCR-2026',
};

const CREDENTIAL_ID = 'ocrLocalEmulator';
const CREDENTIAL_NAME = 'Document OCR (local emulator)';
const WEBHOOK_CREDENTIAL_ID = 'ocrLocalWebhook1';
/** The folder the example workflows read; rewritten to the instance's own folder on import. */
const EXAMPLE_INBOX = '/data/ocr-inbox';

async function createInstance({ emulator = {}, label = 'e2e' } = {}) {
	const node24 = await rt.ensureNode24();
	const runtime = await rt.ensureN8n(node24);
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `ocr-${label}-`));
	const filesDir = path.join(userFolder, 'files');
	const inbox = path.join(filesDir, 'ocr-inbox');
	fs.mkdirSync(inbox, { recursive: true });
	rt.installPackage(userFolder);

	const emu = await startEmulator({ workers: 2, msPerPage: 50, ...emulator });
	const port = await rt.freePort();
	const brokerPort = await rt.freePort();
	const env = rt.n8nEnv(node24, { userFolder, port, brokerPort, filesDir });
	// CLI commands (n8n execute) start their own task broker: give them a port the server does not use.
	const cliEnv = { ...env, N8N_RUNNERS_BROKER_PORT: String(await rt.freePort()) };
	let counter = 0;
	let server;

	const cli = async (...args) => {
		const logFile = path.join(
			userFolder,
			`cli-${++counter}-${args[0].replace(/[^a-z]/gi, '')}.log`,
		);
		const result = await rt.n8nCommand(runtime, node24, cliEnv, args, logFile);
		if (result.code !== 0) {
			throw new Error(
				`n8n ${args.join(' ')} exited ${result.code}:\n${result.output.slice(-2000)}`,
			);
		}
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

		/** Imports the webhook signing-secret credential the example trigger workflow uses. */
		async importWebhookCredential(
			secret,
			{ id = WEBHOOK_CREDENTIAL_ID, name = 'Document OCR webhook secret (local emulator)' } = {},
		) {
			const file = path.join(userFolder, `credential-${id}.json`);
			fs.writeFileSync(
				file,
				JSON.stringify([{ id, name, type: 'documentOcrWebhookApi', data: { secret } }]),
			);
			await cli('import:credentials', `--input=${file}`);
		},

		/** Marks a workflow active (published) before the server starts. */
		async publish(id) {
			await cli('publish:workflow', `--id=${id}`);
		},

		/** Imports (or overwrites) the Document OCR credential pointing at the emulator. */
		async importCredential({
			apiKey = KEYS.full,
			id = CREDENTIAL_ID,
			name = CREDENTIAL_NAME,
		} = {}) {
			const file = path.join(userFolder, `credential-${id}.json`);
			fs.writeFileSync(
				file,
				JSON.stringify([
					{ id, name, type: 'documentOcrApi', data: { apiKey, baseUrl: emu.url, apiUrl: '' } },
				]),
			);
			await cli('import:credentials', `--input=${file}`);
		},

		/** Imports workflow JSON objects (the inbox path rewritten to this instance's folder). */
		async importWorkflows(workflows) {
			const dir = fs.mkdtempSync(path.join(userFolder, 'workflows-'));
			workflows.forEach((workflow, i) => {
				const text = JSON.stringify(workflow).split(EXAMPLE_INBOX).join(inbox);
				fs.writeFileSync(path.join(dir, `${i}.json`), text);
			});
			await cli('import:workflow', '--separate', `--input=${dir}`);
		},

		/** `n8n execute --id=… --rawOutput`: the run's data as n8n reports it. */
		async execute(id) {
			const output = await cli('execute', `--id=${id}`, '--rawOutput');
			const run = rt.parseExecuteOutput(output);
			if (!run)
				throw new Error(`no run data in the output of n8n execute:\n${output.slice(-2000)}`);
			return run;
		},

		/** Sets up the owner on a fresh server; returns its cookie and a public-API key. */
		async setupOwner() {
			const headers = { 'content-type': 'application/json', 'browser-id': 'e2e' };
			const setup = await request(`${instance.url}/rest/owner/setup`, {
				method: 'POST',
				headers,
				body: JSON.stringify(OWNER),
			});
			await setup.body.text();
			const cookie = []
				.concat(setup.headers['set-cookie'] ?? [])
				.map((c) => c.split(';')[0])
				.join('; ');
			const created = await request(`${instance.url}/rest/api-keys`, {
				method: 'POST',
				headers: { ...headers, cookie },
				body: JSON.stringify({
					label: 'e2e',
					scopes: ['execution:list', 'execution:read', 'workflow:read'],
					expiresAt: null,
				}),
			});
			const body = await created.body.json();
			if (!body.data?.rawApiKey)
				throw new Error(`no API key: ${created.statusCode} ${JSON.stringify(body)}`);
			instance.apiKey = body.data.rawApiKey;
			return { cookie, apiKey: instance.apiKey };
		},

		/** Executions of a workflow, through n8n's public API (with their data). */
		async executions(workflowId) {
			const response = await request(
				`${instance.url}/api/v1/executions?workflowId=${workflowId}&limit=250&includeData=true`,
				{
					headers: { 'x-n8n-api-key': instance.apiKey, accept: 'application/json' },
				},
			);
			const body = await response.body.json();
			if (response.statusCode !== 200)
				throw new Error(`executions: ${response.statusCode} ${JSON.stringify(body)}`);
			const list = body.data;
			let cursor = body.nextCursor;
			while (cursor) {
				const next = await request(
					`${instance.url}/api/v1/executions?workflowId=${workflowId}&limit=250&includeData=true&cursor=${cursor}`,
					{
						headers: { 'x-n8n-api-key': instance.apiKey, accept: 'application/json' },
					},
				);
				const page = await next.body.json();
				list.push(...page.data);
				cursor = page.nextCursor;
			}
			return list;
		},

		async startServer() {
			server = await rt.startServer(runtime, node24, env, path.join(userFolder, 'server.log'));
			return server;
		},

		async stopServer() {
			await rt.stopServer(server?.child);
			server = undefined;
		},

		async close() {
			await instance.stopServer();
			await emu.close();
			if (!process.env.KEEP_E2E_FOLDERS) fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
	return instance;
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
	example,
	nodeOutput,
	nodeError,
	CREDENTIAL_ID,
	EXAMPLE_INBOX,
	KEYS,
	OWNER,
};
