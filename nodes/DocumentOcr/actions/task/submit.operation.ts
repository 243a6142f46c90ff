import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readDocument, TASK_API_KINDS } from '../../helpers/document';
import { pagesBilled } from '../../helpers/task';
import { DEFAULT_WAIT, waitDeadline } from '../../helpers/wait';
import type { TransportState } from '../../transport';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';
import { submitDocumentTask, waitForRecord } from '../records';

const properties: INodeProperties[] = [
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
				description: 'Any document: returns the recognised text',
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
		'Whether to wait until the text is recognised and output it. Turn off to output only the task ID right away (then use Get, or the Document OCR Trigger).',
	),
	optionsCollection(concurrencyOption, waitTimeoutOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['submit'] } },
	properties,
);

/** POST /api/ocr, then (optionally) wait for the task. Billing: pages are deducted on submission. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<INodeExecutionData[]> {
	const document = await readDocument.call(this, itemIndex, {
		accept: TASK_API_KINDS,
		target: 'the task API',
	});
	const provider = this.getNodeParameter('provider', itemIndex) as string;
	const documentType = this.getNodeParameter('documentType', itemIndex) as string;
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const deadline = waitDeadline(this, itemIndex, options.waitTimeout);

	const { accepted: submitted, taskId } = await submitDocumentTask.call(
		this,
		itemIndex,
		state,
		['api', 'ocr'],
		{ filename: document.fileName, provider, documentType },
		document,
	);
	const billed = pagesBilled(submitted);
	const billing = billed === undefined ? {} : { pagesBilled: billed };

	if (!wait) return [{ json: { ...submitted, ...billing } }];

	const task = await waitForRecord.call(this, itemIndex, state, 'task', taskId, {
		...DEFAULT_WAIT,
		// A sync task is usually finished when the submission returns: look at once.
		firstPollAfterMs: provider === 'provider-sync' ? 0 : DEFAULT_WAIT.firstPollAfterMs,
		deadline,
	});
	return [{ json: { ...task, ...billing } }];
}
