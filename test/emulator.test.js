'use strict';
/*
 * The emulator's contract: what the package's tests trust the emulator (emulator/) to do. Every
 * engine test runs the package against it, so a wrong emulator makes those tests pass against a
 * service that does not exist. Covered, against /work/shared/spec/ocr-service-interface.md
 * (restated in docs/service-contract.md):
 *
 *  1. The default, spec-strict profile, in every test unless one opts in:
 *     - exactly the fields the spec shows, nothing more (§2, §4.1; the absence is asserted);
 *     - authentication and scopes: the order of the checks, the scope table, ocr:read (§5, §7);
 *     - submission: data URIs, provider-sync, invoice metadata; refusals (413 over 10,000,000
 *       bytes, 415, 402) create and charge nothing (§4.1, §7, §8);
 *     - the page ledger: pages deducted before processing, a team on the owner's balance, a
 *       refund when creation fails after the deduction (§1, §8);
 *     - tasks: states, 404, list defaults and the page-size cap of 20, newest first, delete,
 *       export, tasks finishing out of order, the OpenAPI version (§2, §3, §4.1, §9);
 *     - /api/v2/ocr (§4.2) and /v1 (§4.3);
 *     - webhooks: ocr.done / ocr.failed, HMAC-SHA256 over `<timestamp>.<nonce>.<raw_body>`,
 *       the three headers and no more (§6).
 *  2. Each opt-in variant, fault kind and hostile part other tests switch on, once, doing what
 *     those tests assume (docs/service-contract.md "Variants: one table" and "The hostile
 *     profile"; emulator/faults.js), and the helpers they call (failNextTasks, the FAIL and
 *     STUCK texts, redeliver, deliverRaw).
 *
 * Not here: the document builders' internals (test/fast/.../formats/pages.test.ts counts their
 * pages), statistics, the /__emulator admin API, option combinations, and variants no test uses.
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { request, Agent } = require('undici');
const docs = require('../emulator/documents.js');
const { startEmulator, KEYS } = require('../emulator/index.js');

const agent = new Agent({ keepAliveTimeout: 100, keepAliveMaxTimeout: 100 });
let emu;
let defaults;

async function call(method, path, { key = KEYS.full, json, body, headers = {}, base } = {}) {
	const h = { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) };
	if (json !== undefined) h['content-type'] ??= 'application/json';
	const res = await request((base || emu.url) + path, {
		method,
		headers: h,
		body: json !== undefined ? JSON.stringify(json) : body,
		dispatcher: agent,
	});
	const buf = Buffer.from(await res.body.arrayBuffer());
	const r = { status: res.statusCode, headers: res.headers, buf, text: buf.toString('utf8') };
	try {
		r.json = JSON.parse(r.text);
	} catch {}
	return r;
}

/** [status, error code] of an answer. */
const err = (r) => [r.status, r.json?.error];
const keysOf = (o) => Object.keys(o).sort();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const png = (text = 'x') => docs.makePng(text);
const invoicePdf = () => docs.makePdf([docs.INVOICE_TEXT, 'Thank you for your business']);

const submit = (doc, extra = {}, key = KEYS.full, base = undefined) =>
	call('POST', '/api/ocr', { key, base, json: { imageBase64: doc.toString('base64'), ...extra } });
const get = async (id, base) => (await call('GET', `/api/tasks/${id}`, { base })).json;

async function multipart(path, parts, { key = KEYS.full, base } = {}) {
	const fd = new FormData();
	for (const [name, v] of Object.entries(parts))
		if (v.data) fd.append(name, new Blob([v.data]), v.filename);
		else fd.append(name, v);
	const r = new Response(fd);
	const body = Buffer.from(await r.arrayBuffer());
	const headers = { 'content-type': r.headers.get('content-type') };
	return call('POST', path, { key, body, base, headers });
}

beforeAll(async () => {
	emu = await startEmulator({ msPerPage: 10, syncMsPerPage: 2, workers: 2 });
	defaults = structuredClone(emu.options);
});

afterAll(async () => {
	await emu.close();
	await agent.close();
});

beforeEach(() => {
	// Back to the default profile: a test that opts in sets emu.options (read live).
	for (const k of Object.keys(emu.options)) if (!(k in defaults)) delete emu.options[k];
	Object.assign(emu.options, structuredClone(defaults));
	emu.reset();
	emu.resumeQueue();
});

