'use strict';
/* Tests of the local OCR service emulator (emulator/) and its document builders (emulator/documents.js). */
const http = require('node:http');
const crypto = require('node:crypto');
const zlib = require('node:zlib');
const { request, Agent } = require('undici');
const docs = require('../emulator/documents.js');
const { startEmulator, KEYS, DEFAULT_KEYS, readZip, signPayload } = require('../emulator/index.js');

jest.setTimeout(15000);

const agent = new Agent({ keepAliveTimeout: 100, keepAliveMaxTimeout: 100 });
let emu;

async function call(method, path, { key = KEYS.full, json, body, headers = {}, base } = {}) {
	const h = { ...headers };
	if (key) h.authorization = `Bearer ${key}`;
	let payload = body;
	if (json !== undefined) {
		payload = JSON.stringify(json);
		if (!h['content-type']) h['content-type'] = 'application/json';
	}
	const res = await request((base || emu.url) + path, {
		method,
		headers: h,
		body: payload,
		dispatcher: agent,
	});
	const buf = Buffer.from(await res.body.arrayBuffer());
	let parsed;
	try {
		parsed = JSON.parse(buf.toString('utf8'));
	} catch {
		parsed = undefined;
	}
	return {
		status: res.statusCode,
		headers: res.headers,
		buf,
		text: buf.toString('utf8'),
		json: parsed,
	};
}

const submit = (doc, extra = {}, key = KEYS.full) =>
	call('POST', '/api/ocr', { key, json: { imageBase64: doc.toString('base64'), ...extra } });

async function multipart(path, parts, { key = KEYS.full, base } = {}) {
	const fd = new FormData();
	for (const [name, v] of Object.entries(parts)) {
		if (v && v.data) fd.append(name, new Blob([v.data]), v.filename || 'upload.bin');
		else fd.append(name, v);
	}
	const r = new Response(fd);
	const body = Buffer.from(await r.arrayBuffer());
	return call('POST', path, {
		key,
		body,
		base,
		headers: { 'content-type': r.headers.get('content-type') },
	});
}

async function pollTask(id, pred, { key = KEYS.full, timeoutMs = 4000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const r = await call('GET', `/api/tasks/${id}`, { key });
		if (pred(r.json, r)) return r;
		if (Date.now() > deadline) throw new Error(`poll timeout for ${id}: ${r.text}`);
		await new Promise((res) => setTimeout(res, 10));
	}
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const invoicePdf = () => docs.makePdf([docs.INVOICE_TEXT, 'Thank you for your business']);

beforeAll(async () => {
	emu = await startEmulator({
		msPerPage: 10,
		syncMsPerPage: 2,
		workers: 2,
		webhookRetryDelayMs: 20,
	});
});

afterAll(async () => {
	await emu.close();
	await agent.close();
});

beforeEach(() => {
	emu.reset();
	// Most tests here exercise everything the emulator can send; 'spec profile' below checks the
	// default, which sends only what the reference shows.
	emu.options.fields = 'rich';
	emu.options.completionOrder = 'fifo';
	emu.options.shapes = {
		error: 'flat',
		list: 'items',
		task: 'flat',
		submit: 'withPages',
		v1Error: null,
	};
	emu.resumeQueue();
});

// ---------------------------------------------------------------------------- fixtures
describe('fixtures', () => {
	test('PDF round trip, page count and structure', () => {
		const pdf = docs.makePdf(['Hello (world) \\ x\nline 2', 'Seite zwei: äöü €']);
		const s = pdf.toString('latin1');
		expect(s.startsWith('%PDF-1.4')).toBe(true);
		expect(s.trimEnd().endsWith('%%EOF')).toBe(true);
		expect(docs.countPages(pdf)).toBe(2);
		expect(docs.extractPages(pdf)).toEqual(['Hello (world) \\ x\nline 2', 'Seite zwei: äöü €']);
		expect(docs.extractText(pdf)).toBe('Hello (world) \\ x\nline 2\n\f\nSeite zwei: äöü €');
		// xref offsets point at the objects
		const xref = Number(/startxref\n(\d+)/.exec(s)[1]);
		expect(s.slice(xref, xref + 4)).toBe('xref');
		const offsets = [...s.slice(xref).matchAll(/(\d{10}) 00000 n/g)].map((m) => Number(m[1]));
		offsets.forEach((o, i) => expect(s.slice(o).startsWith(`${i + 1} 0 obj`)).toBe(true));
	});

	test('images carry the text and the right magic bytes', () => {
		const png = docs.makePng('png text');
		expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
		// every PNG chunk CRC is right
		let off = 8;
		while (off < png.length) {
			const len = png.readUInt32BE(off);
			const crc = png.readUInt32BE(off + 8 + len);
			expect(docs.crc32(png.subarray(off + 4, off + 8 + len))).toBe(crc);
			off += 12 + len;
		}
		const idat = png.indexOf('IDAT');
		expect(zlib.inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)))).toEqual(
			Buffer.from([0, 0xff]),
		);
		const jpg = docs.makeJpeg('jpeg text');
		expect(jpg.subarray(0, 3).toString('hex')).toBe('ffd8ff');
		expect(jpg.subarray(-2).toString('hex')).toBe('ffd9');
		const webp = docs.makeWebp('webp text');
		expect(webp.toString('latin1', 0, 4)).toBe('RIFF');
		expect(webp.readUInt32LE(4)).toBe(webp.length - 8);
		expect(webp.toString('latin1', 8, 16)).toBe('WEBPVP8L');
		for (const [b, t, txt] of [
			[png, 'png', 'png text'],
			[jpg, 'jpeg', 'jpeg text'],
			[webp, 'webp', 'webp text'],
			[docs.makeTiff('tiff text'), 'tiff', 'tiff text'],
			[docs.makeGif('gif text'), 'gif', 'gif text'],
		]) {
			expect(docs.detectType(b)).toBe(t);
			expect(docs.extractText(b)).toBe(txt);
			expect(docs.countPages(b)).toBe(1);
		}
		expect(docs.makeTiff().subarray(0, 4).toString('latin1')).toBe('II*\0');
		expect(docs.makeGif().subarray(0, 6).toString('latin1')).toBe('GIF89a');
		expect(docs.detectType(Buffer.from('hello'))).toBeNull();
	});
});

