import type { INodeProperties } from 'n8n-workflow';

import { simplifyTask } from '../../shared/records';
import { requireIdParameter } from '../../shared/validate';
import { simplified, simplifyField, taskIdField } from '../shared.description';
import type { Prepare } from '../types';

export const properties: INodeProperties[] = [taskIdField, simplifyField];

/** GET /api/tasks/{taskId}: status, and resultText / metadata once done. */
export const prepare: Prepare = async function (itemIndex, run) {
	const id = requireIdParameter(this, itemIndex, 'taskId', 'task ID');
	const simplify = simplified(this, itemIndex);
	return async () => {
		const { record } = await run.client.getRecord(itemIndex, 'task', id);
		return [{ json: simplify ? simplifyTask(record) : record }];
	};
};
