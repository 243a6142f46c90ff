import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { TASK_API_KINDS } from '../../documents/check';
import type { Accepted } from '../../service/client';
import { booleanField, isFieldSet, itemFields } from '../../shared/validate';
import {
	documentFields,
	optionsCollection,
	simplifyField,
	submitOptions,
	waitForCompletionField,
} from '../shared.description';
import type { Prepare } from '../types';
import { taskPhase } from './submit.operation';

const formulasOption: INodeProperties = {
	displayName: 'Formulas',
	name: 'formulas',
	type: 'boolean',
	default: false,
	description: 'Whether to recognize mathematical formulas',
};

const highFidelityTablesOption: INodeProperties = {
	displayName: 'High-Fidelity Tables',
	name: 'highFidelityTables',
	type: 'boolean',
	default: false,
	description: 'Whether to reconstruct tables with their structure',
};

export const properties: INodeProperties[] = [
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
		description: 'Format of the recognized text (the service does not publish its full list)',
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
		'Whether to wait until the text is recognized and output it. The first check is timed by the estimate the service returns.',
	),
	optionsCollection(...submitOptions, formulasOption, highFidelityTablesOption),
	simplifyField,
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/** A split document's parts join as Task → Submit's do. */
export { join } from './submit.operation';

/** The service's estimate times the first look (bounded: it is an estimate). */
function expectedAfterMs(accepted?: Accepted): number | undefined {
	const estimate = Number(accepted?.answer.estimatedSeconds);
	return accepted && Number.isFinite(estimate) && estimate >= 0
		? Math.min(Math.max(estimate * 1000, 250), 60_000)
		: undefined;
}

/** The finished task with the submission's billing fields. */
function withBilling({ answer }: Accepted, task?: IDataObject): IDataObject {
	if (!task) return answer;
	const billing: IDataObject = {};
	for (const key of ['estimatedSeconds', 'pages', 'creditsUsed'])
		if (answer[key] !== undefined) billing[key] = answer[key];
	return { ...task, ...billing };
}

/** The `options` object of the request: format, highFidelityTables, formulas as chosen. */
function ocrOptions(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const chosen = ctx.getNodeParameter('format', itemIndex, 'markdown') as string;
	const format =
		chosen === 'other'
			? String(ctx.getNodeParameter('customFormat', itemIndex, '')).trim()
			: chosen;
	if (chosen === 'other' && !format) {
		throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: "Other Format" is empty`, {
			description: 'Type the format value to send, or choose Markdown.',
			itemIndex,
		});
	}
	const result: IDataObject = {};
	if (format) result.format = format;
	// Sent only when added to the options: the service's own defaults are not shown.
	const fields = itemFields(ctx, itemIndex);
	for (const option of [highFidelityTablesOption, formulasOption]) {
		const path = `options.${option.name}`;
		if (isFieldSet(fields, path)) result[option.name] = booleanField(fields, option, { path });
	}
	return result;
}

/** POST /api/v2/ocr (filename required; options format / highFidelityTables / formulas), then optionally wait. */
export const prepare: Prepare = async function (itemIndex, run) {
	const requested = ocrOptions(this, itemIndex);
	const fields = (filename: string): IDataObject =>
		Object.keys(requested).length ? { filename, options: requested } : { filename };
	return await taskPhase(this, itemIndex, run, {
		path: ['api', 'v2', 'ocr'],
		accepts: { accept: TASK_API_KINDS, target: '/api/v2/ocr', requireFileName: true },
		fields,
		operation: 'v2',
		settings: fields,
		expectedAfterMs,
		output: withBilling,
	});
};
