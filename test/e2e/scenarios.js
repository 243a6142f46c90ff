'use strict';
/**
 * The example workflows as scenarios any real n8n instance can run with `n8n execute` — the
 * newest 2.x (examples.e2e.js) and the oldest supported 1.x (compat.e2e.js) — with the same
 * assertions on outputs, files and the page ledger.
 */
const fs = require('node:fs');
const path = require('node:path');
const { nodeOutput, startNode } = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');
const { readZip } = require('../../emulator');

/** Example 01's inbox: a 1-page letter and a 2-page report (3 pages in all). */
function fillInbox(inbox) {
	fs.writeFileSync(
		path.join(inbox, 'letter.pdf'),
		documents.makePdf(['Dear reader, this is a letter.']),
	);
	fs.writeFileSync(
		path.join(inbox, 'report.pdf'),
		documents.makePdf(['Quarterly report', 'Page two of the report']),
	);
}

/** Example 01: each PDF of the inbox gets its recognised text written next to it (3 pages). */
async function ingestionExample(n8n) {
	fillInbox(n8n.inbox);
	const mark = n8n.emu.ledger('acme').length;

	const run = await n8n.execute('ocrExampleIngest');

	expect(run.data.resultData.error).toBeUndefined();
	const recognised = nodeOutput(run, 'Recognise text');
	expect(recognised).toHaveLength(2);
	expect(recognised.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	recognised.forEach((item) => expect(item.json.status).toBe('done'));
	expect(fs.readFileSync(path.join(n8n.inbox, 'letter.pdf.txt'), 'utf8')).toBe(
		'Dear reader, this is a letter.',
	);
	expect(fs.readFileSync(path.join(n8n.inbox, 'report.pdf.txt'), 'utf8')).toContain(
		'Page two of the report',
	);
	expect(n8n.chargedSince(mark)).toBe(3); // 1 + 2 pages
	return run;
}

/** Example 02: invoice fields become columns and the task is exported as XLSX (1 page). */
async function invoiceExample(n8n) {
	const dir = path.join(n8n.inbox, 'invoices');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'acme-0042.pdf'), documents.makePdf([documents.INVOICE_TEXT]));
	const mark = n8n.emu.ledger('acme').length;

	const run = await n8n.execute('ocrExampleInvoic');

	expect(run.data.resultData.error).toBeUndefined();
	const [columns] = nodeOutput(run, 'Invoice columns');
	expect(columns.json).toMatchObject({
		File: 'acme-0042.pdf',
		'Invoice Number': 'INV-2026-0042',
		Vendor: 'ACME GmbH',
		'Invoice Date': '2026-11-01',
		'Due Date': '2026-12-01',
		Total: 1234.56,
		Currency: 'EUR',
	});
	const [exported] = nodeOutput(run, 'Export task as XLSX');
	expect(exported.json).toMatchObject({ format: 'xlsx', fileName: 'acme-0042.xlsx' });
	expect(exported.binary.data.mimeType).toBe(
		'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	);
	expect(exported.pairedItem).toEqual({ item: 0 });

	const xlsx = fs.readFileSync(path.join(dir, 'acme-0042.xlsx'));
	expect(xlsx.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
	const parts = readZip(xlsx);
	const sheets = [...parts.keys()].filter((name) => name.startsWith('xl/worksheets/'));
	expect(sheets.map((name) => parts.get(name).toString('utf8')).join('')).toContain(
		'INV-2026-0042',
	);
	expect(n8n.chargedSince(mark)).toBe(1);
	return run;
}

/** A workflow that only records every delivery its Document OCR Trigger accepts (both events). */
function recordEveryDelivery({ id, name, webhookId, nodeName = 'On any OCR event' }) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: `${id}-trigger`,
				name: nodeName,
				type: 'n8n-nodes-document-ocr.documentOcrTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId,
				credentials: {
					documentOcrWebhookApi: {
						id: 'ocrLocalWebhook1',
						name: 'Document OCR webhook secret (local emulator)',
					},
				},
				parameters: { events: ['ocr.done', 'ocr.failed'], includeTaskDetails: false, options: {} },
			},
		],
	};
}

/** The inbox example 06 submits from: alpha and beta finish, gamma fails. Returns its path. */
function seedWebhookInbox(n8n) {
	const inbox = path.join(n8n.inbox, 'by-webhook');
	fs.mkdirSync(path.join(inbox, 'exports'), { recursive: true });
	fs.writeFileSync(path.join(inbox, 'alpha.pdf'), documents.makePdf(['Alpha document']));
	fs.writeFileSync(path.join(inbox, 'beta.pdf'), documents.makePdf(['Beta document']));
	fs.writeFileSync(path.join(inbox, 'gamma.pdf'), documents.makePdf(['Gamma will FAIL']));
	return inbox;
}

/** A recordEveryDelivery workflow ran once per event of the seeded inbox, each verified. */
async function expectOneRunPerEvent(n8n, workflowId, nodeName = 'On any OCR event') {
	const all = await n8n.settledExecutions(workflowId, 3);
	expect(all).toHaveLength(3);
	const events = all.map((e) => {
		const out = e.data.resultData.runData[nodeName][0].data.main[0][0].json;
		return `${out.event}:${out.status}:${out.verified}`;
	});
	expect(events.sort()).toEqual([
		'ocr.done:done:true',
		'ocr.done:done:true',
		'ocr.failed:failed:true',
	]);
	return all;
}

