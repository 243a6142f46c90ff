import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../helpers/validate';
import type { TransportState } from '../../transport';
import { taskIdField } from '../shared.description';
import { getRecord } from '../records';

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['get'] } },
	[taskIdField],
);

/** GET /api/tasks/{taskId}: status, and resultText / metadata once done. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<INodeExecutionData[]> {
	const taskId = requireId(this, itemIndex, this.getNodeParameter('taskId', itemIndex), 'task ID');
	const { record } = await getRecord.call(this, itemIndex, state, 'task', taskId);
	return [{ json: record }];
}