// ---------------------------------------------------------------------------- auth and errors
describe('authentication and error shapes', () => {
	test('auth is checked in order: missing, invalid, banned, scope — before validation', async () => {
		let r = await call('POST', '/api/ocr', {
			key: null,
			body: 'not json',
			headers: { 'content-type': 'application/json' },
		});
		expect([r.status, r.json.error]).toEqual([401, 'missing_api_key']);
		r = await call('POST', '/api/ocr', {
			key: null,
			headers: { authorization: 'Basic abc' },
			json: {},
		});
		expect([r.status, r.json.error]).toEqual([401, 'missing_api_key']);
		r = await call('POST', '/api/ocr', { key: 'ocr_nope', body: 'not json' });
		expect([r.status, r.json.error]).toEqual([401, 'invalid_api_key']);
		r = await call('GET', '/api/tasks', { key: KEYS.banned });
		expect([r.status, r.json.error]).toEqual([403, 'user_banned']);
		r = await call('GET', '/api/tasks', { key: KEYS.submitOnly });
		expect([r.status, r.json.error]).toEqual([403, 'insufficient_scope']);
		expect(r.json.message).toContain('read');
		r = await call('DELETE', '/api/tasks/tsk_x', { key: KEYS.readAlias });
		expect([r.status, r.json.error]).toEqual([403, 'insufficient_scope']);
		expect(r.json.message).toContain('export');
		// 'ocr:read' counts as 'read'
		r = await call('GET', '/api/tasks', { key: KEYS.readAlias });
		expect(r.status).toBe(200);
		// submit is always included
		emu.addKey('ocr_custom', { user: 'alice', scopes: [] });
		r = await submit(docs.makePng('x'), {}, 'ocr_custom');
		expect(r.status).toBe(200);
		expect(DEFAULT_KEYS.ocr_test_full.user).toBe('alice');
		expect(emu.keys.ocr_custom.scopes).toEqual(['submit']);
	});

	test('every error shape', async () => {
		const expectations = {
			flat: (r) =>
				expect(r.json).toEqual({ error: 'invalid_api_key', message: expect.any(String) }),
			nested: (r) =>
				expect(r.json).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } }),
			code: (r) => expect(r.json).toEqual({ code: 'invalid_api_key', message: expect.any(String) }),
			text: (r) => {
				expect(r.headers['content-type']).toMatch(/^text\/plain/);
				expect(r.text).toMatch(/^invalid_api_key: /);
			},
		};
		for (const [shape, check] of Object.entries(expectations)) {
			emu.options.shapes.error = shape;
			const r = await call('GET', '/api/tasks', { key: 'bad' });
			expect(r.status).toBe(401);
			check(r);
		}
	});

	test('submission validation errors, nothing charged', async () => {
		const png = docs.makePng('x').toString('base64');
		const cases = [
			[{ body: '{oops', headers: { 'content-type': 'application/json' } }, 400, 'bad_request'],
			[{ json: {} }, 400, 'bad_request'],
			[{ json: { imageBase64: '!!!not base64!!!' } }, 400, 'bad_request'],
			[{ json: { imageBase64: 'data:image/png;base64' } }, 400, 'bad_request'],
			[{ json: { imageBase64: '====' } }, 400, 'bad_request'],
			[{ json: { imageBase64: png, provider: 'provider-x' } }, 400, 'bad_request'],
			[{ json: { imageBase64: png, documentType: 'receipt' } }, 400, 'bad_request'],
			[
				{ json: { imageBase64: Buffer.from('just text').toString('base64') } },
				415,
				'unsupported_media_type',
			],
			[
				{ body: JSON.stringify({ imageBase64: png }), headers: { 'content-type': 'text/plain' } },
				415,
				'unsupported_media_type',
			],
		];
		for (const [opts, status, code] of cases) {
			const r = await call('POST', '/api/ocr', opts);
			expect([r.status, r.json && r.json.error]).toEqual([status, code]);
		}
		// 413: body over the body limit (a 10 MB document as Base64, plus room for the other fields)
		const big = 'A'.repeat(emu.options.maxBodyBytes + 10);
		let r = await call('POST', '/api/ocr', { json: { imageBase64: big } });
		expect([r.status, r.json.error]).toEqual([413, 'payload_too_large']);
		// 413: decoded file over the (lowered) file limit
		emu.options.maxFileBytes = 100;
		r = await submit(docs.makePdf(['x'.repeat(200)]));
		expect([r.status, r.json.error]).toEqual([413, 'payload_too_large']);
		emu.options.maxFileBytes = 10 * 1024 * 1024;
		// data URI and tiff/gif are fine on /api
		r = await call('POST', '/api/ocr', { json: { imageBase64: `data:image/png;base64,${png}` } });
		expect(r.status).toBe(200);
		expect((await submit(docs.makeTiff('t'))).status).toBe(200);
		expect((await submit(docs.makeGif('g'))).status).toBe(200);
		expect(emu.ledger().map((e) => e.reason)).toEqual(['submit', 'submit', 'submit']);
		// unknown route (authenticated), wrong method
		r = await call('GET', '/api/nothing');
		expect([r.status, r.json.error]).toEqual([404, 'not_found']);
		r = await call('PUT', '/api/ocr');
		expect(r.status).toBe(405);
	});
});

