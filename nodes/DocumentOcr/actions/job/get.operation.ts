import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { requireIdParameter } from '../../shared/validate';
import { jobIdField } from '../shared.description';
import type { SendPhase } from '../types';

export const properties: INodeProperties[] = [jobIdField];

/** GET /v1/jobs/{id}: the job as the service returns it (status, and its result once finished). */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const id = requireIdParameter(this, itemIndex, 'jobId', 'job ID');
	return async () => [{ json: (await run.client.getRecord(itemIndex, 'job', id)).record }];
}
