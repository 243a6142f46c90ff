'use strict';
const http = require('node:http');
const { readZip } = require('../emulator');
const h = require('./helpers');

const emu = h.useEmulator();

async function submitted(text = 'Operation text', extra = {}) {
	const { output, error } = await h.run(emu, h.submit(extra), [h.pdfItem(text, 'report.pdf')]);
	if (error) throw error;
	return output[0].json.taskId;
}

describe('Task → Get', () => {
	test('returns the task with its text', async () => {
		const taskId = await submitted('Get me');
		const { output } = await h.run(emu, h.task('get', { taskId }));
		expect(output[0].json).toMatchObject({ taskId, status: 'done' });
		expect(output[0].json.resultText).toContain('Get me');
	});

	test('an unknown task is a not-found error naming it', async () => {
		const { error } = await h.run(emu, h.task('get', { taskId: 'tsk_missing' }));
		expect(error.message).toBe('Task "tsk_missing" was not found');
		expect(error.httpCode).toBe('404');
	});

	test.each([['../x'], ['a/b'], ['a?b=1'], ['a#b'], ['über-ü'], ['%2e%2e']])(
		'the ID %s stays one encoded path segment',
		async (taskId) => {
			const before = emu.stats().byRoute;
			const { error } = await h.run(emu, h.task('get', { taskId }));
			expect(error.message).toBe(`Task "${taskId}" was not found`);
			const after = emu.stats().byRoute;
			expect((after['GET /api/tasks/:id'] ?? 0) - (before['GET /api/tasks/:id'] ?? 0)).toBe(1);
			expect(emu.stats().lastPath).toBe(`/api/tasks/${encodeURIComponent(taskId)}`);
		},
	);

	test.each([['..'], ['.'], ['   '], ['x'.repeat(10_000)]])(
		'the ID "%s" is refused before sending',
		async (taskId) => {
			const requests = emu.stats().requests;
			const { error } = await h.run(emu, h.task('get', { taskId }));
			expect(error.name).toBe('NodeOperationError');
			expect(emu.stats().requests).toBe(requests);
		},
	);
});

describe('Task → Get Many', () => {
	beforeAll(async () => {
		for (let i = 0; i < 3; i++) await submitted(`List item ${i}`);
		await h.run(emu, h.submit({ waitForCompletion: false }), [h.pdfItem('still STUCK')]);
	});

	test('Limit stops early', async () => {
		const { output } = await h.run(emu, h.task('getMany', { returnAll: false, limit: 2 }));
		expect(output).toHaveLength(2);
		output.forEach((item) => expect(item.pairedItem).toEqual({ item: 0 }));
	});

	test('Return All walks every page', async () => {
		const total = emu.tasks.length;
		const pagesBefore = h.hits(emu, 'GET /api/tasks');
		const { output } = await h.run(
			emu,
			h.task('getMany', { returnAll: true, options: { pageSize: 2 } }),
		);
		expect(output).toHaveLength(total);
		expect(new Set(output.map((o) => o.json.taskId)).size).toBe(total);
		expect(h.hits(emu, 'GET /api/tasks') - pagesBefore).toBe(Math.ceil(total / 2));
	});

	test('the status filter is passed on', async () => {
		const { output } = await h.run(
			emu,
			h.task('getMany', { returnAll: true, filters: { status: 'processing' } }),
		);
		expect(output.length).toBeGreaterThanOrEqual(1);
		output.forEach((o) => expect(o.json.status).toBe('processing'));
	});

	test.each(['items', 'data', 'tasks', 'array'])('reads the "%s" list shape', async (shape) => {
		emu.options.shapes.list = shape;
		try {
			const { output, error } = await h.run(
				emu,
				h.task('getMany', { returnAll: true, options: { pageSize: 3 } }),
			);
			expect(error).toBeUndefined();
			expect(output.length).toBe(emu.tasks.length);
			output.forEach((o) => expect(o.json.taskId).toMatch(/^tsk_/));
		} finally {
			emu.options.shapes.list = 'items';
		}
	});

	test.each([[0], [-1], [100000]])('page size %s is refused before sending', async (pageSize) => {
		const requests = emu.stats().requests;
		const { error } = await h.run(
			emu,
			h.task('getMany', { returnAll: true, options: { pageSize } }),
		);
		expect(error.message).toMatch(/"Page Size" must be a whole number from 1 to 1000/);
		expect(emu.stats().requests).toBe(requests);
	});
});