// ---------------------------------------------------------------------------- task lifecycle
describe('tasks', () => {
	test('submit -> queued -> processing -> done with resultText and invoice metadata', async () => {
		emu.pauseQueue();
		const r = await submit(invoicePdf(), { filename: 'invoice-42.pdf', documentType: 'invoice' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			success: true,
			taskId: expect.stringMatching(/^tsk_/),
			provider: 'provider-async',
			pages: 2,
			pagesBilled: 2,
		});
		const id = r.json.taskId;
		let t = await call('GET', `/api/tasks/${id}`);
		expect(t.json).toMatchObject({
			taskId: id,
			status: 'queued',
			provider: 'provider-async',
			documentType: 'invoice',
			filename: 'invoice-42.pdf',
			pages: 2,
			metadata: {},
		});
		expect(t.json.resultText).toBeUndefined();
		emu.options.msPerPage = 100; // read live: a 200 ms processing window for the poll to see
		try {
			emu.resumeQueue();
			t = await pollTask(id, (j) => j.status !== 'queued');
			expect(t.json.status).toBe('processing');
			t = await pollTask(id, (j) => j.status === 'done');
		} finally {
			emu.options.msPerPage = 10;
		}
		expect(t.json.resultText).toBe(`${docs.INVOICE_TEXT}\n\f\nThank you for your business`);
		expect(t.json.metadata.invoice).toEqual(docs.INVOICE_FIELDS);
		expect(t.json.words).toBeUndefined();
		expect(Date.parse(t.json.createdAt)).toBeLessThanOrEqual(Date.parse(t.json.updatedAt));
		expect(emu.stats().polls[id]).toBeGreaterThanOrEqual(3);
	});

	test('provider-sync is done on response and has words; spec submit shape', async () => {
		emu.options.shapes.submit = 'spec';
		const r = await submit(docs.makeJpeg('Hello big world'), { provider: 'provider-sync' });
		expect(r.json).toEqual({
			success: true,
			taskId: expect.any(String),
			provider: 'provider-sync',
		});
		const t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect(t.json.status).toBe('done');
		expect(t.json.resultText).toBe('Hello big world');
		expect(t.json.words.map((w) => w.text)).toEqual(['Hello', 'big', 'world']);
		expect(t.json.words[0]).toEqual({
			text: 'Hello',
			page: 1,
			confidence: expect.any(Number),
			bbox: { x: 72, y: 72, width: 35, height: 12 },
		});
	});

	test('FAIL text, failNextTasks and STUCK; renamed statuses', async () => {
		let r = await submit(docs.makePng('this scan will FAIL'));
		let t = await pollTask(r.json.taskId, (j) => j.status === 'failed');
		expect(t.json.error).toBe('Could not recognise the document (unreadable scan)');
		expect(t.json.resultText).toBeUndefined();
		emu.failNextTasks(1);
		r = await submit(docs.makePng('fine'));
		await pollTask(r.json.taskId, (j) => j.status === 'failed');
		r = await submit(docs.makePng('fine again'));
		const fineId = r.json.taskId;
		await pollTask(fineId, (j) => j.status === 'done');
		r = await submit(docs.makePng('STUCK forever'));
		await pollTask(r.json.taskId, (j) => j.status === 'processing');
		await sleep(60);
		t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect(t.json.status).toBe('processing');
		expect(emu.stats()).toMatchObject({ tasksDone: 1, tasksFailed: 2 });

		emu.options.statuses = {
			queued: 'pending',
			processing: 'running',
			done: 'completed',
			failed: 'ocr_failed',
		};
		try {
			r = await submit(docs.makePng('FAIL'));
			await pollTask(r.json.taskId, (j) => j.status === 'ocr_failed');
			r = await submit(docs.makePng('ok'));
			await pollTask(r.json.taskId, (j) => j.status === 'completed');
			const l = await call('GET', '/api/tasks?status=completed');
			expect(l.json.items.map((i) => i.taskId)).toEqual([r.json.taskId, fineId]);
		} finally {
			emu.options.statuses = {
				queued: 'queued',
				processing: 'processing',
				done: 'done',
				failed: 'failed',
			};
		}
	});

	test('pollRetryAfterSeconds adds Retry-After to non-final polls', async () => {
		emu.options.pollRetryAfterSeconds = 2;
		try {
			emu.pauseQueue();
			const r = await submit(docs.makePng('x'));
			let t = await call('GET', `/api/tasks/${r.json.taskId}`);
			expect(t.headers['retry-after']).toBe('2');
			emu.resumeQueue();
			t = await pollTask(r.json.taskId, (j) => j.status === 'done');
			expect(t.headers['retry-after']).toBeUndefined();
		} finally {
			emu.options.pollRetryAfterSeconds = 0;
		}
	});
});

// ---------------------------------------------------------------------------- billing
describe('billing and ledger', () => {
	test('deducts before processing, member shares balance, 402 when broke', async () => {
		const r = await submit(invoicePdf(), { filename: 'a.pdf' });
		expect(emu.balance('acme')).toBe(998);
		expect(emu.ledger('acme')).toEqual([
			expect.objectContaining({
				seq: 1,
				account: 'acme',
				user: 'alice',
				delta: -2,
				reason: 'submit',
				taskId: r.json.taskId,
				endpoint: 'POST /api/ocr',
				at: expect.any(String),
			}),
		]);
		const m = await submit(docs.makePng('member doc'), {}, KEYS.member);
		expect(m.status).toBe(200);
		expect(emu.balance('acme')).toBe(997);
		expect(emu.ledger('acme')[1]).toMatchObject({ user: 'carol', account: 'acme', delta: -1 });
		// carol sees alice's task (same account); bob does not
		expect((await call('GET', `/api/tasks/${r.json.taskId}`, { key: KEYS.member })).status).toBe(
			200,
		);
		expect((await call('GET', `/api/tasks/${r.json.taskId}`, { key: KEYS.broke })).status).toBe(
			404,
		);
		const b = await submit(docs.makePng('x'), {}, KEYS.broke);
		expect([b.status, b.json.error]).toEqual([402, 'insufficient_pages']);
		expect(emu.ledger('broke')).toEqual([]);
		emu.setBalance('acme', 1);
		const two = await submit(invoicePdf());
		expect([two.status, two.json.error]).toEqual([402, 'insufficient_pages']);
		expect(emu.balance('acme')).toBe(1);
		expect(emu.charges()).toBe(2);
		expect(emu.pagesCharged('acme')).toBe(3);
	});

	test('failCreation refunds and answers 500', async () => {
		emu.fault({ kind: 'failCreation', path: '/api/ocr' });
		const r = await submit(invoicePdf());
		expect([r.status, r.json.error]).toEqual([500, 'internal_error']);
		expect(emu.ledger().map((e) => [e.reason, e.delta])).toEqual([
			['submit', -2],
			['refund', 2],
		]);
		expect(emu.ledger()[0].taskId).toBe(emu.ledger()[1].taskId);
		expect(emu.balance('acme')).toBe(1000);
		expect(emu.tasks).toHaveLength(0);
		expect(emu.charges()).toBe(0);
		expect((await submit(invoicePdf())).status).toBe(200); // fault consumed
	});
});

