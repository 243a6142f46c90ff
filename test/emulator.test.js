'use strict';
/*
 * The emulator's contract: what the package's own tests trust it to do, and nothing else.
 *
 * Every engine test of the package runs against the emulator (emulator/); where the emulator is
 * wrong, those tests pass against a service that does not exist. So this file checks:
 *
 *  1. The default (spec-strict) profile against /work/shared/spec/ocr-service-interface.md
 *     (restated in docs/service-contract.md), group by group:
 *       - "authentication and scopes"  — spec §5 (order of the checks, scope table, ocr:read) and
 *                                        the 401/403 codes of §7;
 *       - "submission"                 — §4.1 POST /api/ocr: the answer exactly as shown, data URIs,
 *                                        provider-sync, invoice metadata; refusals of §7/§8 (413
 *                                        over 10,000,000 bytes, 415, 402) create and charge nothing;
 *       - "page ledger"                — §1 and §8: deduction by page count before processing, a
 *                                        team member on the owner's balance, refund when creation
 *                                        fails after the deduction;
 *       - "tasks"                      — §2/§3/§4.1: states, fields, 404, list defaults and the
 *                                        page-size cap, delete, export, tasks finishing out of
 *                                        order, the OpenAPI version (§9);
 *       - "/api/v2/ocr" and "/v1"      — §4.2 and §4.3;
 *       - "webhooks"                   — §6: ocr.done / ocr.failed, HMAC-SHA256 over
 *                                        `<timestamp>.<nonce>.<raw_body>`, the three headers;
 *     and that the default adds nothing the spec does not show (fields, headers, hostility).
 *  2. Each opt-in variant, fault kind and profile part that other tests switch on, once each,
 *     doing what those tests assume: the variants of docs/service-contract.md ("Variants: one
 *     table"), the fault kinds of emulator/faults.js, the hostile profile (emulator/profiles.js,
 *     docs/service-contract.md "The hostile profile"), and the helpers other tests call
 *     (failNextTasks, STUCK/FAIL texts, redeliver, deliverRaw).
 *
 * Not here, on purpose: the document builders' internals (test/fast/.../pages.test.ts counts
 * their pages), statistics, the /__emulator admin API, the option combinations, and variants no
 * test uses (see the report of issue "emulator.test.js down to the contract").
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { request, Agent } = require('undici');
const docs = require('../emulator/documents.js');
const { startEmulator, KEYS } = require('../emulator/index.js');

jest.setTimeout(15000);

const agent = new Agent({ keepAliveTimeout: 100, keepAliveMaxTimeout: 100 });
let emu;
let defaults;

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

const submit = (doc, extra = {}, key = KEYS.full, base) =>
	call('POST', '/api/ocr', { key, base, json: { imageBase64: doc.toString('base64'), ...extra } });

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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const invoicePdf = () => docs.makePdf([docs.INVOICE_TEXT, 'Thank you for your business']);
const keysOf = (o) => Object.keys(o).sort();

beforeAll(async () => {
	emu = await startEmulator({ msPerPage: 10, syncMsPerPage: 2, workers: 2 });
	defaults = structuredClone(emu.options);
});

afterAll(async () => {
	await emu.close();
	await agent.close();
});

beforeEach(() => {
	// The default (spec-strict) profile in every test; a test that opts in changes emu.options.
	for (const k of Object.keys(emu.options)) if (!(k in defaults)) delete emu.options[k];
	Object.assign(emu.options, structuredClone(defaults));
	emu.reset();
	emu.resumeQueue();
});

// ------------------------------------------------------------------------ the default adds nothing
describe('the default profile: exactly what the spec shows (spec §2, §4.1)', () => {
	test('submission answer, task (queued and done), list entry and delete carry no field beyond the spec', async () => {
		emu.pauseQueue();
		const r = await submit(docs.makePdf(['one', 'two']), { filename: 'two.pdf' });
		expect(r.json).toEqual({
			success: true,
			taskId: expect.stringMatching(/\S/),
			provider: 'provider-async',
		});
		const id = r.json.taskId;
		const queued = await call('GET', `/api/tasks/${id}`);
		expect(queued.json).toEqual({
			taskId: id,
			provider: 'provider-async',
			status: 'queued',
			metadata: {},
		});
		emu.resumeQueue();
		await emu.waitForTask(id);
		const done = await call('GET', `/api/tasks/${id}`);
		expect(done.json).toEqual({
			taskId: id,
			provider: 'provider-async',
			status: 'done',
			resultText: `one${docs.PAGE_SEPARATOR}two`,
			metadata: {},
		});
		const list = await call('GET', '/api/tasks');
		expect(list.json).toEqual([
			{ taskId: id, provider: 'provider-async', status: 'done', metadata: {} },
		]);
		const d = await call('DELETE', `/api/tasks/${id}`);
		expect([d.status, d.text]).toEqual([200, '']);
	});

	test('none of the hostile profile, no fault, no rate limit, an empty account', () => {
		expect(emu.options).toMatchObject({
			latency: null,
			listShift: null,
			rateLimit: null,
			backlog: 0,
			faults: [],
			maxBodyBytes: 10_000_000,
			maxPageSize: 20,
			completionOrder: 'random',
		});
		expect(emu.tasks).toHaveLength(0);
	});
});

// ------------------------------------------------------------------------ spec §5, §7
describe('authentication and scopes (spec §5, §7)', () => {
	test('missing, invalid, banned, then scope — before the body is read', async () => {
		const notJson = { body: 'not json', headers: { 'content-type': 'application/json' } };
		let r = await call('POST', '/api/ocr', { key: null, ...notJson });
		expect([r.status, r.json]).toEqual([
			401,
			{ error: 'missing_api_key', message: expect.any(String) },
		]);
		r = await call('POST', '/api/ocr', {
			key: null,
			headers: { authorization: 'Basic abc' },
			json: {},
		});
		expect([r.status, r.json.error]).toEqual([401, 'missing_api_key']);
		r = await call('POST', '/api/ocr', { key: 'ocr_nope', ...notJson });
		expect([r.status, r.json.error]).toEqual([401, 'invalid_api_key']);
		r = await call('GET', '/api/tasks', { key: KEYS.banned });
		expect([r.status, r.json.error]).toEqual([403, 'user_banned']);
		r = await call('GET', '/api/tasks', { key: KEYS.submitOnly });
		expect([r.status, r.json.error]).toEqual([403, 'insufficient_scope']);
	});

	test('submit for POST /api/ocr, read for list / get / export, export for DELETE; ocr:read counts as read', async () => {
		const scopeOf = async (key) => {
			const out = {};
			const s = await submit(docs.makePng('x'), {}, key);
			out.submit = s.status;
			for (const [name, method, path] of [
				['list', 'GET', '/api/tasks'],
				['get', 'GET', `/api/tasks/${s.json.taskId}`],
				['export', 'GET', `/api/export/${s.json.taskId}/pdf`],
				['delete', 'DELETE', `/api/tasks/${s.json.taskId}`],
			]) {
				const r = await call(method, path, { key });
				out[name] = r.status === 403 ? r.json.error : 'allowed';
			}
			return out;
		};
		expect(await scopeOf(KEYS.submitOnly)).toEqual({
			submit: 200,
			list: 'insufficient_scope',
			get: 'insufficient_scope',
			export: 'insufficient_scope',
			delete: 'insufficient_scope',
		});
		expect(await scopeOf(KEYS.readAlias)).toEqual({
			submit: 200,
			list: 'allowed',
			get: 'allowed',
			export: 'allowed',
			delete: 'insufficient_scope',
		});
	});
});

// ------------------------------------------------------------------------ spec §4.1, §7, §8
describe('submission: POST /api/ocr (spec §4.1, §7, §8)', () => {
	test('refused — 413 over 10,000,000 bytes (not at), 415 content type or magic bytes, 402 — with no task and no charge', async () => {
		const sized = (n) => {
			const head = '{"imageBase64":"';
			return head + 'A'.repeat(n - head.length - 2) + '"}';
		};
		const json = { 'content-type': 'application/json' };
		let r = await call('POST', '/api/ocr', { body: sized(10_000_001), headers: json });
		expect([r.status, r.json.error]).toEqual([413, 'payload_too_large']);
		r = await call('POST', '/api/ocr', { body: sized(10_000_000), headers: json });
		expect(r.status).not.toBe(413);
		const png = docs.makePng('x').toString('base64');
		r = await call('POST', '/api/ocr', {
			body: JSON.stringify({ imageBase64: png }),
			headers: { 'content-type': 'text/plain' },
		});
		expect([r.status, r.json.error]).toEqual([415, 'unsupported_media_type']);
		r = await submit(Buffer.from('just text'));
		expect([r.status, r.json.error]).toEqual([415, 'unsupported_media_type']);
		r = await submit(docs.makePng('x'), {}, KEYS.broke);
		expect([r.status, r.json.error]).toEqual([402, 'insufficient_pages']);
		expect(emu.ledger()).toEqual([]);
		expect(emu.tasks).toHaveLength(0);
	});

	test('a data URI; provider-sync done when answered; documentType invoice puts the invoice fields in metadata', async () => {
		const png = docs.makePng('from a data URI').toString('base64');
		let r = await call('POST', '/api/ocr', {
			json: { imageBase64: `data:image/png;base64,${png}` },
		});
		expect(r.status).toBe(200);
		r = await submit(docs.makeJpeg('Hello big world'), { provider: 'provider-sync' });
		expect(r.json.provider).toBe('provider-sync');
		let t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect([t.json.status, t.json.resultText]).toEqual(['done', 'Hello big world']);
		r = await submit(invoicePdf(), { documentType: 'invoice' });
		await emu.waitForTask(r.json.taskId);
		t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect(t.json.metadata).toEqual({ invoice: docs.INVOICE_FIELDS });
	});
});

// ------------------------------------------------------------------------ spec §1, §8
describe('page ledger (spec §1, §8)', () => {
	test('pages deducted by page count before processing; a team member spends the owner balance; 402 when short', async () => {
		emu.pauseQueue();
		const r = await submit(invoicePdf());
		expect(emu.balance('acme')).toBe(998);
		expect(emu.getTask(r.json.taskId).status).toBe('queued');
		expect(emu.ledger('acme')).toEqual([
			expect.objectContaining({
				user: 'alice',
				delta: -2,
				reason: 'submit',
				taskId: r.json.taskId,
			}),
		]);
		const m = await submit(docs.makePng('member doc'), {}, KEYS.member);
		expect(m.status).toBe(200);
		expect(emu.balance('acme')).toBe(997);
		expect(emu.ledger('acme')[1]).toMatchObject({ user: 'carol', delta: -1 });
		emu.setBalance('acme', 1);
		const two = await submit(invoicePdf());
		expect([two.status, two.json.error]).toEqual([402, 'insufficient_pages']);
		expect(emu.balance('acme')).toBe(1);
		expect(emu.ledger('acme')).toHaveLength(2);
	});

	test('creation failing after the deduction (fault failCreation): refunded, a 500 that says so, no task', async () => {
		emu.fault({ kind: 'failCreation', path: '/api/ocr' });
		const r = await submit(invoicePdf());
		expect(r.status).toBe(500);
		expect(r.json.message).toMatch(/creation failed.*refunded/i);
		expect(emu.ledger().map((e) => [e.reason, e.delta])).toEqual([
			['submit', -2],
			['refund', 2],
		]);
		expect(emu.balance('acme')).toBe(1000);
		expect(emu.tasks).toHaveLength(0);
		expect((await submit(invoicePdf())).status).toBe(200); // once
	});
});

// ------------------------------------------------------------------------ spec §2, §3, §4.1, §9
describe('tasks (spec §2, §3, §4.1, §9)', () => {
	test('queued, processing, done; the test texts FAIL (failed) and STUCK (processing forever), and failNextTasks', async () => {
		emu.options.msPerPage = 50;
		const ok = await submit(docs.makePng('fine'));
		await emu.waitForTask(ok.json.taskId, { status: 'processing' });
		expect((await call('GET', `/api/tasks/${ok.json.taskId}`)).json.status).toBe('processing');
		const fail = await submit(docs.makePng('this scan will FAIL'));
		emu.failNextTasks(1);
		const next = await submit(docs.makePng('fine, but the next one fails'));
		const stuck = await submit(docs.makePng('STUCK forever'));
		for (const id of [ok.json.taskId, fail.json.taskId, next.json.taskId])
			await emu.waitForTask(id);
		await sleep(100);
		const status = async (r) => {
			const t = (await call('GET', `/api/tasks/${r.json.taskId}`)).json;
			return [t.status, t.resultText];
		};
		expect(await status(ok)).toEqual(['done', 'fine']);
		expect(await status(fail)).toEqual(['failed', undefined]);
		expect(await status(next)).toEqual(['failed', undefined]);
		expect(await status(stuck)).toEqual(['processing', undefined]);
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

	test('404 not_found for an unknown task and for another account’s; a team member sees the owner’s', async () => {
		const r = await submit(docs.makePng('x'));
		const id = r.json.taskId;
		expect((await call('GET', `/api/tasks/${id}`, { key: KEYS.member })).status).toBe(200);
		for (const [method, path, key] of [
			['GET', `/api/tasks/${id}`, KEYS.broke],
			['DELETE', `/api/tasks/${id}`, KEYS.broke],
			['GET', '/api/tasks/tsk_missing', KEYS.full],
			['DELETE', '/api/tasks/tsk_missing', KEYS.full],
		]) {
			const a = await call(method, path, { key });
			expect([method, path, a.status, a.json.error]).toEqual([method, path, 404, 'not_found']);
		}
	});

	test('list: page 1 and pageSize 20 by default, a larger pageSize capped at 20 (maxPageSize), newest first, status=done filter', async () => {
		emu.pauseQueue();
		const ids = [];
		for (let i = 0; i < 25; i++) ids.push((await submit(docs.makePng(`doc ${i}`))).json.taskId);
		const newest = [...ids].reverse();
		const page = async (q) => (await call('GET', `/api/tasks${q}`)).json.map((t) => t.taskId);
		expect(await page('')).toEqual(newest.slice(0, 20));
		expect(await page('?pageSize=100')).toEqual(newest.slice(0, 20));
		expect(await page('?page=2&pageSize=20')).toEqual(newest.slice(20));
		expect(await page('?page=2&pageSize=3')).toEqual(newest.slice(3, 6));
		emu.options.maxPageSize = 10; // opt-in: another cap (money.test.js, invariants-ops.js)
		expect(await page('?pageSize=100')).toHaveLength(10);
		emu.options.maxPageSize = 20;
		emu.resumeQueue();
		await emu.waitForTask(ids[3]);
		await emu.waitForTask(ids[7]);
		const done = await page('?status=done&pageSize=20');
		expect(done).toEqual(expect.arrayContaining([ids[3], ids[7]]));
		expect(done.every((id) => emu.getTask(id).status === 'done')).toBe(true);
	});

	test('export of a done task as docx, xlsx, pdf with type and file name; 409 before; 404 once deleted', async () => {
		emu.pauseQueue();
		const r = await submit(invoicePdf(), { filename: 'scans/invoice-42.pdf' });
		const id = r.json.taskId;
		let e = await call('GET', `/api/export/${id}/docx`);
		expect([e.status, e.json.error]).toEqual([409, 'task_not_ready']);
		emu.resumeQueue();
		await emu.waitForTask(id);
		for (const [format, type, magic] of [
			[
				'docx',
				'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
				'PK\x03\x04',
			],
			['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'PK\x03\x04'],
			['pdf', 'application/pdf', '%PDF'],
		]) {
			e = await call('GET', `/api/export/${id}/${format}`);
			expect([e.status, e.headers['content-type']]).toEqual([200, type]);
			expect(e.headers['content-disposition']).toBe(`attachment; filename="invoice-42.${format}"`);
			expect(e.buf.subarray(0, 4).toString('latin1')).toBe(magic);
		}
		expect((await call('DELETE', `/api/tasks/${id}`)).status).toBe(200);
		expect((await call('GET', `/api/tasks/${id}`)).status).toBe(404);
		expect((await call('GET', `/api/export/${id}/pdf`)).status).toBe(404);
	});

	test('the OpenAPI description of /api carries version 1.1.0', async () => {
		const r = await call('GET', '/api/openapi.json');
		expect([r.status, r.json.info.version]).toEqual([200, '1.1.0']);
	});
});

// ------------------------------------------------------------------------ spec §4.2
describe('/api/v2/ocr (spec §4.2)', () => {
	test('the answer exactly as shown, filename required, charged, read with the task API (markdown format)', async () => {
		const r = await call('POST', '/api/v2/ocr', {
			json: {
				imageBase64: invoicePdf().toString('base64'),
				filename: 'inv.pdf',
				options: { format: 'markdown', highFidelityTables: true, formulas: false },
			},
		});
		expect(r.json).toEqual({
			taskId: expect.stringMatching(/\S/),
			status: 'queued',
			estimatedSeconds: expect.any(Number),
			pages: 2,
			creditsUsed: 2,
		});
		expect(emu.ledger()).toEqual([expect.objectContaining({ delta: -2, taskId: r.json.taskId })]);
		await emu.waitForTask(r.json.taskId);
		const t = await call('GET', `/api/tasks/${r.json.taskId}`);
		expect(t.json.resultText).toMatch(/^# ACME GmbH\n\nInvoice Number: INV-2026-0042/);
		const bad = await call('POST', '/api/v2/ocr', {
			json: { imageBase64: docs.makePng('x').toString('base64') },
		});
		expect([bad.status, bad.json.error]).toEqual([400, 'bad_request']);
	});
});

// ------------------------------------------------------------------------ spec §4.3
describe('/v1 (spec §4.3)', () => {
	test('markdown {id, pages, markdown}; ocr and extract with no id (the default); PDF/PNG/JPEG/WEBP only', async () => {
		let r = await multipart('/v1/markdown', { file: { data: invoicePdf(), filename: 'inv.pdf' } });
		expect(r.json).toEqual({
			id: expect.any(String),
			pages: 2,
			markdown: expect.stringMatching(/^# ACME GmbH\n\n/),
		});
		r = await multipart('/v1/ocr', {
			file: { data: docs.makeWebp('line one\nline two'), filename: 'a.webp' },
		});
		expect(keysOf(r.json)).toEqual(['blocks', 'text']);
		expect(r.json.text).toBe('line one\nline two');
		const schema = JSON.stringify({
			type: 'object',
			properties: { invoice_number: { type: 'string' } },
		});
		r = await multipart('/v1/extract', {
			file: { data: docs.makePng(docs.INVOICE_TEXT), filename: 'i.png' },
			schema,
		});
		expect(r.json).toEqual({ data: { invoice_number: 'INV-2026-0042' } });
		expect(emu.ledger().map((e) => e.endpoint)).toEqual([
			'POST /v1/markdown',
			'POST /v1/ocr',
			'POST /v1/extract',
		]);
		for (const [data, filename] of [
			[docs.makeTiff('t'), 't.tiff'],
			[docs.makeGif('g'), 'g.gif'],
		]) {
			r = await multipart('/v1/ocr', { file: { data, filename } });
			expect([r.status, r.json.error]).toEqual([415, 'unsupported_media_type']);
		}
		expect(emu.ledger()).toHaveLength(3);
	});

	test('jobs: created {id, status}, polled to {id, status, result}; FAIL fails it; 404 for an unknown job', async () => {
		let r = await multipart('/v1/jobs', {
			file: { data: docs.makePdf(['Job page']), filename: 'job.pdf' },
			priority: 'high',
		});
		expect(r.json).toEqual({ id: expect.any(String), status: 'queued' });
		await emu.waitForTask(r.json.id);
		let j = await call('GET', `/v1/jobs/${r.json.id}`);
		expect(keysOf(j.json)).toEqual(['id', 'result', 'status']);
		expect([j.json.status, j.json.result.text]).toEqual(['done', 'Job page']);
		expect(emu.jobMap.get(r.json.id).fields).toEqual({ priority: 'high' });
		r = await multipart('/v1/jobs', { file: { data: docs.makePng('FAIL'), filename: 'f.png' } });
		await emu.waitForTask(r.json.id);
		j = await call('GET', `/v1/jobs/${r.json.id}`);
		expect(j.json).toEqual({ id: r.json.id, status: 'failed' });
		j = await call('GET', '/v1/jobs/job_nope');
		expect([j.status, j.json.error]).toEqual([404, 'not_found']);
	});
});

// ------------------------------------------------------------------------ spec §6
describe('webhooks (spec §6)', () => {
	let receiver;
	let received;
	let hookUrl;

	beforeAll(async () => {
		receiver = http.createServer((req, res) => {
			const chunks = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
				res.writeHead(200).end('ok');
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
	});

	/** The spec's rule, written here again: HMAC-SHA256, hex, over `<timestamp>.<nonce>.<raw_body>`. */
	const verify = (secret, h, raw) =>
		h['x-webhook-signature'] ===
		`sha256=${crypto.createHmac('sha256', secret).update(`${h['x-webhook-timestamp']}.${h['x-webhook-nonce']}.${raw}`).digest('hex')}`;

	test('ocr.done and ocr.failed, signed over timestamp.nonce.raw body, with the three headers only and {event, data: {taskId, status}}', async () => {
		emu.addWebhook({ url: hookUrl, secret: 'whsec_test' });
		const good = await submit(docs.makePng('hooked'));
		const bad = await submit(docs.makePng('FAIL'));
		await emu.waitForTask(good.json.taskId);
		await emu.waitForTask(bad.json.taskId);
		await emu.webhooksIdle();
		const bodies = received.map((d) => JSON.parse(d.raw));
		expect(bodies).toEqual(
			expect.arrayContaining([
				{ event: 'ocr.done', data: { taskId: good.json.taskId, status: 'done' } },
				{ event: 'ocr.failed', data: { taskId: bad.json.taskId, status: 'failed' } },
			]),
		);
		expect(bodies).toHaveLength(2);
		for (const { headers, raw } of received) {
			expect(
				Object.keys(headers)
					.filter((k) => k.startsWith('x-'))
					.sort(),
			).toEqual(['x-webhook-nonce', 'x-webhook-signature', 'x-webhook-timestamp']);
			expect(headers['x-webhook-timestamp']).toMatch(/^\d{10}$/); // the default: Unix seconds
			expect(verify('whsec_test', headers, raw)).toBe(true);
			expect(verify('whsec_other', headers, raw)).toBe(false);
		}
	});

	test('redeliver sends a delivery again byte for byte; deliverRaw sends what it is given', async () => {
		emu.addWebhook({ url: hookUrl, secret: 's' });
		const r = await submit(docs.makePng('replayed'));
		await emu.waitForTask(r.json.taskId);
		await emu.webhooksIdle();
		await emu.redeliver(0);
		expect(received).toHaveLength(2);
		expect(received[1].raw).toBe(received[0].raw);
		for (const h of ['x-webhook-nonce', 'x-webhook-timestamp', 'x-webhook-signature'])
			expect(received[1].headers[h]).toBe(received[0].headers[h]);
		const forged = await emu.deliverRaw({
			url: hookUrl,
			body: '{"event":"ocr.done"}',
			headers: { 'x-webhook-signature': 'sha256=00' },
		});
		expect(forged.status).toBe(200);
		expect([received[2].raw, received[2].headers['x-webhook-signature']]).toEqual([
			'{"event":"ocr.done"}',
			'sha256=00',
		]);
	});
});

