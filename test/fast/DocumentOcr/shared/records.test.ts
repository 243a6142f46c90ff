/** Reading what the service sends where the spec says "not shown": records, lists, statuses. */

import {
	classifyStatus,
	isKnownStatus,
	isRecord,
	pagesBilled,
	simplifyRecognition,
	simplifyTask,
	unwrapList,
	unwrapRecord,
} from '../../../../nodes/DocumentOcr/shared/records';

describe('statuses', () => {
	test.each([
		['done', 'done'],
		['Completed', 'done'],
		['failed', 'failed'],
		['timed_out', 'failed'],
		['queued', 'pending'],
		['processing', 'pending'],
		['something_new', 'pending'], // unknown: the wait goes on to its deadline
		[undefined, 'pending'],
	])('%s is %s', (status, cls) => {
		expect(classifyStatus(status)).toBe(cls);
	});

	test('unknown values are told apart from pending ones (for the timeout message)', () => {
		expect(isKnownStatus('queued')).toBe(true);
		expect(isKnownStatus('something_new')).toBe(false);
	});
});

describe('records', () => {
	test.each([
		['flat', { taskId: 't1', status: 'done' }],
		['under data', { data: { taskId: 't1', status: 'done' } }],
		['under task', { success: true, task: { taskId: 't1', status: 'done' } }],
		['id instead of taskId', { id: 't1', status: 'done' }],
	])('a task %s', (_label, body) => {
		expect(unwrapRecord(body)).toMatchObject({ taskId: 't1', status: 'done' });
	});

	test('a job keeps its id', () => {
		expect(unwrapRecord({ jobId: 'j1', status: 'queued' }, 'id')).toMatchObject({ id: 'j1' });
	});

	test.each([
		['a string', 'ok'],
		['an array', [1]],
		['null', null],
	])('%s is no record', (_l, body) => {
		expect(unwrapRecord(body)).toBeUndefined();
	});

	test.each([
		['the spec-strict task', { taskId: 't1', provider: 'provider-async', status: 'queued' }],
		['a task detail without its ID', { status: 'done', resultText: 'x' }],
		['a task with an ID only', { id: 't1' }],
		['a wrapped task', { success: true, task: { taskId: 't1', status: 'done' } }],
		['a numeric ID', { task_id: 7 }],
	])('%s is a task', (_l, body) => {
		expect(isRecord(unwrapRecord(body)!)).toBe(true);
	});

	test.each([
		['an echo of the request', { headers: { authorization: 'Bearer [redacted]' }, url: '/x' }],
		['another API', { name: 'Other API', version: 2 }],
		['an HTTP status as a number', { status: 200, message: 'OK' }],
		['an empty ID and status', { taskId: '', status: ' ' }],
		['an empty object', {}],
	])('%s is not a task', (_l, body) => {
		expect(isRecord(unwrapRecord(body)!)).toBe(false);
	});

	test('a job is one by its id or status', () => {
		expect(isRecord(unwrapRecord({ jobId: 'j1' }, 'id')!, 'id')).toBe(true);
		expect(isRecord(unwrapRecord({ name: 'x' }, 'id')!, 'id')).toBe(false);
	});
});

describe('list pages', () => {
	const t = (id: string) => ({ taskId: id, status: 'done' });

	test('a bare array has no paging fields', () => {
		expect(unwrapList([t('a'), t('b')])).toEqual({ records: [t('a'), t('b')] });
	});

	test('items + total + the page size used', () => {
		expect(unwrapList({ items: [t('a')], page: 2, pageSize: 10, total: 120 })).toMatchObject({
			records: [t('a')],
			total: 120,
			pageSize: 10,
		});
	});

	test('data + pagination', () => {
		expect(
			unwrapList({ data: [t('a')], pagination: { totalPages: 12, per_page: 10, has_more: true } }),
		).toMatchObject({ totalPages: 12, pageSize: 10, hasMore: true });
	});

	test('nested data.tasks', () => {
		expect(unwrapList({ data: { tasks: [t('a')], total: 1 } })).toMatchObject({
			records: [t('a')],
			total: 1,
		});
	});

	test('no array anywhere: not a list', () => {
		expect(unwrapList({ message: 'hello' })).toBeUndefined();
	});
});

