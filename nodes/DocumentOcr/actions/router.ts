import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { holdResults, releaseHeld } from '../helpers/memory';
import { runPool } from '../helpers/pool';
import type { Created } from '../transport';
import { mayHaveCreated } from '../transport/errors';
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
		if (c.id !== undefined) json[ID_FIELD[c.kind]] = c.id;
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

function billedLine(c: Created): string {
	const pages = c.pagesBilled === undefined ? '' : ` (${c.pagesBilled} page(s))`;
	if (c.kind !== 'document') return `item ${c.itemIndex}: ${c.kind} ${c.id}${pages}`;
	const what = [c.fileName, c.id].filter((v) => v !== undefined).join(', ');
	return `item ${c.itemIndex}: document${what ? ` ${what}` : ''}${pages}`;
}

/**
 * Adds to the error that fails the node everything the service billed in this execution that the
 * user would otherwise lose with the run: every task and job (with its ID, to fetch instead of
 * paying again), every `/v1` document result (kept by the node for its next run: held results in
 * helpers/memory.ts), and every other item whose submission may have created something although
 * its answer was lost.
 */
async function reportBilled(
	this: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
	state: TransportState,
	outcomes: Array<Outcome | undefined>,
	failedItem: number,
) {
	const created = [...state.created].sort((a, b) => a.itemIndex - b.itemIndex);
	const uncertain = outcomes.flatMap((outcome, itemIndex) =>
		itemIndex !== failedItem && outcome && 'error' in outcome && mayHaveCreated(outcome.error)
			? [itemIndex]
			: [],
	);
	if (created.length === 0 && uncertain.length === 0) return error;

	const notes: string[] = [];
	const records = created.filter((c) => c.kind !== 'document');
	if (records.length > 0)
		notes.push(
			`Before the node stopped, the service accepted (and billed) ${records.length} submission(s) of this run — ${records.map(billedLine).join('; ')}. Re-running the node submits them again and bills them again: fetch their results with Task → Get (tasks) or Job → Get (jobs) and these IDs instead, or turn on "Skip Already Submitted Documents".`,
		);

	const documents = created.filter((c) => c.kind === 'document');
	const results = documents.flatMap((c) => {
		const billed = state.billedResults.get(c.itemIndex);
		return billed ? [{ c, billed }] : [];
	});
	const keys = await Promise.all(results.map(async ({ billed }) => await billed.key()));
	const kept = holdResults(
		this,
		results.map(({ billed }, i) => ({ key: keys[i], json: billed.result })),
	);
	if (documents.length > 0) {
		const manual = this.getMode() === 'manual';
		const allKept = results.every((_, i) => kept.has(keys[i]));
		const where = manual
			? "This was a manual test run, after which n8n keeps no node memory: running it again from the editor bills them again. Their results are in this error's details (billedResults); run the workflow from its trigger, or turn on Continue on Fail, to have them kept."
			: allKept
				? 'Their results are kept by this node: its next run outputs them (previouslyBilled: true) without sending these documents again.'
				: "Their results are in this error's details (billedResults); those too large to keep for the next run are billed again if it sends them.";
		notes.push(
			`Before the node stopped, the service billed ${documents.length} document(s) of this run whose results did not reach the output — ${documents.map(billedLine).join('; ')}. ${where}`,
		);
		error.context.billedResults = results.map(({ c, billed }) => ({
			itemIndex: c.itemIndex,
			fileName: c.fileName ?? null,
			result: billed.result,
		}));
	}
	if (uncertain.length > 0)
		notes.push(
			`The answer to the submission of ${uncertain.map((i) => `item ${i}`).join(', ')} was lost after the document was sent: the service may have created (and billed) it. Check the task list (Get Many) before sending it again.`,
		);

	const note = notes.join('\n\n');
	error.description = error.description ? `${error.description}\n\n${note}` : note;
	error.context.created = created.map((c) => ({ ...c }));
	if (uncertain.length > 0) error.context.lostAnswers = uncertain;
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
		throw await reportBilled.call(this, withItemIndex.call(this, error, first), state, sent, first);
	}

	// The run reaches the user: results held from an earlier run and output now are let go.
	releaseHeld(this, state.deliveredHeld);
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