/** Example 07 exported the two finished tasks of the seeded inbox as DOCX, once each. */
async function expectDocxExports(n8n, workflowId, inbox) {
	const exported = await n8n.settledExecutions(workflowId, 2);
	expect(exported).toHaveLength(2);
	// A failed run names its node and error here, not just "error".
	const failures = exported
		.filter((e) => e.status !== 'success')
		.map((e) => {
			const error = e.data?.resultData?.error;
			return `${e.status}: ${error?.node?.name ?? error?.node ?? ''} ${error?.message ?? ''}`;
		});
	expect(failures).toEqual([]);
	const exportsDir = path.join(inbox, 'exports');
	expect(fs.readdirSync(exportsDir).sort()).toEqual(['alpha.docx', 'beta.docx']);
	expect(fs.readFileSync(path.join(exportsDir, 'alpha.docx')).subarray(0, 2).toString()).toBe('PK');
	return exported;
}

/** Trigger → [Remove Duplicates on dedupeKey] → "Side effect" (a No Op whose runs are counted). */
function triggerWorkflow(id, webhookId, credential, { dedupe = false } = {}) {
	const nodes = [
		{
			id: `${id}-1`,
			name: 'On OCR event',
			type: 'n8n-nodes-document-ocr.documentOcrTrigger',
			typeVersion: 1,
			position: [0, 0],
			webhookId,
			credentials: { documentOcrWebhookApi: credential },
			parameters: { events: ['ocr.done', 'ocr.failed'], includeTaskDetails: false, options: {} },
		},
		{
			id: `${id}-3`,
			name: 'Side effect',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [440, 0],
			parameters: {},
		},
	];
	const connections = {};
	if (dedupe) {
		nodes.push({
			id: `${id}-2`,
			name: 'Once per event',
			type: 'n8n-nodes-base.removeDuplicates',
			typeVersion: 2,
			// As in example 07: a first-use collision on n8n's table is retried.
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 1000,
			position: [220, 0],
			parameters: {
				operation: 'removeItemsSeenInPreviousExecutions',
				logic: 'removeItemsWithAlreadySeenKeyValues',
				dedupeValue: '={{ $json.dedupeKey }}',
				options: {},
			},
		});
		connections['On OCR event'] = { main: [[{ node: 'Once per event', type: 'main', index: 0 }]] };
		connections['Once per event'] = { main: [[{ node: 'Side effect', type: 'main', index: 0 }]] };
	} else {
		connections['On OCR event'] = { main: [[{ node: 'Side effect', type: 'main', index: 0 }]] };
	}
	return {
		id,
		name: `e2e: ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections,
	};
}

/** How many times a triggerWorkflow's side effect ran (executions whose "Side effect" got an item). */
async function sideEffects(n8n, workflowId, minExecutions) {
	const runs = await n8n.settledExecutions(workflowId, minExecutions, { quietMs: 2000 });
	return runs.filter(
		(e) => (e.data?.resultData?.runData?.['Side effect']?.[0]?.data?.main?.[0] ?? []).length > 0,
	).length;
}

/** The local emulator's credential as the suites import it. */
const CREDENTIAL = { id: 'ocrLocalEmulator', name: 'Document OCR (local emulator)' };

/** A Document OCR node (version 1, as the suites' workflows are saved) with the emulator's credential. */
function ocrNode(
	id,
	name,
	parameters,
	{ position = [400, 0], credential = CREDENTIAL, ...more } = {},
) {
	return {
		id,
		name,
		type: 'n8n-nodes-document-ocr.documentOcr',
		typeVersion: 1,
		position,
		credentials: { documentOcrApi: credential },
		...more,
		parameters,
	};
}

/** A workflow whose Manual Trigger ("Start") feeds each of `nodes`, side by side. */
function startWorkflow(id, name, nodes) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [startNode(`${id}-0`), ...nodes],
		connections: {
			Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] },
		},
	};
}

/**
 * Manual Trigger → Read Files (`/data/ocr-inbox/<dir>/*.pdf`) → Document OCR (`parameters`): a
 * folder of documents through one operation, as the money and reliability suites run them.
 */
function folderWorkflow(id, dir, parameters, credential = CREDENTIAL) {
	return {
		id,
		name: `e2e: ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			startNode(`${id}-1`),
			{
				id: `${id}-2`,
				name: 'Read files',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fileSelector: `/data/ocr-inbox/${dir}/*.pdf`, options: {} },
			},
			ocrNode(`${id}-3`, 'Document OCR', parameters, { credential }),
		],
		connections: {
			Start: { main: [[{ node: 'Read files', type: 'main', index: 0 }]] },
			'Read files': { main: [[{ node: 'Document OCR', type: 'main', index: 0 }]] },
		},
	};
}

module.exports = {
	CREDENTIAL,
	ocrNode,
	startWorkflow,
	folderWorkflow,
	fillInbox,
	triggerWorkflow,
	sideEffects,
	ingestionExample,
	invoiceExample,
	recordEveryDelivery,
	seedWebhookInbox,
	expectOneRunPerEvent,
	expectDocxExports,
};