// ---------------------------------------------------------------------------- list, get, delete, export
describe('list, delete, export', () => {
	test('list shapes, paging, clamping and validation', async () => {
		const ids = [];
		for (let i = 0; i < 5; i++)
			ids.push((await submit(docs.makePng(`doc ${i}`), { filename: `d${i}.png` })).json.taskId);
		await submit(docs.makePng('carol'), {}, KEYS.member);
		let r = await call('GET', '/api/tasks?page=2&pageSize=2');
		expect(r.json).toMatchObject({ page: 2, pageSize: 2, total: 6 });
		expect(r.json.items.map((t) => t.taskId)).toEqual([ids[3], ids[2]]);
		await pollTask(ids[4], (j) => j.status === 'done');
		r = await call('GET', '/api/tasks?pageSize=500');
		expect(r.json.pageSize).toBe(20);
		expect(r.json.items[0].resultText).toBeUndefined();
		for (const q of ['page=0', 'pageSize=0', 'page=abc', 'pageSize=1.5', 'page=-1']) {
			r = await call('GET', `/api/tasks?${q}`);
			expect([q, r.status, r.json.error]).toEqual([q, 400, 'bad_request']);
		}
		r = await call('GET', '/api/tasks', { key: KEYS.broke });
		expect(r.json.total).toBe(0);
		emu.options.shapes.list = 'data';
		r = await call('GET', '/api/tasks?pageSize=4');
		expect(r.json.pagination).toEqual({ page: 1, pageSize: 4, total: 6, totalPages: 2 });
		expect(r.json.data).toHaveLength(4);
		emu.options.shapes.list = 'tasks';
		r = await call('GET', '/api/tasks');
		expect(Object.keys(r.json).sort()).toEqual(['tasks', 'total']);
		emu.options.shapes.list = 'array';
		r = await call('GET', '/api/tasks?pageSize=3');
		expect(Array.isArray(r.json) && r.json.length).toBe(3);
		emu.options.shapes.task = 'data';
		expect((await call('GET', `/api/tasks/${ids[0]}`)).json.data.taskId).toBe(ids[0]);
		emu.options.shapes.task = 'task';
		expect((await call('GET', `/api/tasks/${ids[0]}`)).json).toMatchObject({
			success: true,
			task: { taskId: ids[0] },
		});
		// path traversal never resolves
		r = await call('GET', `/api/tasks/..%2F${ids[0]}`);
		expect(r.status).toBe(404);
		r = await call('GET', `/api/tasks/%74sk_nothing`);
		expect(r.status).toBe(404);
	});

	test('exports: 409 before done, real docx/xlsx/pdf, invalid format, delete', async () => {
		emu.pauseQueue();
		const r = await submit(invoicePdf(), {
			filename: 'scans/invoice-42.pdf',
			documentType: 'invoice',
		});
		const id = r.json.taskId;
		let e = await call('GET', `/api/export/${id}/docx`);
		expect([e.status, e.json.error]).toEqual([409, 'task_not_ready']);
		expect(e.json.message).toContain('queued');
		emu.resumeQueue();
		await pollTask(id, (j) => j.status === 'done');
		e = await call('GET', `/api/export/${id}/docx`);
		expect(e.status).toBe(200);
		expect(e.headers['content-type']).toBe(
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		);
		expect(e.headers['content-disposition']).toBe('attachment; filename="invoice-42.docx"');
		expect(e.buf.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
		const docx = readZip(e.buf);
		expect([...docx.keys()]).toEqual(
			expect.arrayContaining(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']),
		);
		expect(docx.get('word/document.xml').toString()).toContain('INV-2026-0042');
		e = await call('GET', `/api/export/${id}/xlsx`);
		expect(e.headers['content-type']).toBe(
			'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		);
		const xlsx = readZip(e.buf);
		expect([...xlsx.keys()]).toEqual(
			expect.arrayContaining([
				'xl/workbook.xml',
				'xl/_rels/workbook.xml.rels',
				'xl/worksheets/sheet1.xml',
			]),
		);
		expect(xlsx.get('xl/worksheets/sheet1.xml').toString()).toMatch(/invoiceNumber.*INV-2026-0042/);
		e = await call('GET', `/api/export/${id}/pdf`);
		expect(e.headers['content-type']).toBe('application/pdf');
		expect(e.buf.subarray(0, 4).toString()).toBe('%PDF');
		expect(docs.extractPages(e.buf)[0]).toBe(docs.INVOICE_TEXT);
		e = await call('GET', `/api/export/${id}/txt`);
		expect([e.status, e.json.error]).toEqual([400, 'invalid_format']);
		e = await call('GET', '/api/export/tsk_missing/pdf');
		expect(e.status).toBe(404);
		// delete
		let d = await call('DELETE', `/api/tasks/${id}`);
		expect([d.status, d.json]).toEqual([200, { success: true, taskId: id }]);
		expect((await call('GET', `/api/tasks/${id}`)).status).toBe(404);
		expect((await call('GET', `/api/export/${id}/pdf`)).status).toBe(404);
		d = await call('DELETE', `/api/tasks/${id}`);
		expect([d.status, d.json.error]).toEqual([404, 'not_found']);
	});

	test('openapi.json needs no auth and carries 1.1.0', async () => {
		const r = await call('GET', '/api/openapi.json', { key: null });
		expect(r.status).toBe(200);
		expect(r.json.info.version).toBe('1.1.0');
		expect(Object.keys(r.json.paths)).toEqual(
			expect.arrayContaining([
				'/api/ocr',
				'/api/tasks',
				'/api/tasks/{taskId}',
				'/api/export/{taskId}/{format}',
			]),
		);
	});
});

// ---------------------------------------------------------------------------- v2
describe('/api/v2/ocr', () => {
	test('response fields, markdown result, filename required', async () => {
		const r = await call('POST', '/api/v2/ocr', {
			json: {
				imageBase64: invoicePdf().toString('base64'),
				filename: 'inv.pdf',
				options: { format: 'markdown', highFidelityTables: true, formulas: false },
			},
		});
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			taskId: expect.stringMatching(/^tsk_/),
			status: 'queued',
			estimatedSeconds: expect.any(Number),
			pages: 2,
			creditsUsed: 2,
		});
		const t = await pollTask(r.json.taskId, (j) => j.status === 'done');
		expect(t.json.resultText.startsWith('# ACME GmbH\n\nInvoice Number: INV-2026-0042')).toBe(true);
		expect(emu.ledger()[0]).toMatchObject({ delta: -2, endpoint: 'POST /api/v2/ocr' });
		let bad = await call('POST', '/api/v2/ocr', {
			json: { imageBase64: docs.makePng('x').toString('base64') },
		});
		expect([bad.status, bad.json.error]).toEqual([400, 'bad_request']);
		bad = await call('POST', '/api/v2/ocr', {
			json: {
				imageBase64: docs.makePng('x').toString('base64'),
				filename: 'x.png',
				options: { formulas: 'yes' },
			},
		});
		expect(bad.status).toBe(400);
	});
});

// ---------------------------------------------------------------------------- v1
describe('/v1', () => {
	test('markdown, ocr, extract', async () => {
		let r = await multipart('/v1/markdown', { file: { data: invoicePdf(), filename: 'inv.pdf' } });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			id: expect.stringMatching(/^doc_/),
			pages: 2,
			markdown: expect.stringMatching(/^# ACME GmbH\n\n/),
		});
		r = await multipart('/v1/ocr', {
			file: { data: docs.makeWebp('line one\nline two'), filename: 'a.webp' },
		});
		expect(r.json).toMatchObject({ pages: 1, text: 'line one\nline two' });
		expect(r.json.blocks).toEqual([
			{ page: 1, type: 'line', text: 'line one', bbox: { x: 72, y: 72, width: 56, height: 12 } },
			{ page: 1, type: 'line', text: 'line two', bbox: { x: 72, y: 86, width: 56, height: 12 } },
		]);
		const schema = {
			type: 'object',
			properties: {
				invoice_number: { type: 'string' },
				Total: { type: 'number' },
				currency: { type: 'string' },
				'due-date': { type: 'string' },
				vendor: { type: 'string' },
				purchaseOrder: { type: 'string' },
			},
		};
		r = await multipart('/v1/extract', {
			file: { data: docs.makePng(docs.INVOICE_TEXT), filename: 'i.png' },
			schema: JSON.stringify(schema),
		});
		expect(r.json).toEqual({
			id: expect.any(String),
			pages: 1,
			data: {
				invoice_number: 'INV-2026-0042',
				Total: 1234.56,
				currency: 'EUR',
				'due-date': '2026-12-01',
				vendor: 'ACME GmbH',
				purchaseOrder: null,
			},
		});
		expect(emu.ledger().map((e) => e.endpoint)).toEqual([
			'POST /v1/markdown',
			'POST /v1/ocr',
			'POST /v1/extract',
		]);
	});

	test('v1 errors: 415 for tiff/gif/non-multipart, invalid_schema, v1Error shape', async () => {
		let r = await multipart('/v1/ocr', { file: { data: docs.makeTiff('t'), filename: 't.tiff' } });
		expect([r.status, r.json.error]).toEqual([415, 'unsupported_media_type']);
		r = await multipart('/v1/markdown', { file: { data: docs.makeGif('g'), filename: 'g.gif' } });
		expect(r.status).toBe(415);
		r = await call('POST', '/v1/ocr', { json: { file: 'x' } });
		expect(r.status).toBe(415);
		r = await multipart('/v1/ocr', { other: 'x' });
		expect([r.status, r.json.error]).toEqual([400, 'bad_request']);
		const file = { data: docs.makePng(docs.INVOICE_TEXT), filename: 'i.png' };
		for (const schema of [
			undefined,
			'{not json',
			JSON.stringify({ type: 'object' }),
			JSON.stringify([1]),
		]) {
			r = await multipart('/v1/extract', schema === undefined ? { file } : { file, schema });
			expect([r.status, r.json.error]).toEqual([400, 'invalid_schema']);
		}
		expect(emu.ledger()).toEqual([]);
		emu.options.shapes.v1Error = 'nested';
		r = await multipart('/v1/ocr', { file: { data: docs.makeTiff('t'), filename: 't.tiff' } });
		expect(r.json.error.code).toBe('unsupported_media_type');
		expect((await call('GET', '/api/tasks', { key: 'bad' })).json.error).toBe('invalid_api_key'); // /api keeps 'flat'
		r = await call('POST', '/v1/ocr', { key: null });
		expect(r.json.error.code).toBe('missing_api_key');
	});

	test('jobs: queued -> done with result and echoed fields; failed; 404', async () => {
		let r = await multipart('/v1/jobs', {
			file: { data: docs.makePdf(['Job page']), filename: 'job.pdf' },
			priority: 'high',
			callbackRef: 'abc',
		});
		expect(r.json).toEqual({ id: expect.stringMatching(/^job_/), status: 'queued' });
		const id = r.json.id;
		const deadline = Date.now() + 3000;
		let j;
		do {
			j = await call('GET', `/v1/jobs/${id}`);
			if (j.json.status === 'done') break;
			await sleep(10);
		} while (Date.now() < deadline);
		expect(j.json).toMatchObject({
			id,
			status: 'done',
			createdAt: expect.any(String),
			fields: { priority: 'high', callbackRef: 'abc' },
		});
		expect(j.json.result).toEqual({ text: 'Job page', markdown: '# Job page\n', pages: 1 });
		r = await multipart('/v1/jobs', { file: { data: docs.makePng('FAIL'), filename: 'f.png' } });
		await emu.waitForTask(r.json.id);
		j = await call('GET', `/v1/jobs/${r.json.id}`);
		expect(j.json).toMatchObject({ status: 'failed', error: expect.any(String) });
		expect(j.json.result).toBeUndefined();
		j = await call('GET', '/v1/jobs/job_nope');
		expect([j.status, j.json.error]).toEqual([404, 'not_found']);
		// jobs are not /api tasks
		expect((await call('GET', `/api/tasks/${id}`)).status).toBe(404);
	});

	test('separateApiServer serves /v1 on its own listener', async () => {
		const e2 = await startEmulator({ separateApiServer: true, msPerPage: 5 });
		try {
			expect(e2.apiUrl).not.toBe(e2.url);
			let r = await multipart(
				'/v1/markdown',
				{ file: { data: docs.makePng('sep'), filename: 's.png' } },
				{ base: e2.apiUrl },
			);
			expect(r.json.markdown).toBe('# sep\n');
			r = await multipart(
				'/v1/markdown',
				{ file: { data: docs.makePng('sep'), filename: 's.png' } },
				{ base: e2.url },
			);
			expect(r.status).toBe(404);
			r = await call('GET', '/api/tasks', { base: e2.apiUrl });
			expect(r.status).toBe(404);
			r = await call('GET', '/api/tasks', { base: e2.url });
			expect(r.status).toBe(200);
		} finally {
			await e2.close();
		}
	});
});