describe('the default profile: exactly what the spec shows (spec §2, §4.1)', () => {
	test('submission answer, task (queued, done), list entry and delete carry nothing beyond the spec; no hostility', async () => {
		expect(emu.options).toMatchObject({ latency: null, listShift: null, rateLimit: null });
		expect([emu.options.faults, emu.tasks]).toEqual([[], []]);
		emu.pauseQueue();
		const r = await submit(docs.makePdf(['one', 'two']), { filename: 'two.pdf' });
		const id = r.json.taskId;
		expect(r.json).toEqual({ success: true, taskId: id, provider: 'provider-async' });
		// No request-id header: the interface does not show one (only the 'rich' variant sends it).
		expect(r.headers['x-request-id']).toBeUndefined();
		const task = { taskId: id, provider: 'provider-async', metadata: {} };
		expect(await get(id)).toEqual({ ...task, status: 'queued' });
		emu.resumeQueue();
		await emu.waitForTask(id);
		expect(await get(id)).toEqual({ ...task, status: 'done', resultText: 'one\n\f\ntwo' });
		expect((await call('GET', '/api/tasks')).json).toEqual([{ ...task, status: 'done' }]);
		const d = await call('DELETE', `/api/tasks/${id}`);
		expect([d.status, d.text]).toEqual([200, '']);
	});
});

describe('authentication and scopes (spec §5, §7)', () => {
	test('missing, invalid, banned, then scope — before the body is read', async () => {
		const notJson = { body: '{oops', headers: { 'content-type': 'application/json' } };
		let r = await call('POST', '/api/ocr', { key: null, ...notJson });
		expect(r.json).toEqual({ error: 'missing_api_key', message: expect.any(String) });
		r = await call('GET', '/api/tasks', { key: null, headers: { authorization: 'Basic abc' } });
		expect(err(r)).toEqual([401, 'missing_api_key']);
		r = await call('POST', '/api/ocr', { key: 'ocr_nope', ...notJson });
		expect(err(r)).toEqual([401, 'invalid_api_key']);
		r = await call('GET', '/api/tasks', { key: KEYS.banned });
		expect(err(r)).toEqual([403, 'user_banned']);
	});

	test('submit: POST /api/ocr; read: list, get, export; export: DELETE; ocr:read counts as read', async () => {
		const id = (await submit(png(), {}, KEYS.submitOnly)).json.taskId;
		const calls = [
			['GET', '/api/tasks'],
			['GET', `/api/tasks/${id}`],
			['GET', `/api/export/${id}/pdf`],
			['DELETE', `/api/tasks/${id}`],
		];
		const refused = async (key) => {
			const out = [];
			for (const [method, path] of calls)
				out.push(err(await call(method, path, { key }))[1] === 'insufficient_scope');
			return out;
		};
		expect(await refused(KEYS.submitOnly)).toEqual([true, true, true, true]);
		expect(await refused(KEYS.readAlias)).toEqual([false, false, false, true]);
	});
});

describe('submission: POST /api/ocr (spec §4.1, §7, §8)', () => {
	test('413 over 10,000,000 bytes (not at), 415 content type or magic bytes, 402: no task, no charge', async () => {
		const sized = (n) => Buffer.alloc(n, 'A');
		let r = await call('POST', '/api/ocr', {
			body: sized(10_000_001),
			headers: { 'content-type': 'application/json' },
		});
		expect(err(r)).toEqual([413, 'payload_too_large']);
		// At the limit the body is read: refused for its content type (415), not its size.
		const text = { 'content-type': 'text/plain' };
		r = await call('POST', '/api/ocr', { body: sized(10_000_000), headers: text });
		expect(err(r)).toEqual([415, 'unsupported_media_type']);
		expect(err(await submit(Buffer.from('just text')))).toEqual([415, 'unsupported_media_type']);
		expect(err(await submit(png(), {}, KEYS.broke))).toEqual([402, 'insufficient_pages']);
		expect([emu.ledger(), emu.tasks]).toEqual([[], []]);
	});

	test('a data URI; provider-sync done when answered; documentType invoice: invoice fields in metadata', async () => {
		const uri = `data:image/png;base64,${png().toString('base64')}`;
		expect((await call('POST', '/api/ocr', { json: { imageBase64: uri } })).status).toBe(200);
		let r = await submit(docs.makeJpeg('Hello sync'), { provider: 'provider-sync' });
		expect(r.json.provider).toBe('provider-sync');
		expect(await get(r.json.taskId)).toMatchObject({ status: 'done', resultText: 'Hello sync' });
		r = await submit(invoicePdf(), { documentType: 'invoice' });
		await emu.waitForTask(r.json.taskId);
		expect((await get(r.json.taskId)).metadata).toEqual({ invoice: docs.INVOICE_FIELDS });
	});
});

