'use strict';
/**
 * n8n-core's real execution engine (WorkflowExecute) with the BUILT nodes and credentials of this
 * package (dist/, or OCR_DIST), a real binary-data store on disk and real HTTP. Nothing of
 * IExecuteFunctions is mocked: the engine creates the node's execution context. Used by the test
 * harness (test/harness: + the secret scan and trigger contexts), the benchmarks that measure one
 * process (bench/engine.js) and `npm run demo`.
 *
 * What it supplies is what the n8n server would: node types, a credentials helper (decrypted
 * credentials from memory; `authenticate` applied as the server's CredentialsHelper does — a
 * function, or a generic definition resolved with n8n's own expression engine), lifecycle hooks
 * and the additional data.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// n8n-core reads its user folder at import time: give it a private one.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-ocr-engine-'));
}
process.env.N8N_ENCRYPTION_KEY =
	process.env.N8N_ENCRYPTION_KEY || 'document-ocr-test-encryption-key';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
// n8n's logger writes node errors to the console; callers read them from the run instead.
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';

const core = require('n8n-core');
// The DI container n8n-core itself uses (other packages may bring another copy of @n8n/di).
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);
const workflowLib = require('n8n-workflow');
const { ProcessedDataTable } = require('./dedup-store');

const { WorkflowExecute, ExecutionLifecycleHooks, BinaryDataService } = core;
const { Workflow, NodeHelpers, ICredentialsHelper, NodeConnectionTypes } = workflowLib;

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../dist');
const PACKAGE = 'n8n-nodes-document-ocr';

/** `onStored`: called once the input node has put its items in n8n's binary store. */
const inputEvents = { onStored: undefined };

