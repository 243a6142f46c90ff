import type { IDataObject } from 'n8n-workflow';

import { isObject } from './object';

/**
 * Reading what the service returns where the spec does not show the shape. Kept in one place:
 * a task may come flat or wrapped ({data: task}, {task: task}); a list as a bare array or under
 * items / data / tasks / results; statuses beyond `queued` and `done` are not published.
 */

export type StatusClass = 'done' | 'failed' | 'pending';

const DONE = new Set(['done', 'completed', 'complete', 'succeeded', 'success', 'finished']);
const FAILED = new Set([
	'failed',
	'failure',
	'error',
	'errored',
	'cancelled',
	'canceled',
	'rejected',
	'expired',
	'timeout',
	'timed_out',
	'aborted',
	'ocr_failed',
]);
const PENDING = new Set([
	'queued',
	'pending',
	'processing',
	'running',
	'in_progress',
	'started',
	'waiting',
	'created',
	'accepted',
	'submitted',
	'scheduled',
]);

/** Classifies a status value. Unknown values count as pending: the wait continues to its deadline. */
export function classifyStatus(status: unknown): StatusClass {
	const value = typeof status === 'string' ? status.trim().toLowerCase() : '';
	if (DONE.has(value)) return 'done';
	if (FAILED.has(value)) return 'failed';
	return 'pending';
}

export function isKnownStatus(status: unknown): boolean {
	const value = typeof status === 'string' ? status.trim().toLowerCase() : '';
	return DONE.has(value) || FAILED.has(value) || PENDING.has(value);
}

/** Unwraps a task (or job) record and makes sure it carries `idField` (taskId / id). */
export function unwrapRecord(
	body: unknown,
	idField: 'taskId' | 'id' = 'taskId',
): IDataObject | undefined {
	if (!isObject(body)) return undefined;
	let record: IDataObject = body;
	if (record.status === undefined && record[idField] === undefined) {
		const inner = [body.task, body.job, body.data, body.result].find(isObject);
		if (inner) record = inner;
	}
	if (record[idField] === undefined) {
		const id = record.taskId ?? record.id ?? record.task_id ?? record.jobId ?? record.job_id;
		if (id !== undefined) record = { [idField]: id, ...record };
	}
	return record;
}

/**
 * Whether a record read as a task or job is one: it carries its ID (`idField`, which unwrapRecord
 * fills from the other names an ID goes by) or a status. The spec shows both on a task; it does not
 * show that the detail carries `taskId`, so either one is enough — while an answer with neither (a
 * proxy echoing the request, another API's object behind a wrong Base URL) is not a task.
 */
export function isRecord(record: IDataObject, idField: 'taskId' | 'id' = 'taskId'): boolean {
	const id = record[idField];
	const status = record.status;
	return (
		(typeof id === 'string' && id.trim() !== '') ||
		(typeof id === 'number' && Number.isFinite(id)) ||
		(typeof status === 'string' && status.trim() !== '')
	);
}

export interface ListPage {
	records: IDataObject[];
	total?: number;
	totalPages?: number;
	/** The page size the service says it used (it may cap the one asked). */
	pageSize?: number;
	/** Whether the service says more pages follow. */
	hasMore?: boolean;
}

export const LIST_KEYS = ['items', 'data', 'tasks', 'results', 'records', 'rows'];

/** Reads one page of a list in any of the plausible shapes; undefined when none matches. */
export function unwrapList(body: unknown): ListPage | undefined {
	if (Array.isArray(body)) return { records: body.filter(isObject) };
	if (!isObject(body)) return undefined;
	let container: IDataObject = body;
	let array = LIST_KEYS.map((k) => container[k]).find(Array.isArray) as unknown[] | undefined;
	if (!array && isObject(body.data)) {
		container = body.data;
		array = LIST_KEYS.map((k) => container[k]).find(Array.isArray) as unknown[] | undefined;
	}
	if (!array) return undefined;
	const meta = [body.pagination, body.meta, container.pagination, body, container].filter(isObject);
	const num = (key: string) => {
		for (const m of meta) {
			const v = m[key];
			if (typeof v === 'number' && Number.isFinite(v)) return v;
		}
		return undefined;
	};
	const flag = (...keys: string[]) => {
		for (const m of meta)
			for (const key of keys) if (typeof m[key] === 'boolean') return m[key] as boolean;
		return undefined;
	};
	return {
		records: array.filter(isObject).map((r) => unwrapRecord(r) ?? r),
		total: num('total') ?? num('totalCount') ?? num('total_count'),
		totalPages: num('totalPages') ?? num('total_pages') ?? num('pages'),
		pageSize:
			num('pageSize') ?? num('page_size') ?? num('perPage') ?? num('per_page') ?? num('limit'),
		hasMore: flag('hasMore', 'has_more', 'hasNextPage', 'has_next_page'),
	};
}

