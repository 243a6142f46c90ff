import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as deleteTask from './delete.operation';
import * as exportTask from './export.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as submit from './submit.operation';
import * as submitV2 from './submitV2.operation';

/** Task API (`/api/...` on the Base URL). Operation values are a public contract: never rename. */
export const operations: Record<string, Operation> = {
	submit,
	submitV2,
	get,
	getMany,
	delete: deleteTask,
	export: exportTask,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['task'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a task',
				description: 'Delete a task and its files (needs the "export" scope)',
			},
			{
				name: 'Export',
				value: 'export',
				action: 'Export a task as a file',
				description: 'Download the result of a finished task as DOCX, XLSX or PDF',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a task',
				description: 'Get the status of a task, and its recognised text once done',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many tasks',
				description: 'List tasks, newest first, optionally filtered by status',
			},
			{
				name: 'Submit',
				value: 'submit',
				action: 'Submit a document for OCR',
				description:
					'Send a PDF or image for text recognition (billed per page) and optionally wait for the text',
			},
			{
				name: 'Submit (V2)',
				value: 'submitV2',
				action: 'Submit a document to the v2 endpoint',
				description:
					'Send a document to /api/v2/ocr with output format (e.g. Markdown), table and formula options',
			},
		],
		default: 'submit',
	},
	...submit.description,
	...submitV2.description,
	...get.description,
	...getMany.description,
	...deleteTask.description,
	...exportTask.description,
];
