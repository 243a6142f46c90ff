'use strict';
/**
 * The ways n8n runs one node many times in one workflow execution, as workflows for n8n-core's
 * engine (scripts/n8n-engine.js), each around the same Document OCR node:
 *
 *   single       Input → Document OCR (one run);
 *   loop1/2/7    Input → Loop Over Items (batch 1, 2, 7) → Document OCR → back to the loop: one run
 *                per batch;
 *   twice        Input → Fork → Document OCR from both outputs: two runs, half the items each;
 *   retry        Input → Document OCR with Retry On Fail (3 tries, no wait): n8n runs the node again
 *                when it fails, or when its first output item is an error item;
 *   subWorkflow  Input → Execute Workflow, once per item → a sub-workflow Start → Document OCR: one
 *                execution of its own per item;
 *   partial      Input → Document OCR, then a partial execution from the editor (the node run again
 *                on the input node's data of the first run): a second, manual execution;
 *   overlap      Input → Document OCR, 2–4 executions of the workflow at once (`copies`): each
 *                starts from a copy of what n8n saved of the workflow's static data and saves its
 *                own when it ends (`saved`, as n8n 2.x does), in one process (issue 43).
 *
 * `runShape` runs one and returns what each run of the node gave, with item indexes of the whole
 * input (a loop's or a fork's run sees only its batch), and each execution's own runs.
 */
const base = require('../../scripts/n8n-engine');
const harness = require('../harness');

const SHAPES = [
	'single',
	'loop1',
	'loop2',
	'loop7',
	'twice',
	'retry',
	'subWorkflow',
	'partial',
	'overlap',
];

const OCR = 'Document OCR';

/** The Document OCR node; `name` (its ID the same, but for the default's 'ocr') and `y` for a second one. */
function ocrNode(parameters, nodeSettings = {}, { name = OCR, y = 0 } = {}) {
	return {
		id: name === OCR ? 'ocr' : name,
		name,
		type: `${base.PACKAGE}.documentOcr`,
		typeVersion: 1,
		position: [400, y],
		parameters,
		credentials: { documentOcrApi: { id: '1', name: 'Document OCR account' } },
		...nodeSettings,
	};
}

const input = (items) => ({
	id: 'input',
	name: 'Input',
	type: 'test.input',
	typeVersion: 1,
	position: [0, 0],
	parameters: { items: JSON.stringify(items) },
});

const link = (node, index = 0) => ({ node, type: 'main', index });

