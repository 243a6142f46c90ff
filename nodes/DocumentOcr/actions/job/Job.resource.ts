import type { INodeProperties } from 'n8n-workflow';

import { fieldsOf } from '../shared.description';
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
				action: 'Create job',
				description: 'Process a PDF or image in the background, and get the finished job',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get job',
				description: "Get a job's status and, once finished, its result",
			},
		],
		default: 'create',
	},
	...fieldsOf('job', operations),
];
