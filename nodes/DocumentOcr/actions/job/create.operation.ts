import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { v1Upload } from '../../helpers/body';
import { waitTimeoutMs } from '../../waiting';
import { skipSubmittedOption, submissionKey, submitRemembered } from '../../helpers/memory';
import { createJob, waitForRecord } from '../../transport/client';
import type { Send } from '../types';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
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
	optionsCollection(concurrencyOption, skipSubmittedOption, waitTimeoutOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['create'] } },
	properties,
);

/** POST /v1/jobs (multipart: file + the given fields); optionally waits via GET /v1/jobs/{id}. */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
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
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const timeoutMs = waitTimeoutMs(this, itemIndex, options.waitTimeout);
	const { document, body } = await v1Upload(this, itemIndex, 'jobs', fields);

	// The Wait Timeout runs from the moment the service accepted the job.
	const waitSettings = () => ({ deadline: Date.now() + timeoutMs });

	return async (state) => {
		const outcome = await submitRemembered(this, itemIndex, state, {
			kind: 'job',
			key: options.skipSubmitted
				? async () => await submissionKey(this, state, itemIndex, 'job', { fields }, document)
				: undefined,
			wait: wait ? waitSettings : undefined,
			submit: async () => {
				const { job, jobId } = await createJob.call(this, itemIndex, state, body);
				return { id: jobId, answer: job };
			},
		});
		if ('reused' in outcome) return [{ json: { ...outcome.reused, previouslySubmitted: true } }];
		const created = outcome.submitted;
		const jobId = String(created.id);
		if (!wait) return [{ json: created }];
		const job = await waitForRecord.call(this, itemIndex, state, 'job', jobId, waitSettings());
		return [{ json: job }];
	};
}
