import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { readDocument, TASK_API_KINDS } from '../../helpers/document';
import { DEFAULT_WAIT, waitDeadline } from '../../helpers/wait';
import type { TransportState } from '../../transport';
import { submitDocumentTask, waitForRecord } from '../records';
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
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<INodeExecutionData[]> {
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
	const deadline = waitDeadline(this, itemIndex, options.waitTimeout);

	const fields: IDataObject = { filename: document.fileName };
	if (Object.keys(ocrOptions).length) fields.options = ocrOptions;
	const { accepted, taskId } = await submitDocumentTask.call(
		this,
		itemIndex,
		state,
		['api', 'v2', 'ocr'],
		fields,
		document,
	);
	const summary: IDataObject = accepted;
	if (!wait) return [{ json: summary }];

	const estimate = Number(accepted.estimatedSeconds);
	const task = await waitForRecord.call(this, itemIndex, state, 'task', taskId, {
		...DEFAULT_WAIT,
		// The service's estimate times the first look (bounded: it is an estimate).
		firstPollAfterMs:
			Number.isFinite(estimate) && estimate >= 0
				? Math.min(Math.max(estimate * 1000, 250), 60_000)
				: DEFAULT_WAIT.firstPollAfterMs,
		deadline,
	});
	const billing: IDataObject = {};
	for (const key of ['estimatedSeconds', 'pages', 'creditsUsed'])
		if (accepted[key] !== undefined) billing[key] = accepted[key];
	return [{ json: { ...task, ...billing } }];
}