describe('Task → Export', () => {
	test.each([
		[
			'docx',
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			'word/document.xml',
		],
		[
			'xlsx',
			'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			'xl/worksheets/sheet1.xml',
		],
	])('%s is a real OOXML zip with the text, as n8n binary data', async (format, mimeType, part) => {
		const taskId = await submitted(`Exported as ${format}`);
		const { output, error } = await h.run(
			emu,
			h.task('export', { taskId, format, binaryPropertyName: 'file' }),
		);
		expect(error).toBeUndefined();
		const [item] = output;
		expect(item.json).toMatchObject({ taskId, format, mimeType, fileName: `report.${format}` });
		expect(item.binary.file.mimeType).toBe(mimeType);
		expect(item.binary.file.fileName).toBe(`report.${format}`);
		const bytes = await h.readBinary(item.binary.file);
		expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
		expect(bytes.length).toBe(item.json.fileSize);
		expect(readZip(bytes).get(part).toString('utf8')).toContain(`Exported as ${format}`);
	});

	test('pdf starts with %PDF', async () => {
		const taskId = await submitted('Exported as pdf');
		const { output } = await h.run(
			emu,
			h.task('export', { taskId, format: 'pdf', binaryPropertyName: 'data' }),
		);
		expect(output[0].binary.data.mimeType).toBe('application/pdf');
		const bytes = await h.readBinary(output[0].binary.data);
		expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
	});

	test('a task that is not done gives a clear error with its status', async () => {
		const { output: sub } = await h.run(emu, h.submit({ waitForCompletion: false }), [
			h.pdfItem('STUCK forever'),
		]);
		const { taskId } = sub[0].json;
		const { error } = await h.run(
			emu,
			h.task('export', { taskId, format: 'docx', binaryPropertyName: 'data' }),
		);
		expect(error.message).toBe(
			`Task "${taskId}" is not done yet (status "processing"): it cannot be exported`,
		);
		expect(error.description).toMatch(/Wait for Completion/);
	});

	test('an unknown format is refused before sending', async () => {
		const requests = emu.stats().requests;
		const { error } = await h.run(
			emu,
			h.task('export', { taskId: 'tsk_1', format: 'odt', binaryPropertyName: 'data' }),
		);
		expect(error.message).toMatch(/"odt" is not an export format/);
		expect(emu.stats().requests).toBe(requests);
	});

	test('a binary field given by an expression that resolves to nothing fails the item naming the field, before any request', async () => {
		const requests = emu.stats().requests;
		for (const expression of ['={{ undefined }}', '={{ null }}', '={{ $json.missing }}']) {
			const exported = await h.run(
				emu,
				h.task('export', { taskId: 'tsk_1', format: 'pdf', binaryPropertyName: expression }),
				[{ json: {} }],
				{ continueOnFail: true },
			);
			expect(exported.error).toBeUndefined();
			expect(exported.output[0].json.error).toMatch(/"Put Output File in Field" must be a text/);
			// The Input Binary Field of a submission, the same.
			const submitted = await h.run(
				emu,
				h.task('submit', { binaryPropertyName: expression }),
				[h.pdfItem('Hello', 'a.pdf')],
				{ continueOnFail: true },
			);
			expect(submitted.error).toBeUndefined();
			expect(submitted.output[0].json.error).toMatch(/"Input Binary Field" must be a text/);
			expect(submitted.output[0].pairedItem).toEqual({ item: 0 });
		}
		expect(emu.stats().requests).toBe(requests);
	});
});

