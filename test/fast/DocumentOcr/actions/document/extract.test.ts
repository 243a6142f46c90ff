/** Document → Extract Structured Data: POST /v1/extract on the API URL, parts `schema` + `file` (spec §4.3). */

import { API_URL, fileItem, multipartBody, PDF, runNode } from '../../../support/context';

const schema = { type: 'object', properties: { total: { type: 'number' } } };
const params = (value: unknown = JSON.stringify(schema, null, 2)) => ({
	resource: 'document',
	operation: 'extract',
	schema: value,
});

test('sends the schema as compact JSON beside the file; outputs what was extracted', async () => {
	const { sent, output } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'invoice.pdf')],
		answers: [{ body: { id: 'ex_1', pages: 1, data: { total: 12.5 }, model: 'x' } }],
	});
	expect(sent).toHaveLength(1);
	expect(sent[0].options).toMatchObject({ method: 'POST', url: `${API_URL}/v1/extract` });
	expect(await multipartBody(sent[0].options)).toEqual([
		{ name: 'schema', data: Buffer.from(JSON.stringify(schema)) },
		{ name: 'file', fileName: 'invoice.pdf', contentType: 'application/pdf', data: PDF },
	]);
	expect(output).toEqual([
		{
			json: {
				data: { total: 12.5 },
				fileName: 'invoice.pdf',
				id: 'ex_1',
				pages: 1,
				pagesCounted: null,
				pagesBilled: 1,
			},
			pairedItem: { item: 0 },
		},
	]);
});

test.each([
	['under result', { result: { total: 1 } }, { total: 1 }],
	['as the whole answer', { total: 1 }, { total: 1 }],
])('the extracted object %s', async (_label, body, data) => {
	const { output } = await runNode({
		params: params(schema),
		items: [fileItem(PDF, 'invoice.pdf')],
		answers: [{ body }],
	});
	expect(output?.[0].json.data).toEqual(data);
});

test.each([
	['not JSON', '{ total: number }', 'Item 0: the JSON Schema is not valid JSON'],
	[
		'not an object schema',
		'{"type": "array", "items": {}}',
		'Item 0: the JSON Schema is not an object schema: its type is "array", not "object"',
	],
	[
		'without properties',
		'{"type": "object"}',
		'Item 0: the JSON Schema is not an object schema: it has no "properties" naming the values to extract',
	],
])('a schema %s is refused before anything is sent', async (_label, value, message) => {
	const { sent, error } = await runNode({ params: params(value), items: [fileItem(PDF, 'a.pdf')] });
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe(message);
});
