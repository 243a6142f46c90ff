import type { IDataObject } from 'n8n-workflow';

import type { ListPage } from '../DocumentOcr/helpers/task';
import { classifyStatus } from '../DocumentOcr/helpers/task';

/**
 * What the poll trigger remembers between polls, and one poll as a pure function of it: no n8n
 * context, no HTTP, no clock. The node hands in two readers (a page of `GET /api/tasks`, one
 * `GET /api/tasks/{id}`) and writes the returned state back only when the whole poll succeeded,
 * so a failed poll (429, 5xx, network) leaves the memory exactly as it was and the next poll
 * repeats it: nothing is skipped, nothing is emitted twice.
 *
 * Why it reads the list WITHOUT the status filter: tasks finish out of order, so a task still
 * queued at one poll may finish behind pages of tasks already reported; a `done`-filtered list
 * would show it deep among them, and `failed` is no documented filter value. Instead the trigger
 * remembers which tasks it saw unfinished (`pending`) and looks for them again: on the pages it
 * walks anyway, else one by one (`GET /api/tasks/{id}`, a bounded number per poll, in turn).
 *
 * The list's order is not documented: newest first is assumed (a service that lists oldest first
 * is read with `order: 'oldest'`, which resumes at the page where the previous poll ended).
 */

export type ListOrder = 'newest' | 'oldest';
export type TaskEvent = 'ocr.done' | 'ocr.failed';

export interface PollState {
	/** Format of this record. */
	v: 1;
	/** Task IDs met in the list (any status), most recently listed first; bounded by `maxSeen`. */
	seen: string[];
	/** Task IDs met unfinished: emitted when they finish (or dropped once gone); next to check first. */
	pending: string[];
	/** Oldest-first lists only: the page where the previous poll ended. */
	resumePage?: number;
	/** Oldest-first lists only: the first reading has not reached the end of the list yet. */
	baselining?: boolean;
}

export interface PollSettings {
	events: string[];
	order: ListOrder;
	/** Pages read per poll at most (the first reading included). */
	maxPages: number;
	/** Unfinished tasks not met on the walked pages that are read one by one per poll, at most. */
	maxChecks: number;
	maxSeen: number;
	maxPending: number;
}

export const DEFAULT_SETTINGS: PollSettings = {
	events: ['ocr.done', 'ocr.failed'],
	order: 'newest',
	maxPages: 50,
	maxChecks: 25,
	maxSeen: 10_000,
	maxPending: 2_000,
};

export interface Finished {
	event: TaskEvent;
	taskId: string;
	status: IDataObject[string];
	/** The task as the list (or the single read) gave it. */
	task: IDataObject;
}

export interface PollResult {
	state: PollState;
	/** Tasks that finished since the previous poll, with a selected event, oldest first as far as known. */
	emit: Finished[];
	/** This poll only recorded a starting point (first activation): nothing old is emitted. */
	baseline: boolean;
	pagesRead: number;
	checks: number;
	/** Things an operator should know (logged by the node), e.g. the page bound was reached. */
	warnings: string[];
}

/** One page of GET /api/tasks, already read by the list-shape reader. */
export type PageReader = (page: number) => Promise<ListPage>;
/** GET /api/tasks/{id}: the task, or undefined when the service says it does not exist (404). */
export type TaskReader = (taskId: string) => Promise<IDataObject | undefined>;

/** The stored state, if it is one this version understands; anything else counts as none. */
export function readState(value: unknown): PollState | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const s = value as Partial<PollState>;
	const strings = (a: unknown): a is string[] =>
		Array.isArray(a) && a.every((x) => typeof x === 'string');
	if (s.v !== 1 || !strings(s.seen) || !strings(s.pending)) return undefined;
	const state: PollState = { v: 1, seen: [...s.seen], pending: [...s.pending] };
	if (typeof s.resumePage === 'number' && s.resumePage >= 1)
		state.resumePage = Math.floor(s.resumePage);
	if (s.baselining === true) state.baselining = true;
	return state;
}

export function taskIdOf(record: IDataObject): string | undefined {
	const id = record.taskId;
	if (typeof id === 'string' && id !== '') return id;
	if (typeof id === 'number' && Number.isFinite(id)) return String(id);
	return undefined;
}

/** The event a task's status stands for, or undefined while it is not finished. */
export function eventOf(status: unknown): TaskEvent | undefined {
	const cls = classifyStatus(status);
	if (cls === 'done') return 'ocr.done';
	if (cls === 'failed') return 'ocr.failed';
	return undefined;
}

