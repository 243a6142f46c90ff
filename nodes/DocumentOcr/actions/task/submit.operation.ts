import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import { resendUnconfirmedOption, skipSubmittedOption } from '../../batch/submitted';
import { TASK_API_KINDS } from '../../documents/check';
import { documentChoiceOf, taskUpload } from '../../documents/upload';
import { simplifyTask } from '../../shared/records';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	simplified,
	simplifyField,
	submitOptionsOf,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';
import type { SendPhase } from '../types';

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
	optionsCollection(
		concurrencyOption,
		resendUnconfirmedOption,
		skipSubmittedOption,
		waitTimeoutOption,
	),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/** A split document's parts: `resultText` joined, word positions (sync provider) in page order. */
export const join: Join = { text: ['resultText'], lists: ['words'], id: 'taskId' };

/**
 * POST /api/ocr, then (optionally) wait for the task. Billing: pages are deducted on submission.
 * Check phase: the document, the parameters, the wait timeout and the exact request body.
 */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const accepts = { accept: TASK_API_KINDS, target: 'the task API' };
	const provider = this.getNodeParameter('provider', itemIndex) as string;
	const documentType = this.getNodeParameter('documentType', itemIndex) as string;
	const path = ['api', 'ocr'];
	const fields = (filename: string) => ({ filename, provider, documentType });
	// The options are checked before the document is read: a wrong one costs no read.
	const { skip, wait } = submitOptionsOf(this, itemIndex);
	const upload = await taskUpload(
		this,
		itemIndex,
		run.reads,
		{ path, accepts, fields },
		documentChoiceOf(this, itemIndex),
	);
	const simplify = simplified(this, itemIndex);
	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: {
			kind: 'task',
			path,
			operation: 'task',
			settings: () => ({ provider, documentType }),
			skip,
			// A sync task is usually finished when the submission returns: look at once.
			wait: wait && {
				...wait,
				expectedAfterMs: () => (provider === 'provider-sync' ? 0 : undefined),
			},
		},
		items: (json) => [{ json: simplify ? simplifyTask(json) : json }],
	});
}
