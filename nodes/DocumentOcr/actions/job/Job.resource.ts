import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as create from './create.operation';
import * as get from './get.operation';

/** The /v1 asynchronous jobs (on the API URL). Operation values are a public contract: never rename. */
export const operations: Record<string, Operation> = { create, get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['job'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a job for a document',
				description:
					'Start processing a PDF or image in the background. Outputs the finished job, or only its ID when not waiting.',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get the status and result of a job',
				description: 'Get a job by its ID: its status and, once finished, its result',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
];
