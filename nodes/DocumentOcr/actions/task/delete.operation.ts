import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { requireIdParameter } from '../../shared/validate';
import { taskIdField } from '../shared.description';
import type { SendPhase } from '../types';

export const properties: INodeProperties[] = [taskIdField];

/** DELETE /api/tasks/{taskId} (scope "export"): removes the task and its files. */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const taskId = requireIdParameter(this, itemIndex, 'taskId', 'task ID');
	return async () => {
		const answer = await run.client.deleteTask(itemIndex, taskId);
		return [{ json: { ...answer, taskId, deleted: true } }];
	};
}
