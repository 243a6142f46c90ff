import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../helpers/validate';
import type { TransportState } from '../../transport';
import { apiRequest } from '../../transport';
import { taskIdField } from '../shared.description';

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['delete'] } },
	[taskIdField],
);

/** DELETE /api/tasks/{taskId} (scope "export"): removes the task and its files. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<INodeExecutionData[]> {
	const taskId = requireId(this, itemIndex, this.getNodeParameter('taskId', itemIndex), 'task ID');
	const response = await apiRequest.call(
		this,
		itemIndex,
		{
			method: 'DELETE',
			path: ['api', 'tasks', taskId],
			kind: 'delete',
			scope: 'export',
			subject: `Task "${taskId}"`,
		},
		state,
	);
	const body = response.body;
	const extra =
		typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as IDataObject) : {};
	return [{ json: { ...extra, taskId, deleted: true } }];
}
