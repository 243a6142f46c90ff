/** Task → Get: GET /api/tasks/{taskId} on the Base URL (spec §4.1). */

import { BASE_URL, runNode } from '../../../support/context';

const params = (taskId: unknown) => ({ resource: 'task', operation: 'get', taskId });

test('reads the task by its ID, encoded as one path segment', async () => {
	const task = { taskId: 'a/b c', status: 'done', resultText: 'Hi' };
	const { sent, output } = await runNode({ params: params(' a/b c '), answers: [{ body: task }] });
	expect(sent).toHaveLength(1);
	const { credentialType, options } = sent[0];
	expect(credentialType).toBe('documentOcrApi');
	expect(options).toMatchObject({
		method: 'GET',
		url: `${BASE_URL}/api/tasks/a%2Fb%20c`,
		json: true,
	});
	expect(options.body).toBeUndefined();
	expect(options.qs).toBeUndefined();
	expect(output).toEqual([{ json: task, pairedItem: { item: 0 } }]);
});

test('a wrapped task is unwrapped; a numeric ID parameter is read as text', async () => {
	const { sent, output } = await runNode({
		params: params(17),
		answers: [{ body: { data: { id: 17, status: 'queued' } } }],
	});
	expect(sent[0].options.url).toBe(`${BASE_URL}/api/tasks/17`);
	expect(output?.[0].json).toEqual({ taskId: 17, id: 17, status: 'queued' });
});

test.each([[''], ['..']])('the ID %j is refused before anything is sent', async (taskId) => {
	const { sent, error } = await runNode({ params: params(taskId) });
	expect(sent).toHaveLength(0);
	expect(error?.message).toMatch(/^Item 0: /);
});

test('an answer that is no task is an error, not an empty item', async () => {
	const { error } = await runNode({
		params: params('t1'),
		answers: [{ body: '<html>proxy</html>' }],
	});
	expect(error?.message).toBe('Unexpected answer from the OCR service for task "t1"');
});
