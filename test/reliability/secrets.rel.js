'use strict';
/**
 * Secrets: the API key and the webhook signing secret never appear in node output, error
 * messages, error descriptions or logs. The harness scans every run of every suite for every key
 * and secret it was given (test/harness/secrets.js: run data of all nodes, the error with its
 * context, every log line n8n or the node writes). This suite first proves that scan catches a
 * leak, then drives the paths where a key is most likely to escape: a service that echoes the key
 * or its Authorization header back in errors, in every body shape and status, connection failures,
 * the credential test, the trigger. Figures printed at the end.
 */
const crypto = require('node:crypto');
const { request } = require('undici');
const h = require('../helpers');
const secrets = require('../harness/secrets');
const { startTriggerServer, runWorkflow } = require('../harness');
const { signatureHeader } = require('../../emulator/sign');
const report = require('./report');

const emu = h.useEmulator();
const KEY = h.FULL_KEY;
const WEBHOOK_SECRET = 'whsec_reliability_5f1e0c9a7b3d';

const rows = [];
const startCounts = { ...secrets.counts };

afterEach(() => {
	emu.clearFaults();
	emu.options.shapes.error = 'flat';
});

/** Expects no trace of the key anywhere in the error, and records the case. */
function expectClean(label, error, output = []) {
	const everything = secrets.serialise({ error, output });
	expect(everything).not.toContain(KEY);
	expect(everything).not.toContain(WEBHOOK_SECRET);
	rows.push([
		label,
		error ? String(error.message).slice(0, 80) : 'no error',
		/\[redacted\]/.test(everything) ? 'redacted' : 'not present',
	]);
}

describe('the scan itself catches a leak', () => {
	test('a key planted in an item fails the run with SECRET LEAK', async () => {
		const nodes = [
			{
				id: 'i',
				name: 'Input',
				type: 'test.input',
				typeVersion: 1,
				position: [0, 0],
				parameters: { items: JSON.stringify([{ json: { note: `my key is ${KEY}` } }]) },
			},
		];
		await secrets.planted(async () => {
			await expect(
				runWorkflow({
					nodes,
					connections: {},
					credentials: h.credentials(emu),
					resultNode: 'Input',
				}).promise,
			).rejects.toThrow(/SECRET LEAK in the run data/);
		});
		rows.push(['planted key in an item (self-check)', 'SECRET LEAK reported', 'detected']);
	});

	test('a key planted in a log line fails the run that logged it', async () => {
		await secrets.planted(() => {
			secrets.capturingLogger.warn(`oops ${KEY}`);
			expect(() => secrets.assertLogsClean()).toThrow(/SECRET LEAK in log \(warn\)/);
		});
		rows.push(['planted key in a log line (self-check)', 'SECRET LEAK reported', 'detected']);
	});

	test('the Base64 form of a key is caught too', async () => {
		await secrets.planted(() => {
			expect(() =>
				secrets.scan('a header', { authorization: `Basic ${Buffer.from(KEY).toString('base64')}` }),
			).toThrow(/SECRET LEAK/);
		});
		rows.push(['planted Base64 of the key (self-check)', 'SECRET LEAK reported', 'detected']);
	});
});

describe('a service that echoes the key back', () => {
	const echo = `Key ${KEY} is not valid (Authorization: Bearer ${KEY})`;
	for (const shape of ['flat', 'nested', 'code', 'text']) {
		test.each([
			['submit, 401', 'POST', '/api/ocr', 401, 'invalid_api_key', h.submit()],
			[
				'status check, 503 on every retry',
				'GET',
				'/api/tasks/',
				503,
				'service_unavailable',
				h.submit(),
			],
			[
				'export, 403',
				'GET',
				'/api/export/',
				403,
				'insufficient_scope',
				h.task('export', { taskId: 'tsk_1', format: 'pdf', binaryPropertyName: 'data' }),
			],
		])(`${shape} body: %s`, async (label, method, path, status, code, parameters) => {
			emu.options.shapes.error = shape;
			emu.fault({ method, path, kind: 'status', status, code, message: echo, times: 10 });
			const { error, output } = await h.run(emu, parameters, [h.pdfItem()]);
			expect(error).toBeDefined();
			expect(`${error.message} ${error.description}`).toContain('[redacted]');
			expectClean(`echoed key, ${shape} body, ${label}`, error, output);
		});
	}

	test('an HTML error page quoting the Authorization header', async () => {
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'body',
			status: 400,
			contentType: 'text/html',
			body: `<html><h1>Bad request</h1><pre>Authorization: Bearer ${KEY}</pre></html>`,
			times: 1,
		});
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expectClean('echoed key in an HTML page', error);
	});

	test('with Continue on Fail the error lands in the item, still without the key', async () => {
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status: 400,
			code: 'bad_request',
			message: echo,
			times: 1,
		});
		const { output, error } = await h.run(emu, h.submit(), [h.pdfItem()], { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeDefined();
		expectClean('echoed key, Continue on Fail item', undefined, output);
	});
});