describe('page ledger (spec §1, §8)', () => {
	test('pages deducted before processing; a team member spends and sees the owner’s; 402 when short', async () => {
		emu.pauseQueue();
		const r = await submit(invoicePdf());
		expect([emu.balance('acme'), emu.getTask(r.json.taskId).status]).toEqual([998, 'queued']);
		const entry = { user: 'alice', delta: -2, reason: 'submit', taskId: r.json.taskId };
		expect(emu.ledger('acme')).toEqual([expect.objectContaining(entry)]);
		expect((await submit(png(), {}, KEYS.member)).status).toBe(200);
		expect(emu.balance('acme')).toBe(997);
		expect(emu.ledger('acme')[1]).toMatchObject({ user: 'carol', delta: -1 });
		expect((await call('GET', `/api/tasks/${r.json.taskId}`, { key: KEYS.member })).status).toBe(
			200,
		);
		// Another account's task is not found.
		const other = await call('GET', `/api/tasks/${r.json.taskId}`, { key: KEYS.broke });
		expect(err(other)).toEqual([404, 'not_found']);
		emu.setBalance('acme', 1);
		expect(err(await submit(invoicePdf()))).toEqual([402, 'insufficient_pages']);
		expect([emu.balance('acme'), emu.ledger('acme').length]).toEqual([1, 2]);
	});

	test('creation failing after the deduction (fault failCreation): refunded, a 500 saying so, no task', async () => {
		emu.fault({ kind: 'failCreation', path: '/api/ocr' });
		const r = await submit(invoicePdf());
		expect(r.status).toBe(500);
		expect(r.json.message).toMatch(/creation failed.*refunded/i);
		expect(emu.ledger().map((e) => [e.reason, e.delta])).toEqual([
			['submit', -2],
			['refund', 2],
		]);
		expect([emu.balance('acme'), emu.tasks.length]).toEqual([1000, 0]);
		expect((await submit(invoicePdf())).status).toBe(200); // once
	});
});

describe('tasks (spec §2, §3, §4.1, §9)', () => {
	test('done, or failed for the text FAIL and after failNextTasks; STUCK stays processing', async () => {
		const ok = (await submit(png('fine'))).json.taskId;
		const failed = (await submit(png('this will FAIL'))).json.taskId;
		emu.failNextTasks(1);
		const next = (await submit(png('fine, but the next to fail'))).json.taskId;
		const stuck = (await submit(png('STUCK'))).json.taskId;
		for (const id of [ok, failed, next]) await emu.waitForTask(id);
		await emu.waitForTask(stuck, { status: 'processing' });
		await sleep(20);
		const states = [];
		for (const id of [ok, failed, next, stuck]) states.push((await get(id)).status);
		expect(states).toEqual(['done', 'failed', 'failed', 'processing']);
		expect((await get(failed)).resultText).toBeUndefined();
	});

	test('tasks of mixed page counts finish out of order', async () => {
		const ids = [];
		const order = [];
		emu.options.msPerPage = 3;
		emu.pauseQueue();
		for (const n of [6, 1, 5, 1, 4, 1, 3, 1])
			ids.push((await submit(docs.makePdf(Array(n).fill('page')))).json.taskId);
		emu.resumeQueue();
		await Promise.all(ids.map((id) => emu.waitForTask(id).then(() => order.push(id))));
		expect(order).not.toEqual(ids);
	});

	test('list: page 1, pageSize 20 by default and at most (maxPageSize), newest first, status=done', async () => {
		emu.pauseQueue();
		const ids = [];
		for (let i = 0; i < 25; i++) ids.push((await submit(png(`doc ${i}`))).json.taskId);
		const newest = [...ids].reverse();
		const page = async (q) => (await call('GET', `/api/tasks${q}`)).json.map((t) => t.taskId);
		expect(await page('')).toEqual(newest.slice(0, 20));
		expect(await page('?pageSize=100')).toEqual(newest.slice(0, 20));
		expect(await page('?page=2')).toEqual(newest.slice(20));
		expect(await page('?page=2&pageSize=3')).toEqual(newest.slice(3, 6));
		emu.options.maxPageSize = 10; // opt-in (money.test.js, invariants-ops.js)
		expect(await page('?pageSize=100')).toHaveLength(10);
		emu.options.msPerPage = 1;
		emu.resumeQueue();
		await emu.waitForTask(ids[24]);
		const done = await page('?status=done');
		expect(done[0]).toBe(ids[24]);
		expect(done.every((id) => emu.getTask(id).status === 'done')).toBe(true);
	});

	test('export of a done task as docx, xlsx, pdf with type and file name; 409 before; 404 once deleted', async () => {
		emu.pauseQueue();
		const id = (await submit(invoicePdf(), { filename: 'scans/invoice-42.pdf' })).json.taskId;
		expect(err(await call('GET', `/api/export/${id}/docx`))).toEqual([409, 'task_not_ready']);
		emu.resumeQueue();
		await emu.waitForTask(id);
		const ooxml = 'application/vnd.openxmlformats-officedocument';
		for (const [format, type, magic] of [
			['docx', `${ooxml}.wordprocessingml.document`, 'PK\x03\x04'],
			['xlsx', `${ooxml}.spreadsheetml.sheet`, 'PK\x03\x04'],
			['pdf', 'application/pdf', '%PDF'],
		]) {
			const e = await call('GET', `/api/export/${id}/${format}`);
			expect([e.status, e.headers['content-type']]).toEqual([200, type]);
			expect(e.headers['content-disposition']).toBe(`attachment; filename="invoice-42.${format}"`);
			expect(e.buf.subarray(0, 4).toString('latin1')).toBe(magic);
		}
		expect((await call('DELETE', `/api/tasks/${id}`)).status).toBe(200);
		for (const [method, path] of [
			['GET', `/api/tasks/${id}`],
			['GET', `/api/export/${id}/pdf`],
			['DELETE', `/api/tasks/${id}`],
		])
			expect(err(await call(method, path))).toEqual([404, 'not_found']);
	});

	test('the OpenAPI description of /api carries version 1.1.0', async () => {
		expect((await call('GET', '/api/openapi.json')).json.info.version).toBe('1.1.0');
	});
});

