import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runPool } from '../helpers/pool';
import type { Created } from '../transport';
import { StoppedError, TransportState } from '../transport';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './shared.description';
import * as document from './document/Document.resource';
import * as job from './job/Job.resource';
import * as task from './task/Task.resource';
import type { Operation, Send } from './types';

const resources: Record<string, Record<string, Operation>> = {
	task: task.operations,
	document: document.operations,
	job: job.operations,
};

/** Items under way at once (each mostly waiting); requests are bounded by `concurrency`. */
const ITEMS_IN_FLIGHT = 500;

/**
 * Of the items in flight, how many may have started ahead of the submission front (the first
 * item that has not sent its submission yet): more than the most requests ever in flight
 * (MAX_CONCURRENCY), so the request slots never wait for an item to start.
 */
const STARTED_AHEAD = 64;

/** Items checked at once in the check phase (no request; reads from n8n's binary store). */
const CHECKS_IN_FLIGHT = 16;

type Outcome = { items: INodeExecutionData[] } | { error: Error };

const ID_FIELD: Record<Created['kind'], string> = { task: 'taskId', job: 'jobId', document: 'id' };

/** The Continue-on-Fail item of a failed item: the error, and whatever was billed for it. */
function errorJson(error: Error, created: Created[]): IDataObject {
	const json: IDataObject = { error: error.message };
	const { description, httpCode } = error as NodeApiError;
	if (description) json.description = description;
	if (httpCode) json.httpCode = httpCode;
	const response = (error as NodeApiError).errorResponse as IDataObject | undefined;
	const code = response?.code ?? response?.connectionError;
	if (typeof code === 'string') json.code = code;
	for (const c of created) {
		json[ID_FIELD[c.kind]] = c.id;
		if (c.pagesBilled !== undefined) json.pagesBilled = c.pagesBilled;
	}
	return json;
}

function withItemIndex(this: IExecuteFunctions, error: Error, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(this.getNode(), error, { itemIndex });
}

/**
 * Adds to the error that fails the node every task, job or document the service accepted in
 * this execution: the user sees what was billed, and how to fetch it instead of paying again.
 */
function listCreated(error: NodeApiError | NodeOperationError, created: Created[]) {
	if (created.length === 0) return error;
	const sorted = [...created].sort((a, b) => a.itemIndex - b.itemIndex);
	const lines = sorted.map(
		(c) =>
			`item ${c.itemIndex}: ${c.kind} ${c.id}${c.pagesBilled === undefined ? '' : ` (${c.pagesBilled} page(s))`}`,
	);
	const note = `Before the node stopped, the service accepted (and billed) ${created.length} submission(s) of this run — ${lines.join('; ')}. Re-running the node submits them again and bills them again: fetch their results with Task → Get (or Job → Get) and these IDs instead.`;
	error.description = error.description ? `${error.description}\n\n${note}` : note;
	error.context.created = sorted.map((c) => ({ ...c }));
	return error;
}

/**
 * Runs the chosen operation for every input item, in two phases:
 *  1. check: every item's input and parameters are read and checked, with no request; without
 *     Continue on Fail the first bad item fails the node before anything is sent or billed;
 *  2. send: items in order with bounded concurrency; without Continue on Fail, the first
 *     failure stops every billable request not yet sent (requests under way finish), and the
 *     node's error lists what was billed in this run.
 * Output keeps the input order, with `pairedItem` on every item.
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
	const outcomes: Array<Outcome | undefined> = new Array(items.length);

	// 1. Check every item; nothing is sent. Items are read CHECKS_IN_FLIGHT at a time (reading
	// documents from n8n's binary store is most of it); without Continue on Fail the node fails
	// with the first bad item in item order, and no item after a bad one is read any more.
	const sends: Array<Send | undefined> = new Array(items.length);
	let firstBad = Infinity;
	await runPool(items.length, CHECKS_IN_FLIGHT, async (itemIndex) => {
		if (!continueOnFail && itemIndex > firstBad) return;
		try {
			sends[itemIndex] = await operation.prepare.call(this, itemIndex);
		} catch (error) {
			outcomes[itemIndex] = { error: error as Error };
			firstBad = Math.min(firstBad, itemIndex);
		}
	});
	if (!continueOnFail && Number.isFinite(firstBad)) {
		const { error } = outcomes[firstBad] as { error: Error };
		throw withItemIndex.call(this, error, firstBad);
	}

	// 2. Send. `concurrency` bounds the requests in flight; items run further ahead, since most
	// of an item's time is spent waiting for the service, which costs nothing to wait on together.
	const state = new TransportState(concurrency);
	state.stopOnFailure = !continueOnFail;
	const sent = await runPool<Outcome | undefined>(
		items.length,
		// Concurrency 1 is the one-at-a-time loop, exactly: an item is submitted only once the one
		// before it has finished (waits included), so a failure bills nothing after it.
		concurrency === 1 ? 1 : ITEMS_IN_FLIGHT,
		async (itemIndex) => {
			const send = sends[itemIndex];
			try {
				if (!send) return undefined;
				await state.nearTurn(itemIndex, STARTED_AHEAD);
				return { items: await send(state) };
			} catch (error) {
				state.failed();
				return { error: error as Error };
			} finally {
				state.passTurn(itemIndex);
			}
		},
		() => state.halted,
	);

	if (state.halted) {
		// The node stops at its first failing item (by item order, as a one-at-a-time loop would);
		// items that failed later, or were stopped by the halt, are left out.
		const first = sent.findIndex(
			(outcome) => outcome && 'error' in outcome && !(outcome.error instanceof StoppedError),
		);
		const { error } = sent[first] as { error: Error };
		if (this.getExecutionCancelSignal()?.aborted) throw error;
		throw listCreated(withItemIndex.call(this, error, first), state.created);
	}

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const outcome = outcomes[itemIndex] ?? sent[itemIndex];
		if (!outcome) continue;
		if ('items' in outcome) {
			for (const item of outcome.items) output.push({ ...item, pairedItem: { item: itemIndex } });
			continue;
		}
		const { error } = outcome;
		if (this.getExecutionCancelSignal()?.aborted) throw error;
		if (error instanceof StoppedError) continue;
		output.push({
			json: errorJson(error, state.createdBy(itemIndex)),
			pairedItem: { item: itemIndex },
		});
	}
	return [output];
}
