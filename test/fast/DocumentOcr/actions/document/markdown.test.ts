/** Document → Convert to Markdown: POST /v1/markdown on the API URL, multipart part `file` (spec §4.3). */

import {
	API_URL,
	BASE_URL,
	bodyType,
	fileItem,
	LARGE_PDF,
	multipartBody,
	PDF,
	runNode,
} from '../../../support/context';

const params = (extra = {}) => ({ resource: 'document', operation: 'markdown', ...extra });
const result = { id: 'doc_1', pages: 1, markdown: '# Minutes\n' };

test('uploads the file as the one multipart part "file" to the API URL', async () => {
	const { sent, output } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'minutes.pdf')],
		answers: [{ body: result }],
	});
	expect(sent).toHaveLength(1);
	const { credentialType, options } = sent[0];
	expect(credentialType).toBe('documentOcrApi');
	expect(options).toMatchObject({ method: 'POST', url: `${API_URL}/v1/markdown`, json: false });
	expect(options.headers).toMatchObject({ Accept: 'application/json' });
	expect(bodyType(options)).toMatch(/^multipart\/form-data; boundary=\S+$/);
	expect(await multipartBody(options)).toEqual([
		{ name: 'file', fileName: 'minutes.pdf', contentType: 'application/pdf', data: PDF },
	]);
	expect(output).toEqual([
		{
			json: { ...result, fileName: 'minutes.pdf', pagesCounted: null, pagesBilled: 1 },
			pairedItem: { item: 0 },
		},
	]);
});

test('a large file is streamed as the same multipart body', async () => {
	const { sent } = await runNode({
		params: params(),
		items: [fileItem(LARGE_PDF, 'big.pdf')],
		answers: [{ body: result }],
	});
	const [part] = await multipartBody(sent[0].options);
	expect(part.data.equals(LARGE_PDF)).toBe(true);
});

test('without an API URL in the credential, /v1 is called on the Base URL', async () => {
	const { sent } = await runNode({
		params: params(),
		items: [fileItem(PDF, 'minutes.pdf')],
		credentials: { baseUrl: `${BASE_URL}/`, apiUrl: '' },
		answers: [{ body: result }],
	});
	expect(sent[0].options.url).toBe(`${BASE_URL}/v1/markdown`);
});

test('Also Output as File: the Markdown as a .md file in the chosen field', async () => {
	const { output } = await runNode({
		params: params({ outputFile: true, outputBinaryPropertyName: 'md' }),
		items: [fileItem(PDF, 'minutes.pdf')],
		answers: [{ body: result }],
	});
	const md = output?.[0].binary?.md;
	expect(md).toMatchObject({ fileName: 'minutes.md', mimeType: 'text/markdown' });
	expect(Buffer.from(md!.data, 'base64').toString('utf8')).toBe(result.markdown);
});

test('a TIFF (task API only) is refused before anything is sent', async () => {
	const tiff = Buffer.from('II*\u0000 a scan', 'latin1');
	const { sent, error } = await runNode({
		params: params(),
		items: [fileItem(tiff, 'scan.tiff', 'image/tiff')],
	});
	expect(sent).toHaveLength(0);
	expect(error?.message).toBe(
		'Item 0: "scan.tiff" is a TIFF image; the /v1 API accepts PDF, PNG, JPG, WEBP',
	);
});