// ---------------------------------------------------------------------------- faults
describe('faults', () => {
	test('status, rateLimit, quota, html, truncatedJson', async () => {
		emu.fault({ kind: 'status', path: '/api/tasks' });
		let r = await call('GET', '/api/tasks');
		expect([r.status, r.json.error]).toEqual([503, 'service_unavailable']);
		expect((await call('GET', '/api/tasks')).status).toBe(200);
		emu.fault({ kind: 'rateLimit', method: 'POST', retryAfter: 0.2 });
		expect((await call('GET', '/api/tasks')).status).toBe(200); // method filter
		r = await submit(docs.makePng('x'));
		expect([r.status, r.json.error, r.headers['retry-after']]).toEqual([
			429,
			'rate_limited',
			'0.2',
		]);
		emu.fault({ kind: 'quota' });
		r = await call('GET', '/api/tasks');
		expect([r.status, r.json.error, r.headers['retry-after']]).toEqual([
			429,
			'daily_quota_exceeded',
			undefined,
		]);
		emu.fault({ kind: 'html' });
		r = await call('GET', '/api/tasks');
		expect(r.status).toBe(502);
		expect(r.headers['content-type']).toMatch(/^text\/html/);
		expect(r.text).toContain('502 Bad Gateway');
		emu.fault({ kind: 'truncatedJson', path: /^\/api\/ocr$/ });
		r = await submit(docs.makePng('x'));
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toBe('application/json');
		expect(r.json).toBeUndefined();
		expect(r.text).toBe('{"taskId": "tsk_');
		expect(emu.ledger()).toEqual([]); // faults answer without doing anything
		emu.fault({ kind: 'status', status: 500, times: 2 });
		expect((await call('GET', '/api/tasks')).json.error).toBe('internal_error');
		expect((await call('GET', '/api/tasks')).status).toBe(500);
		expect((await call('GET', '/api/tasks')).status).toBe(200);
	});

	test('reset gives a socket error and creates nothing', async () => {
		emu.fault({ kind: 'reset', path: '/api/ocr' });
		await expect(submit(docs.makePng('x'))).rejects.toThrow();
		expect(emu.tasks).toHaveLength(0);
		expect(emu.ledger()).toHaveLength(0);
		expect((await submit(docs.makePng('x'))).status).toBe(200);
	});

	test('lostResponse creates and charges exactly once', async () => {
		emu.fault({ kind: 'lostResponse', path: '/api/ocr' });
		await expect(submit(invoicePdf())).rejects.toThrow();
		expect(emu.tasks).toHaveLength(1);
		expect(emu.charges()).toBe(1);
		expect(emu.balance('acme')).toBe(998);
		expect(emu.stats().lostResponses).toBe(1);
	});

	test('latency, every, probability (seeded), admin-style regex', async () => {
		emu.fault({ kind: 'latency', ms: 120, path: '/api/tasks' });
		const t0 = Date.now();
		expect((await call('GET', '/api/tasks')).status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
		emu.fault({ kind: 'status', status: 503, every: 2, path: '/api/tasks' });
		const seen = [];
		for (let i = 0; i < 4; i++) seen.push((await call('GET', '/api/tasks')).status);
		expect(seen).toEqual([200, 503, 200, 503]);
		emu.clearFaults();
		emu.fault({ kind: 'status', probability: 0.5, path: '/api/tasks' });
		const a = [];
		for (let i = 0; i < 20; i++) a.push((await call('GET', '/api/tasks')).status);
		emu.reset(); // reseeds the PRNG
		emu.fault({ kind: 'status', probability: 0.5, path: '/api/tasks' });
		const b = [];
		for (let i = 0; i < 20; i++) b.push((await call('GET', '/api/tasks')).status);
		expect(a).toEqual(b);
		expect(a).toContain(503);
		expect(a).toContain(200);
	});

	test('standing rate limit option', async () => {
		const e2 = await startEmulator({ rateLimit: { perSecond: 2 } });
		try {
			const statuses = [];
			let retryAfter;
			for (let i = 0; i < 4; i++) {
				const r = await call('GET', '/api/tasks', { base: e2.url });
				statuses.push(r.status);
				if (r.status === 429) retryAfter = r.headers['retry-after'];
			}
			expect(statuses.slice(0, 2)).toEqual([200, 200]);
			expect(statuses).toContain(429);
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
		} finally {
			await e2.close();
		}
	});
});

// ---------------------------------------------------------------------------- webhooks
describe('webhooks', () => {
	let receiver;
	let received;
	let failFirst;
	let hookUrl;

	beforeAll(async () => {
		receiver = http.createServer((req, res) => {
			const chunks = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
				if (failFirst > 0) {
					failFirst--;
					res.writeHead(500).end('nope');
				} else res.writeHead(200).end('ok');
			});
		});
		await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
		hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;
	});

	afterAll(async () => {
		receiver.closeAllConnections();
		await new Promise((r) => receiver.close(r));
	});

	beforeEach(() => {
		received = [];
		failFirst = 0;
	});

	const verify = (secret, h, raw) => {
		const expected = crypto
			.createHmac('sha256', secret)
			.update(`${h['x-webhook-timestamp']}.${h['x-webhook-nonce']}.${raw}`)
			.digest('hex');
		return h['x-webhook-signature'] === `sha256=${expected}`;
	};

	test('signed ocr.done delivery with verifiable signature; retries; replay; forged', async () => {
		emu.addWebhook({ url: hookUrl, secret: 'whsec_test' });
		failFirst = 1;
		const r = await submit(docs.makePng('hooked'), { filename: 'h.png' });
		await emu.waitForTask(r.json.taskId);
		await emu.waitFor(() => emu.deliveries.some((d) => d.status === 200));
		expect(received).toHaveLength(2);
		const { headers, raw } = received[1];
		expect(headers['content-type']).toBe('application/json');
		expect(headers['x-webhook-timestamp']).toMatch(/^\d{10}$/);
		expect(headers['x-webhook-nonce']).toMatch(/^[0-9a-f]{32}$/);
		expect(verify('whsec_test', headers, raw)).toBe(true);
		expect(verify('wrong', headers, raw)).toBe(false);
		expect(headers['x-webhook-signature']).toBe(
			`sha256=${signPayload('whsec_test', headers['x-webhook-timestamp'], headers['x-webhook-nonce'], raw)}`,
		);
		const body = JSON.parse(raw);
		expect(body).toEqual({
			id: expect.stringMatching(/^evt_/),
			event: 'ocr.done',
			createdAt: expect.any(String),
			data: {
				taskId: r.json.taskId,
				status: 'done',
				provider: 'provider-async',
				documentType: 'general',
				filename: 'h.png',
				pages: 1,
			},
		});
		expect(emu.deliveries.map((d) => [d.attempt, d.status, d.event, d.taskId])).toEqual([
			[1, 500, 'ocr.done', r.json.taskId],
			[2, 200, 'ocr.done', r.json.taskId],
		]);
		// replay: identical body and headers
		await emu.redeliver(1);
		expect(received).toHaveLength(3);
		expect(received[2].raw).toBe(raw);
		expect(received[2].headers['x-webhook-nonce']).toBe(headers['x-webhook-nonce']);
		expect(emu.deliveries[2]).toMatchObject({ replay: true, status: 200 });
		// forged
		const forged = await emu.deliverRaw({
			url: hookUrl,
			body: '{"event":"ocr.done"}',
			headers: { 'x-webhook-signature': 'sha256=00' },
		});
		expect(forged.status).toBe(200);
		expect(received[3].headers['x-webhook-signature']).toBe('sha256=00');
	});

	test('ocr.failed event, event filter, iso timestamps', async () => {
		const e2 = await startEmulator({
			msPerPage: 5,
			timestampFormat: 'iso',
			webhooks: [{ url: hookUrl, secret: 's2', events: ['ocr.failed'] }],
		});
		try {
			const base = e2.url;
			const good = await call('POST', '/api/ocr', {
				base,
				json: { imageBase64: docs.makePng('fine').toString('base64') },
			});
			const bad = await call('POST', '/api/ocr', {
				base,
				json: { imageBase64: docs.makePng('FAIL').toString('base64') },
			});
			await e2.waitForTask(good.json.taskId);
			await e2.waitForTask(bad.json.taskId);
			await e2.webhooksIdle();
			expect(received).toHaveLength(1);
			// The default profile: exactly the event and the task's ID and status, no event id.
			const body = JSON.parse(received[0].raw);
			expect(body).toEqual({
				event: 'ocr.failed',
				data: { taskId: bad.json.taskId, status: 'failed' },
			});
			expect(received[0].headers['x-webhook-id']).toBeUndefined();
			expect(received[0].headers['x-webhook-event']).toBeUndefined();
			expect(Number.isNaN(Date.parse(received[0].headers['x-webhook-timestamp']))).toBe(false);
			expect(verify('s2', received[0].headers, received[0].raw)).toBe(true);
		} finally {
			await e2.close();
		}
	});
});

