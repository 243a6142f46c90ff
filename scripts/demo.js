'use strict';
/**
 * `npm start` — the main job, offline: starts the local OCR service emulator, then runs the
 * Document OCR node inside n8n's real execution engine (n8n-core) against it, the way the
 * example workflows use it, and prints what the node outputs.
 *
 *   1. Submit two documents (an invoice PDF and a scanned PNG) with Wait for Completion
 *   2. Export the invoice task as XLSX (n8n binary data)
 *   3. List the account's tasks (Get Many, Return All)
 * and finally the emulator's page ledger: what the account was charged.
 */
const { ensureInstalled, build } = require('./bootstrap');

async function main() {
	ensureInstalled();
	build();

	const { startEmulator, KEYS } = require('../emulator');
	const documents = require('../emulator/documents');
	const { runNode, readBinary } = require('./n8n-engine');

	const emu = await startEmulator({ workers: 2, msPerPage: 400 });
	const credentials = { apiKey: KEYS.full, baseUrl: emu.url, apiUrl: '' };
	const say = (text) => process.stdout.write(`${text}\n`);
	const run = async (parameters, items = [{ json: {} }]) => {
		const { output, error } = await runNode({ parameters, items, credentials }).promise;
		if (error) throw error;
		return output;
	};
	const file = (bytes, fileName, mimeType) => ({
		json: { fileName },
		binary: { data: { base64: bytes.toString('base64'), fileName, mimeType } },
	});

	try {
		say(`\nOCR service emulator on ${emu.url} (key "${KEYS.full}", 2 workers, 400 ms per page)`);
		say('n8n engine: n8n-core WorkflowExecute running the built node from dist/\n');

		say('1) Task → Submit, Wait for Completion, 2 items, document type "invoice"');
		const started = Date.now();
		const submitted = await run(
			{
				resource: 'task',
				operation: 'submit',
				documentSource: 'binary',
				binaryPropertyName: 'data',
				provider: 'provider-async',
				documentType: 'invoice',
				waitForCompletion: true,
				options: {},
			},
			[
				file(
					documents.makePdf([documents.INVOICE_TEXT, 'Thank you for your business.']),
					'invoice-0042.pdf',
					'application/pdf',
				),
				file(
					documents.makePng('Meeting notes: ship the OCR node on Friday'),
					'whiteboard.png',
					'image/png',
				),
			],
		);
		for (const item of submitted) {
			const { taskId, status, pagesBilled, resultText, metadata } = item.json;
			say(
				`   item ${item.pairedItem.item}: ${taskId} ${status}${pagesBilled === undefined ? '' : `, ${pagesBilled} page(s) billed`}`,
			);
			say(
				`     text: ${JSON.stringify(String(resultText).slice(0, 70))}${String(resultText).length > 70 ? '…' : ''}`,
			);
			if (metadata?.invoice?.invoiceNumber)
				say(`     invoice fields: ${JSON.stringify(metadata.invoice)}`);
		}
		say(`   (${Date.now() - started} ms)\n`);

		say('2) Task → Export as XLSX');
		const [exported] = await run({
			resource: 'task',
			operation: 'export',
			taskId: submitted[0].json.taskId,
			format: 'xlsx',
			binaryPropertyName: 'data',
		});
		const bytes = await readBinary(exported.binary.data);
		say(
			`   ${exported.json.fileName}: ${bytes.length} bytes, ${exported.json.mimeType}, zip signature ${bytes.subarray(0, 2).toString('latin1')}\n`,
		);

		say('3) Task → Get Many, Return All');
		const listed = await run({
			resource: 'task',
			operation: 'getMany',
			returnAll: true,
			filters: {},
			options: {},
		});
		say(
			`   ${listed.length} task(s): ${listed.map((t) => `${t.json.taskId}=${t.json.status}`).join(', ')}\n`,
		);

		say('Page ledger of the account (deducted before processing):');
		for (const entry of emu.ledger('acme'))
			say(`   ${entry.delta > 0 ? '+' : ''}${entry.delta} ${entry.reason} ${entry.taskId ?? ''}`);
		say(`   balance now: ${emu.balance('acme')} pages\n`);
		say('Done. Run the tests with: npm test');
	} finally {
		await emu.close();
	}
}

main().catch((error) => {
	process.stderr.write(
		`✖ ${error.message}${error.description ? `\n  ${error.description}` : ''}\n`,
	);
	process.exit(1);
});
