/** Job → Create: POST /v1/jobs on the API URL, the user's fields then the part `file` (spec §4.3). */

import { API_URL, fileItem, multipartBody, PDF, runNode } from '../../../support/context';

const params = (extra = {}) => ({
	resource: 'job',
	operation: 'create',
	waitForCompletion: false,
	jobFields: {
		field: [
			{ name: ' language ', value: 'de' },
			{ name: 'pages', value: 2 },
		],
	},
	...extra,
});

test('sends each job field as a text part, then the file; outputs the job at once', async () => {
	const { sent, output } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'contract.pdf')],
		answers: [{ body: { id: 'job_1', status: 'queued' } }],
	});
	expect(sent).toHaveLength(1);
	expect(sent[0].options).toMatchObject({ method: 'POST', url: `${API_URL}/v1/jobs`, json: false });
	expect(await multipartBody(sent[0].options)).toEqual([
		{ name: 'language', data: Buffer.from('de') },
		{ name: 'pages', data: Buffer.from('2') },
		{ name: 'file', fileName: 'contract.pdf', contentType: 'application/pdf', data: PDF },
	]);
	expect(output).toEqual([
		{ json: { id: 'job_1', status: 'queued', pagesCounted: null }, pairedItem: { item: 0 } },
	]);
});

test('no job fields: the file is the only part; a wrapped numeric ID is output as text', async () => {
	const { sent, output } = await runNode({
		params: params({ jobFields: {} }),
		items: [fileItem(PDF, 'contract.pdf')],
		answers: [{ body: { job: { jobId: 7, status: 'queued' } } }],
	});
	expect((await multipartBody(sent[0].options)).map((part) => part.name)).toEqual(['file']);
	expect(output?.[0].json).toMatchObject({ id: '7', status: 'queued' });
});

test('with Wait for Completion: polls GET /v1/jobs/{id} on the API URL until done', async () => {
	const done = { id: 'job_1', status: 'done', result: { text: 'Signed' } };
	const { sent, output } = await runNode({
		params: params({ waitForCompletion: true }),
		items: [fileItem(PDF, 'contract.pdf')],
		answers: [{ body: { id: 'job_1', status: 'queued' } }, { body: done }],
	});
	expect(sent.map(({ options: o }) => `${o.method} ${o.url}`)).toEqual([
		`POST ${API_URL}/v1/jobs`,
		`GET ${API_URL}/v1/jobs/job_1`,
	]);
	expect(output?.[0].json).toEqual({ ...done, pagesCounted: null });
});

test('an answer without a job ID is an error: a job may exist that cannot be fetched', async () => {
	const { error } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'contract.pdf')],
		answers: [{ body: { status: 'queued' } }],
	});
	expect(error?.message).toBe(
		'Unexpected answer from the OCR service for the job creation (a job may have been created)',
	);
});

test.each([
	[[{ name: ' ', value: 'x' }], 'Item 0: a job field has no name'],
	[
		[{ name: 'file', value: 'x' }],
		'Item 0: the job field name "file" is reserved for the document',
	],
])('the fields %j are refused before anything is sent', async (field, message) => {
	const { sent, error } = await runNode({
		params: params({ jobFields: { field } }),
		items: [fileItem(PDF, 'contract.pdf')],
	});
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe(message);
});