// ---------------------------------------------------------------------------- the default profile
describe('spec profile (the default): only what the reference shows', () => {
	beforeEach(() => {
		emu.options.fields = 'spec';
		emu.options.completionOrder = 'random';
		emu.options.shapes.submit = 'spec';
	});

	test('a task shows taskId, provider, status, metadata, and resultText once done; delete has no body', async () => {
		const r = await submit(docs.makePdf(['one', 'two']), { filename: 'two.pdf' });
		expect(r.json).toEqual({
			success: true,
			taskId: expect.stringMatching(/^tsk_/),
			provider: 'provider-async',
		});
		await emu.waitForTask(r.json.taskId);
		const t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect(Object.keys(t.json).sort()).toEqual(
			['metadata', 'provider', 'resultText', 'status', 'taskId'].sort(),
		);
		const d = await call('DELETE', `/api/tasks/${r.json.taskId}`);
		expect([d.status, d.text]).toEqual([200, '']);
	});

	test('/v1/ocr and /v1/extract answer with no id or page count (the reference shows none)', async () => {
		const pdf = { data: docs.makePdf(['Invoice number: INV-1']), filename: 'a.pdf' };
		const ocr = await multipart('/v1/ocr', { file: pdf });
		expect(Object.keys(ocr.json).sort()).toEqual(['blocks', 'text']);
		const schema = JSON.stringify({
			type: 'object',
			properties: { invoiceNumber: { type: 'string' } },
		});
		const extract = await multipart('/v1/extract', { file: pdf, schema });
		expect(Object.keys(extract.json)).toEqual(['data']);
		expect(emu.ledger('acme').map((e) => e.document)).toEqual([
			'Invoice number: INV-1',
			'Invoice number: INV-1',
		]);
	});

	test('tasks of mixed page counts finish out of order', async () => {
		const order = [];
		const ids = [];
		emu.pauseQueue();
		for (const pages of [6, 1, 5, 1, 4, 1, 3, 1]) {
			const r = await submit(docs.makePdf(Array.from({ length: pages }, (_, i) => `p${i}`)));
			ids.push(r.json.taskId);
		}
		emu.resumeQueue();
		await Promise.all(ids.map((id) => emu.waitForTask(id).then(() => order.push(id))));
		expect(order).not.toEqual(ids);
	});
});

