import type { INodeProperties } from 'n8n-workflow';

import { fieldsOf } from '../shared.description';
import type { Operation } from '../types';
import * as countPages from './countPages.operation';
import * as extract from './extract.operation';
import * as markdown from './markdown.operation';
import * as recognize from './recognize.operation';

/** The /v1 document endpoints (on the API URL). Operation values are a public contract: never rename. */
export const operations: Record<string, Operation> = { markdown, recognize, extract, countPages };

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
				action: 'Convert document to markdown',
				description: 'Get a PDF or image as Markdown (headings, lists, tables) in one step',
			},
			{
				name: 'Count Pages',
				value: 'countPages',
				action: 'Count document pages',
				description:
					'Get the number of pages of a PDF, TIFF or image without sending it: free, e.g. to route large documents before paying',
			},
			{
				name: 'Extract Structured Data',
				value: 'extract',
				action: 'Extract structured data from document',
				description:
					'Read the values a JSON Schema names (e.g. invoice total) from a document, in one step',
			},
			{
				name: 'Recognize (OCR)',
				value: 'recognize',
				action: 'Recognize document text',
				description: 'Get the plain text of a PDF or image in one step, without creating a task',
			},
		],
		default: 'markdown',
	},
	...fieldsOf('document', operations),
];