// ------------------------------------------------------------------------ opt-in variants
describe('opt-in variants other tests use (docs/service-contract.md, "Variants: one table")', () => {
	test("fields 'rich': a task with documentType, filename, pages, timestamps, words (sync) and error text (failed)", async () => {
		emu.options.fields = 'rich';
		const sync = await submit(docs.makeJpeg('Hello big world'), {
			provider: 'provider-sync',
			filename: 'a.jpg',
		});
		let t = (await call('GET', `/api/tasks/${sync.json.taskId}`)).json;
		expect(t).toMatchObject({ documentType: 'general', filename: 'a.jpg', pages: 1 });
		expect(Date.parse(t.createdAt)).toBeLessThanOrEqual(Date.parse(t.updatedAt));
		expect(t.words.map((w) => w.text)).toEqual(['Hello', 'big', 'world']);
		expect(t.words[0]).toEqual({
			text: 'Hello',
			page: 1,
			confidence: expect.any(Number),
			bbox: expect.any(Object),
		});
		const failed = await submit(docs.makePng('FAIL'));
		await emu.waitForTask(failed.json.taskId);
		t = (await call('GET', `/api/tasks/${failed.json.taskId}`)).json;
		expect(t.error).toBe('Could not recognise the document (unreadable scan)');
	});

	test("shapes.list: 'items', 'data', 'tasks' and the default bare array", async () => {
		for (let i = 0; i < 3; i++) await submit(docs.makePng(`doc ${i}`));
		const shapes = {
			items: (j) =>
				expect(j).toMatchObject({ items: expect.any(Array), page: 1, pageSize: 2, total: 3 }),
			data: (j) =>
				expect(j).toMatchObject({
					data: expect.any(Array),
					pagination: { page: 1, pageSize: 2, total: 3, totalPages: 2 },
				}),
			tasks: (j) => expect(keysOf(j)).toEqual(['tasks', 'total']),
			array: (j) => expect(Array.isArray(j)).toBe(true),
		};
		for (const [shape, check] of Object.entries(shapes)) {
			emu.options.shapes.list = shape;
			const r = await call('GET', '/api/tasks?pageSize=2');
			check(r.json);
			const entries = Array.isArray(r.json) ? r.json : r.json[shape];
			expect([shape, entries.length]).toEqual([shape, 2]);
		}
	});

	test("shapes.task: 'data' and 'task' wrap the record", async () => {
		const id = (await submit(docs.makePng('x'))).json.taskId;
		emu.options.shapes.task = 'data';
		expect((await call('GET', `/api/tasks/${id}`)).json.data.taskId).toBe(id);
		emu.options.shapes.task = 'task';
		expect((await call('GET', `/api/tasks/${id}`)).json).toMatchObject({
			success: true,
			task: { taskId: id },
		});
	});

	test('shapes.error (flat by default, nested, code, text) and shapes.v1Error for /v1 only', async () => {
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
			check(await call('GET', '/api/tasks', { key: 'bad' }));
		}
		emu.options.shapes.error = 'flat';
		emu.options.shapes.v1Error = 'nested';
		expect((await call('POST', '/v1/ocr', { key: 'bad' })).json.error.code).toBe('invalid_api_key');
		expect((await call('GET', '/api/tasks', { key: 'bad' })).json.error).toBe('invalid_api_key');
	});

	test('statuses: renamed values in the task, the list filter and the v2 answer', async () => {
		emu.options.statuses = {
			queued: 'pending',
			processing: 'needs_review',
			done: 'completed',
			failed: 'error',
		};
		emu.pauseQueue();
		const v2 = await call('POST', '/api/v2/ocr', {
			json: { imageBase64: docs.makePng('v2').toString('base64'), filename: 'v2.png' },
		});
		expect(v2.json.status).toBe('pending');
		const ok = await submit(docs.makePng('ok'));
		const bad = await submit(docs.makePng('FAIL'));
		expect((await call('GET', `/api/tasks/${ok.json.taskId}`)).json.status).toBe('pending');
		emu.resumeQueue();
		await emu.waitForTask(ok.json.taskId);
		await emu.waitForTask(bad.json.taskId);
		expect((await call('GET', `/api/tasks/${ok.json.taskId}`)).json.status).toBe('completed');
		expect((await call('GET', `/api/tasks/${bad.json.taskId}`)).json.status).toBe('error');
		const l = await call('GET', '/api/tasks?status=completed');
		expect(l.json.map((t) => t.taskId)).toContain(ok.json.taskId);
		expect(l.json.map((t) => t.status)).toEqual(l.json.map(() => 'completed'));
	});

	test("listOrder 'oldest': the oldest task first", async () => {
		const ids = [];
		for (let i = 0; i < 3; i++) ids.push((await submit(docs.makePng(`doc ${i}`))).json.taskId);
		emu.options.listOrder = 'oldest';
		expect((await call('GET', '/api/tasks')).json.map((t) => t.taskId)).toEqual(ids);
	});

	test('pollRetryAfterSeconds: Retry-After on a status read until the task is final', async () => {
		emu.options.pollRetryAfterSeconds = 2;
		emu.pauseQueue();
		const r = await submit(docs.makePng('x'));
		expect((await call('GET', `/api/tasks/${r.json.taskId}`)).headers['retry-after']).toBe('2');
		emu.resumeQueue();
		await emu.waitForTask(r.json.taskId);
		expect(
			(await call('GET', `/api/tasks/${r.json.taskId}`)).headers['retry-after'],
		).toBeUndefined();
	});

	test('separateApiServer: /v1 on the API URL only, the task API on the base URL only', async () => {
		const e2 = await startEmulator({ separateApiServer: true, msPerPage: 5 });
		try {
			expect(e2.apiUrl).not.toBe(e2.url);
			const file = { file: { data: docs.makePng('sep'), filename: 's.png' } };
			expect((await multipart('/v1/markdown', file, { base: e2.apiUrl })).json.markdown).toBe(
				'# sep\n',
			);
			expect((await multipart('/v1/markdown', file, { base: e2.url })).status).toBe(404);
			expect((await call('GET', '/api/tasks', { base: e2.apiUrl })).status).toBe(404);
			expect((await call('GET', '/api/tasks', { base: e2.url })).status).toBe(200);
		} finally {
			await e2.close();
		}
	});
});

