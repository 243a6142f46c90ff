import type { IDataObject } from 'n8n-workflow';

import type { ListPage } from '../shared/records';

/**
 * Walking `GET /api/tasks` page by page, where the spec shows neither the body, the order nor the
 * largest page size, and the list moves while it is read (other clients submit tasks, so a task
 * read on page n can be read again on page n+1). Used by Get Many and the poll trigger.
 */

/**
 * Whether `page` (number `n`) is the list's last, by what the answer says (`hasMore`,
 * `totalPages`, `total` with the page size the service used), else by its length: empty, or
 * shorter than `longest`, the longest page read so far — so a service that caps the page size
 * below the one asked never ends the walk early.
 */
export function isLastPage(page: ListPage, n: number, longest: number): boolean {
	if (page.records.length === 0) return true;
	if (page.hasMore !== undefined) return !page.hasMore;
	if (page.totalPages !== undefined) return n >= page.totalPages;
	const size = page.pageSize ?? Math.max(longest, page.records.length);
	if (page.total !== undefined && size > 0) return n * size >= page.total;
	return page.records.length < longest;
}

/** A listed task's ID as text, or undefined when it has none. */
export function taskIdOf(record: IDataObject): string | undefined {
	const id = record.taskId;
	if (typeof id === 'string' && id !== '') return id;
	if (typeof id === 'number' && Number.isFinite(id)) return String(id);
	return undefined;
}

/** The task IDs of a page, in list order (records without one are skipped). */
export function idsOf(page: ListPage): string[] {
	const ids: string[] = [];
	for (const record of page.records) {
		const id = taskIdOf(record);
		if (id !== undefined) ids.push(id);
	}
	return ids;
}

/**
 * A page whose tasks were all read earlier in the walk either means the service ignores `page`
 * (it sends the same page whatever is asked), or that exactly k × pageSize tasks were created above
 * while the walk went on. Reading the walk's first page again tells them apart: the same tasks as
 * the repeated page, the service ignores `page` (the walk ends); other tasks, the list moved (the
 * walk goes on).
 */
export function samePage(before: string[], again: string[]): boolean {
	return before.length === again.length && before.every((id, i) => again[i] === id);
}

/**
 * A walk through the task list: reads pages (through `read`, which may refuse one: the poll's time, a
 * failure), remembers the longest page read, and holds the two decisions every reader of the list
 * makes — whether a page is the last, and whether a page made only of tasks met before means the
 * list moved or the service ignores `page`. Get Many and the poll trigger both walk with it.
 */
export class ListWalk {
	/** The longest page read so far: a shorter one is the list's last (see isLastPage). */
	longest = 0;

	constructor(private readonly read: (n: number) => Promise<ListPage | undefined>) {}

	async page(n: number): Promise<ListPage | undefined> {
		const page = await this.read(n);
		if (page) this.longest = Math.max(this.longest, page.records.length);
		return page;
	}

	isLast(page: ListPage, n: number): boolean {
		return isLastPage(page, n, this.longest);
	}

	/**
	 * Page `n` held only tasks met earlier in the stretch that started at page `first`: reads `first`
	 * again. True when it holds the same tasks (the service ignores `page`: the walk ends), false
	 * when the list moved (the walk goes on), undefined when `first` could not be read.
	 */
	async ignoresPage(first: number, ids: string[]): Promise<boolean | undefined> {
		const again = await this.page(first);
		return again ? samePage(ids, idsOf(again)) : undefined;
	}
}
