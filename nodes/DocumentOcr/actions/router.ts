import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runPool } from '../helpers/pool';
import { TransportState } from '../transport';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './shared.description';
import * as document from './document/Document.resource';
import * as job from './job/Job.resource';
import * as task from './task/Task.resource';
import type { Operation } from './types';

const resources: Record<string, Record<string, Operation>> = {
	task: task.operations,
	document: document.operations,
	job: job.operations,
};

/** Items under way at once (each mostly waiting); requests are bounded by `concurrency`. */
const ITEMS_IN_FLIGHT = 500;

type Outcome = { items: INodeExecutionData[] } | { error: Error };

function errorJson(error: Error): IDataObject {
	const json: IDataObject = { error: error.message };
	const { description, httpCode } = error as NodeApiError;
	if (description) json.description = description;
	if (httpCode) json.httpCode = httpCode;
	const response = (error as NodeApiError).errorResponse as IDataObject | undefined;
	const code = response?.code ?? response?.connectionError;
	if (typeof code === 'string') json.code = code;
	return json;
}

/**
 * Runs the chosen operation for every input item with bounded concurrency, keeps output order,
 * puts `pairedItem` on every output item, and honours "Continue on Fail" per item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not supported`,
		);
	}

	const requested = Number(this.getNodeParameter('options.concurrency', 0, DEFAULT_CONCURRENCY));
	const concurrency = Number.isFinite(requested)
		? Math.min(Math.max(1, Math.floor(requested)), MAX_CONCURRENCY)
		: DEFAULT_CONCURRENCY;
	const continueOnFail = this.continueOnFail();
	// `concurrency` bounds the requests in flight; items run further ahead, since most of an
	// item's time is spent waiting for the service, which costs nothing to wait on together.
	const state = new TransportState(concurrency);
	let failed = false;

	const outcomes = await runPool<Outcome>(
		items.length,
		ITEMS_IN_FLIGHT,
		async (itemIndex) => {
			try {
				return { items: await operation.execute.call(this, itemIndex, state) };
			} catch (error) {
				if (!continueOnFail) failed = true;
				return { error: error as Error };
			}
		},
		() => failed,
	);

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (!outcome) continue; // not started: an earlier item failed the node
		if ('items' in outcome) {
			for (const item of outcome.items) output.push({ ...item, pairedItem: { item: itemIndex } });
			continue;
		}
		const { error } = outcome;
		if (this.getExecutionCancelSignal()?.aborted) throw error;
		if (!continueOnFail) {
			if (error instanceof NodeApiError || error instanceof NodeOperationError) {
				error.context.itemIndex = itemIndex;
				throw error;
			}
			throw new NodeOperationError(this.getNode(), error, { itemIndex });
		}
		output.push({ json: errorJson(error), pairedItem: { item: itemIndex } });
	}
	return [output];
}