/**
 * Pages the service says a submission was billed, from whichever page field it uses. A field in
 * another unit is not a page count: `creditsUsed` (Submit (V2)'s answer) is a number of credits,
 * and the spec does not say a credit is a page.
 */
export function pagesBilled(body: IDataObject): number | undefined {
	for (const key of ['pagesBilled', 'pages_billed', 'pagesCharged', 'pages']) {
		const v = body[key];
		if (typeof v === 'number' && Number.isFinite(v)) return v;
	}
	return undefined;
}

/**
 * The fields a simplified task keeps, in this order: what a workflow or an AI agent acts on. Every
 * field the spec shows for a task, the word positions the sync provider is chosen for, the pages
 * (`pagesCounted` before sending, `pagesSent` with the Pages option, `pagesBilled` when the service says), the bill Submit (V2)
 * reports (`pages`, `creditsUsed`, `estimatedSeconds`) and the explanations (`pageCountNote` when
 * the counts differ, `pageCountAssumption` when the count rests on one) are among them. A task
 * carries at most ten of them — `words` only when done, `error` only when failed, the note only on
 * a difference — and should an answer carry more, the first ten are kept (n8n's UX guidelines ask
 * for at most ten fields): the bill comes before the explanations so that what the task cost is
 * never the field pushed out.
 */
const SIMPLE_TASK_FIELDS = [
	'taskId',
	'status',
	'resultText',
	'metadata',
	'words',
	'filename',
	'pagesCounted',
	'pagesSent',
	'pagesBilled',
	'pages',
	'creditsUsed',
	'estimatedSeconds',
	'pageCountNote',
	'pageCountAssumption',
	'encryptionRemoved',
	'provider',
	'completedAt',
	'error',
];

const MAX_SIMPLE_FIELDS = 10;

/**
 * A task with the first ten of SIMPLE_TASK_FIELDS it has (and the node's own fields:
 * `previouslySubmitted`, `previouslySubmittedBy`, `parts`).
 */
export function simplifyTask(task: IDataObject): IDataObject {
	const simple: IDataObject = {};
	const present = SIMPLE_TASK_FIELDS.filter((key) => task[key] !== undefined);
	for (const key of present.slice(0, MAX_SIMPLE_FIELDS)) simple[key] = task[key];
	if (task.previouslySubmitted !== undefined) simple.previouslySubmitted = task.previouslySubmitted;
	if (task.previouslySubmittedBy !== undefined)
		simple.previouslySubmittedBy = task.previouslySubmittedBy;
	// A split document's parts: each part's task ID, pages and bill (Split Large Documents).
	if (task.parts !== undefined) simple.parts = task.parts;
	return simple;
}

/**
 * A `/v1/ocr` answer as its text: `text` when the service sends it, else the text of its blocks
 * joined by line breaks; the ID and page count when shown, and the node's own fields.
 */
export function simplifyRecognition(result: IDataObject): IDataObject {
	const blocks = Array.isArray(result.blocks) ? result.blocks : [];
	const fromBlocks = blocks
		.map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
		.filter((text) => text !== '')
		.join('\n');
	const simple: IDataObject = { text: typeof result.text === 'string' ? result.text : fromBlocks };
	for (const key of [
		'id',
		'pages',
		'pagesCounted',
		'pagesSent',
		'pagesBilled',
		'pageCountNote',
		'pageCountAssumption',
		'encryptionRemoved',
		'fileName',
		'previouslyBilled',
		'parts',
	])
		if (result[key] !== undefined) simple[key] = result[key];
	return simple;
}
