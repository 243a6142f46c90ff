'use strict';
/**
 * Runs workflows through n8n-core's real execution engine (WorkflowExecute), with the BUILT
 * nodes and credential of this package (dist/), a real binary-data store on disk and real HTTP.
 * Nothing of IExecuteFunctions is mocked: the engine creates the node's execution context.
 *
 * What the harness supplies is what the n8n server would: node types, a credentials helper
 * (decrypted credentials from memory; `authenticate` resolved with n8n's own expression engine,
 * exactly as the server's CredentialsHelper does), lifecycle hooks, and the additional data.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// n8n-core reads its user folder at import time: give it a private one.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-ocr-harness-'));
}
process.env.N8N_ENCRYPTION_KEY =
	process.env.N8N_ENCRYPTION_KEY || 'document-ocr-test-encryption-key';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
// n8n's logger writes node errors to the console; tests assert on them instead.
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';

const core = require('n8n-core');
// The DI container n8n-core itself uses (other packages may bring another copy of @n8n/di).
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);
const workflowLib = require('n8n-workflow');
const secrets = require('./secrets');

// Every line n8n or a node logs goes to the secret scan (and nowhere else unless OCR_TEST_LOG).
{
	const { Logger } = require(
		require.resolve('@n8n/backend-common', { paths: [path.dirname(require.resolve('n8n-core'))] }),
	);
	Container.set(Logger, secrets.capturingLogger);
	workflowLib.LoggerProxy.init(secrets.capturingLogger);
}

const {
	WorkflowExecute,
	ExecutionLifecycleHooks,
	BinaryDataService,
	ExecuteContext,
	RoutingNode,
	WebhookContext,
} = core;
const { Workflow, NodeHelpers, ICredentialsHelper, NodeConnectionTypes } = workflowLib;

const DIST = path.resolve(__dirname, '../../dist');
const PACKAGE = 'n8n-nodes-document-ocr';

function loadBuilt(relative, exportName) {
	const file = path.join(DIST, relative);
	if (!fs.existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
	return new (require(file)[exportName])();
}

/** Test-only source node: emits the items it is given, turning `binary` entries into real n8n binary data. */
class TestInput {
	constructor() {
		this.description = {
			displayName: 'Test Input',
			name: 'testInput',
			group: ['input'],
			version: 1,
			description: 'Emits fixed items (test harness only)',
			defaults: { name: 'Input' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
		};
	}

	async execute() {
		const raw = this.getNodeParameter('items', 0);
		const items = typeof raw === 'string' ? JSON.parse(raw) : raw;
		const out = [];
		for (const item of items) {
			const entry = { json: item.json ?? {} };
			if (item.binary) {
				entry.binary = {};
				for (const [key, b] of Object.entries(item.binary)) {
					// `path` streams a file into n8n's binary store (as Read/Write Files does); `base64` is small data.
					const source = b.path ? fs.createReadStream(b.path) : Buffer.from(b.base64, 'base64');
					entry.binary[key] = await this.helpers.prepareBinaryData(source, b.fileName, b.mimeType);
				}
			}
			out.push(entry);
		}
		return [out];
	}
}

class NodeTypes {
	constructor(types) {
		this.types = types;
	}

	getByName(name) {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	}

	getByNameAndVersion(name, version) {
		return NodeHelpers.getVersionedNodeType(this.getByName(name), version);
	}

	getKnownTypes() {
		return {};
	}
}

class CredentialsHelper extends ICredentialsHelper {
	constructor(credentialTypes) {
		super();
		this.credentialTypes = credentialTypes;
		this.credentials = {};
		this.decryptCount = 0;
	}

	getParentTypes() {
		return [];
	}

	async getDecrypted(_additionalData, _nodeCredentials, type) {
		this.decryptCount++;
		const data = this.credentials[type];
		if (!data) throw new Error(`No credentials of type ${type} configured in the harness`);
		return { ...data };
	}

	/** What n8n's server does for `authenticate`: a function, or a generic definition whose
	 *  values are expressions over $credentials, resolved by the workflow's expression engine. */
	async authenticate(credentials, typeName, requestOptions, workflow, node) {
		const type = this.credentialTypes[typeName];
		const auth = type?.authenticate;
		if (!auth) return requestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		if (auth.type !== 'generic') throw new Error(`Unsupported authenticate type ${auth.type}`);
		const resolve = (value) =>
			typeof value === 'string' && value.startsWith('=')
				? workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					)
				: value;
		const out = { ...requestOptions };
		for (const [section, values] of Object.entries(auth.properties)) {
			out[section] = { ...(out[section] ?? {}) };
			for (const [key, value] of Object.entries(values)) out[section][key] = resolve(value);
		}
		return out;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	getCredentialsProperties(type) {
		return this.credentialTypes[type]?.properties ?? [];
	}

