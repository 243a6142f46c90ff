'use strict';
/**
 * `npm start` — the main job: real n8n 2.x with this package installed as a community package,
 * the local OCR service emulator as its default service, a credential pointing at it and the
 * example workflows imported. Ctrl-C stops everything.
 *
 * First start on a machine: installs Node 24 and n8n into ~/.cache/n8n-nodes-document-ocr
 * (a few minutes); later starts reuse them.
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');

const { ensureInstalled, build } = require('./bootstrap');

const STATE = path.resolve(__dirname, '..', '.n8n-local');
const OWNER = {
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Document-OCR-2026',
};
const EXAMPLE_INBOX = '/data/ocr-inbox';
/** Signing secret of the emulator's webhook endpoint that points at this n8n (local demo only). */
const WEBHOOK_SECRET = 'whsec_local_demo_secret_0001';
/** The webhookId of the trigger in examples/07-export-docx-on-ocr-done.json. */
const EXAMPLE_TRIGGER_WEBHOOK = '5b0c4c2e-7d1a-4f6e-9a51-0d8c2f1e9b77';

async function portOr(preferred, rt) {
	const net = require('node:net');
	const free = await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(true)));
	});
	return free ? preferred : await rt.freePort();
}

function seedInbox(inbox, documents) {
	const invoices = path.join(inbox, 'invoices');
	const toMarkdown = path.join(inbox, 'to-markdown');
	const byWebhook = path.join(inbox, 'by-webhook');
	fs.mkdirSync(invoices, { recursive: true });
	fs.mkdirSync(toMarkdown, { recursive: true });
	fs.mkdirSync(path.join(byWebhook, 'exports'), { recursive: true });
	const put = (file, bytes) => {
		if (!fs.existsSync(file)) fs.writeFileSync(file, bytes);
	};
	put(
		path.join(inbox, 'welcome-letter.pdf'),
		documents.makePdf(['Welcome to Document OCR in n8n.', 'This letter has two pages.']),
	);
	put(
		path.join(inbox, 'whiteboard.pdf'),
		documents.makePdf(['Meeting notes: ship the OCR node on Friday']),
	);
	put(path.join(invoices, 'acme-0042.pdf'), documents.makePdf([documents.INVOICE_TEXT]));
	put(
		path.join(toMarkdown, 'board-minutes.pdf'),
		documents.makePdf(['Board Minutes\nThe board met on Monday.', 'Decisions: ship it.']),
	);
}

async function main() {
	const started = Date.now();
	ensureInstalled();
	build();
	const rt = require('./n8n-runtime');
	const { startEmulator, KEYS } = require('../test/emulator');
	const documents = require('../test/fixtures/documents');

	const node24 = await rt.ensureNode24();
	const runtime = await rt.ensureN8n(node24);
	rt.log(`» n8n ${runtime.version} on Node 24 (${rt.CACHE})`);

	const userFolder = STATE;
	const filesDir = path.join(STATE, 'files');
	const inbox = path.join(filesDir, 'ocr-inbox');
	fs.mkdirSync(inbox, { recursive: true });
	seedInbox(inbox, documents);
	rt.installPackage(userFolder);
	rt.log('» package packed and installed as a community package');

	const emu = await startEmulator({ port: await portOr(5680, rt), workers: 2, msPerPage: 300 });
	rt.log(`» OCR service emulator on ${emu.url}`);
	const port = await portOr(5678, rt);
	const env = rt.n8nEnv(node24, { userFolder, port, brokerPort: await rt.freePort(), filesDir });

	let server;
	let stopping = false;
	const stop = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		rt.log('\n» stopping n8n and the emulator');
		await rt.stopServer(server?.child);
		await emu.close();
		process.exit(code);
	};
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));

	// Credential (re-imported each start: the emulator's port may change) and examples.
	const imports = path.join(STATE, 'imports');
	fs.mkdirSync(path.join(imports, 'workflows'), { recursive: true });
	fs.writeFileSync(
		path.join(imports, 'credential.json'),
		JSON.stringify([
			{
				id: 'ocrLocalEmulator',
				name: 'Document OCR (local emulator)',
				type: 'documentOcrApi',
				data: { apiKey: KEYS.full, baseUrl: emu.url, apiUrl: '' },
			},
			{
				id: 'ocrLocalWebhook1',
				name: 'Document OCR webhook secret (local emulator)',
				type: 'documentOcrWebhookApi',
				data: { secret: WEBHOOK_SECRET },
			},
		]),
	);
	for (const file of fs.readdirSync(path.join(rt.ROOT, 'examples'))) {
		const text = fs
			.readFileSync(path.join(rt.ROOT, 'examples', file), 'utf8')
			.split(EXAMPLE_INBOX)
			.join(inbox);
		fs.writeFileSync(path.join(imports, 'workflows', file), text);
	}
	rt.log('» importing the credential and the example workflows');
	for (const args of [
		['import:credentials', `--input=${path.join(imports, 'credential.json')}`],
		['import:workflow', '--separate', `--input=${path.join(imports, 'workflows')}`],
		// The trigger example is active: the emulator delivers ocr.done to it.
		['publish:workflow', '--id=ocrExampleOnDone'],
	]) {
		const result = await rt.n8nCommand(runtime, node24, env, args, path.join(STATE, 'import.log'));
		if (result.code !== 0)
			throw new Error(`n8n ${args[0]} failed; see ${path.join(STATE, 'import.log')}`);
	}

	emu.addWebhook({
		url: `http://127.0.0.1:${port}/webhook/${EXAMPLE_TRIGGER_WEBHOOK}/webhook`,
		secret: WEBHOOK_SECRET,
	});
	rt.log('» starting n8n');
	server = await rt.startServer(runtime, node24, env, path.join(STATE, 'n8n.log'));
	server.child.on('exit', (code) => {
		if (!stopping) {
			rt.log(`✖ n8n exited (code ${code}); see ${path.join(STATE, 'n8n.log')}`);
			void stop(1);
		}
	});
	const setup = await request(`${server.url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	await setup.body.text(); // 200 on the first start; 400 once the owner exists

	rt.log(`
  n8n is ready: ${server.url}   (started in ${Math.round((Date.now() - started) / 1000)} s)
  Sign in:      ${OWNER.email} / ${OWNER.password}

  Credential "Document OCR (local emulator)" points at ${emu.url} (key ${KEYS.full}).
  Example workflows (Overview → Workflows):
    • Document OCR: scheduled ingestion of a folder of scans
    • Document OCR: invoice automation
    • Document OCR: task housekeeping
    • Document OCR: folder of PDFs to Markdown files
    • Document OCR: invoice fields by JSON Schema
    • Document OCR: submit without waiting (results come by webhook)
    • Document OCR: export finished tasks as DOCX (trigger) — active; the emulator sends its
      signed ocr.done deliveries to it (secret ${WEBHOOK_SECRET})
  Their inbox folder: ${inbox}

  Ctrl-C stops n8n and the emulator.
`);
}

main().catch((error) => {
	process.stderr.write(`✖ ${error.message}\n`);
	process.exit(1);
});
