/** Task → Export: GET /api/export/{taskId}/{format} on the Base URL, a binary answer (spec §4.1). */

import { BASE_URL, runNode } from '../../../support/context';

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const params = (extra = {}) => ({
	resource: 'task',
	operation: 'export',
	taskId: 'tsk_5',
	format: 'xlsx',
	binaryPropertyName: 'file',
	...extra,
});
const file = Buffer.from('PK\u0003\u0004 a spreadsheet', 'latin1');

test('asks for the file as bytes and outputs it as binary data in the chosen field', async () => {
	const { sent, output } = await runNode({
		params: params(),
		answers: [
			{
				body: file,
				headers: {
					'content-type': `${XLSX_MIME}; charset=binary`,
					'content-disposition': "attachment; filename*=UTF-8''Rechnung%20M%C3%A4rz.xlsx",
				},
			},
		],
	});
	expect(sent).toHaveLength(1);
	const { options } = sent[0];
	expect(options).toMatchObject({
		method: 'GET',
		url: `${BASE_URL}/api/export/tsk_5/xlsx`,
		encoding: 'arraybuffer',
		json: false,
	});
	expect(options.body).toBeUndefined();
	const fileName = 'Rechnung März.xlsx';
	expect(output).toEqual([
		{
			json: {
				taskId: 'tsk_5',
				format: 'xlsx',
				fileName,
				mimeType: XLSX_MIME,
				fileSize: file.length,
			},
			binary: {
				file: {
					data: file.toString('base64'),
					fileName,
					mimeType: XLSX_MIME,
					fileSize: String(file.length),
				},
			},
			pairedItem: { item: 0 },
		},
	]);
});

test('without headers: the format names the type, the task the file', async () => {
	const { sent, output } = await runNode({
		params: params({ format: ' PDF ', binaryPropertyName: ' ' }),
		answers: [{ body: file, headers: { 'content-type': 'application/octet-stream' } }],
	});
	expect(sent[0].options.url).toBe(`${BASE_URL}/api/export/tsk_5/pdf`);
	expect(output?.[0].json).toMatchObject({ fileName: 'tsk_5.pdf', mimeType: 'application/pdf' });
	expect(output?.[0].binary?.data).toMatchObject({ fileName: 'tsk_5.pdf' });
});

test('a JSON answer instead of a file: the task is read, and an unfinished one is named', async () => {
	const { sent, error } = await runNode({
		params: params(),
		answers: [
			{
				body: Buffer.from('{"status":"processing"}'),
				headers: { 'content-type': 'application/json' },
			},
			{ body: { taskId: 'tsk_5', status: 'processing' } },
		],
	});
	expect(sent.map(({ options: o }) => `${o.method} ${o.url}`)).toEqual([
		`GET ${BASE_URL}/api/export/tsk_5/xlsx`,
		`GET ${BASE_URL}/api/tasks/tsk_5`,
	]);
	expect(error?.message).toBe(
		'Task "tsk_5" is not done yet (status "processing"): it cannot be exported',
	);
});

test('a format the service does not export is refused before anything is sent', async () => {
	const { sent, error } = await runNode({ params: params({ format: 'odt' }) });
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe('Item 0: "odt" is not an export format');
});
