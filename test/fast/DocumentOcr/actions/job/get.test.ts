/** Job → Get: GET /v1/jobs/{id} on the API URL (spec §4.3; response body not shown). */

import { API_URL, runNode } from '../../../support/context';

const params = (jobId: string) => ({ resource: 'job', operation: 'get', jobId });

test('reads the job by its ID on the API URL, encoded as one path segment', async () => {
	const job = { id: 'job 1', status: 'running' };
	const { sent, output } = await runNode({ params: params('job 1'), answers: [{ body: job }] });
	expect(sent).toHaveLength(1);
	expect(sent[0].credentialType).toBe('documentOcrApi');
	expect(sent[0].options).toMatchObject({
		method: 'GET',
		url: `${API_URL}/v1/jobs/job%201`,
		json: true,
	});
	expect(sent[0].options.body).toBeUndefined();
	expect(output).toEqual([{ json: job, pairedItem: { item: 0 } }]);
});

test('a wrapped job is unwrapped and keeps its ID as `id`', async () => {
	const { output } = await runNode({
		params: params('j2'),
		answers: [{ body: { data: { jobId: 'j2', status: 'done' } } }],
	});
	expect(output?.[0].json).toEqual({ id: 'j2', jobId: 'j2', status: 'done' });
});

test('an empty job ID is refused before anything is sent', async () => {
	const { sent, error } = await runNode({ params: params('  ') });
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe('Item 0: job ID is empty');
});
