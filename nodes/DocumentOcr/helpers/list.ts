import type { ListPage } from './task';

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

/** The task IDs of a page, in list order (records without one are skipped). */
export function idsOf(page: ListPage): string[] {
	const ids: string[] = [];
	for (const record of page.records) {
		const id = record.taskId;
		if (typeof id === 'string' && id !== '') ids.push(id);
		else if (typeof id === 'number' && Number.isFinite(id)) ids.push(String(id));
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
