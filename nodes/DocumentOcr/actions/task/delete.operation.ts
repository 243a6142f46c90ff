import type { INodeProperties } from 'n8n-workflow';

import { requireIdParameter } from '../../shared/validate';
import { taskIdField } from '../shared.description';
import type { Prepare } from '../types';

export const properties: INodeProperties[] = [taskIdField];

/** DELETE /api/tasks/{taskId} (scope "export"): removes the task and its files. */
export const prepare: Prepare = async function (itemIndex, run) {
	const taskId = requireIdParameter(this, itemIndex, 'taskId', 'task ID');
	return async () => {
		const answer = await run.client.deleteTask(itemIndex, taskId);
		return [{ json: { ...answer, taskId, deleted: true } }];
	};
};
