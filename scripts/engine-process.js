'use strict';
/**
 * Another n8n process for the engine tests (issue 43): a child process running workflows in
 * n8n-core's engine (./n8n-engine.js) with the node's code loaded afresh — its memories of the
 * executions it runs are its own, as a second queue-mode worker's are — while n8n's database is
 * the parent's: the static data is passed in and handed back (`saved`), and the deduplication
 * table's calls are answered by the parent's table over IPC.
 *
 * Parent side: `startEngineProcess()` → { run(options), close() }; `run` takes runWorkflow's
 * options (JSON only: nodes, connections, credentials, workflowId, saved, mode) and resolves with
 * { output: [{ json, pairedItem }], error: { message, description, context } | undefined,
 * saved }.
 */
const { fork } = require('node:child_process');

const METHODS = [
	'checkProcessedAndRecord',
	'removeProcessed',
	'clearAllProcessedItems',
	'getProcessedDataCount',
];

/** The child: runs what the parent sends; its deduplication table is the parent's. */
function child() {
	const base = require('./n8n-engine');
	let next = 0;
	const pending = new Map();
	// The calls' context carries n8n's Workflow and node objects: their IDs are what a row is of.
	const plain = (arg) =>
		arg && typeof arg === 'object' && 'workflow' in arg
			? { workflow: { id: arg.workflow.id }, node: arg.node && { id: arg.node.id } }
			: arg;
	for (const method of METHODS)
		base.processedData[method] = (...args) =>
			new Promise((resolve, reject) => {
				const id = ++next;
				pending.set(id, { resolve, reject });
				process.send({ type: 'dedup', id, method, args: args.map(plain) });
			});
	process.on('message', async (message) => {
		if (message.type === 'dedupResult') {
			const waiting = pending.get(message.id);
			pending.delete(message.id);
			if (message.error) waiting.reject(new Error(message.error));
			else waiting.resolve(message.result);
			return;
		}
		if (message.type !== 'run') return;
		const saved = message.options.saved;
		try {
			const result = await base.runWorkflow(message.options).promise;
			const error = result.error && {
				message: result.error.message,
				description: result.error.description,
				context: result.error.context,
			};
			const output = result.output.map((item) => ({
				json: item.json,
				pairedItem: item.pairedItem,
			}));
			process.send({ type: 'result', id: message.id, output, error, saved });
		} catch (error) {
			process.send({
				type: 'result',
				id: message.id,
				crashed: String(error?.stack ?? error),
				saved,
			});
		}
	});
	process.send({ type: 'ready' });
}

/** Starts the child; its deduplication calls go to `table` (the parent's). */
async function startEngineProcess(table) {
	const proc = fork(__filename, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	let next = 0;
	const runs = new Map();
	proc.on('message', async (message) => {
		if (message.type === 'dedup') {
			try {
				const result = await table[message.method](...message.args);
				proc.send({ type: 'dedupResult', id: message.id, result });
			} catch (error) {
				proc.send({ type: 'dedupResult', id: message.id, error: error.message });
			}
		} else if (message.type === 'result') {
			const run = runs.get(message.id);
			runs.delete(message.id);
			if (message.crashed) run.reject(new Error(message.crashed));
			else run.resolve(message);
		}
	});
	await new Promise((resolve, reject) => {
		proc.once('message', (message) => (message.type === 'ready' ? resolve() : undefined));
		proc.once('exit', (code) => reject(new Error(`the engine process exited (${code})`)));
	});
	return {
		/** Runs a workflow there; `options.saved` ({ staticData }) is updated as n8n saves it. */
		run(options) {
			const id = ++next;
			return new Promise((resolve, reject) => {
				runs.set(id, {
					resolve: (message) => {
						if (options.saved && message.saved) options.saved.staticData = message.saved.staticData;
						resolve(message);
					},
					reject,
				});
				proc.send({ type: 'run', id, options });
			});
		},
		async close() {
			proc.kill();
			await new Promise((resolve) =>
				proc.exitCode !== null ? resolve() : proc.once('exit', resolve),
			);
		},
	};
}

if (process.argv.includes('--child')) child();

module.exports = { startEngineProcess };
