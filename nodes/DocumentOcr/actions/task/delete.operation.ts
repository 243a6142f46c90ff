import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../helpers/validate';
import { apiRequest } from '../../transport';
import { taskIdField } from '../shared.description';
import type { Send } from '../types';

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['delete'] } },
	[taskIdField],
);

/** DELETE /api/tasks/{taskId} (scope "export"): removes the task and its files. */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
	const taskId = requireId(this, itemIndex, this.getNodeParameter('taskId', itemIndex), 'task ID');
	return async (state) => {
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
			typeof body === 'object' && body !== null && !Array.isArray(body)
				? (body as IDataObject)
				: {};
		return [{ json: { ...extra, taskId, deleted: true } }];
	};
}
