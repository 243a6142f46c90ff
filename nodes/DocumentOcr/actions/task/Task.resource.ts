import type { INodeProperties } from 'n8n-workflow';

import { fieldsOf } from '../shared.description';
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
				action: 'Delete task',
				description:
					'Permanently delete a task with its text and files (needs a key with the "export" scope)',
			},
			{
				name: 'Export',
				value: 'export',
				action: 'Export task as file',
				description: 'Download a finished task as a Word, Excel or PDF file',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get task',
				description: "Get a task's status and, once done, its text ('resultText')",
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many tasks',
				description: 'List tasks, newest first, with their IDs and status',
			},
			{
				name: 'Submit',
				value: 'submit',
				action: 'Submit document',
				description: 'Send a PDF or image for text recognition (billed per page) and get its text',
			},
			{
				name: 'Submit (V2)',
				value: 'submitV2',
				action: 'Submit document with output options',
				description:
					'Like Submit, with a choice of output format (e.g. Markdown), tables and formulas',
			},
		],
		default: 'submit',
	},
	...fieldsOf('task', operations),
];