// ---------------------------------------------------------------------------- hostile profile
describe('hostile profile (opt-in): slow, rate-limited, shifting lists, backlog, lost answers', () => {
	let hostile;
	const listIds = async (page, pageSize = 20) =>
		(
			await call('GET', `/api/tasks?page=${page}&pageSize=${pageSize}`, { base: hostile.url })
		).json.map((t) => t.taskId);

	afterEach(async () => {
		await hostile?.close();
		hostile = undefined;
	});

	test('the default profile has none of it', async () => {
		expect(emu.options).toMatchObject({ latency: null, listShift: null, backlog: 0, faults: [] });
		expect(emu.tasks).toHaveLength(0);
	});

	test('every answer is slowed by a seeded time within the range; a backlog of finished tasks', async () => {
		hostile = await startEmulator({ profile: 'hostile', seed: 5, timeScale: 0.02 });
		expect(hostile.options.latency).toEqual({ '*': [10, 100] });
		expect(hostile.tasks).toHaveLength(2_000);
		expect(hostile.tasks.every((t) => t.status === 'done' || t.status === 'failed')).toBe(true);
		hostile.options.listShift = null;
		const times = [];
		for (let i = 0; i < 8; i++) {
			const started = Date.now();
			await call('GET', `/api/tasks/${hostile.tasks[i].taskId}`, { base: hostile.url });
			times.push(Date.now() - started);
		}
		expect(Math.min(...times)).toBeGreaterThanOrEqual(9);
		expect(Math.max(...times)).toBeLessThan(400);
		expect(new Set(times).size).toBeGreaterThan(1);
	});

	test('another client submits k × pageSize tasks between two page reads: page 2 repeats page 1', async () => {
		hostile = await startEmulator({
			profile: 'hostile',
			timeScale: 0,
			backlog: 30,
			rateLimit: null,
			faults: [],
			listShift: { probability: 1, tasks: 20 },
		});
		const first = await listIds(1);
		const second = await listIds(2);
		expect(second).toEqual(first);
		// Charged to the shared balance, as the team member's submissions.
		expect(hostile.ledger('acme').every((e) => e.user === 'carol')).toBe(true);
		expect(hostile.ledger('acme')).toHaveLength(40);
	});

	test('a rate limit answers 429 rate_limited with Retry-After', async () => {
		hostile = await startEmulator({
			profile: 'hostile',
			timeScale: 0,
			backlog: 0,
			listShift: null,
		});
		const answers = await Promise.all(
			Array.from({ length: 30 }, () => call('GET', '/api/tasks', { base: hostile.url })),
		);
		const limited = answers.filter((a) => a.status === 429);
		expect(limited.length).toBeGreaterThanOrEqual(5);
		expect(limited[0].json.error).toBe('rate_limited');
		expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
	});

	test('actThenError: the task is created and charged, the answer is a 502 gateway page', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError' });
		const r = await submit(docs.makePdf(['acted']));
		expect(r.status).toBe(502);
		expect(r.text).toMatch(/Bad Gateway/);
		expect(emu.tasks).toHaveLength(1);
		expect(emu.charges('acme')).toBe(1);
	});

	test('echo: the request answered back, Authorization included; after acting on a submission', async () => {
		emu.fault({ method: 'GET', path: '/api/tasks/', kind: 'echo' });
		const read = await call('GET', '/api/tasks/tsk_x');
		expect(read.status).toBe(200);
		expect(read.json).toMatchObject({ method: 'GET', path: '/api/tasks/tsk_x' });
		expect(read.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'echo', afterAct: true });
		const sent = await submit(docs.makePdf(['echoed']));
		expect(sent.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		expect(emu.charges('acme')).toBe(1);
	});

	test('redirect: to the same path at another origin, which records what it is sent and answers 403', async () => {
		hostile = await startEmulator({
			profile: 'hostile',
			timeScale: 0,
			backlog: 0,
			rateLimit: null,
			hostile: { crossOriginRedirect: 1 },
		});
		expect(hostile.otherOriginUrl).not.toBe(hostile.url);
		const r = await call('GET', '/api/tasks/tsk_x?a=1', { base: hostile.url });
		expect(r.status).toBe(307);
		expect(r.headers.location).toBe(`${hostile.otherOriginUrl}/api/tasks/tsk_x?a=1`);
		const other = await call('GET', '/api/tasks/tsk_x', { base: hostile.otherOriginUrl });
		expect(other.status).toBe(403);
		expect(hostile.otherOriginLog.map((e) => e.headers.authorization)).toEqual([
			`Bearer ${KEYS.full}`,
		]);
	});

	test('wrongShape: a 2xx of {}, [], null, HTML or a string, seeded; the default profile has no such rule', async () => {
		hostile = await startEmulator({
			profile: 'hostile',
			timeScale: 0,
			backlog: 0,
			rateLimit: null,
			hostile: { wrongShape: 1, lostAfterAct: 0 },
		});
		const bodies = new Set();
		for (let i = 0; i < 12; i++)
			bodies.add((await call('GET', '/api/tasks', { base: hostile.url })).text);
		expect(bodies.size).toBeGreaterThan(2);
		for (const body of bodies)
			expect(['{}', '[]', 'null', '"ok"']).toContain(body.startsWith('<') ? '{}' : body);
		expect(
			require('../emulator/profiles')
				.hostileOptions({})
				.faults.map((f) => f.kind),
		).toEqual(['actThenError', 'lostResponse']);
	});
});

