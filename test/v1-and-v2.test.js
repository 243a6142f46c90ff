'use strict';
const h = require('./helpers');

const emu = h.useEmulator();
afterEach(() => {
	emu.clearFaults();
	emu.options.shapes.error = 'flat';
	emu.options.shapes.v1Error = null;
	emu.options.msPerPage = 10;
});

const v2 = (overrides = {}) =>
	h.submit({ operation: 'submitV2', format: 'markdown', ...overrides });
const { doc, job } = h;

describe('Task → Submit (V2), POST /api/v2/ocr', () => {
	test('without waiting, outputs taskId, status, estimatedSeconds, pages and creditsUsed', async () => {
		const { output, error } = await h.run(emu, v2({ waitForCompletion: false }), [
			h.pdfItem('Version two', 'v2.pdf'),
		]);
		expect(error).toBeUndefined();
		expect(output[0].json).toEqual({
			taskId: expect.stringMatching(/^tsk_/),
			status: 'queued',
			estimatedSeconds: expect.any(Number),
			pagesCounted: 1,
			pagesBilled: 1,
			pages: 1,
			creditsUsed: 1,
		});
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});

	test('sends the file name and the options; waits for the Markdown result', async () => {
		const { output, error } = await h.run(
			emu,
			v2({ options: { highFidelityTables: true, formulas: true } }),
			[h.pdfItem('Quarterly Report\nRevenue grew', 'report.pdf')],
		);
		expect(error).toBeUndefined();
		const { taskId, status, resultText, creditsUsed } = output[0].json;
		expect(status).toBe('done');
		expect(resultText).toMatch(/^# Quarterly Report/);
		expect(creditsUsed).toBe(1);
		const task = emu.getTask(taskId);
		expect(task.filename).toBe('report.pdf');
		expect(task.options).toEqual({ format: 'markdown', highFidelityTables: true, formulas: true });
	});

	test('any other format value can be typed in', async () => {
		const { output } = await h.run(
			emu,
			v2({ format: 'other', customFormat: 'html-fragments', waitForCompletion: false }),
			[h.pdfItem()],
		);
		expect(emu.getTask(output[0].json.taskId).options).toEqual({ format: 'html-fragments' });
	});

	test('the first poll is timed by estimatedSeconds', async () => {
		emu.options.msPerPage = 600; // estimate: 1 s
		const { output, error } = await h.run(emu, v2(), [h.pdfItem('Estimated')]);
		expect(error).toBeUndefined();
		expect(emu.stats().polls[output[0].json.taskId]).toBe(1);
	});

	test('the file name is required: Base64 without one is refused before sending', async () => {
		const requests = emu.stats().requests;
		const { error } = await h.run(
			emu,
			v2({ documentSource: 'base64', base64Data: h.documents.makePdf(['x']).toString('base64') }),
		);
		expect(error.message).toBe("Item 0: /api/v2/ocr needs the document's file name");
		expect(emu.stats().requests).toBe(requests);
	});
});

describe('Document (/v1)', () => {
	test('Convert to Markdown outputs id, pages and markdown, and a .md file when asked', async () => {
		const pdf = h.documents.makePdf(['Annual Letter\nDear shareholders', 'Second page']);
		const { output, error } = await h.run(
			emu,
			doc('markdown', { outputFile: true, outputBinaryPropertyName: 'md' }),
			[h.binaryItem(pdf, 'annual.pdf')],
		);
		expect(error).toBeUndefined();
		const [item] = output;
		expect(item.json).toMatchObject({ id: expect.any(String), pages: 2, fileName: 'annual.pdf' });
		expect(item.json.markdown).toMatch(/# Annual Letter/);
		expect(item.binary.md).toMatchObject({ fileName: 'annual.md', mimeType: 'text/markdown' });
		expect((await h.readBinary(item.binary.md)).toString('utf8')).toBe(item.json.markdown);
		expect(emu.ledger('acme').at(-1)).toMatchObject({
			delta: -2,
			endpoint: expect.stringContaining('markdown'),
		});
	});

	test('Convert to Markdown: "Put Output File in Field" given by an expression that resolves to nothing fails the item naming the field, before any request', async () => {
		const before = emu.stats().requests;
		for (const expression of ['={{ undefined }}', '={{ null }}', '={{ $json.missing }}']) {
			const { output, error } = await h.run(
				emu,
				doc('markdown', { outputFile: true, outputBinaryPropertyName: expression }),
				[h.pdfItem('Hello', 'a.pdf')],
				{ continueOnFail: true },
			);
			expect(error).toBeUndefined();
			expect(output[0].json.error).toMatch(/"Put Output File in Field" must be a text/);
			expect(output[0].pairedItem).toEqual({ item: 0 });
		}
		expect(emu.stats().requests).toBe(before);
		// An empty text still means the default field, as before.
		const { output } = await h.run(
			emu,
			doc('markdown', { outputFile: true, outputBinaryPropertyName: '={{ "" }}' }),
			[h.pdfItem('Hello', 'a.pdf')],
		);
		expect(Object.keys(output[0].binary)).toEqual(['data']);
	});

	test('Recognize (OCR) outputs text and blocks as returned', async () => {
		const { output, error } = await h.run(emu, doc('recognize'), [
			h.binaryItem(h.documents.makeWebp('Words on a webp'), 'photo.webp', 'image/webp'),
		]);
		expect(error).toBeUndefined();
		expect(output[0].json.text).toBe('Words on a webp');
		expect(output[0].json.blocks[0]).toMatchObject({
			text: 'Words on a webp',
			bbox: expect.any(Object),
		});
	});

	test('a data URI is sent as a multipart file too, named from the File Name field', async () => {
		const png = h.documents.makePng('From a data URI');
		const base64Data = `data:image/png;base64,${png.toString('base64')}`;
		const { output, error } = await h.run(
			emu,
			doc('recognize', { documentSource: 'base64', base64Data, fileName: 'snap.png' }),
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ text: 'From a data URI', fileName: 'snap.png' });
	});

	test('Extract Structured Data returns the values the schema asks for', async () => {
		const schema = JSON.stringify({
			type: 'object',
			properties: {
				invoiceNumber: { type: 'string' },
				total: { type: 'number' },
				currency: { type: 'string' },
			},
		});
		const { output, error } = await h.run(emu, doc('extract', { schema }), [
			h.binaryItem(h.documents.makePdf([h.documents.INVOICE_TEXT]), 'invoice.pdf'),
		]);
		expect(error).toBeUndefined();
		expect(output[0].json.data).toEqual({
			invoiceNumber: 'INV-2026-0042',
			total: 1234.56,
			currency: 'EUR',
		});
	});

	test.each([
		['not JSON', '{"type": "object", properties: }', /JSON Schema is not valid JSON/],
		['an array', '[]', /not an object schema: it is not a JSON object/],
		['a string schema', '{"type": "string"}', /its type is "string", not "object"/],
		['no properties', '{"type": "object"}', /has no "properties"/],
	])('a schema that is %s is refused before sending', async (_name, schema, message) => {
		const requests = emu.stats().requests;
		const { error } = await h.run(emu, doc('extract', { schema }), [h.pdfItem()]);
		expect(error.message).toMatch(message);
		expect(emu.stats().requests).toBe(requests);
	});

	test('a TIFF is accepted by the task API but refused for /v1 before sending', async () => {
		const tiff = h.binaryItem(h.documents.makeTiff('tiff text'), 'scan.tiff', 'image/tiff');
		const requests = emu.stats().requests;
		const refused = await h.run(emu, doc('recognize'), [tiff]);
		expect(refused.error.message).toBe(
			'Item 0: "scan.tiff" is a TIFF image; the /v1 API accepts PDF, PNG, JPG, WEBP',
		);
		expect(emu.stats().requests).toBe(requests);
		const accepted = await h.run(emu, h.submit({ waitForCompletion: false }), [tiff]);
		expect(accepted.error).toBeUndefined();
	});

	test.each(['flat', 'nested', 'code', 'text'])(
		'a /v1 error in the %s body shape is mapped',
		async (shape) => {
			emu.options.shapes.v1Error = shape;
			emu.fault({
				method: 'POST',
				path: '/v1/markdown',
				kind: 'status',
				status: 402,
				code: 'insufficient_pages',
				message: 'No pages left',
				times: 1,
			});
			const { error } = await h.run(emu, doc('markdown'), [h.pdfItem()]);
			expect(error.message).toBe('The account has no page balance left for this document');
			expect(error.description).toContain('No pages left');
		},
	);
});

describe('Document (/v1) results billed before the node fails are not lost, nor billed again', () => {
	const SCHEMA = JSON.stringify({
		type: 'object',
		properties: { invoiceNumber: { type: 'string' } },
	});
	const operations = [
		[
			'Convert to Markdown',
			'markdown',
			doc('markdown', { options: { concurrency: 1 } }),
			'markdown',
		],
		['Recognize', 'ocr', doc('recognize', { options: { concurrency: 1 } }), 'text'],
		['Extract', 'extract', doc('extract', { schema: SCHEMA, options: { concurrency: 1 } }), 'data'],
	];
	const refusals = [
		['402 insufficient_pages', { kind: 'status', status: 402, code: 'insufficient_pages' }],
		['429 daily_quota_exceeded', { kind: 'quota' }],
		['503', { kind: 'status', status: 503 }],
	];
	const cases = operations.flatMap(([name, ...o]) =>
		refusals.map(([refused, r]) => [name, refused, ...o, r]),
	);
	const files = () => [0, 1, 2].map((i) => h.pdfItem(`Billed document ${i}`, `doc-${i}.pdf`));
	const charged = () => emu.ledger('acme').filter((e) => e.reason === 'submit').length;

	afterEach(() => emu.clearFaults());

	test.each(cases)(
		'%s over 3 files, the third refused (%s): the error names both billed documents; the next run bills at most the third',
		async (_, __, endpoint, parameters, field, refusal) => {
			const staticData = {};
			const before = charged();
			emu.fault({ method: 'POST', path: `/v1/${endpoint}`, every: 3, times: 1, ...refusal });
			const first = await h.run(emu, parameters, files(), { staticData, mode: 'cli' });
			expect(first.output).toEqual([]);
			expect(first.error.context.itemIndex).toBe(2);
			expect(charged() - before).toBe(2);
			expect(first.error.description).toMatch(/billed 2 document\(s\) of this run/);
			expect(first.error.description).toContain('item 0: document doc-0.pdf');
			expect(first.error.description).toContain('item 1: document doc-1.pdf');
			expect(first.error.description).toMatch(/kept by this node: its next run outputs them/);
			expect(first.error.description).not.toMatch(/Task → Get \(or Job → Get\)/);
			expect(first.error.context.billedResults.map((r) => r.itemIndex)).toEqual([0, 1]);

			// Topped up (the fault is spent): the next run sends only the third.
			const second = await h.run(emu, parameters, files(), { staticData, mode: 'cli' });
			expect(second.error).toBeUndefined();
			expect(charged() - before).toBe(3);
			expect(second.output.map((o) => o.json.previouslyBilled === true)).toEqual([
				true,
				true,
				false,
			]);
			for (const o of second.output) expect(o.json[field]).toBeDefined();
			expect(second.output.map((o) => o.pairedItem.item)).toEqual([0, 1, 2]);
			// Delivered: a third run sends them all again, as any run would.
			await h.run(emu, parameters, files(), { staticData, mode: 'cli' });
			expect(charged() - before).toBe(6);
		},
	);

	test('a manual test run says that n8n keeps nothing after it, and carries the results in the error', async () => {
		emu.fault({ method: 'POST', path: '/v1/markdown', every: 3, times: 1, kind: 'quota' });
		const { error } = await h.run(emu, operations[0][2], files());
		expect(error.description).toMatch(/manual test run, after which n8n keeps no node memory/);
		expect(error.context.billedResults.map((r) => r.result.markdown)).toEqual([
			expect.stringContaining('Billed document 0'),
			expect.stringContaining('Billed document 1'),
		]);
	});

	test("another item whose answer was lost after the send is named by the node's error too", async () => {
		// Item 0 is refused (quota) after 300 ms; meanwhile item 1's answer is lost after the service
		// acted, and item 2 is billed and answered.
		emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'latency', ms: 300, times: 1 });
		emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'quota', times: 1 });
		emu.fault({ method: 'POST', path: '/v1/markdown', kind: 'actThenError', every: 2, times: 1 });
		const { error } = await h.run(emu, doc('markdown', { options: { concurrency: 5 } }), files(), {
			mode: 'cli',
		});
		expect(error.context.itemIndex).toBe(0);
		expect(error.message).toMatch(/daily quota/);
		expect(error.description).toContain('item 2: document doc-2.pdf');
		expect(error.description).toMatch(
			/The answer to the submission of item 1 was lost after the document was sent: the service may have created \(and billed\) it/,
		);
		expect(error.context.lostAnswers).toEqual([1]);
	});
});

