import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { requireId } from '../../shared/validate';
import type { Send } from '../types';

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['get'] } },
	[
		{
			displayName: 'Job ID',
			name: 'jobId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'job_12ab34',
			description:
				'The ID the service gave the job when it was created, as output by the Create operation',
		},
	],
);

/** GET /v1/jobs/{id}: the job as the service returns it (status, and its result once finished). */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<Send> {
	const id = requireId(this, itemIndex, this.getNodeParameter('jobId', itemIndex), 'job ID');
	return async () => [{ json: (await run.client.getRecord(itemIndex, 'job', id)).record }];
}