// ---------------------------------------------------------------------------- stats and admin
describe('stats and admin HTTP API', () => {
	test('stats count requests, routes, polls, concurrency', async () => {
		const subs = await Promise.all(
			[1, 2, 3].map((i) =>
				submit(docs.makePdf(['a', 'b', 'c'].slice(0, i)), { provider: 'provider-sync' }),
			),
		);
		const id = subs[0].json.taskId;
		await call('GET', `/api/tasks/${id}`);
		await call('GET', `/api/tasks/${id}`);
		await call('GET', `/api/tasks/${subs[1].json.taskId}`);
		const s = emu.stats();
		expect(s.requests).toBe(6);
		expect(s.byRoute).toEqual({ 'POST /api/ocr': 3, 'GET /api/tasks/:id': 3 });
		expect(s.submissions).toBe(3);
		expect(s.polls).toEqual({ [id]: 2, [subs[1].json.taskId]: 1 });
		expect(s.avgPollsPerTask).toBe(1.5);
		expect(s.maxInFlight).toBeGreaterThanOrEqual(2);
		expect(s.inFlight).toBe(0);
		expect(s.tasksDone).toBe(3);
		emu.resetStats();
		expect(emu.stats().requests).toBe(0);
	});

	test('admin endpoints: state, faults, balance, webhooks, fail-next, reset', async () => {
		const admin = (method, path, json) => call(method, `/__emulator${path}`, { key: null, json });
		let r = await admin('POST', '/faults', {
			kind: 'status',
			status: 503,
			path: { regex: '^/api/tasks$' },
		});
		expect(r.status).toBe(200);
		expect((await call('GET', '/api/tasks')).status).toBe(503);
		await admin('POST', '/faults', { kind: 'status', path: '/api/tasks', times: 5 });
		await admin('DELETE', '/faults');
		expect((await call('GET', '/api/tasks')).status).toBe(200);
		r = await admin('POST', '/balance', { account: 'broke', pages: 5 });
		expect(r.json.balance).toBe(5);
		expect((await submit(docs.makePng('x'), {}, KEYS.broke)).status).toBe(200);
		r = await admin('POST', '/webhooks', { url: 'http://127.0.0.1:9/none', secret: 's' });
		expect(r.status).toBe(200);
		await admin('POST', '/fail-next', { count: 1 });
		r = await admin('GET', '/state');
		expect(r.json).toMatchObject({ taskCount: 1, balances: { acme: 1000, broke: 4 }, failNext: 1 });
		expect(r.json.ledger).toHaveLength(1);
		expect(r.json.stats.byRoute['POST /api/ocr']).toBe(1);
		expect(r.json.webhooks).toHaveLength(1);
		r = await admin('POST', '/faults', { kind: 'nonsense' });
		expect(r.status).toBe(400);
		r = await admin('POST', '/reset');
		expect(r.status).toBe(200);
		r = await admin('GET', '/state');
		expect(r.json).toMatchObject({
			taskCount: 0,
			ledger: [],
			balances: { acme: 1000, broke: 0 },
			failNext: 0,
			webhooks: [],
		});
	});
});
