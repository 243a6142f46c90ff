/** Task → Get Many: GET /api/tasks?page&pageSize&status on the Base URL, page by page (spec §4.1). */

import type { Answer } from '../../../support/context';
import { BASE_URL, runNode } from '../../../support/context';

const params = (extra = {}) => ({ resource: 'task', operation: 'getMany', ...extra });
const tasks = (...ids: string[]) => ids.map((taskId) => ({ taskId, status: 'done' }));
const page = (ids: string[], hasMore?: boolean): Answer => ({
	body: { items: tasks(...ids), ...(hasMore === undefined ? {} : { hasMore }) },
});

test('the defaults: page 1 of 20, no status filter', async () => {
	const { sent, output } = await runNode({ params: params(), answers: [page(['a', 'b'], false)] });
	expect(sent).toHaveLength(1);
	expect(sent[0].options).toMatchObject({
		method: 'GET',
		url: `${BASE_URL}/api/tasks`,
		json: true,
	});
	expect(sent[0].options.qs).toEqual({ page: 1, pageSize: 20 });
	expect(output).toEqual(tasks('a', 'b').map((json) => ({ json, pairedItem: { item: 0 } })));
});

test('status filter, page size and start page go into the query', async () => {
	const { sent } = await runNode({
		params: params({ filters: { status: ' failed ' }, options: { pageSize: 5, page: 3 } }),
		answers: [page(['a'])],
	});
	expect(sent[0].options.qs).toEqual({ page: 3, pageSize: 5, status: 'failed' });
});

test('Return All walks the pages until the service says there are no more', async () => {
	const { sent, output } = await runNode({
		params: params({ returnAll: true, options: { pageSize: 2 } }),
		answers: [page(['a', 'b'], true), page(['c', 'd'], true), page(['e'], false)],
	});
	expect(sent.map((s) => s.options.qs)).toEqual([
		{ page: 1, pageSize: 2 },
		{ page: 2, pageSize: 2 },
		{ page: 3, pageSize: 2 },
	]);
	expect(output?.map((item) => item.json.taskId)).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('a list with no paging fields is walked until a page comes back empty', async () => {
	const { sent, output } = await runNode({
		params: params({ returnAll: true }),
		answers: [{ body: tasks('a', 'b') }, { body: tasks('c', 'd') }, { body: [] }],
	});
	expect(sent.map((s) => s.options.qs)).toEqual([
		{ page: 1, pageSize: 20 },
		{ page: 2, pageSize: 20 },
		{ page: 3, pageSize: 20 },
	]);
	expect(output?.map((item) => item.json.taskId)).toEqual(['a', 'b', 'c', 'd']);
});

test('Limit stops asking once it has enough, and cuts the last page', async () => {
	const { sent, output } = await runNode({
		params: params({ limit: 3, options: { pageSize: 2 } }),
		answers: [page(['a', 'b'], true), page(['c', 'd'], true)],
	});
	expect(sent).toHaveLength(2);
	expect(output?.map((item) => item.json.taskId)).toEqual(['a', 'b', 'c']);
});

test('a page size over 1000 is refused before anything is sent', async () => {
	const { sent, error } = await runNode({ params: params({ options: { pageSize: 1001 } }) });
	expect(sent).toHaveLength(0);
	expect(error?.message).toMatch(/Page Size/);
});

test('an answer with no list in it is an error', async () => {
	const { error } = await runNode({ params: params(), answers: [{ body: { ok: true } }] });
	expect(error?.message).toBe('Unexpected answer from the OCR service for the task list');
});
