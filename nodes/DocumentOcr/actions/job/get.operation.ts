import type { INodeProperties } from 'n8n-workflow';

import { requireIdParameter } from '../../shared/validate';
import { jobIdField } from '../shared.description';
import type { Prepare } from '../types';

export const properties: INodeProperties[] = [jobIdField];

/** GET /v1/jobs/{id}: the job as the service returns it (status, and its result once finished). */
export const prepare: Prepare = async function (itemIndex, run) {
	const id = requireIdParameter(this, itemIndex, 'jobId', 'job ID');
	return async () => [{ json: (await run.client.getRecord(itemIndex, 'job', id)).record }];
};
