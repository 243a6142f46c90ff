import type { INodeProperties } from 'n8n-workflow';

/** The document input fields shared by every operation that sends a file. */
export const documentFields: INodeProperties[] = [
	{
		displayName: 'Input Type',
		name: 'documentSource',
		type: 'options',
		options: [
			{
				name: 'Binary File',
				value: 'binary',
				description: 'A file from a previous node (Read Files, HTTP Request, Google Drive, ...)',
			},
			{
				name: 'Base64 or Data URI',
				value: 'base64',
				description:
					'The file content as Base64 text, or a data URI such as data:application/pdf;base64,JVBERi0',
			},
		],
		default: 'binary',
		description: 'Where the document comes from',
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { documentSource: ['binary'] } },
		hint: 'The name of the input binary field holding the PDF or image',
		description: 'Name of the binary field of the input item that holds the document',
	},
	{
		displayName: 'Base64 or Data URI',
		name: 'base64Data',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		displayOptions: { show: { documentSource: ['base64'] } },
		placeholder: 'data:application/pdf;base64,JVBERi0xLjQK...',
		description: 'The document encoded as Base64, or as a data URI',
	},
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		placeholder: 'invoice-0042.pdf',
		description:
			"Name of the document, with its extension. Leave empty to use the binary file's own name (or a name made from the detected type).",
	},
];

export const taskIdField: INodeProperties = {
	displayName: 'Task ID',
	name: 'taskId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'tsk_12ab34',
	description: 'ID of the task, as returned by Submit (map the taskId field of its output)',
};

export const DEFAULT_CONCURRENCY = 5;
export const MAX_CONCURRENCY = 50;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
	default: DEFAULT_CONCURRENCY,
	description:
		'How many items this node processes at the same time. If the service throttles (rate limited), every item slows down together.',
};

export const waitTimeoutOption: INodeProperties = {
	displayName: 'Wait Timeout (Minutes)',
	name: 'waitTimeout',
	type: 'number',
	typeOptions: { minValue: 0.1, numberPrecision: 1 },
	default: 10,
	description:
		'How long to wait for the result before the item fails. The task goes on at the service and can be fetched later with Get.',
};

/** The "Options" collection of an operation (its entries sorted by name, as the editor lists them). */
export function optionsCollection(...options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/** The Wait for Completion switch of the operations that start a task or job. */
export function waitForCompletionField(description: string): INodeProperties {
	return {
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		description,
	};
}
