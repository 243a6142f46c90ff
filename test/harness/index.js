'use strict';
/**
 * The test harness: n8n-core's real engine with the built package (scripts/n8n-engine.js), plus
 * what the tests need on top — every run's data, errors and every log line go through the secret
 * scan (./secrets.js), the credential test as n8n's server runs it, and webhook and poll trigger
 * contexts. Nothing of IExecuteFunctions is mocked.
 */
const path = require('node:path');

const base = require('../../scripts/n8n-engine');
const secrets = require('./secrets');

const { core, Container, workflowLib, engine, readBinary, nodeWorkflow, NodeTypes, PACKAGE } = base;

// Every line n8n or a node logs goes to the secret scan (and nowhere else unless OCR_TEST_LOG).
{
	const { Logger } = require(
		require.resolve('@n8n/backend-common', { paths: [path.dirname(require.resolve('n8n-core'))] }),
	);
	Container.set(Logger, secrets.capturingLogger);
	workflowLib.LoggerProxy.init(secrets.capturingLogger);
}

const { ExecuteContext, RoutingNode, WebhookContext } = core;
const { Workflow, NodeConnectionTypes } = workflowLib;

/**
 * Runs any workflow of known node types (scripts/n8n-engine.js runWorkflow), then scans the whole
 * run — every node's items, errors (message, description, context), metadata — and the logs.
 */
function runWorkflow(options) {
	secrets.register(options.credentials?.apiKey);
	const handle = base.runWorkflow(options);
	handle.promise = handle.promise.then((result) => {
		secrets.scan('the run data', result.run.data);
		secrets.scan('the error', result.error ?? {});
		secrets.assertLogsClean();
		return result;
	});
	return handle;
}

/** Input (emitting `items`) → Document OCR (`parameters`), run and scanned. */
function runNode({
	parameters,
	items,
	credentials,
	settings = {},
	nodeSettings,
	staticData,
	saved,
	workflowId,
	mode,
}) {
	return runWorkflow({
		...nodeWorkflow({ parameters, items, nodeSettings }),
		credentials,
		settings,
		staticData,
		saved,
		workflowId,
		mode,
	});
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

/** A node of the package (`type`: its name in the package), with the test credential. */
function packageNode(id, name, type, parameters) {
	return {
		id,
		name,
		type: `${PACKAGE}.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { documentOcrApi: { id: '1', name: 'Document OCR account' } },
	};
}

/**
 * An active poll-trigger workflow, polled the way n8n's poll executor does: a real PollContext
 * (n8n-core) per poll on ONE workflow object that lives as long as the activation, so the node's
 * static data stays in memory between polls (and is shared by polls that overlap). As n8n's
 * server does, the static data is "saved" (`saved`, a deep copy) only when a poll emits;
 * `restart()` reloads the workflow from that copy with the activation mode 'init' (an n8n
 * restart), `reactivate()` with 'activate' (the user deactivating and activating it). The first
 * activation is 'activate'. `poll({ mode })`: 'trigger' (default) or 'manual'.
 * Returns { items, error } per poll; `emitted` collects every emitted item.
 */
function startPollTrigger({ parameters, credentials, staticData = {}, pollBudgetMs }) {
	const { credentialsHelper, nodeTypes } = engine;
	credentialsHelper.credentials = { ...credentialsHelper.credentials, documentOcrApi: credentials };
	secrets.register(credentials?.apiKey);
	const node = packageNode(
		'poll',
		'Document OCR Poll Trigger',
		'documentOcrPollTrigger',
		parameters,
	);
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
		activation: 'activate',
		/** The activation's first poll is still to come (n8n saves the static data after it). */
		activating: true,
		saved: JSON.parse(JSON.stringify(staticData)),
		emitted: [],
		polls: 0,
		restart() {
			trigger.workflow = load(trigger.saved);
			trigger.activation = 'init';
			trigger.activating = true;
		},
		reactivate() {
			// n8n saves the static data when it deactivates the workflow, and loads it to activate.
			trigger.saved = JSON.parse(JSON.stringify(trigger.workflow.staticData));
			trigger.workflow = load(trigger.saved);
			trigger.activation = 'activate';
			trigger.activating = true;
		},
		async poll({ mode = 'trigger' } = {}) {
			trigger.polls++;
			const additionalData = {
				credentialsHelper,
				instanceBaseUrl: 'http://127.0.0.1/',
				variables: {},
			};
			const { workflow } = trigger;
			// As n8n does: one context per activation, polled with on every tick; a manual test run
			// gets one of its own.
			// `pollBudgetMs`: the time n8n grants one poll (getPollBudgetMs), when a test sets one.
			const budget = pollBudgetMs === undefined ? undefined : () => pollBudgetMs;
			const fresh = () =>
				new core.PollContext(
					workflow,
					node,
					additionalData,
					mode,
					trigger.activation,
					undefined,
					undefined,
					undefined,
					undefined,
					undefined,
					budget,
				);
			if (mode !== 'manual' && trigger.context?.workflow !== workflow) trigger.context = fresh();
			const context = mode === 'manual' ? fresh() : trigger.context;
			try {
				const result = await engine.documentOcrPollTrigger.poll.call(context);
				secrets.scan('the poll output', result ?? {});
				secrets.assertLogsClean();
				const items = result ? result[0].map((i) => i.json) : [];
				// n8n saves the workflow's static data when a poll emits, and at the end of an activation
				// (whose first poll this is; workflow-trigger-activator.js in n8n 2.41).
				if ((result || trigger.activating) && mode !== 'manual')
					trigger.saved = JSON.parse(JSON.stringify(workflow.staticData));
				if (mode !== 'manual') trigger.activating = false;
				if (result && mode !== 'manual') trigger.emitted.push(...items);
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

/**
 * The editor's search of a resource locator (`methods.listSearch`), through n8n-core's real
 * LoadOptionsContext as n8n's dynamic-node-parameters service builds it.
 */
async function listSearch({ method, parameters, credentials, filter, paginationToken }) {
	const { credentialsHelper, nodeTypes } = engine;
	credentialsHelper.credentials = { ...credentialsHelper.credentials, documentOcrApi: credentials };
	secrets.register(credentials?.apiKey);
	const node = packageNode('ocr', 'Document OCR', 'documentOcr', parameters);
	const workflow = new Workflow({
		id: 'wf-search',
		name: 'search',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: false,
	});
	const additionalData = { credentialsHelper, instanceBaseUrl: 'http://127.0.0.1/', variables: {} };
	const context = new core.LoadOptionsContext(workflow, node, additionalData, 'parameters.taskId');
	const result = await engine.documentOcr.methods.listSearch[method].call(
		context,
		filter,
		paginationToken,
	);
	secrets.scan('the list search', result);
	return result;
}

module.exports = {
	listSearch,
	startPollTrigger,
	runNode,
	runWorkflow,
	readBinary,
	testCredential,
	startTriggerServer,
	engine,
	PACKAGE,
};
