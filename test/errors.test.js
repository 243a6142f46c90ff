'use strict';
const http = require('node:http');
const h = require('./helpers');

const emu = h.useEmulator();
afterEach(() => {
	emu.clearFaults();
	emu.options.shapes.error = 'flat';
});

/*
 * The message for every code × body shape is the fast tier's (test/fast/DocumentOcr/transport/
 * errors.test.ts). Here: each body shape once, through the real engine, from the emulator's own
 * error answers — the node surfaces a NodeApiError with the mapped message, the service's text,
 * the HTTP code and the item, and never the key.
 */
const CASES = [
	['flat', 'insufficient_pages', 402, /no page balance left/, /Nothing was charged/],
	['nested', 'unsupported_media_type', 415, /does not accept this file type/, /Send a PDF/],
	['code', 'user_banned', 403, /account is banned/, /Contact the service/],
	['text', 'daily_quota_exceeded', 429, /daily quota/, /after the quota resets/],
];

describe('a service error in every body shape reaches the user as a message that says what to do', () => {
	test.each(CASES)('%s body: %s', async (shape, code, status, message, description) => {
		emu.options.shapes.error = shape;
		emu.fault({
			method: 'POST',
			path: '/api/ocr',
			kind: 'status',
			status,
			code,
			message: `Service text for ${code}`,
			times: 1,
		});
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(description);
		expect(error.description).toContain(`Service text for ${code}`);
		expect(error.httpCode).toBe(String(status));
		expect(error.context.itemIndex).toBe(0);
		const everything = JSON.stringify({
			message: error.message,
			description: error.description,
			context: error.context,
		});
		expect(everything).not.toContain(h.FULL_KEY);
	});

	test('a real wrong key (from the emulator, not a fault) is reported as such, without the key', async () => {
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()], { apiKey: 'ocr_wrong_key_123' });
		expect(error.message).toBe('The OCR service refused the API key');
		expect(JSON.stringify(error)).not.toContain('ocr_wrong_key_123');
	});

	test('an HTML error page yields its heading, not the markup', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'html', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(/HTTP 502/);
		expect(error.description).toMatch(/502 Bad Gateway/);
		expect(error.description).not.toMatch(/<h1>/);
	});

	test('truncated JSON on a 200 is an unexpected answer, not a crash', async () => {
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'truncatedJson', times: 1 });
		const { error } = await h.run(emu, h.submit(), [h.pdfItem()]);
		expect(error.message).toMatch(
			/Unexpected answer from the OCR service for the submission \(a task may have been created\)/,
		);
	});

	test('a key without the read scope can submit but Get names the missing scope', async () => {
		const { output } = await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem()], {
			apiKey: 'ocr_test_submit_only',
		});
		const { error } = await h.run(
			emu,
			h.task('get', { taskId: output[0].json.taskId }),
			undefined,
			{ apiKey: 'ocr_test_submit_only' },
		);
		expect(error.message).toMatch(
			/^Task "tsk_\w+": The API key lacks the "read" scope this operation needs$/,
		);
	});

	test("a team member uses the owner's balance", async () => {
		const before = emu.balance('acme');
		const { error } = await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem()], {
			apiKey: 'ocr_test_member',
		});
		expect(error).toBeUndefined();
		expect(before - emu.balance('acme')).toBe(1);
	});
});

