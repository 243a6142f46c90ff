import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as extract from './extract.operation';
import * as markdown from './markdown.operation';
import * as recognize from './recognize.operation';

/** The /v1 document endpoints (on the API URL). Operation values are a public contract: never rename. */
export const operations: Record<string, Operation> = { markdown, recognize, extract };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['document'] } },
		options: [
			{
				name: 'Convert to Markdown',
				value: 'markdown',
				action: 'Convert a document to markdown',
				description:
					'Get the text of a PDF or image as Markdown (headings, lists, tables) in one step, optionally also as a .md file',
			},
			{
				name: 'Extract Structured Data',
				value: 'extract',
				action: 'Extract structured data from a document',
				description:
					'Read the values a JSON Schema names (e.g. invoice number, date, total) from a PDF or image, in one step, as JSON',
			},
			{
				name: 'Recognize (OCR)',
				value: 'recognize',
				action: 'Recognize the text of a document',
				description:
					'Get the plain text of a PDF or image and its text blocks in one step, without creating a task',
			},
		],
		default: 'markdown',
	},
	...markdown.description,
	...recognize.description,
	...extract.description,
];