describe('Task → Delete', () => {
	test('deletes the task; a second delete is not found', async () => {
		const taskId = await submitted('Delete me');
		const { output } = await h.run(emu, h.task('delete', { taskId }));
		expect(output[0].json).toMatchObject({ taskId, deleted: true });
		const again = await h.run(emu, h.task('get', { taskId }));
		expect(again.error.message).toBe(`Task "${taskId}" was not found`);
	});

	test('needs the export scope, and says so', async () => {
		const taskId = await submitted('Keep me');
		const { error } = await h.run(emu, h.task('delete', { taskId }), undefined, {
			apiKey: 'ocr_test_submit_only',
		});
		expect(error.message).toMatch(
			/^Task "tsk_\w+": The API key lacks the "export" scope this operation needs$/,
		);
		expect(error.httpCode).toBe('403');
	});
});

describe('a read whose answer is not a task, job or task list is an error, not an item', () => {
	// Submit refuses an answer without a task ID; the reads hold their answers to the same rule
	// (docs/service-contract.md): a task or job carries its ID or a status, a list is an array of
	// them. A proxy's echo of the request, or another API behind a wrong Base URL, is neither.
	afterEach(() => emu.clearFaults());
	const echo = {
		method: 'GET',
		url: '/api/tasks/tsk_1',
		headers: { authorization: `Bearer ${h.FULL_KEY}`, accept: 'application/json' },
	};

	test('Task → Get answered by an echo of the request', async () => {
		emu.fault({ path: '/api/tasks/', kind: 'body', status: 200, body: echo });
		const { output, error } = await h.run(emu, h.task('get', { taskId: 'tsk_1' }));
		expect(output).toEqual([]);
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('Unexpected answer from the OCR service for task "tsk_1"');
		expect(error.description).toMatch(
			/^Expected a task \(an object with its "taskId" or a "status"/,
		);
		expect(error.description).toContain('"authorization":"Bearer [redacted]"');
		expect(error.description).toMatch(/Check the Base URL/);
		expect(error.context.itemIndex).toBe(0);
	});

	describe('the Base URL and API URL pointing at another API', () => {
		let other;
		let url;
		beforeAll(async () => {
			other = http.createServer((req, res) => {
				res.writeHead(200, { 'content-type': 'application/json' });
				const list = req.url.startsWith('/api/tasks?');
				res.end(
					JSON.stringify(list ? [{ name: 'a', size: 1 }] : { name: 'Other API', version: 2 }),
				);
			});
			await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
			url = `http://127.0.0.1:${other.address().port}`;
		});
		afterAll(async () => await new Promise((resolve) => other.close(resolve)));

		test.each([
			['Task → Get', h.task('get', { taskId: 'tsk_1' }), 'task "tsk_1"', 'a task'],
			['Job → Get', { resource: 'job', operation: 'get', jobId: 'job_1' }, 'job "job_1"', 'a job'],
			[
				'Task → Get Many',
				h.task('getMany', { returnAll: false, limit: 5 }),
				'the task list',
				'a list of tasks',
			],
		])('%s', async (_, parameters, what, expected) => {
			const creds = { apiKey: h.FULL_KEY, baseUrl: url, apiUrl: url };
			const { output, error } = await h.run({ url }, parameters, undefined, { creds });
			expect(output).toEqual([]);
			expect(error.message).toBe(`Unexpected answer from the OCR service for ${what}`);
			expect(error.description).toContain(`Expected ${expected} (`);
			expect(error.description).toMatch(/received: (\{"name":"Other API"|\[\{"name":"a")/);
		});
	});

	test('a wait that reads a non-task fails its item at once instead of waiting on', async () => {
		emu.fault({ path: '/api/tasks/', kind: 'body', status: 200, body: echo, times: 1 });
		const { output, error } = await h.run(emu, h.submit({ options: { waitTimeout: 0.1 } }), [
			h.pdfItem('Waited', 'waited.pdf'),
		]);
		expect(output).toEqual([]);
		expect(error.message).toMatch(/^Unexpected answer from the OCR service for task "tsk_/);
		expect(error.description).toMatch(/^Expected a task/);
	});
});
