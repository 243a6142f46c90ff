import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { checkBodySize, jsonWithDocument } from '../../helpers/body';
import { readDocument, TASK_API_KINDS } from '../../helpers/document';
import { waitTimeoutMs } from '../../waiting';
import { skipSubmittedOption, submissionKey, submitRemembered } from '../../helpers/memory';
import { ensureCanReadTasks, submitDocumentTask, waitForRecord } from '../../transport/client';
import type { Send } from '../types';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';

const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName: 'Output Format',
		name: 'format',
		type: 'options',
		options: [
			{ name: 'Service Default', value: '', description: 'Let the service choose' },
			{
				name: 'Markdown',
				value: 'markdown',
				description: 'Headings, lists and tables as Markdown',
			},
			{
				name: 'Other',
				value: 'other',
				description: 'Another format the service supports, typed in below',
			},
		],
		default: 'markdown',
		description: 'Format of the recognised text (the service does not publish its full list)',
	},
	{
		displayName: 'Other Format',
		name: 'customFormat',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. text',
		displayOptions: { show: { format: ['other'] } },
		description: 'The format value to send, as the service names it',
	},
	waitForCompletionField(
		'Whether to wait until the text is recognised and output it. The first check is timed by the estimate the service returns.',
	),
	optionsCollection(
		concurrencyOption,
		skipSubmittedOption,
		{
			displayName: 'Formulas',
			name: 'formulas',
			type: 'boolean',
			default: false,
			description: 'Whether to recognise mathematical formulas',
		},
		{
			displayName: 'High-Fidelity Tables',
			name: 'highFidelityTables',
			type: 'boolean',
			default: false,
			description: 'Whether to reconstruct tables with their structure',
		},
		waitTimeoutOption,
	),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['submitV2'] } },
	properties,
);

/** POST /api/v2/ocr (filename required; options format / highFidelityTables / formulas), then optionally wait. */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
	const node = this.getNode();
	const document = await readDocument.call(this, itemIndex, {
		accept: TASK_API_KINDS,
		target: '/api/v2/ocr',
		requireFileName: true,
	});
	const chosen = this.getNodeParameter('format', itemIndex, 'markdown') as string;
	const format =
		chosen === 'other'
			? String(this.getNodeParameter('customFormat', itemIndex, '')).trim()
			: chosen;
	if (chosen === 'other' && !format) {
		throw new NodeOperationError(node, `Item ${itemIndex}: "Other Format" is empty`, {
			description: 'Type the format value to send, or choose Markdown.',
			itemIndex,
		});
	}
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const ocrOptions: IDataObject = {};
	if (format) ocrOptions.format = format;
	if (options.highFidelityTables !== undefined)
		ocrOptions.highFidelityTables = options.highFidelityTables === true;
	if (options.formulas !== undefined) ocrOptions.formulas = options.formulas === true;
	const timeoutMs = waitTimeoutMs(this, itemIndex, options.waitTimeout);
	const fields: IDataObject = { filename: document.fileName };
	if (Object.keys(ocrOptions).length) fields.options = ocrOptions;
	const body = checkBodySize(
		this,
		itemIndex,
		jsonWithDocument(this, fields, 'imageBase64', document),
		document,
		'/api/v2/ocr',
	);

	return async (state) => {
		if (wait) await ensureCanReadTasks.call(this, itemIndex, state);
		const outcome = await submitRemembered(this, itemIndex, state, {
			kind: 'task',
			key: options.skipSubmitted
				? async () => await submissionKey(this, state, itemIndex, 'v2', fields, document)
				: undefined,
			wait: wait ? () => ({ deadline: Date.now() + timeoutMs }) : undefined,
			submit: async () => {
				const answer = await submitDocumentTask.call(
					this,
					itemIndex,
					state,
					['api', 'v2', 'ocr'],
					body,
				);
				return { id: answer.taskId, answer };
			},
		});
		if ('reused' in outcome) return [{ json: { ...outcome.reused, previouslySubmitted: true } }];
		const { accepted, taskId } = outcome.submitted;
		if (!wait) return [{ json: accepted }];

		const estimate = Number(accepted.estimatedSeconds);
		const task = await waitForRecord.call(this, itemIndex, state, 'task', taskId, {
			// The service's estimate times the first look (bounded: it is an estimate).
			expectedAfterMs:
				Number.isFinite(estimate) && estimate >= 0
					? Math.min(Math.max(estimate * 1000, 250), 60_000)
					: undefined,
			deadline: Date.now() + timeoutMs,
		});
		const billing: IDataObject = {};
		for (const key of ['estimatedSeconds', 'pages', 'creditsUsed'])
			if (accepted[key] !== undefined) billing[key] = accepted[key];
		return [{ json: { ...task, ...billing } }];
	};
}
