import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { resendUnconfirmedOption, skipOptionsOf, skipSubmittedOption } from '../../batch/submitted';
import { JOB_JOIN, sendUpload } from '../../batch/parts';
import { submitAndWait } from '../../batch/submit';
import { documentChoiceOf, v1Upload } from '../../documents/upload';
import type { SendPhase } from '../types';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	waitsForCompletion,
	waitTimeoutMs,
	waitForCompletionField,
	waitTimeoutOption,
} from '../shared.description';

const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName: 'Job Fields',
		name: 'jobFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		description:
			'Extra form fields sent with the file. The service does not publish the job fields, so give them as name/value pairs as its documentation names them.',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	waitForCompletionField(
		'Whether to wait until the job is finished and output it, or output the job ID right away',
	),
	optionsCollection(
		concurrencyOption,
		resendUnconfirmedOption,
		skipSubmittedOption,
		waitTimeoutOption,
	),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['create'] } },
	properties,
);

/** POST /v1/jobs (multipart: file + the given fields); optionally waits via GET /v1/jobs/{id}. */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const node = this.getNode();
	const pairs = ((this.getNodeParameter('jobFields', itemIndex, {}) as IDataObject).field ??
		[]) as IDataObject[];
	const fields: Array<[string, string]> = [];
	for (const pair of pairs) {
		const name = String(pair.name ?? '').trim();
		if (!name) {
			throw new NodeOperationError(node, `Item ${itemIndex}: a job field has no name`, {
				description: 'Give every job field a name, or remove it.',
				itemIndex,
			});
		}
		if (name === 'file') {
			throw new NodeOperationError(
				node,
				`Item ${itemIndex}: the job field name "file" is reserved for the document`,
				{
					itemIndex,
				},
			);
		}
		fields.push([name, String(pair.value ?? '')]);
	}
	const wait = waitsForCompletion(this, itemIndex);
	const timeoutMs = waitTimeoutMs(this, itemIndex);
	const skip = skipOptionsOf(this, itemIndex);
	const upload = await v1Upload(
		this,
		itemIndex,
		run.reads,
		'jobs',
		fields,
		documentChoiceOf(this, itemIndex),
	);
	return async () => {
		const json = await sendUpload(
			run,
			itemIndex,
			upload,
			JOB_JOIN,
			async ({ document, body }, submitted) =>
				await submitAndWait(run, itemIndex, {
					kind: 'job',
					body,
					pageCount: document.pageCount,
					identity: { operation: 'job', settings: { fields }, document },
					skip: skip.skip ? { resendUnconfirmed: skip.resend } : undefined,
					// The Wait Timeout runs from the moment the service accepted the job.
					wait: wait ? { timeoutMs } : undefined,
					onSubmitted: submitted,
				}),
		);
		return [{ json }];
	};
}
