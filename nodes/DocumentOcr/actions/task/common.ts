import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TransportState } from '../../transport';
import { apiRequest, unexpectedBody } from '../../transport';
import { unwrapRecord } from '../../helpers/task';
import type { WaitSettings } from '../../helpers/wait';
import { waitUntilFinished } from '../../helpers/wait';

/** GET /api/tasks/{taskId}: the task record, whatever wrapper the service puts around it. */
export async function getTask(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	taskId: string,
	deadline?: number,
): Promise<{ record: IDataObject; retryAfterMs?: number }> {
	const response = await apiRequest.call(this, itemIndex, {
		method: 'GET',
		path: ['api', 'tasks', taskId],
		kind: 'read',
		scope: 'read',
		subject: `Task "${taskId}"`,
		deadline,
	}, state);
	const record = unwrapRecord(response.body);
	if (!record) throw unexpectedBody(this, itemIndex, `task "${taskId}"`, response.body);
	return { record, retryAfterMs: response.retryAfterMs };
}

/** Polls a task until it is done (returns it) or failed / past the deadline (throws). */
export async function waitForTask(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	taskId: string,
	settings: WaitSettings,
): Promise<IDataObject> {
	return await waitUntilFinished.call(
		this,
		itemIndex,
		{
			label: `Task "${taskId}"`,
			fetch: async (deadline) => await getTask.call(this, itemIndex, state, taskId, deadline),
		},
		settings,
	);
}
