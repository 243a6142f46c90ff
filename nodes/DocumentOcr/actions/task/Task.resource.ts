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
				action: 'Delete a task and its files',
				description:
					'Permanently delete a task by its ID, with its recognised text and files. Needs an API key with the "export" scope.',
			},
			{
				name: 'Export',
				value: 'export',
				action: 'Export a task as a DOCX, XLSX or PDF file',
				description:
					'Download the recognised text of a finished task as a Word (DOCX), Excel (XLSX) or PDF file, output as binary data',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get the status and text of a task',
				description:
					'Get a task by its ID: its status (e.g. queued, processing, done, failed) and, once done, the recognised text (resultText) and any invoice fields (metadata)',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many tasks and their status',
				description:
					'List tasks, newest first, with their IDs and status, optionally only those with one status. To read the text of a task, use Get with its ID.',
			},
			{
				name: 'Submit',
				value: 'submit',
				action: 'Submit a document for OCR',
				description:
					'Send a PDF or image to have its text recognised (billed per page). Outputs the task with its text, or only the task ID when not waiting.',
			},
			{
				name: 'Submit (V2)',
				value: 'submitV2',
				action: 'Submit a document for OCR with output options',
				description:
					'Like Submit, through the v2 endpoint of the service (/api/v2/ocr): choose the output format (e.g. Markdown) and table and formula recognition',
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
