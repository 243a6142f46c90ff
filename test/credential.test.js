'use strict';
const http = require('node:http');
const h = require('./helpers');

const emu = h.useEmulator();

describe('credential test (run as n8n runs declarative tests: RoutingNode + rules)', () => {
	test('a key with every scope is valid', async () => {
		await expect(h.testCredential(h.credentials(emu))).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test('a key without the read scope is still a valid key', async () => {
		const result = await h.testCredential(h.credentials(emu, 'ocr_test_submit_only'));
		expect(result.status).toBe('OK');
		expect(h.hits(emu, 'GET /api/tasks')).toBeGreaterThan(0);
	});

	test('a wrong key is invalid, and the message says what to do', async () => {
		const result = await h.testCredential(h.credentials(emu, 'ocr_not_a_key'));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/API key was refused \(401\).*Copy it again/);
		expect(result.message).not.toContain('ocr_not_a_key');
	});

	test('a banned account cannot be told from a scope gap by the test (both 403); the node reports it when used', async () => {
		expect((await h.testCredential(h.credentials(emu, 'ocr_test_banned'))).status).toBe('OK');
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()], { apiKey: 'ocr_test_banned' });
		expect(error.message).toBe('The OCR account is banned');
	});

	test('an unreachable URL is reported as such', async () => {
		const result = await h.testCredential({ apiKey: h.FULL_KEY, baseUrl: 'http://127.0.0.1:9' });
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});

	test('a URL that is not the service is reported', async () => {
		const result = await h.testCredential({ apiKey: h.FULL_KEY, baseUrl: `${emu.url}/not-here` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/404/);
	});
	test('a redirect to another origin (localhost, another port) does not carry the key there', async () => {
		const received = [];
		const other = http.createServer((req, res) => {
			received.push(req.headers.authorization);
			res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
		});
		await new Promise((resolve) => other.listen(0, resolve));
		const service = http.createServer((req, res) => {
			res.writeHead(302, { location: `http://localhost:${other.address().port}${req.url}` }).end();
		});
		await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${service.address().port}`;
			await h.testCredential({ apiKey: 'ocr_test_redirect_key_5150', baseUrl });
			expect(received).toEqual([undefined]);
		} finally {
			await new Promise((resolve) => service.close(resolve));
			await new Promise((resolve) => other.close(resolve));
		}
	});
});
