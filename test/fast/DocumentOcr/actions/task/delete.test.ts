/** Task → Delete: DELETE /api/tasks/{taskId} on the Base URL (spec §4.1; response body not shown). */

import { BASE_URL, runNode } from '../../../support/context';

const params = { resource: 'task', operation: 'delete', taskId: 'tsk_9' };

test('deletes the task by its ID and outputs { taskId, deleted: true }', async () => {
	const { sent, output } = await runNode({ params, answers: [{ body: '' }] });
	expect(sent).toHaveLength(1);
	expect(sent[0].options).toMatchObject({ method: 'DELETE', url: `${BASE_URL}/api/tasks/tsk_9` });
	expect(sent[0].options.body).toBeUndefined();
	expect(output).toEqual([{ json: { taskId: 'tsk_9', deleted: true }, pairedItem: { item: 0 } }]);
});

test('what the service answers is kept, but cannot override the ID or the outcome', async () => {
	const { output } = await runNode({
		params,
		answers: [{ body: { message: 'gone', taskId: 'other', deleted: false } }],
	});
	expect(output?.[0].json).toEqual({ message: 'gone', taskId: 'tsk_9', deleted: true });
});