describe('/api/v2/ocr (spec §4.2) and /v1 (spec §4.3)', () => {
	test('v2: the answer exactly as shown, filename required, charged, read with the task API', async () => {
		const imageBase64 = invoicePdf().toString('base64');
		const options = { format: 'markdown', highFidelityTables: true, formulas: false };
		const r = await call('POST', '/api/v2/ocr', {
			json: { imageBase64, filename: 'a.pdf', options },
		});
		const { taskId } = r.json;
		expect(r.json).toEqual({
			taskId,
			status: 'queued',
			estimatedSeconds: expect.any(Number),
			pages: 2,
			creditsUsed: 2,
		});
		expect(emu.ledger()).toEqual([expect.objectContaining({ delta: -2, taskId })]);
		await emu.waitForTask(taskId);
		expect((await get(taskId)).resultText).toMatch(/^# ACME GmbH\n\nInvoice Number: INV-2026-0042/);
		const noName = await call('POST', '/api/v2/ocr', { json: { imageBase64 } });
		expect(err(noName)).toEqual([400, 'bad_request']);
	});

	test('v1: markdown {id, pages, markdown}; ocr and extract with no id; PDF, PNG, JPEG, WEBP only', async () => {
		let r = await multipart('/v1/markdown', { file: { data: invoicePdf(), filename: 'a.pdf' } });
		expect(r.json).toEqual({ id: expect.any(String), pages: 2, markdown: expect.any(String) });
		expect(r.json.markdown).toMatch(/^# ACME GmbH\n\n/);
		const webp = { data: docs.makeWebp('line one\nline two'), filename: 'a.webp' };
		r = await multipart('/v1/ocr', { file: webp });
		expect([keysOf(r.json), r.json.text]).toEqual([['blocks', 'text'], 'line one\nline two']);
		const file = { data: png(docs.INVOICE_TEXT), filename: 'i.png' };
		const schema = '{"type":"object","properties":{"invoice_number":{"type":"string"}}}';
		r = await multipart('/v1/extract', { file, schema });
		expect(r.json).toEqual({ data: { invoice_number: 'INV-2026-0042' } });
		for (const data of [docs.makeTiff('t'), docs.makeGif('g')]) {
			r = await multipart('/v1/ocr', { file: { data, filename: 'f' } });
			expect(err(r)).toEqual([415, 'unsupported_media_type']);
		}
		expect(emu.ledger().map((e) => e.endpoint)).toEqual([
			'POST /v1/markdown',
			'POST /v1/ocr',
			'POST /v1/extract',
		]);
	});

	test('v1 jobs: created {id, status}, polled to {id, status, result}; FAIL fails it; 404 unknown', async () => {
		const job = async (text) => {
			const file = { data: docs.makePdf([text]), filename: 'job.pdf' };
			const r = await multipart('/v1/jobs', { file, priority: 'high' });
			expect(r.json).toEqual({ id: r.json.id, status: 'queued' });
			await emu.waitForTask(r.json.id);
			return (await call('GET', `/v1/jobs/${r.json.id}`)).json;
		};
		const done = await job('Job page');
		expect(keysOf(done)).toEqual(['id', 'result', 'status']);
		expect([done.status, done.result.text]).toEqual(['done', 'Job page']);
		expect(emu.jobMap.get(done.id).fields).toEqual({ priority: 'high' });
		const failed = await job('FAIL');
		expect(failed).toEqual({ id: failed.id, status: 'failed' });
		expect(err(await call('GET', '/v1/jobs/job_nope'))).toEqual([404, 'not_found']);
	});
});

describe('webhooks (spec §6)', () => {
	let receiver;
	let received;
	let url;

	beforeAll(async () => {
		receiver = http.createServer((req, res) => {
			const chunks = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
				res.end('ok');
			});
		});
		await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
		url = `http://127.0.0.1:${receiver.address().port}/hook`;
	});

	afterAll(async () => {
		receiver.closeAllConnections();
		await new Promise((r) => receiver.close(r));
	});

	beforeEach(() => {
		received = [];
	});

	/** The spec's rule, written again here: HMAC-SHA256, hex, of `<timestamp>.<nonce>.<raw_body>`. */
	const signature = (secret, h, raw) => {
		const signed = `${h['x-webhook-timestamp']}.${h['x-webhook-nonce']}.${raw}`;
		return `sha256=${crypto.createHmac('sha256', secret).update(signed).digest('hex')}`;
	};

	test('ocr.done and ocr.failed: {event, data: {taskId, status}}, signed, the three headers only', async () => {
		emu.addWebhook({ url, secret: 'whsec_test' });
		const good = (await submit(png('hooked'))).json.taskId;
		const bad = (await submit(png('FAIL'))).json.taskId;
		await Promise.all([emu.waitForTask(good), emu.waitForTask(bad)]);
		await emu.webhooksIdle();
		expect(received.map((d) => JSON.parse(d.raw))).toEqual(
			expect.arrayContaining([
				{ event: 'ocr.done', data: { taskId: good, status: 'done' } },
				{ event: 'ocr.failed', data: { taskId: bad, status: 'failed' } },
			]),
		);
		expect(received).toHaveLength(2);
		for (const { headers: h, raw } of received) {
			expect(keysOf(h).filter((k) => k.startsWith('x-'))).toEqual([
				'x-webhook-nonce',
				'x-webhook-signature',
				'x-webhook-timestamp',
			]);
			expect(h['x-webhook-timestamp']).toMatch(/^\d{10}$/); // the default: Unix seconds
			expect(h['x-webhook-signature']).toBe(signature('whsec_test', h, raw));
			expect(h['x-webhook-signature']).not.toBe(signature('whsec_other', h, raw));
		}
	});

	test('redeliver sends a delivery again byte for byte; deliverRaw sends what it is given', async () => {
		emu.addWebhook({ url, secret: 's' });
		await emu.waitForTask((await submit(png('replayed'))).json.taskId);
		await emu.webhooksIdle();
		await emu.redeliver(0);
		expect(received[1].raw).toBe(received[0].raw);
		for (const h of ['x-webhook-nonce', 'x-webhook-timestamp', 'x-webhook-signature'])
			expect(received[1].headers[h]).toBe(received[0].headers[h]);
		const headers = { 'x-webhook-signature': 'sha256=00' };
		expect((await emu.deliverRaw({ url, body: '{"a":1}', headers })).status).toBe(200);
		expect([received[2].raw, received[2].headers['x-webhook-signature']]).toEqual([
			'{"a":1}',
			'sha256=00',
		]);
	});
});

