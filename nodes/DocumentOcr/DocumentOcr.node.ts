import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { billingOperations } from './actions/operations';
import { router } from './actions/router';
import { searchTasks } from './actions/task/listSearch';
import * as document from './actions/document/Document.resource';
import * as job from './actions/job/Job.resource';
import * as task from './actions/task/Task.resource';

export class DocumentOcr implements INodeType {
	description: INodeTypeDescription = {
		// "OCR" first: n8n's nodes panel ranks a search by a fuzzy match on the display name that
		// costs every letter before the first matched one, so "Document OCR" came after Zoho CRM
		// for "OCR". The node's name on the canvas (defaults) and in tool descriptions stays.
		displayName: 'OCR Document',
		name: 'documentOcr',
		icon: { light: 'file:documentOcr.svg', dark: 'file:documentOcr.dark.svg' },
		group: ['transform'],
		// Version 2 adds Simplify (on by default). No `defaultVersion`: n8n gives new nodes the
		// highest version anyway, and adds Custom API Call only to a node without one.
		version: [1, 2],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Read the text of PDFs and images (OCR) with the Document OCR service: plain text, Markdown, invoice fields or values named by a JSON Schema; export Word, Excel or PDF files; manage tasks and jobs',
		defaults: { name: 'Document OCR' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'documentOcrApi', required: true }],
		hints: [
			{
				message:
					'Wait for Completion is off: the output holds only the task or job ID. Fetch the result later with Get, or react to ocr.done with the Document OCR Trigger.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'beforeExecution',
				displayCondition:
					'={{ ["submit", "submitV2", "create"].includes($parameter["operation"]) && $parameter["waitForCompletion"] === false }}',
			},
			{
				message:
					'Each submitted page is billed. Bad files (empty, over 10 MB, not a PDF or image) are stopped before sending and cost nothing. To cap what one run may bill, set a Page Budget in Options.',
				type: 'info',
				location: 'inputPane',
				whenToDisplay: 'beforeExecution',
				// The operations that bill, as each says it does (actions/operations.ts).
				displayCondition: `={{ ${JSON.stringify(billingOperations())}.includes($parameter["operation"]) }}`,
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Document',
						value: 'document',
						description:
							'Get results right away, in one step: the text, Markdown, or the values a JSON Schema names (e.g. invoice fields)',
					},
					{
						name: 'Job',
						value: 'job',
						description:
							'Process a document in the background and fetch the result later by job ID',
					},
					{
						name: 'Task',
						value: 'task',
						description:
							'Send documents for text recognition (each becomes a task with an ID), then get, list, export or delete tasks',
					},
				],
				default: 'task',
			},
			...task.description,
			...document.description,
			...job.description,
		],
	};

	methods = { listSearch: { searchTasks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
