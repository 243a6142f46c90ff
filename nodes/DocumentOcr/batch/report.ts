import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { mayHaveCreated } from '../transport/errors';
import { holdResults } from './held';
import type { Execution } from './execution';
import type { Created } from './ledger';
import { billedLine } from './ledger';

/**
 * What a run's items come to when they fail: the Continue-on-Fail item of a failed item, and the
 * node's error that names everything billed in the run.
 */

/** How an item ended: its output items, or its error. */
export type Outcome = { items: INodeExecutionData[] } | { error: Error };

const ID_FIELD: Record<Created['kind'], string> = { task: 'taskId', job: 'jobId', document: 'id' };

/** The Continue-on-Fail item of a failed item: the error, and whatever was billed for it. */
export function errorJson(error: Error, created: Created[]): IDataObject {
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
	// A split document's parts billed before the item failed: each with its ID and pages.
	if (created.some((c) => c.pages !== undefined)) {
		for (const c of created) delete json[ID_FIELD[c.kind]];
		const billed = created.map((c) => c.pagesBilled);
		if (billed.every((p) => p !== undefined)) json.pagesBilled = billed.reduce((a, b) => a + b, 0);
		else delete json.pagesBilled;
		json.partsBilled = created.map((c) => {
			const part: IDataObject = { pagesSent: c.pages ?? null };
			if (c.id !== undefined) part[ID_FIELD[c.kind]] = c.id;
			if (c.pagesBilled !== undefined) part.pagesBilled = c.pagesBilled;
			return part;
		});
	}
	return json;
}

/** The error as n8n shows it: a NodeApiError or NodeOperationError naming its item. */
export function withItemIndex(ctx: IExecuteFunctions, error: Error, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error, { itemIndex });
}

/**
 * Adds to the error that fails the node everything the service billed in this execution that the
 * user would otherwise lose with the run: every task and job (with its ID, to fetch instead of
 * paying again), every `/v1` document result (kept by the node for its next run: held results in
 * ./held.ts), and every other item whose submission may have created something although
 * its answer was lost.
 */
export async function reportBilled(
	run: Pick<Execution, 'ctx' | 'ledger' | 'memory'>,
	error: NodeApiError | NodeOperationError,
	outcomes: Array<Outcome | undefined>,
	failedItem: number,
) {
	const { ctx, ledger } = run;
	const created = [...ledger.created].sort((a, b) => a.itemIndex - b.itemIndex);
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
		const billed = ledger.billedResults.get(c);
		return billed ? [{ c, billed }] : [];
	});
	const keys = await Promise.all(results.map(async ({ billed }) => await billed.key()));
	const kept = holdResults(
		run.memory,
		results.map(({ billed }, i) => ({ key: keys[i], json: billed.result })),
	);
	if (documents.length > 0) {
		const manual = ctx.getMode() === 'manual';
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
