/** Task → Submit: POST /api/ocr on the Base URL, JSON with the file as Base64 (spec §4.1). */

import type { Answer } from '../../../support/context';
import {
	BASE_URL,
	bodyType,
	fileItem,
	jsonBody,
	LARGE_PDF,
	PDF,
	runNode,
} from '../../../support/context';

const params = (extra = {}) => ({
	resource: 'task',
	operation: 'submit',
	provider: 'provider-async',
	documentType: 'general',
	waitForCompletion: false,
	...extra,
});
const accepted: Answer = {
	body: { success: true, taskId: 'tsk_1', provider: 'provider-async' },
};

test('sends the spec fields as JSON to the Base URL, never the API URL', async () => {
	const { sent, output } = await runNode({
		params: params({ documentType: 'invoice' }),
		items: [fileItem(PDF, 'scan.pdf')],
		answers: [accepted],
	});
	expect(sent).toHaveLength(1);
	const [{ credentialType, options }] = sent;
	expect(credentialType).toBe('documentOcrApi');
	expect(options).toMatchObject({ method: 'POST', url: `${BASE_URL}/api/ocr`, json: false });
	expect(options.qs).toBeUndefined();
	expect(options.headers).toMatchObject({ Accept: 'application/json' });
	expect(bodyType(options)).toBe('application/json');
	expect(await jsonBody(options)).toEqual({
		filename: 'scan.pdf',
		provider: 'provider-async',
		documentType: 'invoice',
		imageBase64: PDF.toString('base64'),
	});
	expect(output).toEqual([
		{ json: { ...(accepted.body as object), pagesCounted: null }, pairedItem: { item: 0 } },
	]);
});

test('a large file is streamed: the same JSON, as long as it announces', async () => {
	const { sent } = await runNode({
		params: params(),
		items: [fileItem(LARGE_PDF, 'big.pdf')],
		answers: [accepted],
	});
	expect(bodyType(sent[0].options)).toBe('application/json');
	expect(await jsonBody(sent[0].options)).toEqual({
		filename: 'big.pdf',
		provider: 'provider-async',
		documentType: 'general',
		imageBase64: LARGE_PDF.toString('base64'),
	});
});

test('a data URI goes out as plain Base64, with a file name made from the detected type', async () => {
	const { sent } = await runNode({
		params: params({
			documentSource: 'base64',
			base64Data: `data:application/pdf;base64,${PDF.toString('base64')}`,
		}),
		answers: [accepted],
	});
	const body = await jsonBody(sent[0].options);
	expect(body.imageBase64).toBe(PDF.toString('base64'));
	expect(body.filename).toBe('document.pdf');
});

test('the task ID is output as a string, with the billed pages the answer names', async () => {
	const { output } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'scan.pdf')],
		answers: [{ body: { data: { success: true, taskId: 42, pagesBilled: 3 } } }],
	});
	expect(output?.[0].json).toEqual({
		success: true,
		taskId: '42',
		pagesBilled: 3,
		pagesCounted: null,
	});
});

test('with Wait for Completion: checks the read scope for free, submits, reads the task', async () => {
	const done = { taskId: 'tsk_1', status: 'done', resultText: 'Hello', metadata: {}, pages: 2 };
	const { sent, output } = await runNode({
		params: params({ provider: 'provider-sync', waitForCompletion: true }),
		items: [fileItem(PDF, 'scan.pdf')],
		answers: [{ body: [] }, accepted, { body: done }],
	});
	expect(sent.map(({ options: o }) => `${o.method} ${o.url}`)).toEqual([
		`GET ${BASE_URL}/api/tasks`,
		`POST ${BASE_URL}/api/ocr`,
		`GET ${BASE_URL}/api/tasks/tsk_1`,
	]);
	expect(sent[0].options.qs).toEqual({ page: 1, pageSize: 1 });
	expect(sent[2].options.body).toBeUndefined();
	// The submission named no billed count: the finished task's page count is the bill.
	expect(output?.[0].json).toEqual({ ...done, pagesBilled: 2, pagesCounted: null });
});

test('success: false is a refused submission, not a task', async () => {
	const { error, output } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'scan.pdf')],
		answers: [{ body: { success: false, message: 'bad file' } }],
	});
	expect(output).toBeUndefined();
	expect(error?.message).toBe(
		'The OCR service did not accept the document (success: false): bad file',
	);
});

test('a file the task API cannot read is refused before anything is sent', async () => {
	const { sent, error } = await runNode({
		params: params(),
		items: [fileItem(Buffer.from('just text'), 'notes.pdf')],
	});
	expect(sent).toHaveLength(0);
	expect(error?.message).toMatch(/not a file type the service reads/);
});