	isCredentialUsableByNode() {
		return true;
	}

	async getCredentials() {
		throw new Error('not used by these nodes');
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}
}

let binaryReady;
async function initBinaryData() {
	if (!binaryReady) {
		binaryReady = (async () => {
			const service = Container.get(BinaryDataService);
			await service.init();
			return service;
		})();
	}
	return await binaryReady;
}

function createEngine() {
	const documentOcr = loadBuilt('nodes/DocumentOcr/DocumentOcr.node.js', 'DocumentOcr');
	const documentOcrTrigger = loadBuilt(
		'nodes/DocumentOcrTrigger/DocumentOcrTrigger.node.js',
		'DocumentOcrTrigger',
	);
	const documentOcrPollTrigger = loadBuilt(
		'nodes/DocumentOcrPollTrigger/DocumentOcrPollTrigger.node.js',
		'DocumentOcrPollTrigger',
	);
	const credentialTypes = {
		documentOcrApi: loadBuilt('credentials/DocumentOcrApi.credentials.js', 'DocumentOcrApi'),
		documentOcrWebhookApi: loadBuilt(
			'credentials/DocumentOcrWebhookApi.credentials.js',
			'DocumentOcrWebhookApi',
		),
	};
	const nodeTypes = new NodeTypes({
		[`${PACKAGE}.documentOcr`]: documentOcr,
		[`${PACKAGE}.documentOcrTrigger`]: documentOcrTrigger,
		[`${PACKAGE}.documentOcrPollTrigger`]: documentOcrPollTrigger,
		'test.input': new TestInput(),
	});
	const credentialsHelper = new CredentialsHelper(credentialTypes);
	return {
		nodeTypes,
		credentialsHelper,
		credentialTypes,
		documentOcr,
		documentOcrTrigger,
		documentOcrPollTrigger,
	};
}

const engine = createEngine();
let executionCounter = 0;

/**
 * Builds a two-node workflow: Input (emitting `items`) → Document OCR (`parameters`), and runs it.
 * Returns { run, output, error, items, cancel } where `output` are the OCR node's items.
 */
function runNode({
	parameters,
	items = [{ json: {} }],
	credentials,
	settings = {},
	nodeSettings = {},
	staticData,
}) {
	const nodes = [
		{
			id: 'input',
			name: 'Input',
			type: 'test.input',
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(items) },
		},
		{
			id: 'ocr',
			name: 'Document OCR',
			type: `${PACKAGE}.documentOcr`,
			typeVersion: 1,
			position: [200, 0],
			parameters,
			credentials: { documentOcrApi: { id: '1', name: 'Document OCR account' } },
			...nodeSettings,
		},
	];
	const connections = { Input: { main: [[{ node: 'Document OCR', type: 'main', index: 0 }]] } };
	return runWorkflow({
		nodes,
		connections,
		credentials,
		settings,
		staticData,
		resultNode: 'Document OCR',
	});
}

/**
 * Runs any workflow of known node types; starts at the first node without inputs. `staticData`:
 * the workflow's static data, changed in place by the run — pass the same object to the next run
 * to do what n8n does for production executions (save it after a run, load it for the next).
 */
function runWorkflow({ nodes, connections, credentials, settings = {}, resultNode, staticData }) {
	const { nodeTypes, credentialsHelper } = engine;
	secrets.register(credentials?.apiKey);
	if (credentials)
		credentialsHelper.credentials = {
			...credentialsHelper.credentials,
			documentOcrApi: credentials,
		};
	const executionId = String(++executionCounter);
	const workflowData = { id: 'wf-test', name: 'test', nodes, connections, active: false, settings };
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes,
		connections,
		nodeTypes,
		active: false,
		settings,
		staticData,
	});
	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	let resolveRun;
	const finished = new Promise((resolve) => (resolveRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));

	const additionalData = {
		hooks,
		credentialsHelper,
		executionId,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		userId: 'user-1',
		variables: {},
		setExecutionStatus: () => {},
		sendDataToUI: () => {},
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used in these tests');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not used in these tests');
		},
	};

	const start = workflow.getStartNode() ?? workflow.getNode(nodes[0].name);
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [{ node: start, data: { main: [[{ json: {} }]] }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};

	const promise = (async () => {
		await initBinaryData();
		const execution = new WorkflowExecute(additionalData, 'manual', runExecutionData);
		const cancellable = execution.processRunExecutionData(workflow);
		handle.cancel = () => cancellable.cancel();
		await cancellable.catch(() => undefined);
		const run = await finished;
		const runData = run.data.resultData.runData[resultNode]?.[0];
		const output = runData?.data?.main?.[0] ?? [];
		const error = runData?.error ?? run.data.resultData.error;
		// The whole run: every node's items, errors (message, description, context) and metadata.
		secrets.scan('the run data', run.data);
		secrets.scan('the error', error ?? {});
		secrets.assertLogsClean();
		return { run, output, error, status: run.status };
	})();
	const handle = { promise, cancel: () => {} };
	return handle;
}

