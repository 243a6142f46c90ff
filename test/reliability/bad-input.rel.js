'use strict';
/**
 * Bad-input corpus: malformed inputs across every operation, and malformed answers from the
 * service. Each case must end in a clear NodeOperationError / NodeApiError naming the item (or
 * the documented safe behaviour), never a crash (a plain Error, a TypeError) or a hang; the cases
 * refused before sending must send no request and deduct no page. A table is printed at the end.
 */
const h = require('../helpers');
const report = require('./report');

const emu = h.useEmulator();

const MB10 = 10 * 1024 * 1024;
const HANG_MS = 20_000;

const pdf = h.documents.makePdf(['Corpus document']);
const png = h.documents.makePng('corpus');

const { doc, job } = h;
const base64 = (data, extra = {}) => ({ documentSource: 'base64', base64Data: data, ...extra });
const submit = (overrides) => h.submit({ waitForCompletion: false, ...overrides });
const file = (bytes, name, mime = 'application/pdf') => [h.binaryItem(bytes, name, mime)];
const getMany = (options, extra = {}) =>
	h.task('getMany', { returnAll: false, limit: 5, options, ...extra });

/**
 * [operation, input, parameters, items, expected message, how]
 *  how: 'refused' — refused before sending (no request, no page);
 *       'sent'    — sent (the ID stays one encoded path segment), the service's answer mapped;
 *       'answer'  — a malformed answer from the service (`fault`), mapped to a clear error;
 *       'safe'    — documented safe behaviour, checked by `check(output)`.
 */
