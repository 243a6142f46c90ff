'use strict';
/**
 * The built Document OCR node (dist/) inside n8n-core's real engine (WorkflowExecute), for the
 * benchmarks that need one process they can measure (memory) or profile. Input → Document OCR:
 * the input node streams files from disk into n8n's binary store (as Read/Write Files does),
 * credentials come from memory and are applied by the credential type's `authenticate` function.
 * The test suites have their own, fuller harness (test/harness); benchmarks do not use it.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.N8N_USER_FOLDER)
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-ocr-bench-'));
process.env.N8N_ENCRYPTION_KEY ??= 'document-ocr-bench-encryption-key';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';

const core = require('n8n-core');
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
);
const { Workflow, NodeHelpers, ICredentialsHelper, NodeConnectionTypes } = require('n8n-workflow');

const { WorkflowExecute, ExecutionLifecycleHooks, BinaryDataService } = core;
const DIST = process.env.BENCH_DIST ?? path.resolve(__dirname, '../dist');
const TYPE = 'n8n-nodes-document-ocr.documentOcr';

function built(relative, name) {
	const file = path.join(DIST, relative);
	if (!fs.existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
	return new (require(file)[name])();
}

/** Emits one item per entry of `files` ({ path, fileName, mimeType }), the file in the binary store. */
class FileInput {
	description = {
		displayName: 'File Input',
		name: 'fileInput',
		group: ['input'],
		version: 1,
		description: 'Reads files into binary data (benchmarks only)',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Files', name: 'files', type: 'json', default: '[]' }],
	};

	async execute() {
		const files = JSON.parse(this.getNodeParameter('files', 0));
		const out = [];
		for (const [i, f] of files.entries()) {
			const data = await this.helpers.prepareBinaryData(
				fs.createReadStream(f.path),
				f.fileName,
				f.mimeType,
			);
			out.push({ json: { i }, binary: { data } });
		}
		// The input is in n8n's binary store: what happens next is the Document OCR node's.
		await onInputStored?.();
		return [out];
	}
}

class CredentialsHelper extends ICredentialsHelper {
	constructor(type) {
		super();
		this.type = type;
		this.data = undefined;
	}
	getParentTypes() {
		return [];
	}
	async getDecrypted() {
		return { ...this.data };
	}
	/** The credential type's own `authenticate` function, as n8n's server calls it. */
	async authenticate(credentials, _typeName, requestOptions) {
		return await this.type.authenticate(credentials, requestOptions);
	}
	async preAuthentication() {
		return undefined;
	}
	async runPreAuthentication() {
		return undefined;
	}
	getCredentialsProperties() {
		return this.type.properties;
	}
	isCredentialUsableByNode() {
		return true;
	}
	async getCredentials() {
		throw new Error('not used');
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
}

const types = {
	[TYPE]: built('nodes/DocumentOcr/DocumentOcr.node.js', 'DocumentOcr'),
	'bench.input': new FileInput(),
};
const nodeTypes = {
	getByName: (name) => types[name],
	getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(types[name], version),
	getKnownTypes: () => ({}),
};
const credentialsHelper = new CredentialsHelper(
	built('credentials/DocumentOcrApi.credentials.js', 'DocumentOcrApi'),
);
let binaryReady;
/** Called once the input node has stored its files (e.g. to take a memory baseline). */
let onInputStored;
let executions = 0;

/**
 * Runs Input (`files`) → Document OCR (`parameters`) once; resolves with the OCR node's output,
 * its error, and its run data (startTime, executionTime).
 */
async function runNode({ parameters, files, credentials, inputStored }) {
	credentialsHelper.data = credentials;
	onInputStored = inputStored;
	binaryReady ??= Container.get(BinaryDataService).init();
	await binaryReady;
	const nodes = [
		{
			id: 'in',
			name: 'Input',
			type: 'bench.input',
			typeVersion: 1,
			position: [0, 0],
			parameters: { files: JSON.stringify(files) },
		},
		{
			id: 'ocr',
			name: 'Document OCR',
			type: TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters,
			credentials: { documentOcrApi: { id: '1', name: 'Document OCR account' } },
		},
	];
	const connections = { Input: { main: [[{ node: 'Document OCR', type: 'main', index: 0 }]] } };
	const workflow = new Workflow({ id: 'bench', nodes, connections, nodeTypes, active: false });
	const executionId = String(++executions);
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id: 'bench',
		name: 'bench',
		nodes,
		connections,
		active: false,
		settings: {},
	});
	const finished = new Promise((resolve) => hooks.addHandler('workflowExecuteAfter', resolve));
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
		variables: {},
		setExecutionStatus: () => {},
		sendDataToUI: () => {},
		logAiEvent: () => {},
	};
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [
				{ node: workflow.getNode('Input'), data: { main: [[{ json: {} }]] }, source: null },
			],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};
	await new WorkflowExecute(additionalData, 'manual', runExecutionData)
		.processRunExecutionData(workflow)
		.catch(() => undefined);
	const run = await finished;
	const data = run.data.resultData.runData['Document OCR']?.[0];
	return {
		output: data?.data?.main?.[0] ?? [],
		error: data?.error ?? run.data.resultData.error,
		runData: data,
	};
}

/** Submit (+ wait) parameters, for the documents as binary data. */
function submitParameters({ wait = true, concurrency } = {}) {
	return {
		resource: 'task',
		operation: 'submit',
		documentSource: 'binary',
		binaryPropertyName: 'data',
		provider: 'provider-async',
		documentType: 'general',
		waitForCompletion: wait,
		options: concurrency ? { concurrency } : {},
	};
}

module.exports = { runNode, submitParameters };