/** Reads an output item's binary data back as a Buffer (from n8n's binary store). */
async function readBinary(binary) {
	const service = await initBinaryData();
	return await service.getAsBuffer(binary);
}

/**
 * Runs the credential's `test` the way n8n's server (CredentialsTester) does for declarative
 * tests: a temporary node routes the test request through n8n-core's RoutingNode, then the
 * rules are applied to the answer.
 */
async function testCredential(credentials) {
	secrets.register(credentials.apiKey);
	const result = await runCredentialTest(credentials);
	secrets.scan('the credential test result', result);
	secrets.assertLogsClean();
	return result;
}

async function runCredentialTest(credentials) {
	const { credentialTypes } = engine;
	const type = credentialTypes.documentOcrApi;
	const testRequest = type.test;
	const tempType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'documentOcrApi', required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { documentOcrApi: { id: '1', name: 'x' } },
	};
	const nodeTypes = new NodeTypes({ temp: tempType });
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	engine.credentialsHelper.credentials = { documentOcrApi: credentials };
	const additionalData = { credentialsHelper: engine.credentialsHelper, hooks: undefined };
	const runExecutionData = { resultData: { runData: {} } };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, tempType, {
		id: '1',
		name: 'x',
		type: 'documentOcrApi',
		data: credentials,
	});
	let response;
	try {
		response = await routingNode.runNode();
	} catch (error) {
		if (error.cause?.response) {
			const statusCode = error.cause.response.status;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === statusCode) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			return {
				status: 'Error',
				message: error.cause.response.statusText || `Received HTTP status code: ${statusCode}`,
			};
		}
		if (error.cause?.code) return { status: 'Error', message: error.cause.code };
		return { status: 'Error', message: String(error.message) };
	}
	const json = response?.[0]?.[0]?.json;
	for (const rule of testRequest.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const value = rule.properties.key
			.split('.')
			.reduce((acc, k) => (acc == null ? undefined : acc[k]), json);
		if (value === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/**
 * An active trigger workflow behind a real HTTP server (express, as n8n's webhook server is):
 * each POST is read as n8n reads it (the raw body kept as `req.rawBody`, JSON parsed into
 * `req.body`), handed to the trigger's webhook() through n8n-core's real WebhookContext, and
 * answered as n8n would (the node's own answer, or 200 when it returns workflow data).
 * `executions` collects the workflow data of every delivery that started the workflow.
 * The workflow object lives as long as the server, so its static data does too.
 */
async function startTriggerServer({ parameters, credentials, staticData = {} }) {
	const express = require('express');
	const { credentialsHelper, nodeTypes } = engine;
	credentialsHelper.credentials = { ...credentialsHelper.credentials, ...credentials };
	secrets.register(credentials.documentOcrWebhookApi?.secret);
	secrets.register(credentials.documentOcrApi?.apiKey);
	const node = {
		id: 'trigger',
		name: 'Document OCR Trigger',
		type: `${PACKAGE}.documentOcrTrigger`,
		typeVersion: 1,
		position: [0, 0],
		webhookId: 'e2f1c7d0-0000-4000-8000-000000000001',
		parameters,
		credentials: {
			documentOcrWebhookApi: { id: '2', name: 'Webhook secret' },
			documentOcrApi: { id: '1', name: 'Document OCR account' },
		},
	};
	const workflow = new Workflow({
		id: 'wf-trigger',
		name: 'trigger',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: true,
		staticData,
	});
	const executions = [];
	const leakErrors = [];
	const app = express();
	app.post('/webhook', (req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', async () => {
			req.rawBody = Buffer.concat(chunks);
			try {
				req.body = req.rawBody.length ? JSON.parse(req.rawBody.toString('utf8')) : {};
			} catch {
				req.body = {};
			}
			const additionalData = {
				credentialsHelper,
				httpRequest: req,
				httpResponse: res,
				webhookBaseUrl: 'http://127.0.0.1/webhook',
				webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
				webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
				instanceBaseUrl: 'http://127.0.0.1/',
				variables: {},
			};
			const webhookData = {
				httpMethod: 'POST',
				node: node.name,
				path: 'webhook',
				webhookDescription: {},
				workflowId: workflow.id,
			};
			try {
				const context = new WebhookContext(
					workflow,
					node,
					additionalData,
					'webhook',
					webhookData,
					[],
					null,
				);
				const result = await engine.documentOcrTrigger.webhook.call(context);
				secrets.scan('the trigger output', result);
				secrets.assertLogsClean();
				// As n8n does: `noWebhookResponse` means the node has answered itself; otherwise an
				// `onReceived` webhook is answered with the node's own response, if it gives one.
				if (result.workflowData) executions.push(result.workflowData);
				if (!result.noWebhookResponse && !res.headersSent) {
					if (result.workflowData)
						res.status(200).json(result.webhookResponse ?? { message: 'Workflow was started' });
					else res.status(200).end();
				}
			} catch (error) {
				try {
					secrets.scan('the trigger error', error);
				} catch (leak) {
					leakErrors.push(leak);
				}
				if (!res.headersSent) res.status(500).json({ message: error.message });
			}
		});
	});
	const server = await new Promise((resolve) => {
		const s = app.listen(0, '127.0.0.1', () => resolve(s));
	});
	return {
		url: `http://127.0.0.1:${server.address().port}/webhook`,
		executions,
		workflow,
		close: () =>
			new Promise((resolve, reject) => {
				server.closeAllConnections?.();
				server.close(() => (leakErrors.length ? reject(leakErrors[0]) : resolve()));
			}),
	};
}