// ------------------------------------------------------------------------ faults (emulator/faults.js)
describe('faults other tests inject (emulator/faults.js)', () => {
	const png = docs.makePng('x');
	// Each answers in place of the service, which does nothing: no task, no charge.
	test.each([
		['status', {}, (r) => expect([r.status, r.json.error]).toEqual([503, 'service_unavailable'])],
		[
			'status',
			{ status: 500, code: 'boom', message: 'custom', retryAfter: 4 },
			(r) =>
				expect([r.status, r.json, r.headers['retry-after']]).toEqual([
					500,
					{ error: 'boom', message: 'custom' },
					'4',
				]),
		],
		[
			'rateLimit',
			{ retryAfter: 0.2 },
			(r) =>
				expect([r.status, r.json.error, r.headers['retry-after']]).toEqual([
					429,
					'rate_limited',
					'0.2',
				]),
		],
		['quota', {}, (r) => expect([r.status, r.json.error]).toEqual([429, 'daily_quota_exceeded'])],
		[
			'html',
			{},
			(r) =>
				expect([r.status, r.headers['content-type'], r.text]).toEqual([
					502,
					expect.stringMatching(/^text\/html/),
					expect.stringContaining('502 Bad Gateway'),
				]),
		],
		[
			'truncatedJson',
			{},
			(r) =>
				expect([r.status, r.headers['content-type'], r.text]).toEqual([
					200,
					'application/json',
					'{"taskId": "tsk_',
				]),
		],
		[
			'body',
			{ status: 200, body: { results: [] } },
			(r) => expect([r.status, r.json]).toEqual([200, { results: [] }]),
		],
		[
			'body',
			{ status: 201, contentType: 'text/csv', body: 'a,b' },
			(r) =>
				expect([r.status, r.headers['content-type'], r.text]).toEqual([201, 'text/csv', 'a,b']),
		],
	])('%s %j', async (kind, rule, check) => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind, ...rule });
		check(await submit(png));
		expect([emu.tasks.length, emu.ledger().length]).toEqual([0, 0]);
		expect((await submit(png)).status).toBe(200); // once by default
	});

	test('reset: the connection is dropped, nothing is created', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'reset' });
		await expect(submit(png)).rejects.toThrow();
		expect([emu.tasks.length, emu.ledger().length]).toEqual([0, 0]);
	});

	test('latency: the answer waits ms, then comes as usual', async () => {
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'latency', ms: 120 });
		const t0 = Date.now();
		expect((await call('GET', '/api/tasks')).status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
	});

	test('actThenError: the task is created and charged, the answer is a 502 gateway page', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'actThenError' });
		const r = await submit(docs.makePdf(['acted']));
		expect([r.status, r.text]).toEqual([502, expect.stringContaining('Bad Gateway')]);
		expect([emu.tasks.length, emu.ledger().length]).toEqual([1, 1]);
	});

	test('lostResponse: the task is created and charged once, the connection dropped', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse' });
		await expect(submit(invoicePdf())).rejects.toThrow();
		expect([emu.tasks.length, emu.ledger().length, emu.balance('acme')]).toEqual([1, 1, 998]);
	});

	test('rules: method and path prefix, times, every k-th, seeded probability', async () => {
		emu.fault({ method: 'POST', path: '/api/tasks', kind: 'status' });
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'status', every: 2, times: 2 });
		const seen = [];
		for (let i = 0; i < 6; i++) seen.push((await call('GET', '/api/tasks')).status);
		expect(seen).toEqual([200, 503, 200, 503, 200, 200]);
		const draw = async () => {
			emu.reset(); // reseeds
			emu.fault({ path: '/api/tasks/', kind: 'status', probability: 0.5 });
			const s = [];
			for (let i = 0; i < 20; i++) s.push((await call('GET', '/api/tasks/tsk_x')).status);
			return s;
		};
		const a = await draw();
		expect(await draw()).toEqual(a);
		expect(a).toEqual(expect.arrayContaining([503, 404]));
	});
});

