import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { pageBudgetOption } from '../batch/budget';
import type { SubmitSettings } from '../batch/submit';
import { resendUnconfirmedOption, skipOptionsOf, skipSubmittedOption } from '../batch/submitted';
import { splitLargeOption } from '../documents/split';
import { SELECTION_SYNTAX } from '../documents/select';
import { booleanField, itemFields, numberField } from '../shared/validate';
import type { Operation } from './types';

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
				description:
					'A file that an earlier step read or downloaded (e.g. Read/Write Files from Disk, HTTP Request, Google Drive)',
			},
			{
				name: 'Base64 or Data URI',
				value: 'base64',
				description:
					'The file written out as text: Base64 (file bytes encoded as letters and digits), or a data URI, which is Base64 with the file type in front (data:application/pdf;base64,JVBERi0...)',
			},
			{
				name: 'URL',
				value: 'url',
				description:
					'A link to the file itself (a direct download link). n8n downloads it and checks it before anything is sent or charged.',
			},
		],
		default: 'binary',
		description:
			'Where the PDF or image comes from. In an AI agent tool, use URL (or Base64 or Data URI): a tool gets no files from earlier steps.',
	},
	{
		displayName: 'Document URL',
		name: 'documentUrl',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { documentSource: ['url'] } },
		placeholder: 'e.g. https://example.com/invoices/0042.pdf',
		description:
			"Address of the PDF or image. It is downloaded through n8n (its proxy and SSRF settings apply), at most 10 MB; the file name comes from the server's Content-Disposition or the URL.",
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { documentSource: ['binary'] } },
		hint: 'The name of the input binary field holding the PDF or image',
		description:
			'Name of the field of the incoming item that holds the file, as shown on the Binary tab of the input (usually "data")',
	},
	{
		displayName: 'Base64 or Data URI',
		name: 'base64Data',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		displayOptions: { show: { documentSource: ['base64'] } },
		placeholder: 'e.g. data:application/pdf;base64,JVBERi0xLjQK...',
		description:
			'The PDF or image as Base64 text, or as a data URI such as data:image/png;base64,iVBORw0... At most 10 MB once decoded; the file type is read from the content.',
	},
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		placeholder: 'e.g. invoice-0042.pdf',
		description:
			"Name of the document with its extension, e.g. invoice-0042.pdf. Leave empty to use the file's own name; for Base64 input a name is made from the detected type (except for Submit (V2), which needs one).",
	},
];

/** What a typed ID may be: no spaces, slashes, `?` or `#` (it becomes one segment of a path). */
const ID_PATTERN = '^[^\\s/?#]+$';

/**
 * The task a Get, Delete or Export works on: picked from the newest tasks (*From List*, searchable)
 * or typed (*By ID*). Saved workflows that hold the ID as a plain string keep working: the value
 * is read with `extractValue`, which returns a string as it is.
 */
export const taskIdField: INodeProperties = {
	displayName: 'Task',
	name: 'taskId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		"The task to use: pick one of the newest, or enter the ID the service gave it (the 'taskId' field in the output of Submit, Get Many and the triggers)",
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a task...',
			typeOptions: { searchListMethod: 'searchTasks', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 7f0380ec-50d4-4c1e-9a3b-2f1d0c8e6a55',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: ID_PATTERN,
						errorMessage: 'Not a valid task ID: no spaces, "/", "?" or "#"',
					},
				},
			],
		},
	],
};

/** The job a Get works on, by ID (the service lists no jobs). */
export const jobIdField: INodeProperties = {
	displayName: 'Job',
	name: 'jobId',
	type: 'resourceLocator',
	default: { mode: 'id', value: '' },
	required: true,
	description:
		'The job to use: the ID the service gave it when it was created, as output by Create',
	modes: [
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. job_7f0380ec',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: ID_PATTERN,
						errorMessage: 'Not a valid job ID: no spaces, "/", "?" or "#"',
					},
				},
			],
		},
	],
};

/**
 * The most requests in flight at once (a cap: the node starts at 4 and opens more while the
 * service keeps up, halving on a 429; see transport/slots.ts).
 */
export const DEFAULT_CONCURRENCY = 16;
export const MAX_CONCURRENCY = 50;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: DEFAULT_CONCURRENCY,
	description:
		'The most requests sent to the service at the same time. The node starts with 4 and opens more while the service keeps up; when it reports too many requests, all items slow down together. 1 sends one item at a time, each only after the previous one has finished.',
};

/** Longest Wait Timeout accepted: a week (n8n's own execution timeout usually ends a run sooner). */
const MAX_WAIT_MINUTES = 7 * 24 * 60;

