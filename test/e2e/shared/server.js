'use strict';
/**
 * Real n8n 2.x as a server: the package is loaded as an installed community package and the
 * credential test runs through n8n's REST API. The editor in headless Chromium (and the README's
 * screenshots in docs/) is editor.js. A suite of the shared n8n (test/e2e/shared.e2e.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const rt = require('../../../scripts/n8n-runtime');
const { example, KEYS } = require('../../../scripts/n8n-instance');

let n8n;
let cookie;

/** Stored credentials the credential test is run on (the editor tests saved credentials by ID). */
const CASES = {
	ocrTestKeyFullxx: KEYS.full,
	ocrTestKeyNoRead: KEYS.submitOnly,
	ocrTestKeyWrongx: 'ocr_this_key_is_wrong',
};

async function rest(method, route, body) {
	const response = await request(`${n8n.url}${route}`, {
		method,
		headers: { 'content-type': 'application/json', cookie, 'browser-id': rt.BROWSER_ID },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		json: text ? JSON.parse(text) : undefined,
	};
}

/** Before the shared instance's one import: its credentials queued, its workflows. */
async function prepare(instance) {
	n8n = instance;
	for (const [id, apiKey] of Object.entries(CASES))
		await n8n.importCredential({ id, name: id, apiKey });
	return {
		workflows: [
			example('01-scheduled-ingestion.json'),
			example('02-invoice-automation.json'),
			example('03-task-housekeeping.json'),
		],
	};
}

function describeTests() {
	beforeAll(() => {
		({ cookie } = n8n);
		expect(cookie).toMatch(/n8n-auth=/);
	});

	test('n8n loads both node types from the installed community package', async () => {
		const response = await request(`${n8n.url}/types/nodes.json`, { headers: { cookie } });
		const types = (await response.body.json()).map((t) => t.name);
		expect(types).toContain('n8n-nodes-document-ocr.documentOcr');
		// No error or warning of n8n's about this package (its loading, its description, ...).
		const problems = fs
			.readFileSync(path.join(n8n.userFolder, 'server.log'), 'utf8')
			.split('\n')
			.filter((line) => /"level":"(error|warn)"/.test(line))
			.map((line) => JSON.parse(line).message)
			.filter((message) => /document-?ocr/i.test(message.split(n8n.runtime.dir).join('')));
		expect(problems).toEqual([]);
	});

	describe("the credential test, as n8n's REST API reports it", () => {
		const testKey = async (id, baseUrl = n8n.emu.url) => {
			const response = await rest('POST', '/rest/credentials/test', {
				credentials: {
					id,
					name: id,
					type: 'documentOcrApi',
					data: { apiKey: CASES[id], baseUrl, apiUrl: '' },
				},
			});
			if (response.status !== 200)
				throw new Error(
					`credential test answered ${response.status}: ${JSON.stringify(response.json)}`,
				);
			return response.json.data;
		};

		test('a good key is valid', async () => {
			expect(await testKey('ocrTestKeyFullxx')).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
		});

		test('a key without the read scope is still a valid key', async () => {
			expect((await testKey('ocrTestKeyNoRead')).status).toBe('OK');
		});

		test('a wrong key is invalid, with what to do', async () => {
			const result = await testKey('ocrTestKeyWrongx');
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/API key was refused \(401\)/);
		});

		test('an unreachable URL is reported as such', async () => {
			const result = await testKey('ocrTestKeyFullxx', 'http://127.0.0.1:9');
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/ECONNREFUSED|refused/);
		});
	});
}

module.exports = { name: 'server', prepare, describeTests };
