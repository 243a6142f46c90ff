'use strict';
/**
 * Task and Job as resource locators: the Task field's *From list* search through n8n-core's
 * LoadOptionsContext against the emulator, and Get / Delete / Export / Job Get reading every
 * shape a saved workflow may hold — a locator in either mode, or the plain string of before.
 */
const h = require('./helpers');
const { listSearch } = require('./harness');

const emu = h.useEmulator();

async function submitted(name) {
	const { output, error } = await h.run(emu, h.submit(), [h.pdfItem(`Text of ${name}`, name)]);
	expect(error).toBeUndefined();
	return output[0].json.taskId;
}

const search = async (filter, paginationToken) =>
	await listSearch({
		method: 'searchTasks',
		parameters: h.task('get'),
		credentials: h.credentials(emu),
		filter,
		paginationToken,
	});

describe('From list: the newest tasks, with their status', () => {
	test('each task by file name, status and time, its ID as the value; a search by name or ID', async () => {
		const first = await submitted('alpha-invoice.pdf');
		const second = await submitted('beta-receipt.pdf');
		const { results } = await search();
		const mine = results.filter((r) => [first, second].includes(r.value));
		expect(mine.map((r) => r.value)).toEqual([second, first]);
		// The spec shows no list fields beyond the ID and status: the strict emulator lists just those.
		expect(mine[0].name).toBe(`${second} · done`);
		expect((await search(second.slice(0, 8))).results.map((r) => r.value)).toContain(second);
		expect((await search('no-such-file')).results).toEqual([]);
	});

	test('a service that lists file names and times: the name reads "file · status · time", and is searched', async () => {
		const rich = await h.withEmulator({ fields: 'rich' });
		try {
			const run = async (name) =>
				(await h.run(rich, h.submit(), [h.pdfItem(name, name)])).output[0].json.taskId;
			const alpha = await run('alpha-invoice.pdf');
			await run('beta-receipt.pdf');
			const found = await listSearch({
				method: 'searchTasks',
				parameters: h.task('get'),
				credentials: h.credentials(rich),
				filter: 'ALPHA',
			});
			expect(found.results).toEqual([
				{
					value: alpha,
					name: expect.stringMatching(
						/^alpha-invoice\.pdf · done · \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/,
					),
				},
			]);
		} finally {
			await rich.close();
		}
	});

	test('more tasks than a page: the next page by its token, each task once', async () => {
		// 45 finished tasks: three pages at the service's cap of 20 tasks a page.
		emu.addFinishedTasks(45);
		const seen = [];
		let token;
		for (let n = 0; n < 50; n++) {
			const page = await search(undefined, token);
			seen.push(...page.results.map((r) => r.value));
			token = page.paginationToken;
			if (!token) break;
		}
		expect(new Set(seen).size).toBe(seen.length);
		expect(seen.length).toBe(emu.state().tasks.filter((t) => t.account === 'acme').length);
		expect(seen.length).toBeGreaterThan(45);
	});

	test('a whole task ID that is not on the first page is found by a direct read', async () => {
		const id = await submitted('deep.pdf');
		// Oldest first, and 40 tasks more: the new one is far from the first page.
		emu.options.listOrder = 'oldest';
		emu.addFinishedTasks(40);
		try {
			expect((await search()).results.map((r) => r.value)).not.toContain(id);
			const { results } = await search(id);
			expect(results.map((r) => r.value)).toEqual([id]);
		} finally {
			emu.options.listOrder = 'newest';
		}
	});
});

describe('every saved shape of the Task and Job fields runs', () => {
	test.each([
		['a plain string (workflows saved before the locator)', (id) => id],
		['From list', (id) => ({ __rl: true, mode: 'list', value: id, cachedResultName: 'x.pdf' })],
		['By ID', (id) => ({ __rl: true, mode: 'id', value: id })],
	])('%s: Get, Export and Delete', async (_name, shape) => {
		const id = await submitted('shape.pdf');
		const got = await h.run(emu, h.task('get', { taskId: shape(id) }));
		expect(got.error).toBeUndefined();
		expect(got.output[0].json).toMatchObject({ taskId: id, status: 'done' });
		const exported = await h.run(
			emu,
			h.task('export', { taskId: shape(id), format: 'pdf', binaryPropertyName: 'data' }),
		);
		expect(exported.error).toBeUndefined();
		expect(exported.output[0].json).toMatchObject({ taskId: id, format: 'pdf' });
		const deleted = await h.run(emu, h.task('delete', { taskId: shape(id) }));
		expect(deleted.output[0].json).toMatchObject({ taskId: id, deleted: true });
	});

	test('Job → Get by ID, and a job ID saved as a plain string', async () => {
		const created = await h.run(emu, h.job('create', { waitForCompletion: false }), [h.pdfItem()]);
		const id = created.output[0].json.id;
		for (const jobId of [id, { __rl: true, mode: 'id', value: id }]) {
			const { output, error } = await h.run(emu, { resource: 'job', operation: 'get', jobId });
			expect(error).toBeUndefined();
			expect(output[0].json.id).toBe(id);
		}
	});
});