describe('opt-in variants other tests use (docs/service-contract.md, "Variants: one table")', () => {
	test("fields 'rich': documentType, filename, pages, timestamps, words (sync), error text (failed)", async () => {
		emu.options.fields = 'rich';
		const extra = { provider: 'provider-sync', filename: 'a.jpg' };
		const sync = await get((await submit(docs.makeJpeg('Hello big world'), extra)).json.taskId);
		expect(sync).toMatchObject({ documentType: 'general', filename: 'a.jpg', pages: 1 });
		expect(Date.parse(sync.createdAt)).toBeLessThanOrEqual(Date.parse(sync.updatedAt));
		expect(sync.words.map((w) => w.text)).toEqual(['Hello', 'big', 'world']);
		expect(keysOf(sync.words[0])).toEqual(['bbox', 'confidence', 'page', 'text']);
		const failed = (await submit(png('FAIL'))).json.taskId;
		await emu.waitForTask(failed);
		expect((await get(failed)).error).toBe('Could not recognise the document (unreadable scan)');
	});

	test("shapes.list 'items', 'data', 'tasks' (and the default bare array); shapes.task 'data', 'task'", async () => {
		let id;
		for (let i = 0; i < 3; i++) id = (await submit(png(`doc ${i}`))).json.taskId;
		const list = async (shape) => {
			emu.options.shapes.list = shape;
			return (await call('GET', '/api/tasks?pageSize=2')).json;
		};
		const two = [expect.anything(), expect.anything()];
		expect(await list('items')).toEqual({ items: two, page: 1, pageSize: 2, total: 3 });
		const pagination = { page: 1, pageSize: 2, total: 3, totalPages: 2 };
		expect(await list('data')).toEqual({ data: two, pagination });
		expect(await list('tasks')).toEqual({ tasks: two, total: 3 });
		expect(await list('array')).toEqual(two);
		emu.options.shapes.task = 'data';
		expect((await get(id)).data.taskId).toBe(id);
		emu.options.shapes.task = 'task';
		expect(await get(id)).toMatchObject({ success: true, task: { taskId: id } });
	});

	test('shapes.error flat (default), nested, code, text; shapes.v1Error for /v1 only', async () => {
		const shapes = {
			flat: { error: 'invalid_api_key', message: expect.any(String) },
			nested: { error: { code: 'invalid_api_key', message: expect.any(String) } },
			code: { code: 'invalid_api_key', message: expect.any(String) },
		};
		for (const [shape, body] of Object.entries(shapes)) {
			emu.options.shapes.error = shape;
			expect((await call('GET', '/api/tasks', { key: 'bad' })).json).toEqual(body);
		}
		emu.options.shapes.error = 'text';
		const text = await call('GET', '/api/tasks', { key: 'bad' });
		expect([text.headers['content-type'], text.text]).toEqual([
			expect.stringMatching(/^text\/plain/),
			expect.stringMatching(/^invalid_api_key: /),
		]);
		emu.options.shapes.error = 'flat';
		emu.options.shapes.v1Error = 'nested';
		expect((await call('POST', '/v1/ocr', { key: 'bad' })).json).toEqual(shapes.nested);
		expect((await call('GET', '/api/tasks', { key: 'bad' })).json).toEqual(shapes.flat);
	});

	test('statuses: renamed processing, done and failed values', async () => {
		emu.options.statuses = { processing: 'needs_review', done: 'completed', failed: 'error' };
		const ids = [];
		for (const text of ['ok', 'FAIL', 'STUCK']) ids.push((await submit(png(text))).json.taskId);
		await Promise.all(ids.slice(0, 2).map((id) => emu.waitForTask(id)));
		await emu.waitForTask(ids[2], { status: 'processing' });
		const states = [];
		for (const id of ids) states.push((await get(id)).status);
		expect(states).toEqual(['completed', 'error', 'needs_review']);
	});

	test("listOrder 'oldest': the oldest task first", async () => {
		const ids = [];
		for (let i = 0; i < 3; i++) ids.push((await submit(png(`doc ${i}`))).json.taskId);
		emu.options.listOrder = 'oldest';
		expect((await call('GET', '/api/tasks')).json.map((t) => t.taskId)).toEqual(ids);
	});

	test('pollRetryAfterSeconds: Retry-After on a status read until the task is final', async () => {
		emu.options.pollRetryAfterSeconds = 2;
		emu.pauseQueue();
		const id = (await submit(png())).json.taskId;
		const retryAfter = async () => (await call('GET', `/api/tasks/${id}`)).headers['retry-after'];
		expect(await retryAfter()).toBe('2');
		emu.resumeQueue();
		await emu.waitForTask(id);
		expect(await retryAfter()).toBeUndefined();
	});

	test('separateApiServer: /v1 on the API URL only, the task API on the base URL only', async () => {
		const e2 = await startEmulator({ separateApiServer: true });
		try {
			expect(e2.apiUrl).not.toBe(e2.url);
			const file = { file: { data: png('sep'), filename: 's.png' } };
			const status = async (r) => (await r).status;
			expect(await status(multipart('/v1/markdown', file, { base: e2.apiUrl }))).toBe(200);
			expect(await status(multipart('/v1/markdown', file, { base: e2.url }))).toBe(404);
			expect(await status(call('GET', '/api/tasks', { base: e2.apiUrl }))).toBe(404);
			expect(await status(call('GET', '/api/tasks', { base: e2.url }))).toBe(200);
		} finally {
			await e2.close();
		}
	});
});