/**
 * An active poll-trigger workflow, polled the way n8n's poll executor does: a real PollContext
 * (n8n-core) per poll on ONE workflow object that lives as long as the activation, so the node's
 * static data stays in memory between polls. As n8n's server does, the static data is "saved"
 * (`saved`, a deep copy) only when a poll emits; `restart()` reloads the workflow from that copy,
 * which is what an n8n restart does. `poll({ mode })`: 'trigger' (default) or 'manual'.
 * Returns { items, error } per poll; `emitted` collects every emitted item.
 */
function startPollTrigger({ parameters, credentials, staticData = {} }) {
	const { credentialsHelper, nodeTypes } = engine;
	credentialsHelper.credentials = { ...credentialsHelper.credentials, documentOcrApi: credentials };
	secrets.register(credentials?.apiKey);
	const node = {
		id: 'poll',
		name: 'Document OCR Poll Trigger',
		type: `${PACKAGE}.documentOcrPollTrigger`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { documentOcrApi: { id: '1', name: 'Document OCR account' } },
	};
	const load = (data) =>
		new Workflow({
			id: 'wf-poll',
			name: 'poll',
			nodes: [node],
			connections: {},
			nodeTypes,
			active: true,
			staticData: JSON.parse(JSON.stringify(data)),
		});
	const trigger = {
		workflow: load(staticData),
		saved: JSON.parse(JSON.stringify(staticData)),
		emitted: [],
		polls: 0,
		restart() {
			trigger.workflow = load(trigger.saved);
		},
		async poll({ mode = 'trigger' } = {}) {
			trigger.polls++;
			const additionalData = {
				credentialsHelper,
				instanceBaseUrl: 'http://127.0.0.1/',
				variables: {},
			};
			const { workflow } = trigger;
			const context = new core.PollContext(workflow, node, additionalData, mode, 'trigger');
			try {
				const result = await engine.documentOcrPollTrigger.poll.call(context);
				secrets.scan('the poll output', result ?? {});
				secrets.assertLogsClean();
				const items = result ? result[0].map((i) => i.json) : [];
				// n8n saves the workflow's static data when a poll emits (and not otherwise).
				if (result && mode !== 'manual') {
					trigger.saved = JSON.parse(JSON.stringify(workflow.staticData));
					trigger.emitted.push(...items);
				}
				return { items, emitted: result !== null };
			} catch (error) {
				secrets.scan('the poll error', error);
				return { items: [], error };
			}
		},
		/** The trigger's memory as the workflow holds it now. */
		memory() {
			return JSON.parse(JSON.stringify(trigger.workflow.staticData))[`node:${node.name}`];
		},
	};
	return trigger;
}

module.exports = {
	startPollTrigger,
	runNode,
	runWorkflow,
	readBinary,
	testCredential,
	startTriggerServer,
	engine,
	PACKAGE,
};
