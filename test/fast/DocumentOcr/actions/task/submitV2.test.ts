/** Task → Submit (V2): POST /api/v2/ocr on the Base URL; filename required, `options` object (spec §4.2). */

import { BASE_URL, bodyType, jsonBody, PDF, fileItem, runNode } from '../../../support/context';

const params = (extra = {}) => ({
	resource: 'task',
	operation: 'submitV2',
	format: 'markdown',
	waitForCompletion: false,
	...extra,
});
const queued = { taskId: 'tsk_2', status: 'queued', estimatedSeconds: 0, pages: 4, creditsUsed: 4 };

test('sends filename, options and the Base64 file to the Base URL; outputs the answer', async () => {
	const { sent, output } = await runNode({
		params: params({ options: { highFidelityTables: true, formulas: false } }),
		items: [fileItem(PDF, 'report.pdf')],
		answers: [{ body: queued }],
	});
	expect(sent).toHaveLength(1);
	const { options } = sent[0];
	expect(options).toMatchObject({ method: 'POST', url: `${BASE_URL}/api/v2/ocr`, json: false });
	expect(bodyType(options)).toBe('application/json');
	expect(await jsonBody(options)).toEqual({
		filename: 'report.pdf',
		options: { format: 'markdown', highFidelityTables: true, formulas: false },
		imageBase64: PDF.toString('base64'),
	});
	expect(output).toEqual([
		{ json: { ...queued, pagesCounted: null, pagesBilled: 4 }, pairedItem: { item: 0 } },
	]);
});

test('"Service Default" and no options: no options object at all', async () => {
	const { sent } = await runNode({
		params: params({ format: '' }),
		items: [fileItem(PDF, 'report.pdf')],
		answers: [{ body: queued }],
	});
	expect(await jsonBody(sent[0].options)).toEqual({
		filename: 'report.pdf',
		imageBase64: PDF.toString('base64'),
	});
});

test('a format typed in is sent as typed (trimmed)', async () => {
	const { sent } = await runNode({
		params: params({ format: 'other', customFormat: ' text ' }),
		items: [fileItem(PDF, 'report.pdf')],
		answers: [{ body: queued }],
	});
	expect((await jsonBody(sent[0].options)).options).toEqual({ format: 'text' });
});

test('with Wait for Completion: the finished task keeps the submission figures', async () => {
	const done = { taskId: 'tsk_2', status: 'done', resultText: '# Report' };
	const { sent, output } = await runNode({
		params: params({ waitForCompletion: true }),
		items: [fileItem(PDF, 'report.pdf')],
		answers: [{ body: [] }, { body: queued }, { body: done }],
	});
	expect(sent.map(({ options: o }) => `${o.method} ${o.url}`)).toEqual([
		`GET ${BASE_URL}/api/tasks`,
		`POST ${BASE_URL}/api/v2/ocr`,
		`GET ${BASE_URL}/api/tasks/tsk_2`,
	]);
	expect(output?.[0].json).toEqual({
		...done,
		estimatedSeconds: 0,
		pages: 4,
		creditsUsed: 4,
		pagesCounted: null,
		pagesBilled: 4,
	});
});

test('Base64 input without a file name is refused before anything is sent', async () => {
	const { sent, error } = await runNode({
		params: params({ documentSource: 'base64', base64Data: PDF.toString('base64') }),
	});
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe("Item 0: /api/v2/ocr needs the document's file name");
});

test('"Other" with nothing typed in is refused before anything is sent', async () => {
	const { sent, error } = await runNode({
		params: params({ format: 'other', customFormat: ' ' }),
		items: [fileItem(PDF, 'report.pdf')],
	});
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe('Item 0: "Other Format" is empty');
});
