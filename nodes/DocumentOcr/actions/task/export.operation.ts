import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ServiceClient } from '../../service/client';
import { classifyStatus } from '../../shared/records';
import { fileNameFromDisposition, safeFileName } from '../../shared/text';
import { itemFields, requireIdParameter, textField } from '../../shared/validate';
import { quoteAnswer } from '../../transport/answers';
import { httpStatus } from '../../transport/errors';
import { concurrencyOption, optionsCollection, taskIdField } from '../shared.description';
import type { Prepare } from '../types';

const FORMATS: Record<string, { mime: string; label: string }> = {
	docx: {
		mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		label: 'Word (DOCX)',
	},
	xlsx: {
		mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		label: 'Excel (XLSX)',
	},
	pdf: { mime: 'application/pdf', label: 'PDF' },
};

const outputPropertyField: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	hint: 'The name of the output binary field to put the file in',
	description:
		'Name of the binary field the file is put in, for the next steps (e.g. Write Files to Disk, Google Drive)',
};

export const properties: INodeProperties[] = [
	taskIdField,
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		options: Object.entries(FORMATS).map(([value, { label }]) => ({ name: label, value })),
		default: 'docx',
		description: 'The kind of file to create from the recognized text',
	},
	outputPropertyField,
	optionsCollection(concurrencyOption),
];

/** GET /api/export/{taskId}/{format}: the export as n8n binary data. */
export const prepare: Prepare = async function (itemIndex, run) {
	const node = this.getNode();
	const taskId = requireIdParameter(this, itemIndex, 'taskId', 'task ID');
	const format = String(this.getNodeParameter('format', itemIndex)).trim().toLowerCase();
	const property = textField(itemFields(this, itemIndex), outputPropertyField) || 'data';
	if (!FORMATS[format]) {
		throw new NodeOperationError(node, `Item ${itemIndex}: "${format}" is not an export format`, {
			description: 'Choose docx, xlsx or pdf.',
			itemIndex,
		});
	}
	return async () => await exportTask.call(this, itemIndex, run.client, taskId, format, property);
};

/**
 * An export refused because the task is not done yet, said so (the spec does not say how the
 * service answers for an unfinished task: the task's status tells); any other `original` as is.
 */
async function notReady(
	ctx: IExecuteFunctions,
	client: ServiceClient,
	itemIndex: number,
	taskId: string,
	original: NodeApiError | NodeOperationError,
): Promise<Error> {
	const { record } = await client.getRecord(itemIndex, 'task', taskId);
	if (classifyStatus(record.status) === 'done') return original;
	return new NodeOperationError(
		ctx.getNode(),
		`Task "${taskId}" is not done yet (status "${quoteAnswer(record.status, [], 60)}"): it cannot be exported`,
		{
			description:
				'Export works once the task is done. Submit with "Wait for Completion" on, or start the export from the Document OCR Trigger on ocr.done.',
			itemIndex,
		},
	);
}

async function exportTask(
	this: IExecuteFunctions,
	itemIndex: number,
	client: ServiceClient,
	taskId: string,
	format: string,
	property: string,
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	let response;
	try {
		response = await client.exportTask(itemIndex, taskId, format);
	} catch (error) {
		// A 4xx may mean "not done yet", which the task's status tells.
		const original = error as NodeApiError | NodeOperationError;
		const status = httpStatus(original);
		if (status === undefined || ![400, 409, 412, 422, 425].includes(status)) throw original;
		throw await notReady(this, client, itemIndex, taskId, original);
	}

	const contentType = String(response.headers['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	const body = Buffer.isBuffer(response.body)
		? response.body
		: Buffer.from(response.body as ArrayBuffer);
	if (contentType === 'application/json' || contentType.startsWith('text/')) {
		// A JSON or text answer where a file was expected: most likely "not ready yet". It is quoted
		// as every answer is (redacted): a proxy echoing the request would otherwise show the key.
		const message = `The service returned no ${format} file for task "${taskId}"`;
		const description = `It answered with ${contentType} instead: ${quoteAnswer(body, [], 200)}`;
		const original = new NodeApiError(
			node,
			{ message, description },
			{ message, description, itemIndex },
		);
		throw await notReady(this, client, itemIndex, taskId, original);
	}
	const mimeType =
		contentType && contentType !== 'application/octet-stream' ? contentType : FORMATS[format].mime;
	const fileName =
		safeFileName(fileNameFromDisposition(response.headers['content-disposition']) ?? '') ||
		safeFileName(`${taskId}.${format}`) ||
		`export.${format}`;
	const binary = await this.helpers.prepareBinaryData(body, fileName, mimeType);
	return [
		{
			json: {
				taskId,
				format,
				fileName: binary.fileName ?? fileName,
				mimeType,
				fileSize: body.length,
			},
			binary: { [property]: binary },
		},
	];
}