// prettier-ignore: one case per line reads as the table it is.
// prettier-ignore
const CASES = [
	// ---- documents, task API (Task → Submit)
	['Task → Submit', 'empty file (0 bytes)', submit(), file(Buffer.alloc(0), 'empty.pdf'), /empty \(0 bytes\)/, 'refused'],
	['Task → Submit', 'truncated PDF (first half)', submit(), file(pdf.subarray(0, pdf.length >> 1), 'half.pdf'), /cut off: a PDF ends with "%%EOF"/, 'refused'],
	['Task → Submit', 'truncated PNG (no IEND)', submit(), file(png.subarray(0, png.length - 20), 'cut.png', 'image/png'), /cut off: a PNG image ends with "IEND"/, 'refused'],
	['Task → Submit', 'file shorter than any header (3 bytes)', submit(), file(Buffer.from('%PD'), 'tiny.pdf'), /not a file type the service reads/, 'refused'],
	['Task → Submit', 'oversized file, 10 MB + 1 byte', submit(), file(h.documents.makePdfOfSize(MB10 + 1), 'big.pdf'), /over the service's 10\.00 MB limit/, 'refused'],
	['Task → Submit', 'oversized Base64, 10 MB + 1 byte decoded', submit(base64(h.documents.makePdfOfSize(MB10 + 1).toString('base64'))), undefined, /over the service's 10\.00 MB limit/, 'refused'],
	['Task → Submit', 'text file behind a .pdf name (wrong magic bytes)', submit(), file(Buffer.from('Dear customer, this is not a PDF.'), 'letter.pdf'), /not a file type the service reads/, 'refused'],
	['Task → Submit', 'PNG bytes behind a .pdf name', submit(), file(png, 'scan.pdf'), /named as a PDF but its content is a PNG image/, 'refused'],
	['Task → Submit', 'ZIP archive behind a .pdf name', submit(), file(Buffer.from('PK\u0003\u0004 zipped'), 'docs.pdf'), /not a file type the service reads/, 'refused'],
	['Task → Submit', 'broken Base64 (characters outside the alphabet)', submit(base64('JVBER$$$i0xLjQ=')), undefined, /Base64 data is malformed/, 'refused'],
	['Task → Submit', 'Base64 of an impossible length', submit(base64('JVBERi0xL')), undefined, /Base64 data is malformed/, 'refused'],
	['Task → Submit', 'Base64 of a text, not a document', submit(base64(Buffer.from('hello world').toString('base64'))), undefined, /not a file type the service reads/, 'refused'],
	['Task → Submit', 'data URI without a comma', submit(base64('data:application/pdf;base64')), undefined, /data URI is malformed/, 'refused'],
	['Task → Submit', 'data URI that is not Base64', submit(base64('data:application/pdf,%PDF-1.4')), undefined, /data URI is not Base64-encoded/, 'refused'],
	['Task → Submit', 'data URI with broken Base64', submit(base64('data:application/pdf;base64,JVB!!ERi0x')), undefined, /Base64 data is malformed/, 'refused'],
	['Task → Submit', 'data URI type contradicting the content', submit(base64(`data:image/png;base64,${pdf.toString('base64')}`)), undefined, /data URI says image\/png but the content is a PDF/, 'refused'],
	['Task → Submit', 'empty Base64 field', submit(base64('   ')), undefined, /no document data/, 'refused'],
	['Task → Submit', 'missing binary property', submit(), [{ json: { a: 1 } }], /has no binary field "data"/, 'refused'],
	['Task → Submit', 'binary property of another name', submit({ binaryPropertyName: 'file' }), file(pdf, 'a.pdf'), /has no binary field "file".*/, 'refused'],
	// ---- the other document endpoints
	['Task → Submit (V2)', 'Base64 without a file name', submit({ operation: 'submitV2', format: 'markdown', ...base64(pdf.toString('base64')) }), undefined, /needs the document's file name/, 'refused'],
	['Document → Extract', 'JSON Schema that is not JSON', doc('extract', { schema: '{"type": "object", properties: }' }), file(pdf, 'a.pdf'), /JSON Schema is not valid JSON/, 'refused'],
	['Document → Extract', 'JSON Schema that is an array', doc('extract', { schema: '[]' }), file(pdf, 'a.pdf'), /not an object schema/, 'refused'],
	['Document → Extract', 'JSON Schema of type string', doc('extract', { schema: '{"type": "string"}' }), file(pdf, 'a.pdf'), /its type is "string", not "object"/, 'refused'],
	['Document → Extract', 'JSON Schema without properties', doc('extract', { schema: '{"type": "object"}' }), file(pdf, 'a.pdf'), /has no "properties"/, 'refused'],
	['Document → Recognize', 'TIFF (not accepted by /v1)', doc('recognize'), file(h.documents.makeTiff('t'), 'scan.tiff', 'image/tiff'), /the \/v1 API accepts PDF, PNG, JPG, WEBP/, 'refused'],
	['Document → Convert to Markdown', 'empty file', doc('markdown'), file(Buffer.alloc(0), 'e.pdf'), /empty \(0 bytes\)/, 'refused'],
	['Job → Create', 'missing binary property', job('create'), [{ json: {} }], /has no binary field "data"/, 'refused'],
	// ---- IDs that go into URL paths
	['Task → Get', 'empty task ID', h.task('get', { taskId: '  ' }), undefined, /task ID is empty/, 'refused'],
	['Task → Get', 'task ID ".."', h.task('get', { taskId: '..' }), undefined, /"\.\." is not a valid task ID/, 'refused'],
	['Task → Delete', 'task ID "."', h.task('delete', { taskId: '.' }), undefined, /"\." is not a valid task ID/, 'refused'],
	['Task → Get', 'task ID of 10 kB', h.task('get', { taskId: 'x'.repeat(10_240) }), undefined, /is not a valid task ID/, 'refused'],
	['Task → Export', 'task ID with a control character', h.task('export', { taskId: 'tsk\u0000_1', format: 'docx', binaryPropertyName: 'data' }), undefined, /is not a valid task ID/, 'refused'],
	['Job → Get', 'job ID ".."', job('get', { jobId: '..' }), undefined, /"\.\." is not a valid job ID/, 'refused'],
	['Task → Get', 'task ID with "/" (path traversal)', h.task('get', { taskId: '../../v1/jobs' }), undefined, /Task "\.\.\/\.\.\/v1\/jobs" was not found/, 'sent', '/api/tasks/..%2F..%2Fv1%2Fjobs'],
	['Task → Delete', 'task ID with "?" and "#"', h.task('delete', { taskId: 'tsk?all=1#x' }), undefined, /Task "tsk\?all=1#x" was not found/, 'sent', '/api/tasks/tsk%3Fall%3D1%23x'],
	['Task → Get', 'task ID in unicode', h.task('get', { taskId: 'tâche-✓-文書' }), undefined, /Task "tâche-✓-文書" was not found/, 'sent', `/api/tasks/${encodeURIComponent('tâche-✓-文書')}`],
	// ---- numbers and choices
	['Task → Get Many', 'Page Size 0', getMany({ pageSize: 0 }), undefined, /"Page Size" must be a whole number from 1 to 1000/, 'refused'],
	['Task → Get Many', 'Page Size negative', getMany({ pageSize: -5 }), undefined, /"Page Size" must be a whole number from 1 to 1000/, 'refused'],
	['Task → Get Many', 'Page Size huge', getMany({ pageSize: 1e9 }), undefined, /"Page Size" must be a whole number from 1 to 1000/, 'refused'],
	['Task → Get Many', 'Page Size not a whole number', getMany({ pageSize: 2.5 }), undefined, /"Page Size" must be a whole number/, 'refused'],
	['Task → Get Many', 'Start Page 0', getMany({ page: 0 }), undefined, /"Start Page" must be a whole number/, 'refused'],
	['Task → Get Many', 'Limit 0', getMany({}, { limit: 0 }), undefined, /"Limit" must be a whole number/, 'refused'],
	['Task → Export', 'unknown export format', h.task('export', { taskId: 'tsk_1', format: 'odt', binaryPropertyName: 'data' }), undefined, /"odt" is not an export format/, 'refused'],
	['Task → Submit', 'Wait Timeout negative', h.submit({ options: { waitTimeout: -1 } }), file(pdf, 'a.pdf'), /Wait Timeout/, 'refused'],
	// ---- malformed answers from the service
	['Task → Get', 'an unknown status value ("needs_review")', h.task('get', { taskId: '@task' }), undefined, null, 'safe', (output) => output[0].json.status === 'needs_review', 'unknownStatus'],
	['Task → Get', 'task wrapped as { data: {...} }', h.task('get', { taskId: '@task' }), undefined, null, 'safe', (output) => output[0].json.taskId !== undefined && output[0].json.data === undefined, 'wrapped'],
	['Task → Get', 'a JSON array instead of a task', h.task('get', { taskId: 'tsk_x' }), undefined, /Unexpected answer from the OCR service/, 'answer', { kind: 'body', body: [1, 2] }],
	['Task → Get', 'plain text on 200', h.task('get', { taskId: 'tsk_x' }), undefined, /Unexpected answer from the OCR service/, 'answer', { kind: 'body', contentType: 'text/plain', body: 'OK' }],
	['Task → Get', 'truncated JSON on 200', h.task('get', { taskId: 'tsk_x' }), undefined, /Unexpected answer from the OCR service/, 'answer', { kind: 'truncatedJson' }],
	['Task → Get Many', 'a list under an unknown key', getMany({}), undefined, /Unexpected answer from the OCR service for the task list/, 'answer', { kind: 'body', body: { entries: [{ taskId: 'a' }] } }],
	['Task → Get Many', 'a list as { results: [...] } / a bare array', getMany({}), undefined, null, 'safe', (output) => output.length === 2 && output[1].json.taskId === 'b', 'listShape'],
	['Task → Submit', 'HTML error page (502 from a proxy)', submit(), file(pdf, 'a.pdf'), /HTTP 502.*a task may have been created/, 'answer', { kind: 'html', status: 502 }],
	['Task → Submit', '200 without a task ID', submit(), file(pdf, 'a.pdf'), /Unexpected answer from the OCR service/, 'answer', { kind: 'body', body: { success: true } }],
	['Task → Delete', 'HTML 500 page on every attempt', h.task('delete', { taskId: 'tsk_x' }), undefined, /HTTP 500/, 'answer', { kind: 'html', status: 500, times: 10 }],
	['Document → Convert to Markdown', 'an error body of an unknown shape', doc('markdown'), file(pdf, 'a.pdf'), /HTTP 400/, 'answer', { kind: 'body', status: 400, body: { problem: { detail: 'odd' } } }],
];

const rows = [];

function withTimeout(promise, ms) {
	let timer;
	return Promise.race([
		promise.finally(() => clearTimeout(timer)),
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`HANG: no result within ${ms} ms`)), ms);
		}),
	]);
}