describe('other paths', () => {
	test('a wrong key is never quoted back', async () => {
		const wrong = 'ocr_live_wrong_0123456789';
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()], { apiKey: wrong });
		expect(error.message).toMatch(/refused the API key/);
		expect(secrets.serialise(error)).not.toContain(wrong);
		rows.push(['a wrong key', String(error.message).slice(0, 80), 'not present']);
	});

	test('connection refused and an unreachable host', async () => {
		for (const baseUrl of ['http://127.0.0.1:9', 'http://ocr.invalid']) {
			const { error } = await h.run(emu, h.submit(), [h.pdfItem()], {
				creds: { apiKey: KEY, baseUrl, apiUrl: '' },
			});
			expect(error).toBeDefined();
			expectClean(`no connection (${baseUrl})`, error);
		}
	});

	test('the credential test, with a good and a wrong key', async () => {
		const good = await h.testCredential(h.credentials(emu));
		const bad = await h.testCredential(h.credentials(emu, 'ocr_live_wrong_key_42'));
		expect(good.status).toBe('OK');
		expect(bad.status).toBe('Error');
		expect(JSON.stringify([good, bad])).not.toMatch(/ocr_test_full|ocr_live_wrong_key_42/);
		rows.push([
			'credential test (good / wrong key)',
			`${good.status} / ${bad.message.slice(0, 60)}`,
			'not present',
		]);
	});

	test('the trigger: valid, forged and replayed deliveries, with task details fetched', async () => {
		const trigger = await startTriggerServer({
			parameters: { events: ['ocr.done', 'ocr.failed'], includeTaskDetails: true, options: {} },
			credentials: {
				documentOcrWebhookApi: { secret: WEBHOOK_SECRET },
				documentOcrApi: h.credentials(emu),
			},
		});
		try {
			const submitted = await h.run(emu, h.submit({ waitForCompletion: false }), [
				h.pdfItem('trigger secret test'),
			]);
			const taskId = submitted.output[0].json.taskId;
			const body = JSON.stringify({
				id: `evt_${crypto.randomUUID()}`,
				event: 'ocr.done',
				data: { taskId, status: 'done' },
			});
			const send = async (secret, nonce = crypto.randomBytes(8).toString('hex')) => {
				const timestamp = String(Math.floor(Date.now() / 1000));
				const headers = {
					'content-type': 'application/json',
					'x-webhook-signature': signatureHeader(secret, timestamp, nonce, body),
					'x-webhook-timestamp': timestamp,
					'x-webhook-nonce': nonce,
				};
				const res = await request(trigger.url, { method: 'POST', headers, body });
				return { status: res.statusCode, text: await res.body.text() };
			};
			await emu.waitForTask?.(taskId, 'done');
			const answers = [
				await send(WEBHOOK_SECRET, 'n-1'),
				await send('whsec_forged'),
				await send(WEBHOOK_SECRET, 'n-1'),
			];
			expect(answers.map((a) => a.status)).toEqual([200, 401, 200]);
			expect(trigger.executions).toHaveLength(1);
			const everything = secrets.serialise({ answers, executions: trigger.executions });
			expect(everything).not.toContain(WEBHOOK_SECRET);
			expect(everything).not.toContain(KEY);
			rows.push([
				'trigger: valid / forged / replay (+ task details)',
				answers.map((a) => a.status).join(' / '),
				'not present',
			]);
		} finally {
			await trigger.close();
		}
	});
});

afterAll(() => {
	const c = secrets.counts;
	report.table(
		`Secrets — ${rows.length} leak-prone paths; this suite's scan: ${c.scans - startCounts.scans} outputs/errors, ${c.logLines - startCounts.logLines} log lines, ${c.leaks - startCounts.leaks} leaks (${c.planted - startCounts.planted} planted by the self-check, all caught)`,
		['path', 'outcome', 'key / secret in output, errors, logs'],
		rows,
	);
});
