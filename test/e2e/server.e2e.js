'use strict';
/**
 * Real n8n 2.x as a server: the package is loaded as an installed community package, the
 * credential test runs through n8n's REST API, and the editor is shown in headless Chromium
 * (screenshots into docs/ for the README).
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const { createInstance, example, KEYS, OWNER } = require('./instance');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const DOCS = path.resolve(__dirname, '../../docs');

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
		headers: { 'content-type': 'application/json', cookie, 'browser-id': 'e2e' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		json: text ? JSON.parse(text) : undefined,
	};
}

beforeAll(async () => {
	n8n = await createInstance({ label: 'server' });
	await n8n.importCredential();
	for (const [id, apiKey] of Object.entries(CASES))
		await n8n.importCredential({ id, name: id, apiKey });
	await n8n.importWorkflows([
		example('01-scheduled-ingestion.json'),
		example('02-invoice-automation.json'),
		example('03-task-housekeeping.json'),
	]);
	await n8n.startServer();
	({ cookie } = await n8n.setupOwner());
	expect(cookie).toMatch(/n8n-auth=/);
});

afterAll(async () => {
	await n8n?.close();
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

const chromiumAvailable = fs.existsSync(CHROMIUM);
(chromiumAvailable || process.env.CI ? test : test.skip)(
	'the editor shows the node (screenshots in docs/)',
	async () => {
		const { chromium } = require('playwright-core');
		const browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
			],
		});
		const consoleErrors = [];
		try {
			const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
			const page = await context.newPage();
			page.on('console', (message) => {
				if (message.type() === 'error') consoleErrors.push(message.text());
			});
			// Sign in through the form: n8n binds its session cookie to the browser that signed in.
			await page.goto(`${n8n.url}/signin`, { waitUntil: 'networkidle' });
			await page
				.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]')
				.first()
				.fill(OWNER.email);
			await page.locator('input[type="password"]').first().fill(OWNER.password);
			await page.locator('input[type="password"]').first().press('Enter');
			await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
			await page.goto(`${n8n.url}/workflow/ocrExampleInvoic`, { waitUntil: 'networkidle' });
			await page.getByText('Extract invoice').first().waitFor({ timeout: 60_000 });
			await page.keyboard.press('Escape');
			await page.waitForTimeout(1500); // canvas fade-in
			fs.mkdirSync(DOCS, { recursive: true });
			await page.screenshot({ path: path.join(DOCS, 'editor-workflow.png') });

			await page
				.locator('[data-test-id="canvas-node"]', { hasText: 'Extract invoice' })
				.first()
				.dblclick();
			await page.getByText('Document Type').first().waitFor({ timeout: 30_000 });
			await page.waitForTimeout(1000);
			await page.screenshot({ path: path.join(DOCS, 'editor-node.png') });
		} finally {
			await browser.close();
		}
		expect(fs.statSync(path.join(DOCS, 'editor-node.png')).size).toBeGreaterThan(10_000);
		// Errors of the editor itself (e.g. blocked telemetry) are not ours; none may name the package.
		expect(consoleErrors.filter((text) => /document-?ocr/i.test(text))).toEqual([]);
	},
);
