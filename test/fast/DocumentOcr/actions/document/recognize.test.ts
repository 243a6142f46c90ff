/** Document → Recognize (OCR): POST /v1/ocr on the API URL, multipart part `file` (spec §4.3). */

import { API_URL, fileItem, multipartBody, runNode } from '../../../support/context';

/** A PNG's chunks (length, type, data, a CRC nothing here checks). */
const chunk = (type: string, data: number[]) => [
	0,
	0,
	0,
	data.length,
	...Buffer.from(type),
	...data,
	0,
	0,
	0,
	0,
];
const PNG = Buffer.from([
	0x89,
	0x50,
	0x4e,
	0x47,
	0x0d,
	0x0a,
	0x1a,
	0x0a,
	...chunk('IHDR', Array<number>(13).fill(0)),
	...chunk('IDAT', [1, 2, 3]),
	...chunk('IEND', []),
]);
const params = { resource: 'document', operation: 'recognize' };

test('uploads the image as the part "file"; outputs the answer as the service gives it', async () => {
	const answer = { id: 'ocr_1', text: 'Hello', blocks: [{ text: 'Hello', bbox: [0, 0, 1, 1] }] };
	const { sent, output } = await runNode({
		params,
		items: [fileItem(PNG, 'photo.png', 'image/png')],
		answers: [{ body: answer }],
	});
	expect(sent).toHaveLength(1);
	expect(sent[0].options).toMatchObject({ method: 'POST', url: `${API_URL}/v1/ocr`, json: false });
	expect(await multipartBody(sent[0].options)).toEqual([
		{ name: 'file', fileName: 'photo.png', contentType: 'image/png', data: PNG },
	]);
	expect(output).toEqual([
		{ json: { ...answer, fileName: 'photo.png', pagesCounted: 1 }, pairedItem: { item: 0 } },
	]);
});

test('an answer that is not a JSON object is an error that warns of the charge', async () => {
	const { error } = await runNode({
		params,
		items: [fileItem(PNG, 'photo.png', 'image/png')],
		answers: [{ body: 'OK' }],
	});
	expect(error?.message).toBe(
		'Unexpected answer from the OCR service for /v1/ocr (pages may have been charged)',
	);
});