describe('Job (/v1/jobs)', () => {
	test('Create sends the file and the fields, waits, and outputs the finished job', async () => {
		const { output, error } = await h.run(
			emu,
			job('create', {
				jobFields: {
					field: [
						{ name: 'language', value: 'de' },
						{ name: 'priority', value: 'high' },
					],
				},
			}),
			[h.pdfItem('A job to do', 'job.pdf')],
		);
		expect(error).toBeUndefined();
		const [item] = output;
		expect(item.json).toMatchObject({ id: expect.stringMatching(/^job_/), status: 'done' });
		expect(item.json.result.text).toBe('A job to do');
		// The fields reached the service (the spec's job record does not echo them).
		expect(emu.jobMap.get(item.json.id).fields).toEqual({ language: 'de', priority: 'high' });
	});

	test('Get returns the job; a job that fails is an error naming it and its status', async () => {
		const created = await h.run(emu, job('create', { waitForCompletion: false }), [
			h.pdfItem('Doomed, FAIL please'),
		]);
		const { id } = created.output[0].json;
		const got = await h.run(emu, job('get', { jobId: id }));
		expect(got.output[0].json.id).toBe(id);

		const waited = await h.run(emu, job('create'), [h.pdfItem('Another FAIL')], {
			continueOnFail: true,
		});
		expect(waited.output[0].json.error).toMatch(/^Job "job_[^"]+" failed \(status "failed"\)$/);
	});

	test('Skip Submitted Documents: a job whose answer was lost is not created again by a production re-run unless Resend Unconfirmed Documents is on', async () => {
		const staticData = {};
		const jobs = () => h.hits(emu, 'POST /v1/jobs');
		const before = jobs();
		const item = [h.pdfItem('A job answered by a gateway error', 'lost-job.pdf')];
		const params = (options = {}) =>
			job('create', { options: { skipSubmitted: true, ...options } });
		const run = async (options) =>
			await h.run(emu, params(options), item, { staticData, mode: 'cli', continueOnFail: true });
		emu.fault({ method: 'POST', path: '/v1/jobs', kind: 'actThenError', times: 1 });
		const first = await run();
		expect(first.output[0].json.error).toMatch(/after the document was sent/);
		const second = await run();
		expect(jobs() - before).toBe(1);
		expect(second.output[0].json.error).toMatch(
			/^Item 0 was not sent: an earlier run sent this document at about .+ and its answer was lost/,
		);
		expect(second.output[0].json.description).toMatch(/service's dashboard for a job/);
		const resent = await run({ resendUnconfirmed: true });
		expect(resent.output[0].json).toMatchObject({
			id: expect.stringMatching(/^job_/),
			status: 'done',
		});
		const reused = await run();
		expect(reused.output[0].json).toMatchObject({
			id: resent.output[0].json.id,
			previouslySubmitted: true,
		});
		expect(jobs() - before).toBe(2);
	});

	test('an unknown job is a not-found error', async () => {
		const { error } = await h.run(emu, job('get', { jobId: 'job_missing' }));
		expect(error.message).toBe('Job "job_missing" was not found');
	});
});

describe('the API URL of the credential', () => {
	const split = h.useEmulator({ separateApiServer: true });

	test('/v1 goes to the API URL, the task API to the Base URL', async () => {
		expect(split.apiUrl).not.toBe(split.url);
		const creds = h.credentials(split, h.FULL_KEY, { apiUrl: split.apiUrl });
		const markdown = await h.run(split, doc('markdown'), [h.pdfItem('Split servers')], { creds });
		expect(markdown.error).toBeUndefined();
		const task = await h.run(split, h.submit({ waitForCompletion: false }), [h.pdfItem()], {
			creds,
		});
		expect(task.error).toBeUndefined();
		// Without an API URL, /v1 goes to the Base URL, where this emulator does not serve it.
		const wrong = await h.run(split, doc('markdown'), [h.pdfItem()], {
			creds: h.credentials(split),
		});
		expect(wrong.error.httpCode).toBe('404');
	});
});
