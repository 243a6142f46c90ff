import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import * as task from './actions/task/Task.resource';

export class DocumentOcr implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document OCR',
		name: 'documentOcr',
		icon: { light: 'file:documentOcr.svg', dark: 'file:documentOcr.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Recognise text in PDFs and images with the Document OCR service: submit documents, wait for the text, export DOCX/XLSX/PDF, manage tasks',
		defaults: { name: 'Document OCR' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'documentOcrApi', required: true }],
		hints: [
			{
				message:
					'Wait for Completion is off: the output holds the task ID only. Fetch the text later with Task → Get, or react to ocr.done with the Document OCR Trigger.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'beforeExecution',
				displayCondition: '={{ $parameter["operation"] === "submit" && $parameter["waitForCompletion"] === false }}',
			},
			{
				message:
					'Each submitted page is billed. Bad files (empty, over 10 MB, not a PDF or image) are stopped before sending and cost nothing.',
				type: 'info',
				location: 'inputPane',
				whenToDisplay: 'beforeExecution',
				displayCondition: '={{ $parameter["operation"] === "submit" }}',
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
						name: 'Task',
						value: 'task',
						description: 'OCR tasks of the task API: submit, get, list, export, delete',
					},
				],
				default: 'task',
			},
			...task.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
