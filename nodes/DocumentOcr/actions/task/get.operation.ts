import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../helpers/validate';
import { taskIdField } from '../shared.description';
import { getRecord } from '../../transport/client';
import type { Send } from '../types';

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['get'] } },
	[taskIdField],
);

/** GET /api/tasks/{taskId}: status, and resultText / metadata once done. */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
	const id = requireId(this, itemIndex, this.getNodeParameter('taskId', itemIndex), 'task ID');
	return async (state) => {
		const { record } = await getRecord.call(this, itemIndex, state, 'task', id);
		return [{ json: record }];
	};
}
