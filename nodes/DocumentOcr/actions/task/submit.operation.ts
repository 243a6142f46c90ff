import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkBodySize, jsonWithDocument } from '../../helpers/body';
import { readDocument, TASK_API_KINDS } from '../../helpers/document';
import { pagesBilled } from '../../helpers/task';
import { waitTimeoutMs } from '../../waiting';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';
import { skipSubmittedOption, submissionKey, submitRemembered } from '../../helpers/memory';
import { ensureCanReadTasks, submitDocumentTask, waitForRecord } from '../../transport/client';
import type { Send } from '../types';

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
	optionsCollection(concurrencyOption, skipSubmittedOption, waitTimeoutOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['submit'] } },
	properties,
);

/**
 * POST /api/ocr, then (optionally) wait for the task. Billing: pages are deducted on submission.
 * Check phase: the document, the parameters, the wait timeout and the exact request body.
 */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
	const document = await readDocument.call(this, itemIndex, {
		accept: TASK_API_KINDS,
		target: 'the task API',
	});
	const provider = this.getNodeParameter('provider', itemIndex) as string;
	const documentType = this.getNodeParameter('documentType', itemIndex) as string;
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const timeoutMs = waitTimeoutMs(this, itemIndex, options.waitTimeout);
	const body = checkBodySize(
		this,
		itemIndex,
		jsonWithDocument(
			this,
			{ filename: document.fileName, provider, documentType },
			'imageBase64',
			document,
		),
		document,
		'/api/ocr',
	);

	const waitSettings = () => ({
		// A sync task is usually finished when the submission returns: look at once.
		expectedAfterMs: provider === 'provider-sync' ? 0 : undefined,
		deadline: Date.now() + timeoutMs,
	});

	return async (state) => {
		if (wait) await ensureCanReadTasks.call(this, itemIndex, state);
		const outcome = await submitRemembered(this, itemIndex, state, {
			kind: 'task',
			key: options.skipSubmitted
				? async () =>
						await submissionKey(
							this,
							state,
							itemIndex,
							'task',
							{ provider, documentType },
							document,
						)
				: undefined,
			wait: wait ? waitSettings : undefined,
			submit: async () => {
				const answer = await submitDocumentTask.call(this, itemIndex, state, ['api', 'ocr'], body);
				return { id: answer.taskId, answer };
			},
		});
		if ('reused' in outcome) return [{ json: { ...outcome.reused, previouslySubmitted: true } }];
		const { accepted, taskId, pagesBilled: billed } = outcome.submitted;
		if (!wait)
			return [{ json: billed === undefined ? accepted : { ...accepted, pagesBilled: billed } }];

		const task = await waitForRecord.call(this, itemIndex, state, 'task', taskId, waitSettings());
		// The submission answer shows no billed count: the finished task's page count is the bill.
		const pages = billed ?? pagesBilled(task);
		return [{ json: pages === undefined ? task : { ...task, pagesBilled: pages } }];
	};
}
