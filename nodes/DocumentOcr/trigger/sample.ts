import { ListWalk, taskIdOf } from '../service/list';
import type { Finished, PageReader, PollSettings } from './poll-state';
import { eventOf } from './events';

/**
 * Manual test run: the most recently listed finished task with a selected event, within
 * `maxPages` pages (newest first: the first one met; oldest first: the last one met).
 */
export async function newestFinished(
	settings: Pick<PollSettings, 'events' | 'order' | 'maxPages'>,
	readPage: PageReader,
): Promise<Finished | undefined> {
	const selected = new Set(settings.events);
	const pages = new ListWalk(readPage);
	let last: Finished | undefined;
	for (let n = 1; n <= settings.maxPages; n++) {
		const page = (await pages.page(n))!;
		for (const record of page.records) {
			const event = eventOf(record.status);
			const id = taskIdOf(record);
			if (!event || !id || !selected.has(event)) continue;
			last = { event, taskId: id, status: record.status, task: record };
			if (settings.order === 'newest') return last;
		}
		if (pages.isLast(page, n)) break;
	}
	return last;
}
