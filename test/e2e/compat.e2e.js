'use strict';
/**
 * Compatibility: the oldest n8n this package claims to support — n8n 1.123.0, the first release of
 * the last 1.x line — on this machine's own Node 20, with the package packed and installed as a
 * community package, exactly as on the newest 2.x (which every other e2e file runs, on Node 24).
 * COMPAT_N8N_VERSION runs the same checks on another 1.x (1.123.81, the newest 1.x patch, passes
 * too). First run: ~5–6 minutes to install that n8n (scripts/n8n-runtime.js), then ~1.5 minutes.
 *
 * What differs on 1.x (asserted here, so a change is noticed):
 *  - n8n 1.x's HTTP helper does not know `ignoreHttpStatusErrors: { ignore, except }` (n8n >= 2.9),
 *    so the credential test cannot tell a wrong key from a good one; the first real request does.
 *  - n8n 1.123.0's CLI cannot activate an imported workflow, so example 07 is imported and
 *    activated through the REST API, as the editor does; and `import:workflow` needs a versionId.
 * Not asserted (timing): n8n-workflow's `sleep` ignores the abort signal before n8n 2.34, so on
 * 1.x a cancelled execution stops at the end of the current wait (poll ≤ 10 s, Retry-After ≤ 120 s)
 * instead of at once.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const {
	createInstance,
	example,
	nodeOutput,
	nodeError,
	KEYS,
	CREDENTIAL_ID,
	EXAMPLE_INBOX,
} = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const {
	ingestionExample,
	invoiceExample,
	seedWebhookInbox,
	expectDocxExports,
} = require('./scenarios');
const rt = require('../../scripts/n8n-runtime');

const OLDEST = process.env.COMPAT_N8N_VERSION || '1.123.0';
const SECRET = 'whsec_compat_7a41d2c09e5b4f38';
const WRONG_KEY = 'ocr_live_wrong_key';
const WRONG_KEY_CREDENTIAL = 'ocrCompatWrongKey';
const EXAMPLE_HOOK_ID = '5b0c4c2e-7d1a-4f6e-9a51-0d8c2f1e9b77';
const NODE_TYPES = [
	'n8n-nodes-document-ocr.documentOcr',
	'n8n-nodes-document-ocr.documentOcrTrigger',
	'n8n-nodes-document-ocr.documentOcrPollTrigger',
];

let n8n;
let cookie;
/** Logs of runs that fail on purpose (their error is logged, as it should be). */
const expectedFailureLogs = new Set();

/** n8n's REST API with the owner's session. */
async function rest(method, route, body) {
	const response = await request(`${n8n.url}/rest${route}`, {
		method,
		headers: { 'content-type': 'application/json', 'browser-id': rt.BROWSER_ID, cookie },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.body.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = text;
	}
	return { status: response.statusCode, json };
}

/** Error and warning messages of n8n that mention this package, in all logs so far. */
function packageProblems() {
	return n8n
		.logFiles()
		.filter((file) => !expectedFailureLogs.has(file))
		.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n'))
		.filter((line) => /"level":"(error|warn)"/.test(line))
		.map((line) => JSON.parse(line).message)
		.filter((message) => /document-?ocr/i.test(message.split(n8n.runtime.dir).join('')));
}

beforeAll(async () => {
	n8n = await createInstance({ label: 'compat', n8nVersion: OLDEST });
	await n8n.importCredential();
	await n8n.importCredential({ apiKey: WRONG_KEY, id: WRONG_KEY_CREDENTIAL, name: 'Wrong key' });
	await n8n.importWebhookCredential(SECRET);
	const wrongKey = example('02-invoice-automation.json');
	wrongKey.id = 'ocrCompatBadKeyW';
	wrongKey.name = 'compat: invoice with a wrong key';
	for (const node of wrongKey.nodes)
		if (node.credentials?.documentOcrApi)
			node.credentials.documentOcrApi = { id: WRONG_KEY_CREDENTIAL, name: 'Wrong key' };
	// `n8n import:workflow` of n8n 1.123.0–1.123.5 stores a file without a versionId as NULL and
	// fails (NOT NULL constraint); later patches and 2.x make one up, as the editor's import does.
	const withVersionId = (workflow) => ({ versionId: crypto.randomUUID(), ...workflow });
	await n8n.importWorkflows(
		[
			example('01-scheduled-ingestion.json'),
			example('02-invoice-automation.json'),
			example('06-submit-without-waiting.json'),
			wrongKey,
		].map(withVersionId),
	);
});

afterAll(async () => {
	await n8n?.close();
});

test(`n8n ${OLDEST} runs on this machine's Node 20`, async () => {
	expect(n8n.runtime.version).toBe(OLDEST);
	expect(n8n.node24.bin).toBe(process.execPath);
	expect(process.versions.node).toMatch(/^20\./);
	expect((await n8n.cli('--version')).trim().split('\n').pop()).toBe(OLDEST);
});

test('scheduled ingestion (example 01): each PDF of the folder gets its recognised text written next to it', async () => {
	await ingestionExample(n8n);
});

test('invoice automation (example 02): invoice fields become columns and the task is exported as XLSX', async () => {
	await invoiceExample(n8n);
});

test('a wrong API key fails the run at its first request, with what to do', async () => {
	const dir = path.join(n8n.inbox, 'invoices');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'acme-0042.pdf'), documents.makePdf([documents.INVOICE_TEXT]));
	const mark = n8n.emu.ledger('acme').length;
	// `n8n execute` exits 1 when the run fails; its log still holds the run.
	await expect(n8n.execute('ocrCompatBadKeyW')).rejects.toThrow(/exited 1/);
	const log = n8n
		.logFiles()
		.filter((file) => /cli-\d+-execute\.log$/.test(file))
		.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs)
		.pop();
	expectedFailureLogs.add(log);
	const run = rt.parseExecuteOutput(fs.readFileSync(log, 'utf8'));
	const error = nodeError(run, 'Extract invoice');
	expect(error.message).toMatch(/API key/);
	expect(error.httpCode).toBe('401');
	expect(nodeOutput(run, 'Invoice columns')).toBeUndefined();
	expect(n8n.emu.ledger('acme')).toHaveLength(mark); // nothing charged
});

