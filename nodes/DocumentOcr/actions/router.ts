import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pageBudgetOf } from '../batch/budget';
import { Execution } from '../batch/execution';
import { releaseHeld } from '../batch/held';
import { runPool } from '../batch/pool';
import type { Outcome } from '../batch/report';
import { errorJson, reportBilled, withItemIndex } from '../batch/report';
import { StoppedError } from '../transport/errors';
import { concurrencyOf } from './shared.description';
import { resources } from './operations';
import type { Operation, SendPhase } from './types';

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

/**
 * Check phase: every item's input and parameters are read and checked, with no request. Items
 * are read CHECKS_IN_FLIGHT at a time (reading documents from n8n's binary store is most of it);
 * without Continue on Fail the node fails with the first bad item in item order, and no item
 * after a bad one is read any more.
 */
async function checkItems(
	ctx: IExecuteFunctions,
	run: Execution,
	operation: Operation,
	outcomes: Array<Outcome | undefined>,
): Promise<Array<SendPhase | undefined>> {
	const count = outcomes.length;
	const continueOnFail = ctx.continueOnFail();
	const phases: Array<SendPhase | undefined> = new Array(count);
	let firstBad = Infinity;
	await runPool(count, CHECKS_IN_FLIGHT, async (itemIndex) => {
		if (!continueOnFail && itemIndex > firstBad) return;
		try {
			phases[itemIndex] = await operation.prepare.call(ctx, itemIndex, run);
		} catch (error) {
			outcomes[itemIndex] = { error: error as Error };
			firstBad = Math.min(firstBad, itemIndex);
		}
	});
	if (!continueOnFail && Number.isFinite(firstBad)) {
		const { error } = outcomes[firstBad] as { error: Error };
		throw withItemIndex(ctx, error, firstBad);
	}
	return phases;
}

/**
 * Send phase: `concurrency` bounds the requests in flight; items run further ahead, since most of
 * an item's time is spent waiting for the service, which costs nothing to wait on together.
 * Concurrency 1 is the one-at-a-time loop, exactly: an item is submitted only once the one before
 * it has finished (waits included), so a failure bills nothing after it. Once the run has halted,
 * no item starts any more.
 */
async function sendItems(
	run: Execution,
	phases: Array<SendPhase | undefined>,
	concurrency: number,
): Promise<Array<Outcome | undefined>> {
	const sent: Array<Outcome | undefined> = new Array(phases.length);
	let next = 0;
	const worker = async () => {
		while (next < phases.length && !run.order.halted) {
			const itemIndex = next++;
			const phase = phases[itemIndex];
			// Let go once started: what an item prepared (its document, its request body) is kept
			// only until it is sent, not until the last item is.
			phases[itemIndex] = undefined;
			try {
				if (!phase) continue;
				await run.order.nearTurn(itemIndex, STARTED_AHEAD);
				sent[itemIndex] = { items: await phase() };
			} catch (error) {
				run.order.failed();
				sent[itemIndex] = { error: error as Error };
			} finally {
				run.order.passTurn(itemIndex, true);
			}
		}
	};
	const workers = Math.min(concurrency === 1 ? 1 : ITEMS_IN_FLIGHT, phases.length);
	await Promise.all(Array.from({ length: workers }, worker));
	return sent;
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
	const concurrency = concurrencyOf(this);
	const stopOnFailure = !this.continueOnFail();
	const run = new Execution(this, { concurrency, stopOnFailure, pageBudget: pageBudgetOf(this) });
	let output: INodeExecutionData[] | undefined;
	try {
		const outcomes: Array<Outcome | undefined> = new Array(items.length);
		const phases = await checkItems(this, run, operation, outcomes);
		const sent = await sendItems(run, phases, run.client.slots.concurrency);
		run.budget.nameBilled();
		output = await outputOf(this, run, outcomes, sent);
		return [output];
	} finally {
		// The claims of submissions refused or stopped are let go before the run ends.
		await run.submitted.letGo();
		run.memory.close();
		// Whether n8n's Retry On Fail will run this again decides what the next try finds.
		run.tried.settle(output);
	}
}

/**
 * The node's output (or the error that fails it): each item's outcome, from the check phase or
 * the send phase, in item order.
 */
async function outputOf(
	ctx: IExecuteFunctions,
	run: Execution,
	outcomes: Array<Outcome | undefined>,
	sent: Array<Outcome | undefined>,
): Promise<INodeExecutionData[]> {
	if (run.order.halted) {
		// The node stops at its first failing item (by item order, as a one-at-a-time loop would);
		// items that failed later, or were stopped by the halt, are left out.
		const first = sent.findIndex(
			(outcome) => outcome && 'error' in outcome && !(outcome.error instanceof StoppedError),
		);
		const { error } = sent[first] as { error: Error };
		if (ctx.getExecutionCancelSignal()?.aborted) throw error;
		throw await reportBilled(run, withItemIndex(ctx, error, first), sent, first);
	}

	// The run reaches the user: results held from an earlier run and output now are let go.
	releaseHeld(run.memory, run.ledger.deliveredHeld);
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < outcomes.length; itemIndex++) {
		const outcome = outcomes[itemIndex] ?? sent[itemIndex];
		if (!outcome) continue;
		if ('items' in outcome) {
			for (const item of outcome.items) output.push({ ...item, pairedItem: { item: itemIndex } });
			continue;
		}
		const { error } = outcome;
		if (ctx.getExecutionCancelSignal()?.aborted) throw error;
		if (error instanceof StoppedError) continue;
		output.push({
			json: errorJson(error, run.ledger.createdBy(itemIndex)),
			pairedItem: { item: itemIndex },
		});
	}
	return output;
}
