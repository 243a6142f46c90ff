/** The credential: how n8n applies it to a request, and how n8n copies it when it loads types. */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { DocumentOcrApi } from '../../../credentials/DocumentOcrApi.credentials';

const credentials = { apiKey: 'ocr_fast_tier_key', baseUrl: 'https://ocr.example.com', apiUrl: '' };

async function apply(type: object, options: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	const { authenticate } = type as {
		authenticate: (c: object, o: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
	};
	return await authenticate(credentials, options);
}

describe('Document OCR API credential', () => {
	test('sets the Bearer header and keeps the headers and body the request already has', async () => {
		const body = Buffer.from('{}');
		const out = await apply(new DocumentOcrApi(), {
			url: '/api/ocr',
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body,
		});
		expect(out.headers).toEqual({
			'content-type': 'application/json',
			Authorization: 'Bearer ocr_fast_tier_key',
		});
		expect(out.body).toBe(body);
		expect(out.url).toBe('/api/ocr');
	});

	test('survives the spread copy n8n makes of credential types (else no "Custom API Call")', async () => {
		const copy = { ...new DocumentOcrApi() };
		expect(typeof copy.authenticate).toBe('function');
		const out = await apply(copy, { url: '/api/tasks' });
		expect(out.headers).toEqual({ Authorization: 'Bearer ocr_fast_tier_key' });
	});

	test('the credential test reads one task of the list at the Base URL, nothing billed', () => {
		const { request } = new DocumentOcrApi().test;
		expect(request.url).toBe('/api/tasks');
		expect(request.method ?? 'GET').toBe('GET');
		expect(request.qs).toEqual({ page: 1, pageSize: 1 });
	});
});