/**
 * Whether `page` (number `n`, `records` of it) is the list's last, by what the answer says
 * (`hasMore`, `totalPages`, `total`), else by its length: empty, or shorter than the longest page
 * seen (so a service that caps the page size below the one asked never ends the walk early).
 */
function isLastPage(page: ListPage, n: number, longest: number): boolean {
	if (page.records.length === 0) return true;
	if (page.hasMore !== undefined) return !page.hasMore;
	if (page.totalPages !== undefined) return n >= page.totalPages;
	const size = page.pageSize ?? longest;
	if (page.total !== undefined && size > 0) return n * size >= page.total;
	return page.records.length < longest;
}

/** Runs one poll. Reads only; the returned state replaces the old one once the caller is done. */
export async function pollOnce(
	previous: PollState | undefined,
	settings: PollSettings,
	readPage: PageReader,
	readTask: TaskReader,
): Promise<PollResult> {
	const baseline = previous === undefined || previous.baselining === true;
	const seen = new Set(previous?.seen ?? []);
	const pending = new Set(previous?.pending ?? []);
	const selected = new Set(settings.events);
	const warnings: string[] = [];

	/** IDs met this poll, in list order; a task met twice (the list moved under us) counts once. */
	const met = new Set<string>();
	const walked: string[] = [];
	const stillPending: string[] = [];
	const emit: Finished[] = [];
	let pagesRead = 0;

	/** Handles one record; returns whether it was already known (seen before this poll). */
	const take = (record: IDataObject): { known: boolean; unfinished: boolean; fresh?: boolean } => {
		const id = taskIdOf(record);
		if (id === undefined || met.has(id)) return { known: true, unfinished: false };
		met.add(id);
		walked.push(id);
		const event = eventOf(record.status);
		const wasSeen = seen.has(id);
		const wasPending = pending.has(id);
		if (event === undefined) {
			// A task seen finished and listed unfinished again (not expected) is not followed again.
			if (!wasSeen || wasPending) stillPending.push(id);
			return { known: wasSeen, unfinished: !wasSeen || wasPending, fresh: true };
		}
		// New since the previous poll, or followed since it was seen unfinished. A first reading
		// only records: nothing that finished before the trigger started is emitted.
		if (wasPending || (!wasSeen && !baseline)) {
			if (selected.has(event))
				emit.push({ event, taskId: id, status: record.status, task: record });
		}
		return { known: wasSeen, unfinished: false, fresh: true };
	};
	/** Takes a page's records; false when none was new to this poll (a service ignoring `page`). */
	const takePage = (page: ListPage) => {
		let allKnown = true;
		let anyUnfinished = false;
		let anyFresh = false;
		for (const record of page.records) {
			const { known, unfinished, fresh } = take(record);
			if (!known) allKnown = false;
			if (unfinished) anyUnfinished = true;
			if (fresh) anyFresh = true;
		}
		return { allKnown, anyUnfinished, repeated: page.records.length > 0 && !anyFresh };
	};

	let reachedEnd = false;
	let lastPage = 0;
	if (settings.order === 'newest') {
		let longest = 0;
		let stopped = false;
		for (let n = 1; n <= settings.maxPages; n++) {
			const page = await readPage(n);
			pagesRead++;
			lastPage = n;
			const { allKnown, anyUnfinished, repeated } = takePage(page);
			longest = Math.max(longest, page.records.length);
			if (repeated || isLastPage(page, n, longest)) {
				reachedEnd = true;
				break;
			}
			// Newest first: below a page of tasks all met before, and none of them followed
			// unfinished, every task was met before too. Pages holding followed tasks are read on:
			// tasks submitted together sit together, and one page costs less than a read per task.
			if (!baseline && allKnown && !anyUnfinished) {
				stopped = true;
				break;
			}
		}
		if (!stopped && !reachedEnd) {
			warnings.push(
				baseline
					? `The first reading stopped after ${settings.maxPages} pages of tasks: unfinished tasks listed deeper than that are not followed.`
					: `More tasks than ${settings.maxPages} pages hold were listed since the previous poll: tasks listed deeper are not read. Poll more often, or raise Max Pages per Poll.`,
			);
		}
	} else {
		// Oldest first: new tasks are appended at the end. Resume one page before where the
		// previous poll ended (a deletion moves tasks up), and step back further while the first
		// page read starts with a task never met (more deletions than a page).
		let n = baseline ? (previous?.resumePage ?? 1) : Math.max(1, (previous?.resumePage ?? 1) - 1);
		let longest = 0;
		let page = await readPage(n);
		pagesRead++;
		if (!baseline) {
			while (n > 1 && pagesRead < settings.maxPages) {
				const first = page.records.map(taskIdOf).find((id) => id !== undefined);
				if (first !== undefined && seen.has(first)) break;
				n--;
				page = await readPage(n);
				pagesRead++;
			}
		}
		for (;;) {
			const { repeated } = takePage(page);
			longest = Math.max(longest, page.records.length);
			lastPage = page.records.length > 0 && !repeated ? n : Math.max(1, n - 1);
			if (repeated || isLastPage(page, n, longest)) {
				reachedEnd = true;
				break;
			}
			if (pagesRead >= settings.maxPages) break;
			n++;
			page = await readPage(n);
			pagesRead++;
		}
		if (!reachedEnd) {
			warnings.push(
				`The list did not end within ${settings.maxPages} pages: the next poll continues at page ${lastPage + 1}.`,
			);
			lastPage = lastPage + 1;
		}
	}

	// Followed tasks not met on the pages read: read one by one, a bounded number, longest-waiting first.
	const unmet = (previous?.pending ?? []).filter((id) => !met.has(id));
	const toCheck = unmet.slice(0, settings.maxChecks);
	const unchecked = unmet.slice(settings.maxChecks);
	const checkedPending: string[] = [];
	for (const id of toCheck) {
		const task = await readTask(id);
		if (task === undefined) continue; // deleted: nothing will finish
		const event = eventOf(task.status);
		if (event === undefined) {
			checkedPending.push(id);
			continue;
		}
		if (selected.has(event)) emit.push({ event, taskId: id, status: task.status, task });
	}

	// Listed order: most recently listed first.
	const newestFirst = settings.order === 'newest' ? walked : [...walked].reverse();
	const walkedSet = new Set(walked);
	const nextSeen = [...newestFirst, ...(previous?.seen ?? []).filter((id) => !walkedSet.has(id))];
	if (nextSeen.length > settings.maxSeen) nextSeen.length = settings.maxSeen;

	// Next poll checks first those not checked now, then the rest in turn.
	const newPending = settings.order === 'newest' ? [...stillPending].reverse() : stillPending;
	let nextPending = [...unchecked, ...checkedPending, ...newPending];
	if (nextPending.length > settings.maxPending) {
		warnings.push(
			`More than ${settings.maxPending} unfinished tasks are followed: the ${nextPending.length - settings.maxPending} followed longest are no longer followed.`,
		);
		nextPending = nextPending.slice(nextPending.length - settings.maxPending);
	}

	const state: PollState = { v: 1, seen: nextSeen, pending: nextPending };
	if (settings.order === 'oldest') {
		state.resumePage = Math.max(1, lastPage);
		if (baseline && !reachedEnd) state.baselining = true;
	}
	// Older first: in newest-first lists the walk met the newest first.
	const ordered =
		settings.order === 'newest'
			? [
					...emit.filter((e) => walkedSet.has(e.taskId)).reverse(),
					...emit.filter((e) => !walkedSet.has(e.taskId)),
				]
			: emit;
	return {
		state,
		emit: baseline ? ordered.filter((e) => pending.has(e.taskId)) : ordered,
		baseline,
		pagesRead,
		checks: toCheck.length,
		warnings,
	};
}

/**
 * Manual test run: the most recently listed finished task with a selected event, within
 * `maxPages` pages (newest first: the first one met; oldest first: the last one met).
 */
export async function newestFinished(
	settings: Pick<PollSettings, 'events' | 'order' | 'maxPages'>,
	readPage: PageReader,
): Promise<Finished | undefined> {
	const selected = new Set(settings.events);
	let longest = 0;
	let last: Finished | undefined;
	for (let n = 1; n <= settings.maxPages; n++) {
		const page = await readPage(n);
		for (const record of page.records) {
			const event = eventOf(record.status);
			const id = taskIdOf(record);
			if (!event || !id || !selected.has(event)) continue;
			last = { event, taskId: id, status: record.status, task: record };
			if (settings.order === 'newest') return last;
		}
		longest = Math.max(longest, page.records.length);
		if (isLastPage(page, n, longest)) break;
	}
	return last;
}