// ------------------------------------------------------------------------ hostile profile
describe('hostile profile (emulator/profiles.js; docs/service-contract.md "The hostile profile")', () => {
	let hostile;
	const quiet = { profile: 'hostile', timeScale: 0, backlog: 0, rateLimit: null };

	afterEach(async () => {
		await hostile?.close();
		hostile = undefined;
	});

	test('every answer slowed by a seeded time in the scaled range; a backlog of finished tasks; 3 % of submissions lost after acting', async () => {
		hostile = await startEmulator({ profile: 'hostile', seed: 5, timeScale: 0.01 });
		expect(hostile.options.latency).toEqual({ '*': [5, 50] });
		expect(hostile.tasks).toHaveLength(2_000);
		expect(hostile.tasks.every((t) => t.status === 'done' || t.status === 'failed')).toBe(true);
		expect(hostile.options.faults.map((f) => [f.kind, f.probability])).toEqual([
			['actThenError', 0.03],
			['lostResponse', 0.03],
		]);
		hostile.options.listShift = null;
		const times = [];
		for (let i = 0; i < 8; i++) {
			const started = Date.now();
			await call('GET', `/api/tasks/${hostile.tasks[i].taskId}`, { base: hostile.url });
			times.push(Date.now() - started);
		}
		expect(Math.min(...times)).toBeGreaterThanOrEqual(4);
		expect(Math.max(...times)).toBeLessThan(300);
		expect(new Set(times).size).toBeGreaterThan(1);
	});

	test('rateLimit: 429 rate_limited with Retry-After in seconds', async () => {
		hostile = await startEmulator({ ...quiet, rateLimit: { perSecond: 2 } });
		const answers = [];
		for (let i = 0; i < 4; i++)
			answers.push(await call('GET', '/api/tasks', { base: hostile.url }));
		expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
		const limited = answers.find((a) => a.status === 429);
		expect(limited.json.error).toBe('rate_limited');
		expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
	});

	test('listShift: the team member submits after a page is answered, on the shared balance, so page 2 repeats page 1', async () => {
		hostile = await startEmulator({
			...quiet,
			backlog: 30,
			listShift: { probability: 1, tasks: 20, times: 1 },
		});
		const ids = async (page) =>
			(await call('GET', `/api/tasks?page=${page}`, { base: hostile.url })).json.map(
				(t) => t.taskId,
			);
		const first = await ids(1);
		expect(await ids(2)).toEqual(first);
		expect(hostile.ledger('acme')).toHaveLength(20);
		expect(hostile.ledger('acme').every((e) => e.user === 'carol' && e.delta === -1)).toBe(true);
	});

	test('storm: tasks after every page answered for its time, pages clamped to its page size', async () => {
		hostile = await startEmulator({
			...quiet,
			timeScale: 0.001,
			hostile: { storm: { tasks: 5, ms: 150_000, pageSize: 5 } },
		});
		const read = async () =>
			(await call('GET', '/api/tasks?pageSize=20', { base: hostile.url })).json.length;
		expect(await read()).toBe(0);
		expect(await read()).toBe(5);
		expect(await read()).toBe(5); // 10 tasks, pages of 5
		expect(hostile.ledger('acme')).toHaveLength(15);
		await sleep(200);
		await read();
		expect(hostile.ledger('acme')).toHaveLength(15);
	});

	test('echo: the request answered back, Authorization included; on a submission after it was created and charged', async () => {
		hostile = await startEmulator({ ...quiet, hostile: { echo: 1, lostAfterAct: 0 } });
		const read = await call('GET', '/api/tasks/tsk_x', { base: hostile.url });
		expect(read.json).toMatchObject({ method: 'GET', path: '/api/tasks/tsk_x' });
		expect(read.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		const sent = await submit(docs.makePdf(['echoed']), {}, KEYS.full, hostile.url);
		expect(sent.json.headers.authorization).toBe(`Bearer ${KEYS.full}`);
		expect([hostile.tasks.length, hostile.ledger().length]).toEqual([1, 1]);
	});

	test('crossOriginRedirect: reads sent to another origin, which records what it gets and answers 403', async () => {
		hostile = await startEmulator({ ...quiet, hostile: { crossOriginRedirect: 1 } });
		expect(hostile.otherOriginUrl).not.toBe(hostile.url);
		const r = await call('GET', '/api/tasks/tsk_x?a=1', { base: hostile.url });
		expect([r.status, r.headers.location]).toEqual([
			307,
			`${hostile.otherOriginUrl}/api/tasks/tsk_x?a=1`,
		]);
		const other = await call('GET', '/api/tasks/tsk_x', { base: hostile.otherOriginUrl });
		expect(other.status).toBe(403);
		expect(hostile.otherOriginLog.map((e) => e.headers.authorization)).toEqual([
			`Bearer ${KEYS.full}`,
		]);
	});

	test('wrongShape: a 2xx of {}, [], null, HTML or a string (seeded); on a submission after it was created and charged', async () => {
		hostile = await startEmulator({ ...quiet, hostile: { wrongShape: 1, lostAfterAct: 0 } });
		const bodies = new Set();
		for (let i = 0; i < 12; i++)
			bodies.add((await call('GET', '/api/tasks', { base: hostile.url })).text);
		expect(bodies.size).toBeGreaterThan(2);
		for (const body of bodies)
			expect(['{}', '[]', 'null', '"ok"']).toContain(body.startsWith('<') ? '{}' : body);
		const sent = await submit(docs.makePdf(['shaped']), {}, KEYS.full, hostile.url);
		expect(sent.status).toBe(200);
		expect(sent.json?.taskId).toBeUndefined();
		expect([hostile.tasks.length, hostile.ledger().length]).toEqual([1, 1]);
	});
});
