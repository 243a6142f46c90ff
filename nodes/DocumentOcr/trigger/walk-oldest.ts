import { idsOf } from '../service/list';
import type { ListPage } from '../shared/records';
import type { PollState } from './poll-state';
import type { Walk } from './stretches';
import { Stretch } from './stretches';

/** The page to start at: back from page `n` while its first task is one never met. */
async function stepBack(walk: Walk, n: number, page: ListPage) {
	while (n > 1) {
		const ids = idsOf(page);
		if (ids.length > 0 && walk.seenBefore.has(ids[0])) break;
		const before = await walk.read(n - 1);
		if (!before) break;
		n--;
		page = before;
	}
	return { n, page };
}

/**
 * Oldest first: new tasks are appended at the end. Resume one page before where the previous poll
 * ended (a deletion moves tasks up), and step back further while the first page read starts with
 * a task never met (more deletions than a page).
 */
export async function walkOldest(walk: Walk, previous: PollState | undefined, baseline: boolean) {
	let n = baseline ? (previous?.resumePage ?? 1) : Math.max(1, (previous?.resumePage ?? 1) - 1);
	let orderConfirmed = previous?.orderConfirmed;
	walk.startStretch();
	let page = await walk.read(n);
	if (page && !baseline) ({ n, page } = await stepBack(walk, n, page));
	let reachedEnd = false;
	let lastPage = Math.max(1, n - 1);
	let ref: { n: number } | undefined;
	while (page) {
		const ids = idsOf(page);
		ref ??= { n };
		const { repeated } = walk.takePage(page, baseline, 0, 'end');
		if (walk.newAtEnd) orderConfirmed = true;
		lastPage = page.records.length > 0 ? n : Math.max(1, n - 1);
		if (walk.pages.isLast(page, n)) {
			reachedEnd = true;
			break;
		}
		if (repeated && ref.n !== n) {
			if ((await walk.pages.ignoresPage(ref.n, ids)) === true) {
				walk.warnings.push(
					`The service answered page ${n} of the task list with the tasks of page ${ref.n}: it seems to ignore the "page" parameter.`,
				);
				reachedEnd = true;
				break;
			}
		}
		n++;
		page = await walk.read(n);
	}
	if (!reachedEnd) {
		lastPage = Math.max(lastPage, n - 1) + 1;
		walk.warnings.push(
			`The task list did not end within this poll's time: the next poll continues at page ${lastPage}.`,
		);
	}
	// The other end, until new tasks have appeared at the end once (see walkNewest): a service that
	// lists new tasks on top is read there too, down to the tasks read before.
	if (!baseline && !orderConfirmed && reachedEnd && lastPage > 1) {
		walk.startStretch();
		await walk.down(1, false, new Stretch(), 'top');
		if (walk.newOnTop)
			walk.warnings.push(
				'The service lists new tasks at the top of its task list (newest first), but List Order is Oldest First. The trigger reads the top of the list too, one request more per poll: set Options → List Order to Newest First.',
			);
	}
	return {
		resumePage: Math.max(1, lastPage),
		baselining: baseline && !reachedEnd ? true : undefined,
		orderConfirmed,
	};
}
