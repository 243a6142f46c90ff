import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import type { Accepts } from '../../documents/check';
import { TASK_API_KINDS } from '../../documents/check';
import { taskUpload } from '../../documents/upload';
import type { Accepted } from '../../service/client';
import { simplifyTask } from '../../shared/records';
import {
	documentFields,
	optionsCollection,
	simplified,
	simplifyField,
	submitOptions,
	submitOptionsOf,
	waitForCompletionField,
} from '../shared.description';
import type { Prepare, SendPhase } from '../types';
export const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName: 'Provider',
		name: 'provider',
		type: 'options',
		options: [
			{
				name: 'Async (Queue)',
				value: 'provider-async',
				description: 'Processed through a queue; suits large batches and long PDFs',
			},
			{
				name: 'Sync',
				value: 'provider-sync',
				description: 'Recognised right away; returns word positions when available',
			},
		],
		default: 'provider-async',
		description: 'Which recognition engine processes the document',
	},
	{
		displayName: 'Document Type',
		name: 'documentType',
		type: 'options',
		options: [
			{
				name: 'General',
				value: 'general',
				description: 'Any document: returns the recognized text',
			},
			{
				name: 'Invoice',
				value: 'invoice',
				description: 'Also extracts invoice fields (number, dates, total, ...) into metadata',
			},
		],
		default: 'general',
		description: 'What kind of document it is. Invoice also reads the invoice fields.',
	},
	waitForCompletionField(
		"Whether to wait until the text is recognized and output it. Turn off to output only the 'taskId' right away (then use Get, or the Document OCR Trigger).",
	),
	simplifyField,
	optionsCollection(...submitOptions),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/** A split document's parts: `resultText` joined, word positions (sync provider) in page order. */
export const join: Join = { text: ['resultText'], lists: ['words'], id: 'taskId' };

/** What Task → Submit and Submit (V2) say of their task besides the document. */
interface TaskSending {
	path: string[];
	accepts: Accepts;
	/** The request's JSON fields, from the file name sent. */
	fields: (fileName: string) => IDataObject;
	/** The operation and its settings, as the Skip memory's key names them (batch/key.ts). */
	operation: string;
	settings: (fileName: string) => IDataObject;
	expectedAfterMs?: (accepted?: Accepted) => number | undefined;
	output?: (accepted: Accepted, record?: IDataObject) => IDataObject;
}

/**
 * The check phase of a task submission (Submit, Submit (V2)): the Options first (a wrong one
 * costs no read), the document read and its request body checked, then the send phase: the
 * task submitted (Skip, the wait), its output simplified when asked.
 */
export async function taskPhase(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
	task: TaskSending,
): Promise<SendPhase> {
	const { path, accepts, fields, expectedAfterMs, ...said } = task;
	const { skip, wait } = submitOptionsOf(ctx, itemIndex);
	const upload = await taskUpload(ctx, itemIndex, run.reads, { path, accepts, fields });
	const simplify = simplified(ctx, itemIndex);
	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: { kind: 'task', path, ...said, skip, wait: wait && { ...wait, expectedAfterMs } },
		items: (json) => [{ json: simplify ? simplifyTask(json) : json }],
	});
}

/**
 * POST /api/ocr, then (optionally) wait for the task. Billing: pages are deducted on submission.
 * Check phase: the document, the parameters, the wait timeout and the exact request body.
 */
export const prepare: Prepare = async function (itemIndex, run) {
	const provider = this.getNodeParameter('provider', itemIndex) as string;
	const documentType = this.getNodeParameter('documentType', itemIndex) as string;
	return await taskPhase(this, itemIndex, run, {
		path: ['api', 'ocr'],
		accepts: { accept: TASK_API_KINDS, target: 'the task API' },
		fields: (filename) => ({ filename, provider, documentType }),
		operation: 'task',
		settings: () => ({ provider, documentType }),
		// A sync task is usually finished when the submission returns: look at once.
		expectedAfterMs: () => (provider === 'provider-sync' ? 0 : undefined),
	});
};
