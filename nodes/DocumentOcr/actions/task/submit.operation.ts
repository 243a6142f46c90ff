import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { jsonWithDocument } from '../../helpers/body';
import { readDocument, TASK_API_KINDS } from '../../helpers/document';
import { pagesBilled, unwrapRecord } from '../../helpers/task';
import { DEFAULT_WAIT, deadlineFromMinutes } from '../../helpers/wait';
import type { TransportState } from '../../transport';
import { apiRequest, unexpectedBody } from '../../transport';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';
import { waitForRecord } from '../records';

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
	const deadline = deadlineFromMinutes(Number(options.waitTimeout ?? 10));

	const response = await apiRequest.call(
		this,
		itemIndex,
		{
			method: 'POST',
			path: ['api', 'ocr'],
			kind: 'submit',
			scope: 'submit',
			body: jsonWithDocument(
				this,
				{ filename: document.fileName, provider, documentType },
				'imageBase64',
				document,
			),
		},
		state,
	);

	const submitted = unwrapRecord(response.body);
	const taskId = submitted?.taskId;
	if (!submitted || (typeof taskId !== 'string' && typeof taskId !== 'number')) {
		throw unexpectedBody(
			this,
			itemIndex,
			'the submission (a task may have been created)',
			response.body,
		);
	}
	const billed = pagesBilled(submitted);
	const billing = billed === undefined ? {} : { pagesBilled: billed };

	if (!wait) return [{ json: { ...submitted, taskId: String(taskId), ...billing } }];

	const task = await waitForRecord.call(this, itemIndex, state, 'task', String(taskId), {
		...DEFAULT_WAIT,
		// A sync task is usually finished when the submission returns: look at once.
		firstPollAfterMs: provider === 'provider-sync' ? 0 : DEFAULT_WAIT.firstPollAfterMs,
		deadline,
	});
	return [{ json: { ...task, ...billing } }];
}
