'use strict';
/**
 * n8n's SSRF protection (off by default in 2.41; 3.0 announces a longer block list) applies to
 * Document Source: URL, because the file is fetched through n8n's own HTTP helper: a link to a
 * blocked address fails its item with a message that says so, and nothing is sent or charged.
 * The service itself is reached by a host name the instance allows.
 */
const { createInstance, nodeOutput } = require('../../scripts/n8n-instance');
const { ocrNode, startWorkflow } = require('./scenarios');
const documents = require('../../emulator/documents');
const { startFileServer } = require('../support/file-server');

let n8n;
let files;

beforeAll(async () => {
	files = await startFileServer();
	files.put('/scan.pdf', documents.makePdf(['Behind the firewall']), {
		'content-type': 'application/pdf',
	});
	n8n = await createInstance({
		label: 'ssrf',
		extraEnv: { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_HOSTNAMES: 'localhost' },
	});
	await n8n.importCredential({ baseUrl: n8n.emu.url.replace('127.0.0.1', 'localhost') });
	await n8n.importWorkflows([
		startWorkflow('ocrE2eSsrfUrl01', 'e2e: a document URL n8n blocks', [
			ocrNode(
				's1',
				'By URL',
				{
					resource: 'task',
					operation: 'submit',
					documentSource: 'url',
					documentUrl: files.url('/scan.pdf'),
					waitForCompletion: true,
					options: {},
				},
				{ position: [300, 0], onError: 'continueRegularOutput' },
			),
			ocrNode(
				's2',
				'List tasks',
				{ resource: 'task', operation: 'getMany', limit: 1, filters: {}, options: {} },
				{ position: [300, 200] },
			),
		]),
	]);
});

afterAll(async () => {
	await n8n?.close();
	await files?.close();
});

test("a link to an address n8n's SSRF protection blocks: the item's error says so, nothing is fetched, sent or charged", async () => {
	const mark = n8n.emu.ledger('acme').length;
	const requests = n8n.emu.stats().requests;

	const run = await n8n.execute('ocrE2eSsrfUrl01');

	expect(run.data.resultData.error).toBeUndefined();
	const [item] = nodeOutput(run, 'By URL');
	expect(item.json.error).toMatch(
		/could not be fetched from .*\/scan\.pdf: n8n's SSRF protection blocks this address/,
	);
	expect(item.json.description).toMatch(/N8N_SSRF_ALLOWED_HOSTNAMES/);
	expect(files.stats.requests).toBe(0);
	// The service, on a host name the instance allows, was reached: once, by the other node.
	expect(n8n.emu.stats().byRoute['GET /api/tasks']).toBe(1);
	expect(n8n.emu.stats().requests - requests).toBe(1);
	expect(nodeOutput(run, 'List tasks')).toBeDefined();
	expect(n8n.chargedSince(mark)).toBe(0);
});