/** The workflow of `shape` around the node (`parameters`, `nodeSettings`) over `items`. */
function workflowOf(shape, { parameters, nodeSettings = {}, items }) {
	const loop = /^loop(\d+)$/.exec(shape);
	if (loop) {
		return {
			nodes: [
				input(items),
				{
					id: 'loop',
					name: 'Loop Over Items',
					type: 'test.loop',
					typeVersion: 3,
					position: [200, 0],
					parameters: { batchSize: Number(loop[1]) },
				},
				ocrNode(parameters, nodeSettings),
			],
			connections: {
				Input: { main: [[link('Loop Over Items')]] },
				'Loop Over Items': { main: [[], [link(OCR)]] },
				[OCR]: { main: [[link('Loop Over Items')]] },
			},
		};
	}
	if (shape === 'twice') {
		return {
			nodes: [
				input(items),
				{
					id: 'fork',
					name: 'Fork',
					type: 'test.fork',
					typeVersion: 1,
					position: [200, 0],
					parameters: {},
				},
				ocrNode(parameters, nodeSettings),
			],
			connections: {
				Input: { main: [[link('Fork')]] },
				Fork: { main: [[link(OCR)], [link(OCR)]] },
			},
		};
	}
	if (shape === 'subWorkflow') {
		const sub = {
			nodes: [
				{
					id: 'start',
					name: 'Start',
					type: 'test.subStart',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				ocrNode(parameters, nodeSettings),
			],
			connections: { Start: { main: [[link(OCR)]] } },
			resultNode: OCR,
		};
		return {
			nodes: [
				input(items),
				{
					id: 'call',
					name: 'Execute Workflow',
					type: 'test.callSubWorkflow',
					typeVersion: 1,
					position: [200, 0],
					parameters: { workflow: JSON.stringify(sub) },
				},
			],
			connections: { Input: { main: [[link('Execute Workflow')]] } },
		};
	}
	const settings =
		shape === 'retry'
			? { ...nodeSettings, retryOnFail: true, maxTries: 3, waitBetweenTries: 1 }
			: nodeSettings;
	return {
		nodes: [input(items), ocrNode(parameters, settings)],
		connections: { Input: { main: [[link(OCR)]] } },
	};
}

/**
 * Starts `shape` once (`partial`: a full manual run, then a partial execution of the node on its
 * data, each loading the static data as it was before the first, as n8n's editor does). Returns
 * { promise, cancel }; the promise resolves with { executions, ms }: each execution's runs of the
 * node (`runs`: { offset, size, output, error }, offsets into the whole input), its status and
 * error. A sub-workflow's executions come one per item, in item order; `subSaved` is the saved
 * sub-workflow's static data (`{ staticData }`: each of its executions starts from it and saves
 * its own after, as n8n does for a saved workflow). `overlap`
 * runs `copies` executions of workflow `workflowId` at once from `saved` (`{ staticData }`, n8n's
 * database row), instead of `staticData`.
 * `onExecution(index)` is called before each execution the test starts (not the sub-workflow's).
 */
function startShape(
	shape,
	{
		parameters,
		nodeSettings,
		items,
		credentials,
		staticData,
		mode,
		subSaved,
		onExecution,
		copies = 2,
		saved,
		workflowId,
	},
) {
	const workflow = workflowOf(shape, { parameters, nodeSettings, items });
	if (shape === 'subWorkflow') {
		const call = workflow.nodes.find((n) => n.type === 'test.callSubWorkflow');
		const sub = JSON.parse(call.parameters.workflow);
		sub.savedAs = base.keepSaved(subSaved ?? { staticData: {} });
		call.parameters.workflow = JSON.stringify(sub);
	}
	const started = new Set();
	const run = (extra = {}) => {
		const handle = harness.runWorkflow({
			...workflow,
			resultNode: OCR,
			credentials,
			staticData,
			mode,
			...extra,
		});
		started.add(handle);
		return handle.promise;
	};
	const executions = [];
	const batches = /^loop(\d+)$/.exec(shape);
	const half = Math.ceil(items.length / 2);
	// How many items each run of the node had: a batch, a fork's half, or the whole input.
	const sizes = (index) =>
		batches
			? Math.min(Number(batches[1]), items.length - index * Number(batches[1]))
			: shape === 'twice'
				? index === 0
					? half
					: items.length - half
				: items.length;
	const add = (result, offsetOf = (i) => i) => {
		const runs = (result.run.data.resultData.runData[OCR] ?? []).map((taskData, index) => ({
			index,
			output: taskData.data?.main?.[0] ?? [],
			error: taskData.error,
		}));
		let offset = 0;
		for (const r of runs) {
			r.offset = offsetOf(offset);
			r.size = shape === 'subWorkflow' ? 1 : sizes(r.index);
			offset += r.size;
		}
		executions.push({ runs, status: result.status, error: result.error });
	};
	const startedAt = Date.now();
	const promise = (async () => {
		if (shape === 'subWorkflow') {
			onExecution?.(0);
			const result = await run();
			// One execution per item, in item order (the stand-in calls them one after another).
			result.subExecutions.forEach((sub, i) => add(sub, () => i));
			executions.parentError = result.error;
		} else if (shape === 'partial') {
			// n8n's editor loads the saved static data for each manual run and saves none after it.
			const saved = JSON.stringify(staticData ?? {});
			onExecution?.(0);
			const first = await run({ mode: 'manual', staticData: JSON.parse(saved) });
			add(first);
			onExecution?.(1);
			add(
				await run({
					mode: 'manual',
					staticData: JSON.parse(saved),
					partial: { runData: first.run.data.resultData.runData, destination: OCR },
				}),
			);
		} else if (shape === 'overlap') {
			const all = Array.from({ length: copies }, (_, i) => {
				onExecution?.(i);
				return run({ staticData: undefined, saved, workflowId });
			});
			for (const result of await Promise.all(all)) add(result);
		} else {
			onExecution?.(0);
			add(await run());
		}
		return { executions, ms: Date.now() - startedAt };
	})();
	return { promise, cancel: () => started.forEach((handle) => handle.cancel()) };
}

/** Runs `shape` once: startShape's result. */
async function runShape(shape, options) {
	return await startShape(shape, options).promise;
}

/** How many times the node runs in `shape` over `count` items, at most (tries included). */
function runsIn(shape, count) {
	const batches = /^loop(\d+)$/.exec(shape);
	if (batches) return Math.ceil(count / Number(batches[1]));
	return { twice: 2, retry: 3, subWorkflow: count, partial: 2, overlap: 2 }[shape] ?? 1;
}

/** An execution's output items (pairedItem of the whole input) and its first error (likewise). */
function flatten(execution) {
	const output = [];
	let error;
	for (const run of execution.runs) {
		for (const item of run.output)
			output.push({ ...item, pairedItem: { item: run.offset + (item.pairedItem?.item ?? 0) } });
		if (run.error && !error) {
			error = run.error;
			const index = error.context?.itemIndex;
			if (typeof index === 'number') error.context.itemIndex = run.offset + index;
		}
	}
	return { output, error: error ?? execution.error };
}

module.exports = {
	SHAPES,
	workflowOf,
	startShape,
	runShape,
	runsIn,
	flatten,
	ocrNode,
	input,
	link,
};
