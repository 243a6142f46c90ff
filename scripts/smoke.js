'use strict';
/**
 * `npm start -- --smoke` (CI's first step, on the clean clone): with the demo's n8n ready, runs
 * every example on the demo's own seeded inbox and checks what each produced. Throws on the first
 * thing that is wrong; prints one line per example.
 *
 *   06 -> 07  06 runs with n8n's CLI (`n8n execute`, as the editor's Execute button runs it) and
 *             submits the by-webhook/ PDFs without waiting; the emulator finishes them and sends
 *             its signed ocr.done deliveries to 07 (active, production URL); 07's executions and
 *             output are read through n8n's PUBLIC API, and its DOCX files from disk.
 *   01, 02, 04, 05, then 03 (housekeeping last: it deletes what the others made)
 */
const fs = require('node:fs');
const path = require('node:path');

const PUBLIC_API_SCOPES = ['workflow:list', 'execution:list', 'execution:read'];

function check(condition, message) {
	if (!condition) throw new Error(message);
}

/** The output items of a node in a run (first run, first output). */
function nodeOutput(run, name) {
	return run.data.resultData.runData[name]?.[0]?.data?.main?.[0] ?? [];
}

/** `triggerWorkflow`: the ID of example 07, which the emulator's deliveries start. */
async function smokeCheck({
	rt,
	server,
	admin,
	n8n,
	emu,
	inbox,
	say,
	readySeconds,
	triggerWorkflow,
}) {
	const started = Date.now();
	check(admin.cookie, 'could not sign in as the demo owner');
	const apiKey = await rt.createApiKey(server.url, admin.cookie, PUBLIC_API_SCOPES, 'smoke');
	const examples = fs
		.readdirSync(path.join(rt.ROOT, 'examples'))
		.filter((file) => file.endsWith('.json'))
		.map((file) => require(path.join(rt.ROOT, 'examples', file)).id);

	const workflows = await rt.publicApiList(server.url, apiKey, '/workflows?limit=250');
	const ids = new Set(workflows.map((w) => w.id));
	const missing = examples.filter((id) => !ids.has(id));
	check(missing.length === 0, `examples not imported: ${missing.join(', ')}`);
	check(
		workflows.find((w) => w.id === triggerWorkflow)?.active,
		'the trigger example (07) is not active',
	);
	say(
		`  ✔ n8n ready in ${readySeconds} s; ${examples.length} examples imported, 07 active (public API)`,
	);

	const execute = async (id) => {
		const t = Date.now();
		const run = rt.parseExecuteOutput(await n8n(['execute', `--id=${id}`, '--rawOutput']));
		check(run, `no run data from n8n execute --id=${id}`);
		const error = run.data.resultData.error;
		check(!error, `${id} failed: ${error?.message} ${error?.description ?? ''}`);
		return { run, seconds: ((Date.now() - t) / 1000).toFixed(1) };
	};
	const charged = (mark) =>
		-emu
			.ledger('acme')
			.slice(mark)
			.reduce((sum, e) => sum + e.delta, 0);

	// 06 -> 07
	const pdfs = fs.readdirSync(path.join(inbox, 'by-webhook')).filter((f) => f.endsWith('.pdf'));
	let mark = emu.ledger('acme').length;
	const submitted = await execute('ocrExampleNoWait');
	const tasks = nodeOutput(submitted.run, 'Submit without waiting');
	check(
		tasks.length === pdfs.length && tasks.every((item) => item.json.taskId),
		`06 submitted ${tasks.length} of ${pdfs.length} PDFs`,
	);
	const deadline = Date.now() + 300_000;
	let done = [];
	for (;;) {
		const list = await rt.publicApiList(
			server.url,
			apiKey,
			`/executions?workflowId=${triggerWorkflow}&includeData=true&limit=250`,
		);
		done = list.filter((e) => e.finished || ['success', 'error', 'crashed'].includes(e.status));
		if (done.length >= tasks.length) break;
		check(Date.now() < deadline, `07 ran ${done.length} of ${tasks.length} times in 300 s`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	check(
		done.every((e) => e.status === 'success'),
		`07: ${done.map((e) => e.status).join(', ')}`,
	);
	const exported = done.flatMap((e) => nodeOutput(e, 'Export as DOCX'));
	check(
		exported.length === tasks.length &&
			exported.every((item) => item.binary?.data?.fileName?.endsWith('.docx')),
		'07 did not export every task as DOCX',
	);
	const docx = pdfs.map((pdf) =>
		path.join(inbox, 'by-webhook', 'exports', pdf.replace(/\.pdf$/, '.docx')),
	);
	for (const file of docx)
		check(
			fs.existsSync(file) && fs.readFileSync(file).subarray(0, 2).toString() === 'PK',
			`no DOCX at ${file}`,
		);
	say(
		`  ✔ 06 submitted ${tasks.length} PDFs (${submitted.seconds} s, ${charged(mark)} pages); 07 ran ${done.length}× on the signed ocr.done deliveries and wrote ${docx.map((f) => path.basename(f)).join(', ')}`,
	);

	// 01, 02, 04, 05
	const files = (dir, ext) =>
		fs.readdirSync(path.join(inbox, dir)).filter((f) => f.endsWith(ext)).length;
	const runs = [
		['ocrExampleIngest', 'Recognise text', () => files('.', '.pdf.txt') >= 2, '.txt files'],
		['ocrExampleInvoic', 'Export task as XLSX', () => files('invoices', '.xlsx') >= 1, 'an XLSX'],
		[
			'ocrExampleToMark',
			'Convert to Markdown',
			() => files('to-markdown', '.md') >= 1,
			'a .md file',
		],
		['ocrExampleSchema', 'Invoice record', () => true, ''],
	];
	for (const [id, node, written, what] of runs) {
		mark = emu.ledger('acme').length;
		const { run, seconds } = await execute(id);
		const out = nodeOutput(run, node);
		check(out.length > 0, `${id}: no output from "${node}"`);
		check(written(), `${id}: ${what} was not written`);
		say(
			`  ✔ ${id}: ${out.length} item(s) from "${node}"${what ? `, ${what} written` : ''} (${seconds} s, ${charged(mark)} pages)`,
		);
	}

	// 09: page 1 of each invoice, the other pages neither sent nor billed.
	mark = emu.ledger('acme').length;
	const firstPages = await execute('ocrExampleFirstP');
	const pageOnes = nodeOutput(firstPages.run, 'First page');
	const invoices = files('first-page', '.pdf');
	check(
		pageOnes.length === invoices &&
			pageOnes.every(
				(item) =>
					item.json['Pages sent'] === '1' &&
					item.json['Pages in the invoice'] === 7 &&
					/Invoice Number/.test(item.json['Text of page 1']) &&
					!/Terms and conditions/.test(item.json['Text of page 1']),
			),
		`09: ${JSON.stringify(pageOnes.map((item) => item.json))}`,
	);
	check(charged(mark) === invoices, `09 billed ${charged(mark)} pages for ${invoices} first pages`);
	say(
		`  ✔ ocrExampleFirstP: page 1 of ${invoices} invoice(s) of 7 pages read, ${charged(mark)} page(s) billed (${firstPages.seconds} s)`,
	);

	// 10: a 15 MB, 24-page scan past the 10 MB limit, converted in parts into one item.
	mark = emu.ledger('acme').length;
	const large = await execute('ocrExampleLargeS');
	const [whole] = nodeOutput(large.run, 'The whole scan');
	const pageTexts = Array.from({ length: 24 }, (_, i) => `Archive scan, page ${i + 1} of 24`);
	const at = pageTexts.map((text) => whole?.json.Markdown?.indexOf(text) ?? -1);
	check(
		nodeOutput(large.run, 'The whole scan').length === 1 &&
			whole.json['Parts sent'] >= 2 &&
			at.every((position, i) => position >= 0 && (i === 0 || position > at[i - 1])),
		`10: ${JSON.stringify(whole?.json ?? null).slice(0, 500)}`,
	);
	check(charged(mark) === 24, `10 billed ${charged(mark)} pages for a scan of 24`);
	say(
		`  ✔ ocrExampleLargeS: a 24-page scan of 15 MB in ${whole.json['Parts sent']} parts (${whole.json['Pages of each part']}), one item, its pages in order, ${charged(mark)} pages billed (${large.seconds} s)`,
	);

	// 03 last: keeps the newest 5 finished tasks and deletes the others.
	const finished = emu.tasks.filter((t) => ['done', 'failed'].includes(t.status)).length;
	const { run, seconds } = await execute('ocrExampleCleanu');
	const deleted = nodeOutput(run, 'Delete task');
	check(
		deleted.length === Math.max(0, finished - 5) && deleted.every((item) => item.json.deleted),
		`03 deleted ${deleted.length} of ${finished} finished tasks (expected all but 5)`,
	);
	say(
		`  ✔ ocrExampleCleanu: deleted ${deleted.length} of ${finished} finished tasks, kept the newest 5 (${seconds} s)`,
	);
	// 08 (poll trigger) has no manual start for `n8n execute` and is imported inactive: an active
	// poll is proved by test/e2e/poll-trigger.e2e.js.
	say(
		`smoke: 9 of 9 runnable examples green in ${Math.round((Date.now() - started) / 1000)} s after ready (08, the poll trigger, imported inactive)`,
	);
}

module.exports = { smokeCheck };