describe('n8n start', () => {
	beforeAll(async () => {
		await n8n.startServer();
		({ cookie } = await n8n.setupOwner());
	});

	test('lists the package node types (both triggers, the action node and its tool variant) and logs no error or warning about it', async () => {
		const response = await request(`${n8n.url}/types/nodes.json`, { headers: { cookie } });
		const types = (await response.body.json()).map((t) => t.name);
		for (const type of NODE_TYPES) expect(types).toContain(type);
		// usableAsTool: the AI-tool variant n8n derives (N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE).
		expect(types).toContain('n8n-nodes-document-ocr.documentOcrTool');
		expect(packageProblems()).toEqual([]);
	});

	test('the credential test: a good key is valid; a wrong key is not caught on 1.x', async () => {
		// n8n 1.x tests a credential only with the id of one the user has (403 otherwise).
		const testKey = async (id, apiKey, baseUrl = n8n.emu.url) => {
			const response = await rest('POST', '/credentials/test', {
				credentials: {
					id,
					name: id,
					type: 'documentOcrApi',
					data: { apiKey, baseUrl, apiUrl: '' },
				},
			});
			expect(response.status).toBe(200);
			return response.json.data;
		};
		expect(await testKey(CREDENTIAL_ID, KEYS.full)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect((await testKey(CREDENTIAL_ID, KEYS.full, 'http://127.0.0.1:9')).status).toBe('Error');
		// n8n < 2.9 treats `ignoreHttpStatusErrors: { ignore: true, except: [...] }` as `true`.
		expect(await testKey(WRONG_KEY_CREDENTIAL, WRONG_KEY)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test('signed ocr.done deliveries start example 07 (trigger), which exports each task as DOCX', async () => {
		// As in the editor (import, then activate): n8n 1.123.0's CLI cannot activate an imported
		// workflow (`import:workflow` writes no workflow history, so `update:workflow --active=true`
		// fails on a foreign key), its REST API can.
		const {
			id: _id,
			versionId: _v,
			active: _a,
			...workflow
		} = example('07-export-docx-on-ocr-done.json');
		const text = JSON.stringify(workflow).split(EXAMPLE_INBOX).join(n8n.inbox);
		const created = await rest('POST', '/workflows', { ...JSON.parse(text), active: false });
		expect(created.status).toBe(200);
		const { id, versionId } = created.json.data;
		const activated = await rest('POST', `/workflows/${id}/activate`, { versionId });
		expect(activated.status).toBe(200);
		expect(activated.json.data.active).toBe(true);

		const hook = `${n8n.url}/webhook/${EXAMPLE_HOOK_ID}/webhook`;
		n8n.emu.addWebhook({ url: hook, secret: SECRET });
		const inbox = seedWebhookInbox(n8n);

		// Example 06 submits without waiting: the results come back by webhook.
		const run = await n8n.execute('ocrExampleNoWait');
		expect(run.data.resultData.error).toBeUndefined();
		await n8n.emu.waitFor(() => n8n.emu.deliveries.filter((d) => d.status === 200).length >= 3, {
			timeoutMs: 120_000,
		});
		await n8n.emu.webhooksIdle();

		await expectDocxExports(n8n, id, inbox);
		expect(packageProblems()).toEqual([]);
	});
});