describe('an answer that echoes the request headers never puts the key into an output or error', () => {
	// A misconfigured proxy or a debugging endpoint in front of the service may answer with the
	// request it received; the harness's secret scan fails the run if the key reaches anything.
	const echoedText = `GET /api/tasks/tsk_1 HTTP/1.1\r\nauthorization: Bearer ${h.FULL_KEY}\r\nx-api-key: ${h.FULL_KEY}\r\n`;
	const echoedJson = {
		taskId: 'tsk_1',
		status: 'done',
		resultText: 'text',
		headers: { authorization: `Bearer ${h.FULL_KEY}`, 'x-api-key': h.FULL_KEY },
	};

	test('a 2xx text answer is quoted in the error without the key', async () => {
		emu.fault({
			path: '/api/tasks/',
			kind: 'body',
			status: 200,
			contentType: 'text/plain',
			body: echoedText,
		});
		const { error } = await h.run(emu, h.task('get', { taskId: 'tsk_1' }));
		expect(error.message).toMatch(/Unexpected answer/);
		expect(error.description).toMatch(/\[redacted\]/);
	});

	test('a 2xx JSON answer carrying the headers reaches the output without the key', async () => {
		emu.fault({ path: '/api/tasks/', kind: 'body', status: 200, body: echoedJson });
		const { output, error } = await h.run(emu, h.task('get', { taskId: 'tsk_1' }));
		expect(error).toBeUndefined();
		expect(output[0].json.headers).toEqual({
			authorization: 'Bearer [redacted]',
			'x-api-key': '[redacted]',
		});
	});

	describe('Task → Export, which reads its answer as bytes', () => {
		let taskId;
		beforeAll(async () => {
			const { output } = await h.run(emu, h.submit(), [h.pdfItem('Exported', 'exported.pdf')]);
			taskId = output[0].json.taskId;
		});
		const exportTask = async () =>
			await h.run(emu, h.task('export', { taskId, format: 'docx', binaryPropertyName: 'data' }));

		test.each([
			['JSON', 'application/json', JSON.stringify(echoedJson)],
			['text', 'text/plain', echoedText],
		])('an echoed request as %s is quoted in the error without the key', async (_, type, body) => {
			emu.fault({ path: '/api/export/', kind: 'body', status: 200, contentType: type, body });
			// The harness's secret scan fails the run if the key is in the error, the output or a log line.
			const { error, output } = await exportTask();
			expect(output).toEqual([]);
			expect(error.message).toBe(`The service returned no docx file for task "${taskId}"`);
			expect(error.description).toMatch(/Bearer \[redacted\]/);
			expect(JSON.stringify(error)).not.toContain(h.FULL_KEY);
			expect(JSON.stringify(h.secretsLog())).not.toContain(h.FULL_KEY);
		});

		test('an echoed request sent as a file reaches the output file without the key', async () => {
			emu.fault({
				path: '/api/export/',
				kind: 'body',
				status: 200,
				contentType: 'application/octet-stream',
				body: echoedText,
			});
			const { error, output } = await exportTask();
			expect(error).toBeUndefined();
			const bytes = (await h.readBinary(output[0].binary.data)).toString('utf8');
			expect(bytes).toContain('authorization: Bearer [redacted]');
			expect(bytes).not.toContain(h.FULL_KEY);
		});
	});

	test('an error answer that quotes the key without "Bearer" keeps it out of the error', async () => {
		emu.fault({
			path: '/api/tasks/',
			kind: 'body',
			status: 400,
			contentType: 'text/plain',
			body: `bad_request: key ${h.FULL_KEY} is malformed`,
		});
		const { error } = await h.run(emu, h.task('get', { taskId: 'tsk_1' }));
		expect(error.description).toMatch(/key \[redacted\] is malformed/);
	});
});

describe('the key goes to the credential’s origin only', () => {
	// n8n's HTTP helper follows redirects and, unless a request says otherwise, sends the
	// Authorization header along to whatever origin a redirect names. The task API has no reason to
	// redirect elsewhere: another host or port must never receive the key.
	const KEY = 'ocr_test_redirect_key_5150';
	const listen = async (server, host) =>
		await new Promise((resolve) => server.listen(0, host, () => resolve(server.address().port)));
	const close = async (server) => await new Promise((resolve) => server.close(resolve));
	const taskJson = (res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ taskId: 'tsk_1', status: 'done', resultText: 'moved' }));
	};

	test('Task → Get redirected to another origin (localhost, another port): no Authorization arrives there', async () => {
		const received = [];
		const other = http.createServer((req, res) => {
			received.push(req.headers.authorization);
			taskJson(res);
		});
		// No host: both 127.0.0.1 and ::1, whichever "localhost" resolves to.
		const otherPort = await listen(other);
		const service = http.createServer((req, res) => {
			res.writeHead(302, { location: `http://localhost:${otherPort}${req.url}` });
			res.end();
		});
		const base = `http://127.0.0.1:${await listen(service, '127.0.0.1')}`;
		try {
			const { output, error } = await h.run(
				{ url: base },
				h.task('get', { taskId: 'tsk_1' }),
				undefined,
				{ creds: { apiKey: KEY, baseUrl: base, apiUrl: '' } },
			);
			expect(error).toBeUndefined();
			expect(output[0].json.resultText).toBe('moved');
			expect(received).toEqual([undefined]);
		} finally {
			await close(service);
			await close(other);
		}
	});

	test('a redirect within the service’s own origin still carries the key', async () => {
		const received = [];
		const service = http.createServer((req, res) => {
			if (!req.url.includes('moved')) {
				res.writeHead(302, { location: `${req.url}?moved=1` });
				return res.end();
			}
			received.push(req.headers.authorization);
			taskJson(res);
		});
		const base = `http://127.0.0.1:${await listen(service, '127.0.0.1')}`;
		try {
			const { error } = await h.run({ url: base }, h.task('get', { taskId: 'tsk_1' }), undefined, {
				creds: { apiKey: KEY, baseUrl: base, apiUrl: '' },
			});
			expect(error).toBeUndefined();
			expect(received).toEqual([`Bearer ${KEY}`]);
		} finally {
			await close(service);
		}
	});
});
