'use strict';
/**
 * The example workflows, imported into real n8n 2.x with the packed package installed as a
 * community package, each run from its Manual Trigger as the editor runs it (n8n's REST API,
 * runsOverRest: no cold `n8n execute` process per run; the smoke runs them with `n8n execute`),
 * against the emulator — once per binary data
 * mode that n8n 3.0 keeps: `filesystem` (2.41's default in regular mode) and `database` (its
 * default in queue mode). The in-memory `default` mode is gone in 3.0; `s3` and `azure` need an
 * object store this machine does not have.
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const {
	createInstance,
	startNode,
	example,
	nodeOutput,
	KEYS,
} = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const { ingestionExample, invoiceExample } = require('./scenarios');

let n8n;

const MODES = ['filesystem', 'database'];

const continueOnFail = {
	id: 'ocrE2eContinueOn',
	name: 'e2e: Continue on Fail with a bad file',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		startNode('k1'),
		{
			id: 'k2',
			name: 'Read mixed files',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [200, 0],
			parameters: { fileSelector: '/data/ocr-inbox/mixed/*.pdf', options: {} },
		},
		{
			id: 'k3',
			name: 'Recognise text',
			type: 'n8n-nodes-document-ocr.documentOcr',
			typeVersion: 1,
			position: [400, 0],
			onError: 'continueRegularOutput',
			credentials: {
				documentOcrApi: { id: 'ocrLocalEmulator', name: 'Document OCR (local emulator)' },
			},
			parameters: { resource: 'task', operation: 'submit', waitForCompletion: true, options: {} },
		},
	],
	connections: {
		Start: { main: [[{ node: 'Read mixed files', type: 'main', index: 0 }]] },
		'Read mixed files': { main: [[{ node: 'Recognise text', type: 'main', index: 0 }]] },
	},
};

describe.each(MODES)('binary data mode %s', (mode) => {
	beforeAll(async () => {
		n8n = await createInstance({
			label: `examples-${mode}`,
			extraEnv: { N8N_DEFAULT_BINARY_DATA_MODE: mode },
			runsOverRest: true,
		});
		await n8n.importCredential();
		const housekeeping = example('03-task-housekeeping.json');
		// keepNewest = 0: the example deletes every finished task this suite made.
		housekeeping.nodes.find(
			(node) => node.name === 'Settings',
		).parameters.assignments.assignments[0].value = 0;
		await n8n.importWorkflows([
			example('01-scheduled-ingestion.json'),
			example('02-invoice-automation.json'),
			example('04-pdfs-to-markdown.json'),
			example('05-invoice-fields-by-schema.json'),
			housekeeping,
			continueOnFail,
		]);
		await n8n.startServer();
		await n8n.setupOwner();
	});

	afterAll(async () => {
		await n8n?.close();
	});

	test('scheduled ingestion: each PDF of the folder gets its recognised text written next to it', async () => {
		const run = await ingestionExample(n8n);
		// The mode took effect: n8n names where it keeps a file in the file's ID ('filesystem-v2:…',
		// 'database:…'), and the package read the files from there.
		const ids = Object.values(run.data.resultData.runData)
			.flatMap((runs) => runs.flatMap((r) => r.data?.main?.flat() ?? []))
			.flatMap((item) => Object.values(item?.binary ?? {}).map((b) => b.id))
			.filter(Boolean);
		expect(ids.length).toBeGreaterThan(0);
		for (const id of ids) expect(id.split(':')[0]).toMatch(new RegExp(`^${mode}`));
	});

	test('invoice automation: invoice fields become columns and the task is exported as XLSX', async () => {
		await invoiceExample(n8n);
	});

	test('Continue on Fail: the bad file carries the error, the run succeeds, nothing is charged for it', async () => {
		const dir = path.join(n8n.inbox, 'mixed');
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'a-good.pdf'), documents.makePdf(['A good scan']));
		fs.writeFileSync(path.join(dir, 'b-broken.pdf'), Buffer.from('this is not a PDF at all'));
		const mark = n8n.emu.ledger('acme').length;
		const submissions = n8n.emu.stats().submissions;

		const run = await n8n.execute('ocrE2eContinueOn');

		expect(run.data.resultData.error).toBeUndefined();
		const items = nodeOutput(run, 'Recognise text');
		expect(items).toHaveLength(2);
		expect(items[0].json).toMatchObject({ status: 'done', resultText: 'A good scan' });
		expect(items[1].pairedItem).toEqual({ item: 1 });
		expect(items[1].json.error).toMatch(
			/^Item 1: "b-broken.pdf" is not a file type the service reads/,
		);
		expect(n8n.emu.stats().submissions - submissions).toBe(1);
		expect(n8n.chargedSince(mark)).toBe(1);
	});

	test('folder of PDFs to Markdown: each PDF gets a .md file from /v1/markdown', async () => {
		const dir = path.join(n8n.inbox, 'to-markdown');
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'minutes.pdf'),
			documents.makePdf(['Board Minutes\nThe board met on Monday.']),
		);
		fs.writeFileSync(
			path.join(dir, 'memo.pdf'),
			documents.makePdf(['Memo\nShip it.', 'Second page']),
		);
		const mark = n8n.emu.ledger('acme').length;

		const run = await n8n.execute('ocrExampleToMark');

		expect(run.data.resultData.error).toBeUndefined();
		const converted = nodeOutput(run, 'Convert to Markdown');
		expect(converted.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(fs.readFileSync(path.join(dir, 'minutes.md'), 'utf8')).toMatch(/^# Board Minutes/);
		expect(fs.readFileSync(path.join(dir, 'memo.md'), 'utf8')).toMatch(/Second page/);
		expect(n8n.chargedSince(mark)).toBe(3);
	});

	test('invoice fields by JSON Schema: /v1/extract values become a record', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const run = await n8n.execute('ocrExampleSchema');
		expect(run.data.resultData.error).toBeUndefined();
		const [record] = nodeOutput(run, 'Invoice record');
		expect(record.json).toEqual({ file: 'acme-0042.pdf', ...documents.INVOICE_FIELDS });
		expect(n8n.chargedSince(mark)).toBe(1);
	});

	test('task housekeeping: Get Many with Return All, then Delete of the finished tasks', async () => {
		// One task that stays unfinished must survive the clean-up.
		const stuck = await request(`${n8n.emu.url}/api/ocr`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEYS.full}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				imageBase64: documents.makePdf(['STUCK forever']).toString('base64'),
				filename: 'stuck.pdf',
			}),
		});
		const { taskId: stuckId } = await stuck.body.json();
		const finished = n8n.emu.tasks
			.filter((t) => t.status === 'done' || t.status === 'failed')
			.map((t) => t.taskId);
		expect(finished.length).toBeGreaterThanOrEqual(4);

		const run = await n8n.execute('ocrExampleCleanu');

		expect(run.data.resultData.error).toBeUndefined();
		expect(nodeOutput(run, 'List all tasks').length).toBe(finished.length + 1);
		const deleted = nodeOutput(run, 'Delete task');
		expect(deleted.map((item) => item.json.taskId).sort()).toEqual([...finished].sort());
		deleted.forEach((item) => expect(item.json.deleted).toBe(true));
		expect(n8n.emu.tasks.map((t) => t.taskId)).toEqual([stuckId]);
	});
});