describe('billed pages', () => {
	test('from whichever field the answer uses; none is made up', () => {
		expect(pagesBilled({ pagesBilled: 3 })).toBe(3);
		// Credits are another unit: the spec does not say a credit is a page.
		expect(pagesBilled({ creditsUsed: 2 })).toBeUndefined();
		expect(pagesBilled({ creditsUsed: 1, pages: 4 })).toBe(4);
		expect(pagesBilled({ pages: 4 })).toBe(4);
		expect(pagesBilled({ success: true, taskId: 't', provider: 'provider-async' })).toBeUndefined();
	});
});

describe('Simplify', () => {
	test('a task keeps at most ten fields: what a workflow acts on', () => {
		const task = {
			taskId: 't1',
			status: 'done',
			resultText: 'x',
			metadata: {},
			filename: 'a.pdf',
			pages: 1,
			provider: 'provider-sync',
			documentType: 'general',
			createdAt: '2026-11-25T10:00:00Z',
			updatedAt: '2026-11-25T10:00:01Z',
			startedAt: '2026-11-25T10:00:00Z',
			completedAt: '2026-11-25T10:00:01Z',
			words: [{ text: 'x', page: 1, bbox: [0, 0, 1, 1] }],
			pagesBilled: 1,
		};
		const simple = simplifyTask(task);
		expect(Object.keys(simple)).toEqual([
			'taskId',
			'status',
			'resultText',
			'metadata',
			'words',
			'filename',
			'pagesBilled',
			'pages',
			'provider',
			'completedAt',
		]);
		expect(simple.words).toBe(task.words);
	});

	test("Submit (V2)'s bill is kept with the finished task", () => {
		const task = {
			taskId: 't1',
			status: 'done',
			resultText: 'x',
			metadata: {},
			filename: 'a.pdf',
			pages: 2,
			provider: 'provider-async',
			completedAt: '2026-11-25T10:00:01Z',
			updatedAt: '2026-11-25T10:00:01Z',
			options: { format: 'markdown' },
			estimatedSeconds: 3,
			creditsUsed: 2,
			previouslySubmitted: true,
		};
		const simple = simplifyTask(task);
		expect(simple).toMatchObject({
			creditsUsed: 2,
			estimatedSeconds: 3,
			previouslySubmitted: true,
		});
		expect(Object.keys(simple)).toHaveLength(11);
		expect(simple).not.toHaveProperty('options');
	});

	test('an answer with more of the kept fields than ten: the first ten, in their order', () => {
		const keys = [
			'taskId',
			'status',
			'resultText',
			'metadata',
			'words',
			'filename',
			'pagesCounted',
			'pagesBilled',
			'pages',
			'creditsUsed',
			'estimatedSeconds',
			'pageCountNote',
			'provider',
			'completedAt',
			'error',
		];
		const simple = simplifyTask(Object.fromEntries(keys.map((key) => [key, key])));
		expect(Object.keys(simple)).toEqual(keys.slice(0, 10));
		// The bill comes before the count's explanations: they are the ones pushed out.
		expect(simple).toHaveProperty('creditsUsed');
		expect(simple).not.toHaveProperty('pageCountNote');
	});

	test('a recognition answer without `text`: the text of its blocks, line by line', () => {
		const answer = {
			blocks: [{ text: 'Line one' }, { kind: 'image' }, { text: 'Line two' }],
			pages: 2,
		};
		expect(simplifyRecognition(answer)).toEqual({ text: 'Line one\nLine two', pages: 2 });
		expect(simplifyRecognition({ text: 'Whole', blocks: [{ text: 'W' }] })).toEqual({
			text: 'Whole',
		});
	});
});
