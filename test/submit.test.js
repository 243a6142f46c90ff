'use strict';
const h = require('./helpers');

const emu = h.useEmulator();

describe('Task → Submit in the real engine', () => {
	test('waits for completion and outputs the recognised text, billed pages and pairedItem', async () => {
		const before = h.netCharged(emu);
		const pdf = h.documents.makePdf(['First page text', 'Second page text']);
		const { output, error } = await h.run(emu, h.submit(), [h.binaryItem(pdf, 'two-pages.pdf')]);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		const [item] = output;
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json.status).toBe('done');
		expect(item.json.taskId).toMatch(/\S/);
		expect(item.json.resultText).toContain('First page text');
		expect(item.json.resultText).toContain('Second page text');
		// The spec shows no billed count on /api/ocr (neither in the answer nor on the task): the
		// node reports none rather than a guess; the ledger shows what was charged.
		expect(item.json.pagesBilled).toBeUndefined();
		expect(h.netCharged(emu) - before).toBe(2);
		// The emulator received the file name from the binary property.
		expect(emu.getTask(item.json.taskId).filename).toBe('two-pages.pdf');
	});

	test('invoice document type outputs the extracted invoice fields in metadata', async () => {
		const { output, error } = await h.run(emu, h.submit({ documentType: 'invoice' }), [
			h.binaryItem(h.documents.makePdf([h.documents.INVOICE_TEXT]), 'invoice.pdf'),
		]);
		expect(error).toBeUndefined();
		const { metadata } = output[0].json;
		expect(metadata.invoice).toMatchObject({
			invoiceNumber: 'INV-2026-0042',
			total: 1234.56,
			currency: 'EUR',
		});
	});

	test('provider-sync returns word positions (a service that sends them: the rich profile)', async () => {
		const rich = await h.withEmulator({ fields: 'rich' });
		const { output, error } = await h
			.run(rich, h.submit({ provider: 'provider-sync' }), [
				h.binaryItem(h.documents.makePng('Sync words here'), 'scan.png', 'image/png'),
			])
			.finally(() => rich.close());
		expect(error).toBeUndefined();
		expect(output[0].json.provider).toBe('provider-sync');
		expect(output[0].json.words.map((w) => w.text)).toEqual(['Sync', 'words', 'here']);
		expect(output[0].json.words[0].bbox).toEqual(
			expect.objectContaining({ x: expect.any(Number) }),
		);
	});

	test('without waiting, outputs the task ID at once', async () => {
		const polls = h.hits(emu, 'GET /api/tasks/:id');
		const { output } = await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem()]);
		expect(output[0].json).toMatchObject({ success: true, provider: 'provider-async' });
		expect(output[0].json.taskId).toMatch(/\S/);
		expect(output[0].json.resultText).toBeUndefined();
		expect(h.hits(emu, 'GET /api/tasks/:id')).toBe(polls);
	});

	test('accepts Base64 and data-URI input, naming the file from the detected type', async () => {
		const png = h.documents.makePng('From base64');
		const base = await h.run(
			emu,
			h.submit({ documentSource: 'base64', base64Data: png.toString('base64') }),
		);
		expect(base.error).toBeUndefined();
		expect(base.output[0].json.resultText).toContain('From base64');
		expect(emu.getTask(base.output[0].json.taskId).filename).toBe('document.png');

		const jpeg = h.documents.makeJpeg('From data uri');
		const uri = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
		const viaUri = await h.run(
			emu,
			h.submit({ documentSource: 'base64', base64Data: uri, fileName: 'photo.jpg' }),
		);
		expect(viaUri.error).toBeUndefined();
		expect(viaUri.output[0].json.resultText).toContain('From data uri');
		expect(emu.getTask(viaUri.output[0].json.taskId).filename).toBe('photo.jpg');
	});

	test('many items keep their order and pairing under concurrency', async () => {
		const items = Array.from({ length: 8 }, (_, i) =>
			h.pdfItem(`Document number ${i}`, `doc-${i}.pdf`, { i }),
		);
		emu.resetStats();
		// Slow submissions overlap, so the pool's bound is what limits requests in flight.
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'latency', ms: 200, times: 8 });
		const { output, error } = await h.run(emu, h.submit({ options: { concurrency: 4 } }), items);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(8);
		output.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.resultText).toContain(`Document number ${i}`);
		});
		expect(emu.stats().maxInFlight).toBe(4);
	});

	test('waiting items share one poller: results in order, at most 2 status requests per task', async () => {
		emu.resetStats();
		emu.options.msPerPage = 100; // 2 workers (see helpers): 40 one-page tasks take ~2 s of service time
		try {
			const items = Array.from({ length: 40 }, (_, i) =>
				h.pdfItem(`Queued document ${i}`, `q-${i}.pdf`),
			);
			const { output, error } = await h.run(emu, h.submit({ options: { concurrency: 3 } }), items);
			expect(error).toBeUndefined();
			output.forEach((item, i) => {
				expect(item.pairedItem).toEqual({ item: i });
				expect(item.json.resultText).toBe(`Queued document ${i}`);
			});
			const stats = emu.stats();
			expect(stats.maxInFlight).toBeLessThanOrEqual(3);
			expect(stats.byRoute['GET /api/tasks/:id'] / 40).toBeLessThanOrEqual(2);
		} finally {
			emu.options.msPerPage = 10;
		}
	});

	test('Continue on Fail: a failed task becomes an error item naming the task; other items succeed', async () => {
		const items = [h.pdfItem('good one'), h.pdfItem('this will FAIL'), h.pdfItem('good two')];
		const { output, error } = await h.run(emu, h.submit(), items, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output).toHaveLength(3);
		expect(output[0].json.resultText).toContain('good one');
		expect(output[2].json.resultText).toContain('good two');
		expect(output[1].pairedItem).toEqual({ item: 1 });
		// The spec shows no error text on a task: the message names the task and its status.
		expect(output[1].json.error).toMatch(/^Task "tsk_[^"]+" failed \(status "failed"\)$/);
	});

	test('a failed task whose record carries an error text: the message quotes it', async () => {
		const rich = await h.withEmulator({ fields: 'rich' });
		const { output } = await h
			.run(rich, h.submit(), [h.pdfItem('this will FAIL')], { continueOnFail: true })
			.finally(() => rich.close());
		expect(output[0].json.error).toMatch(
			/^Task "tsk_[^"]+" failed \(status "failed"\): .*unreadable/,
		);
	});

	test('without Continue on Fail a failed task fails the node with the item index', async () => {
		const { error, output } = await h.run(emu, h.submit(), [h.pdfItem('please FAIL now')]);
		expect(output).toEqual([]);
		expect(error.message).toMatch(/Task "tsk_[^"]+" failed \(status "failed"\)/);
		expect(error.context.itemIndex).toBe(0);
	});
});