describe('faults other tests inject (emulator/faults.js)', () => {
	// The answer instead of the service's, once by default; the service did nothing.
	test.each([
		['status', { status: 500, code: 'boom', message: 'm', retryAfter: 4 }, 500, /"boom"/, '4'],
		['rateLimit', { retryAfter: 0.2 }, 429, /"rate_limited"/, '0.2'],
		['quota', {}, 429, /"daily_quota_exceeded"/, undefined],
		['html', {}, 502, /^<html>.*502 Bad Gateway/, undefined],
		['truncatedJson', {}, 200, /^\{"taskId": "tsk_$/, undefined],
		['body', { status: 201, contentType: 'text/csv', body: 'a,b' }, 201, /^a,b$/, undefined],
	])('%s', async (kind, rule, status, body, retryAfter) => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind, ...rule });
		const r = await submit(png());
		expect([r.status, r.text, r.headers['retry-after']]).toEqual([
			status,
			expect.stringMatching(body),
			retryAfter,
		]);
		expect([emu.tasks.length, emu.ledger().length]).toEqual([0, 0]);
		expect((await submit(png())).status).toBe(200);
	});

	test('reset drops the connection and creates nothing; latency delays the answer', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'reset' });
		await expect(submit(png())).rejects.toThrow();
		expect([emu.tasks.length, emu.ledger().length]).toEqual([0, 0]);
		emu.fault({ path: '/api/tasks', kind: 'latency', ms: 60 });
		const started = Date.now();
		expect((await call('GET', '/api/tasks')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(55);
	});

	test('actThenError and lostResponse: the task created and charged, then a 502 page or a dropped connection', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError' });
		const r = await submit(png());
		expect([r.status, r.text]).toEqual([502, expect.stringContaining('Bad Gateway')]);
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse' });
		await expect(submit(png())).rejects.toThrow();
		expect([emu.tasks.length, emu.ledger().length]).toEqual([2, 2]);
	});

	test('rules: method and path prefix, times, every k-th, seeded probability', async () => {
		emu.fault({ method: 'POST', path: '/api/tasks', kind: 'status' });
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'status', every: 2, times: 2 });
		const statuses = async (path, n) => {
			const s = [];
			for (let i = 0; i < n; i++) s.push((await call('GET', path)).status);
			return s;
		};
		expect(await statuses('/api/tasks', 6)).toEqual([200, 503, 200, 503, 200, 200]);
		const draw = async () => {
			emu.reset(); // reseeds
			emu.fault({ path: '/api/tasks/', kind: 'status', probability: 0.5 });
			return statuses('/api/tasks/tsk_x', 20);
		};
		const first = await draw();
		expect(await draw()).toEqual(first);
		expect(first).toEqual(expect.arrayContaining([503, 404]));
	});

	test('a rule that never fired is named once by takeUnfired; optional ones and the standing rules of the options are not', async () => {
		emu.faults.takeUnfired(); // the rules of the tests before
		const missed = emu.fault({ method: 'POST', path: '/api/tasks', kind: 'status' });
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'status' });
		emu.fault({ method: 'DELETE', path: '/api/tasks', kind: 'status', optional: true });
		expect((await call('GET', '/api/tasks')).status).toBe(503);
		emu.reset(); // drops the rules, not what they did
		expect(emu.faults.takeUnfired()).toEqual([missed]);
		expect(emu.faults.takeUnfired()).toEqual([]);
		const standing = await startEmulator({ faults: [{ path: '/nowhere', kind: 'status' }] });
		try {
			standing.reset();
			expect(standing.faults.takeUnfired()).toEqual([]);
		} finally {
			await standing.close();
		}
	});
});