function loadBuilt(relative, exportName) {
	const file = path.join(DIST, relative);
	if (!fs.existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
	return new (require(file)[exportName])();
}

/** Source node: emits the items it is given, turning `binary` entries into real n8n binary data. */
class TestInput {
	constructor() {
		this.description = {
			displayName: 'Test Input',
			name: 'testInput',
			group: ['input'],
			version: 1,
			description: 'Emits fixed items (tests, benchmarks and the demo only)',
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
		// The input is in n8n's binary store: what happens next is the Document OCR node's.
		await inputEvents.onStored?.();
		return [out];
	}
}

/**
 * A stand-in for n8n's Loop Over Items (SplitInBatches v3), for the workflow shapes the tests run:
 * output 0 "done", output 1 "loop"; each run hands out `batchSize` items and collects what came
 * back, in the node's context (execution-scoped), as the real node does.
 */
class TestLoop {
	constructor() {
		this.description = {
			displayName: 'Test Loop Over Items',
			name: 'testLoop',
			group: ['organization'],
			version: 3,
			description: 'Loop Over Items stand-in (tests only)',
			defaults: { name: 'Loop Over Items' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
			outputNames: ['done', 'loop'],
			properties: [{ displayName: 'Batch Size', name: 'batchSize', type: 'number', default: 1 }],
		};
	}

	async execute() {
		const size = this.getNodeParameter('batchSize', 0);
		const context = this.getContext('node');
		const items = this.getInputData();
		if (context.items === undefined) {
			context.items = items.slice(size);
			context.done = [];
			return [[], items.slice(0, size)];
		}
		context.done.push(...items);
		if (context.items.length === 0) {
			const done = context.done;
			delete context.items;
			return [done, []];
		}
		return [[], context.items.splice(0, size)];
	}
}

/** Splits its items in two halves, one per output (a node with two inputs from it runs twice). */
class TestFork {
	constructor() {
		this.description = {
			displayName: 'Test Fork',
			name: 'testFork',
			group: ['transform'],
			version: 1,
			description: 'Two outputs, half the items each (tests only)',
			defaults: { name: 'Fork' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
			properties: [],
		};
	}

	async execute() {
		const items = this.getInputData();
		const half = Math.ceil(items.length / 2);
		return [items.slice(0, half), items.slice(half)];
	}
}

/** The start of a sub-workflow (n8n's Execute Workflow Trigger): passes the caller's items on. */
class TestSubStart {
	constructor() {
		this.description = {
			displayName: 'Test Sub-workflow Start',
			name: 'testSubStart',
			group: ['trigger'],
			version: 1,
			description: 'Execute Workflow Trigger stand-in (tests only)',
			defaults: { name: 'Start' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		};
	}

	async execute() {
		return [this.getInputData()];
	}
}

/**
 * A stand-in for n8n's Execute Workflow node in "Run once for each item" mode: calls the
 * sub-workflow given as JSON once per item, through n8n-core's `executeWorkflow` (the harness's
 * additionalData runs it as an execution of its own), and outputs what its last node output.
 */
class TestCallSubWorkflow {
	constructor() {
		this.description = {
			displayName: 'Test Execute Workflow',
			name: 'testCallSubWorkflow',
			group: ['transform'],
			version: 1,
			description: 'Execute Workflow stand-in, once per item (tests only)',
			defaults: { name: 'Execute Workflow' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [{ displayName: 'Workflow', name: 'workflow', type: 'json', default: '{}' }],
		};
	}

	async execute() {
		const code = JSON.parse(this.getNodeParameter('workflow', 0));
		const out = [];
		const items = this.getInputData();
		for (let i = 0; i < items.length; i++) {
			const result = await this.executeWorkflow({ code }, [items[i]]);
			for (const item of result.data?.[0] ?? []) out.push({ ...item, pairedItem: { item: i } });
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
		'nodes/DocumentOcr/DocumentOcrTrigger.node.js',
		'DocumentOcrTrigger',
	);
	const documentOcrPollTrigger = loadBuilt(
		'nodes/DocumentOcr/DocumentOcrPollTrigger.node.js',
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
		'test.loop': new TestLoop(),
		'test.fork': new TestFork(),
		'test.subStart': new TestSubStart(),
		'test.callSubWorkflow': new TestCallSubWorkflow(),
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

/**
 * n8n's deduplication table, which n8n's database holds for all its processes: in memory here
 * (./dedup-store.js); ./engine-process.js points a child process's at its parent's.
 */
const processedData = new ProcessedDataTable();
void core.DataDeduplicationService.init(processedData);
let executionCounter = 0;

/** Input (emitting `items`) → Document OCR (`parameters`, plus node settings such as Continue on Fail). */
function nodeWorkflow({ parameters, items = [{ json: {} }], nodeSettings = {} }) {
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
	return { nodes, connections, resultNode: 'Document OCR' };
}

/**
 * Runs Input → Document OCR once. Returns { promise, cancel }; the promise resolves with
 * { run, output, error, status }, `output` being the OCR node's items.
 */
function runNode({
	parameters,
	items,
	nodeSettings,
	credentials,
	settings = {},
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
 * Saved workflows a sub-workflow's JSON names (`savedAs`): n8n loads a saved sub-workflow's static
 * data for each of its executions and saves it after each (not manual), as for any workflow.
 */
const savedWorkflows = new Map();

/** Keeps `saved` (`{ staticData }`) as a saved workflow; returns its ID, for JSON to name. */
function keepSaved(saved) {
	const id = workflowIdOf(saved);
	savedWorkflows.set(id, saved);
	return id;
}

/** Workflow IDs by static data object (or `saved` store): one workflow per object. */
const workflowIds = new WeakMap();
let workflowCounter = 0;

function workflowIdOf(holder) {
	if (!holder) return `wf-${++workflowCounter}`;
	if (!workflowIds.has(holder)) workflowIds.set(holder, `wf-${++workflowCounter}`);
	return workflowIds.get(holder);
}

/**
 * Runs any workflow of known node types; starts at the first node without inputs. The workflow's
 * ID is its static data's (each object one workflow; none: a workflow of its own), or `workflowId`.
 * Its static data, two ways:
 *  - `staticData`: one object, changed in place by the run — pass the same object to the next run
 *    to have the runs share it (as in-process memory does);
 *  - `saved`: `{ staticData }`, as n8n's database keeps it: the run starts from a copy of it and,
 *    unless manual, writes its static data back when it ends, if changed (n8n 2.x:
 *    `saveStaticDataById` in `workflowExecuteAfter`) — runs that overlap each start from what was
 *    saved before them, and the last to end overwrites it, as in n8n.
 * `mode`: n8n's execution mode, 'manual' (a test run from the editor) unless given, e.g. 'cli'
 * (`n8n execute`) or 'trigger' for a production run.
 */
function runWorkflow({
	nodes,
	connections,
	credentials,
	settings = {},
	resultNode,
	staticData: given,
	saved,
	workflowId,
	mode = 'manual',
	partial,
	input,
	subExecutions = [],
}) {
	const { nodeTypes, credentialsHelper } = engine;
	if (credentials)
		credentialsHelper.credentials = {
			...credentialsHelper.credentials,
			documentOcrApi: credentials,
		};
	const executionId = String(++executionCounter);
	const staticData = saved ? JSON.parse(JSON.stringify(saved.staticData ?? {})) : given;
	const id = workflowId ?? workflowIdOf(saved ?? given);
	const workflowData = { id, name: 'test', nodes, connections, active: false, settings };
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
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	let resolveRun;
	const finished = new Promise((resolve) => (resolveRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run, newStaticData) => {
		if (saved && newStaticData && mode !== 'manual')
			saved.staticData = JSON.parse(JSON.stringify(newStaticData));
		resolveRun(run);
	});

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
		// A sub-workflow given by its JSON (`{ code }`) runs as an execution of its own, from its
		// node without inputs, with the caller's items; each is recorded in `subExecutions`.
		executeWorkflow: async (workflowInfo, _additionalData, options) => {
			const code = workflowInfo.code;
			const sub = runWorkflow({
				nodes: code.nodes,
				connections: code.connections,
				credentials,
				settings: code.settings ?? {},
				resultNode: code.resultNode,
				...(code.savedAs
					? { saved: savedWorkflows.get(code.savedAs), workflowId: code.savedAs }
					: { staticData: code.staticData }),
				mode: 'integrated',
				input: options.inputData,
				subExecutions,
			});
			const result = await sub.promise;
			subExecutions.push(result);
			if (result.error) throw result.error;
			const last = result.run.data.resultData.lastNodeExecuted;
			const data = result.run.data.resultData.runData[last]?.[0]?.data?.main ?? [[]];
			return { executionId: result.run.executionId ?? 'sub', data };
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not supported here');
		},
	};

	const start = workflow.getStartNode() ?? workflow.getNode(nodes[0].name);
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [
				{ node: start, data: { main: [input ?? [{ json: {} }]] }, source: null },
			],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};

	const promise = (async () => {
		await initBinaryData();
		const execution = new WorkflowExecute(additionalData, mode, runExecutionData);
		// `partial`: { runData, destination } of an earlier run: n8n-core's partial execution, as
		// the editor starts it ("execute node" / run from a node), a new execution of its own.
		const cancellable = partial
			? execution.runPartialWorkflow2(workflow, partial.runData, {}, partial.dirtyNodeNames ?? [], {
					nodeName: partial.destination,
					mode: 'inclusive',
				})
			: execution.processRunExecutionData(workflow);
		handle.cancel = () => cancellable.cancel();
		await cancellable.catch(() => undefined);
		const run = await finished;
		const runData = run.data.resultData.runData[resultNode]?.[0];
		const output = runData?.data?.main?.[0] ?? [];
		const error = runData?.error ?? run.data.resultData.error;
		return { run, output, error, status: run.status, subExecutions, executionId };
	})();
	const handle = { promise, cancel: () => {} };
	return handle;
}

/** Reads an output item's binary data back as a Buffer (from n8n's binary store). */
async function readBinary(binary) {
	const service = await initBinaryData();
	return await service.getAsBuffer(binary);
}

module.exports = {
	core,
	Container,
	workflowLib,
	engine,
	inputEvents,
	initBinaryData,
	loadBuilt,
	nodeWorkflow,
	NodeTypes,
	runNode,
	runWorkflow,
	keepSaved,
	processedData,
	readBinary,
	PACKAGE,
};