export const waitTimeoutOption: INodeProperties = {
	displayName: 'Wait Timeout (Minutes)',
	name: 'waitTimeout',
	type: 'number',
	typeOptions: { minValue: 0.01, maxValue: MAX_WAIT_MINUTES, numberPrecision: 2 },
	default: 10,
	description:
		'How long to wait for the result before the item fails. The task goes on at the service and can be fetched later with Get.',
};

/**
 * Simplify (node version 2 on): lean items for workflows and AI agents. Version 1 nodes, as
 * saved before it existed, output the raw answer as they did.
 */
export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	displayOptions: { show: { '@version': [2] } },
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** Whether the item's output is simplified (always raw on version 1, which has no such field). */
export function simplified(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return booleanField(itemFields(ctx, itemIndex), simplifyField, { absent: false });
}

/** The Concurrency option, read once per run (from the first item). */
export function concurrencyOf(ctx: IExecuteFunctions): number {
	return numberField(itemFields(ctx, 0), concurrencyOption, { path: 'options.concurrency' });
}

/**
 * The item's Wait Timeout option (minutes; 10 when not set) in ms, checked before any request.
 * The deadline runs from the moment the service accepted the item's submission (`Date.now() +`
 * this, taken then), not from the start of the node.
 */
export function waitTimeoutMs(ctx: IExecuteFunctions, itemIndex: number): number {
	const read = { path: 'options.waitTimeout' };
	return numberField(itemFields(ctx, itemIndex), waitTimeoutOption, read) * 60_000;
}

/** The item's Wait for Completion switch. */
export function waitsForCompletion(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return booleanField(itemFields(ctx, itemIndex), waitForCompletionField(''));
}

/** The Options of the operations that submit a task or job, besides their own (submitOptionsOf). */
export const submitOptions: INodeProperties[] = [
	concurrencyOption,
	resendUnconfirmedOption,
	skipSubmittedOption,
	waitTimeoutOption,
];

/** The item's Skip Submitted Documents and Wait for Completion settings, as a submission takes them. */
export function submitOptionsOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Pick<SubmitSettings, 'skip' | 'wait'> {
	const { skip, resend } = skipOptionsOf(ctx, itemIndex);
	// The Wait Timeout is checked whether or not the node waits: a wrong value fails the item.
	const timeoutMs = waitTimeoutMs(ctx, itemIndex);
	return {
		skip: skip ? { resendUnconfirmed: resend } : undefined,
		wait: waitsForCompletion(ctx, itemIndex) ? { timeoutMs } : undefined,
	};
}

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

/**
 * The Pages option of every operation that sends a document (issue 37): only the pages it names
 * are sent, as a new file built from the document before anything is sent (documents/select.ts).
 * Empty — or an expression that gives nothing (undefined, null, "") — sends every page.
 */
export const pagesOption: INodeProperties = {
	displayName: 'Pages',
	name: 'pages',
	type: 'string',
	default: '',
	placeholder: 'e.g. 1-3, 5, 8-',
	description: `Only these pages of a PDF or multi-page TIFF are sent (and billed), in the document's order, as a new file made from it; an image is page 1. Leave empty for all pages. ${SELECTION_SYNTAX} A page past the document's last, or a selection that cannot be read, fails the item before anything is sent.`,
};

/**
 * The fields of a resource's operations as the node shows them, each shown for its operation;
 * for an operation that bills (it sends a document), its Options with the Page Budget, Pages and
 * Split Large Documents added — so that `bills` alone decides it. A billing operation without
 * Options fails the node's load.
 */
export function fieldsOf(
	resource: string,
	operations: Record<string, Operation>,
): INodeProperties[] {
	return Object.entries(operations).flatMap(([name, operation]) =>
		updateDisplayOptions(
			{ show: { resource: [resource], operation: [name] } },
			withBilling(operation),
		),
	);
}

/** An operation's fields, with the billing options in its Options when it bills. */
function withBilling(operation: Operation): INodeProperties[] {
	if (!operation.bills) return operation.properties;
	let found = false;
	const fields = operation.properties.map((field) => {
		if (field.name !== 'options' || field.type !== 'collection') return field;
		found = true;
		const options = [
			...((field.options as INodeProperties[]) ?? []),
			pageBudgetOption,
			pagesOption,
			splitLargeOption,
		];
		options.sort((a, b) => a.displayName.localeCompare(b.displayName));
		return { ...field, options };
	});
	if (!found)
		throw new Error(
			'An operation that bills has no Options to put the Page Budget, Pages and Split Large Documents in',
		);
	return fields;
}