describe('the hostile profile (emulator/profiles.js; docs/service-contract.md)', () => {
	let hostile;
	const quiet = { profile: 'hostile', timeScale: 0, backlog: 0, rateLimit: null };
	const start = async (options) => {
		hostile = await startEmulator({ ...quiet, ...options });
		return hostile;
	};

	afterEach(async () => {
		await hostile?.close();
		hostile = undefined;
	});

	test('seeded latency in the scaled range on every answer; a backlog; 3 % of submissions lost after acting', async () => {
		const e = (hostile = await startEmulator({
			profile: 'hostile',
			seed: 5,
			timeScale: 0.004,
			listShift: null,
		}));
		expect(e.options.latency).toEqual({ '*': [2, 20] }); // 0.5–5 s, scaled
		expect(e.tasks).toHaveLength(2_000);
		expect(e.tasks.every((t) => t.status === 'done' || t.status === 'failed')).toBe(true);
		expect(e.options.faults.map((f) => [f.kind, f.probability])).toEqual([
			['actThenError', 0.03],
			['lostResponse', 0.03],
		]);
		// The latency each answer drew, and the time each took: never less than what it drew.
		const drawn = [];
		const routeLatency = e.routeLatency.bind(e);
		e.routeLatency = (route) => {
			const ms = routeLatency(route);
			drawn.push(ms);
			return ms;
		};
		const times = [];
		for (const t of e.tasks.slice(0, 8)) {
			const started = Date.now();
			await get(t.taskId, e.url);
			times.push(Date.now() - started);
		}
		expect(drawn).toHaveLength(8);
		expect(drawn.every((ms) => ms >= 2 && ms <= 20)).toBe(true);
		expect(new Set(drawn).size).toBeGreaterThan(1);
		times.forEach((ms, i) => expect(ms).toBeGreaterThanOrEqual(drawn[i] - 1));
	});

	test('rateLimit: 429 rate_limited with Retry-After in seconds', async () => {
		const e = await start({ rateLimit: { perSecond: 2 } });
		const answers = [];
		for (let i = 0; i < 4; i++) answers.push(await call('GET', '/api/tasks', { base: e.url }));
		expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
		const limited = answers.find((a) => a.status === 429);
		expect(limited.json.error).toBe('rate_limited');
		expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
	});

	test('listShift: the team member submits after a page is answered, on the shared balance', async () => {
		const e = await start({ backlog: 30, listShift: { probability: 1, tasks: 20, times: 1 } });
		const ids = async (page) =>
			(await call('GET', `/api/tasks?page=${page}`, { base: e.url })).json.map((t) => t.taskId);
		const first = await ids(1);
		expect(await ids(2)).toEqual(first); // read after the shift, page 2 repeats page 1
		expect(e.ledger('acme')).toHaveLength(20);
		expect(e.ledger('acme').every((x) => x.user === 'carol' && x.delta === -1)).toBe(true);
	});

	test('storm: tasks after every page answered for its time, pages clamped to its page size', async () => {
		// 3 s at this timeScale: three reads fit in it on any machine; once it is over (from its
		// first answered page), a read adds nothing.
		const storm = { tasks: 5, ms: 3_000_000, pageSize: 5 };
		const e = await start({ timeScale: 0.001, hostile: { storm } });
		const read = async () => (await call('GET', '/api/tasks', { base: e.url })).json.length;
		expect([await read(), await read(), await read()]).toEqual([0, 5, 5]);
		expect(e.ledger('acme')).toHaveLength(15);
		const { startedAt, forMs } = e.options.listShift;
		expect(forMs).toBe(3_000);
		await sleep(startedAt + forMs + 10 - Date.now());
		await read();
		expect(e.ledger('acme')).toHaveLength(15);
	});

	test('echo: the request answered back, Authorization included; a submission after it was charged', async () => {
		const e = await start({ hostile: { echo: 1, lostAfterAct: 0 } });
		const read = await call('GET', '/api/tasks/tsk_x', { base: e.url });
		expect(read.json).toMatchObject({ method: 'GET', path: '/api/tasks/tsk_x' });
		expect(read.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		const sent = await submit(png(), {}, KEYS.full, e.url);
		expect(sent.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		expect([e.tasks.length, e.ledger().length]).toEqual([1, 1]);
	});

	test('crossOriginRedirect: reads sent to another origin, which records them and answers 403', async () => {
		const e = await start({ hostile: { crossOriginRedirect: 1 } });
		const r = await call('GET', '/api/tasks/tsk_x?a=1', { base: e.url });
		expect([r.status, r.headers.location]).toEqual([
			307,
			`${e.otherOriginUrl}/api/tasks/tsk_x?a=1`,
		]);
		expect(e.otherOriginUrl).not.toBe(e.url);
		expect((await call('GET', '/api/tasks/tsk_x', { base: e.otherOriginUrl })).status).toBe(403);
		expect(e.otherOriginLog.map((x) => x.headers.authorization)).toEqual([`Bearer ${KEYS.full}`]);
	});

	test('wrongShape: a 2xx of {}, [], null, HTML or a string (seeded); a submission after it was charged', async () => {
		const e = await start({ hostile: { wrongShape: 1, lostAfterAct: 0 } });
		const bodies = new Set();
		for (let i = 0; i < 12; i++)
			bodies.add((await call('GET', '/api/tasks', { base: e.url })).text);
		expect(bodies.size).toBeGreaterThan(2);
		for (const b of bodies)
			expect(['{}', '[]', 'null', '"ok"', 'html']).toContain(b[0] === '<' ? 'html' : b);
		const sent = await submit(png(), {}, KEYS.full, e.url);
		expect([sent.status, sent.json?.taskId]).toEqual([200, undefined]);
		expect([e.tasks.length, e.ledger().length]).toEqual([1, 1]);
	});
});
