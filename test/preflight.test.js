'use strict';
const h = require('./helpers');

const emu = h.useEmulator();

/** The service's request-body limit, "10 MB", read as 10,000,000 bytes. */
const TEN_MB = 10_000_000;

const cases = [
	[
		'an empty binary file',
		{ items: [h.binaryItem(Buffer.alloc(0), 'empty.pdf')] },
		/empty \(0 bytes\)/,
	],
	[
		'a file of 10 MB + 1 byte',
		{ items: [h.binaryItem(h.documents.makePdfOfSize(TEN_MB + 1), 'big.pdf')] },
		/over the service's 10\.00 MB limit/,
	],
	[
		'unknown magic bytes',
		{
			items: [
				h.binaryItem(Buffer.from('just some text, not a document'), 'notes.txt', 'text/plain'),
			],
		},
		/not a file type the service reads/,
	],
	[
		'PNG bytes behind a .pdf name',
		{ items: [h.binaryItem(h.documents.makePng('x'), 'scan.pdf')] },
		/named as a PDF but its content is a PNG image/,
	],
	['a missing binary property', { items: [{ json: { a: 1 } }] }, /has no binary field "data"/],
	[
		'broken Base64',
		{ params: { documentSource: 'base64', base64Data: 'JVBER$$$i0xLjQ=' } },
		/Base64 data is malformed/,
	],
	[
		'Base64 of a wrong length',
		{ params: { documentSource: 'base64', base64Data: 'JVBERi0xL' } },
		/Base64 data is malformed/,
	],
	[
		'a data URI that is not Base64',
		{ params: { documentSource: 'base64', base64Data: 'data:application/pdf,%PDF-1.4' } },
		/not Base64-encoded/,
	],
	[
		'a data URI whose type contradicts the content',
		{
			params: {
				documentSource: 'base64',
				base64Data: `data:image/png;base64,${h.documents.makePdf(['x']).toString('base64')}`,
			},
		},
		/data URI says image\/png but the content is a PDF/,
	],
	[
		'an empty Base64 field',
		{ params: { documentSource: 'base64', base64Data: '   ' } },
		/no document data/,
	],
	[
		'Base64 decoding to over 10 MB',
		{
			params: {
				documentSource: 'base64',
				base64Data: h.documents.makePdfOfSize(TEN_MB + 3).toString('base64'),
			},
		},
		/over the service's 10\.00 MB limit/,
	],
];

describe('pre-flight: bad input is rejected before any request, so nothing is charged', () => {
	test.each(cases)('%s', async (_name, { items, params }, message) => {
		const balance = emu.balance('acme');
		const requests = emu.stats().requests;
		const { error, output } = await h.run(emu, h.submit(params ?? {}), items ?? [{ json: {} }]);
		expect(output).toEqual([]);
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toMatch(message);
		expect(error.message).toMatch(/^Item 0/);
		expect(error.context.itemIndex).toBe(0);
		expect(emu.stats().requests).toBe(requests);
		expect(emu.balance('acme')).toBe(balance);
	});

	test('with Continue on Fail, the bad item carries the error and the good ones are processed', async () => {
		const balance = emu.balance('acme');
		const items = [
			h.pdfItem('fine'),
			h.binaryItem(Buffer.from('garbage!'), 'x.pdf'),
			h.pdfItem('also fine'),
		];
		const { output, error } = await h.run(emu, h.submit(), items, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output.map((o) => o.pairedItem.item)).toEqual([0, 1, 2]);
		expect(output[1].json.error).toMatch(/^Item 1: "x.pdf" is not a file type the service reads/);
		expect(output[0].json.status).toBe('done');
		expect(output[2].json.status).toBe('done');
		expect(balance - emu.balance('acme')).toBe(2);
	});

	test('the limit is on the request body as sent: an 8 MB PDF is refused on the task API (Base64 makes it 10.67 MB), with nothing sent', async () => {
		const requests = emu.stats().requests;
		const balance = emu.balance('acme');
		const { error } = await h.run(emu, h.submit({ waitForCompletion: false }), [
			h.binaryItem(h.documents.makePdfOfSize(8_000_000), 'eight.pdf'),
		]);
		expect(error.message).toMatch(
			/^Item 0: the request to \/api\/ocr would be 10\.67 MB, over the service's 10\.00 MB limit \(the file is 8\.00 MB, sent as Base64\)/,
		);
		expect(error.description).toMatch(/Nothing was sent or charged/);
		expect(error.description).toMatch(/Convert to Markdown/);
		expect(emu.stats().requests).toBe(requests);
		expect(emu.balance('acme')).toBe(balance);
	});

	test('a 7 MB PDF fits both ways: the task API (9.33 MB as Base64) and Convert to Markdown (multipart)', async () => {
		const file = h.documents.makePdfOfSize(7_000_000);
		const submitted = await h.run(emu, h.submit({ waitForCompletion: false }), [
			h.binaryItem(file, 'seven.pdf'),
		]);
		expect(submitted.error).toBeUndefined();
		expect(submitted.output[0].json.taskId).toMatch(/\S/);
		const converted = await h.run(emu, h.doc('markdown'), [h.binaryItem(file, 'seven.pdf')]);
		expect(converted.error).toBeUndefined();
		expect(typeof converted.output[0].json.markdown).toBe('string');
	});
});