describe('bad input: a clear error (or a documented safe behaviour), never a crash or a hang', () => {
	afterEach(() => {
		emu.clearFaults();
		emu.options.statuses.processing = 'processing';
		emu.options.shapes.task = 'flat';
	});

	test(`the corpus has at least 30 malformed inputs (${CASES.length})`, () => {
		expect(CASES.length).toBeGreaterThanOrEqual(30);
	});

	test.each(CASES.map((c) => [`${c[0]}: ${c[1]}`, c]))('%s', async (_title, c) => {
		const [operation, input, parameters, items, message, how, extra, variant] = c;
		let params = parameters;
		if (params.taskId === '@task') {
			// A real task, whose answer is then made odd.
			const created = await h.run(emu, submit({ provider: 'provider-async' }), [
				h.pdfItem('STUCK odd answers'),
			]);
			params = { ...params, taskId: created.output[0].json.taskId };
			if (variant === 'unknownStatus') emu.options.statuses.processing = 'needs_review';
			if (variant === 'wrapped') emu.options.shapes.task = 'data';
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		if (how === 'answer') emu.fault({ times: 1, ...extra });
		if (variant === 'listShape')
			emu.fault({ kind: 'body', times: 1, body: { results: [{ taskId: 'a' }, { taskId: 'b' }] } });
		const before = { requests: emu.stats().requests, balance: emu.balance('acme') };
		const started = Date.now();
		const { output, error } = await withTimeout(
			h.run(emu, params, items ?? [{ json: {} }]),
			HANG_MS,
		);
		const requests = emu.stats().requests - before.requests;
		const pages = before.balance - emu.balance('acme');
		rows.push([
			operation,
			input,
			how,
			error
				? String(error.message)
						.replace(/^Item 0: /, '')
						.slice(0, 90)
				: `output: status ${output[0]?.json?.status}`,
			requests,
			pages,
			`${Date.now() - started} ms`,
		]);

		if (how === 'safe') {
			expect(error).toBeUndefined();
			expect(extra(output)).toBe(true);
			return;
		}
		expect(error).toBeDefined();
		expect(['NodeOperationError', 'NodeApiError']).toContain(error.name);
		expect(error.message).toMatch(message);
		expect(error.context?.itemIndex ?? error.itemIndex ?? 0).toBe(0);
		expect(String(error.description ?? '').length + String(error.message).length).toBeGreaterThan(
			30,
		);
		if (how === 'refused') {
			expect(requests).toBe(0);
			expect(pages).toBe(0);
		} else {
			expect(requests).toBeGreaterThan(0);
		}
		if (how === 'sent') expect(emu.stats().lastPath).toBe(extra);
		if (how !== 'answer' || extra.kind !== 'body' || !operation.includes('Submit')) {
			// Nothing else in this corpus may cost a page.
			expect(pages).toBe(0);
		}
	});

	test('with Continue on Fail, a mixed batch keeps every good item and reports every bad one', async () => {
		const items = [
			h.pdfItem('good one', 'one.pdf'),
			h.binaryItem(Buffer.alloc(0), 'empty.pdf'),
			h.binaryItem(png, 'scan.pdf'),
			h.pdfItem('good two', 'two.pdf'),
			{ json: {} },
		];
		const before = emu.balance('acme');
		const { output, error } = await h.run(emu, submit(), items, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output.map((o) => o.pairedItem.item)).toEqual([0, 1, 2, 3, 4]);
		expect(output.map((o) => (o.json.error ? 'error' : 'ok'))).toEqual([
			'ok',
			'error',
			'error',
			'ok',
			'error',
		]);
		expect(before - emu.balance('acme')).toBe(2);
	});

	test('without Continue on Fail, the same mixed batch fails at its first bad item with nothing sent', async () => {
		const items = [
			h.pdfItem('good one', 'one.pdf'),
			h.pdfItem('good two', 'two.pdf'),
			h.binaryItem(png, 'scan.pdf'),
			h.pdfItem('good three', 'three.pdf'),
			h.binaryItem(Buffer.alloc(0), 'empty.pdf'),
		];
		const before = emu.balance('acme');
		const requests = emu.stats().requests;
		const { output, error } = await h.run(emu, submit(), items);
		expect(output).toEqual([]);
		expect(error.context.itemIndex).toBe(2);
		expect(error.message).toMatch(/^Item 2: "scan.pdf" is named as a PDF but its content is a PNG/);
		expect(emu.stats().requests).toBe(requests);
		expect(emu.balance('acme')).toBe(before);
		rows.push([
			'Task → Submit ×5',
			'a bad item (2 of 5) in a batch, Continue on Fail off',
			'refused',
			error.message.slice(0, 60),
			emu.stats().requests - requests,
			before - emu.balance('acme'),
			'—',
		]);
	});

	afterAll(() => {
		const refused = rows.filter((r) => r[2] === 'refused');
		report.table(
			`Bad-input corpus — ${rows.length} cases (${refused.length} refused before sending: ${refused.reduce((a, r) => a + r[4], 0)} requests, ${refused.reduce((a, r) => a + r[5], 0)} pages)`,
			['operation', 'input', 'handling', 'message / outcome', 'requests', 'pages', 'time'],
			rows,
		);
	});
});
