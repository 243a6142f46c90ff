import type { IDataObject } from 'n8n-workflow';

import { idsOf, ListWalk, taskIdOf } from '../service/list';
import type { ListPage } from '../shared/records';
import type {
	Finished,
	Gap,
	PageReader,
	PollResult,
	PollSettings,
	PollState,
	TaskReader,
} from './poll-state';
import { eventOf } from './poll-state';

/**
 * What the poll trigger remembers between polls, and one poll as a pure function of it: no n8n
 * context, no HTTP, no clock (a budget check is injected). The node hands in two readers (a page of
 * `GET /api/tasks`, one `GET /api/tasks/{id}`) and stores the returned state.
 *
 * Why it reads the list WITHOUT the status filter: tasks finish out of order, so a task still
 * queued at one poll may finish behind pages of tasks already reported; a `done`-filtered list
 * would show it deep among them, and `failed` is no documented filter value. Instead the trigger
 * remembers which tasks it saw unfinished (`pending`) and looks for them again: on the pages it
 * walks anyway, else one by one (`GET /api/tasks/{id}`, a bounded number per poll, in turn).
 *
 * A poll never throws away what it learnt. It reads until it meets the tasks of the previous
 * poll, the end of the list, or the end of its budget (pages, time, a request that failed); where
 * it stopped before meeting known tasks it leaves a gap — the page and the last task read, found
 * again however the list moved — and the next polls go on from there. So a burst of thousands of
 * tasks, or a service that rate-limits, is worked off over several polls instead of dropped, and
 * the state always matches exactly what was emitted.
 *
 * The list moves while it is read: tasks submitted meanwhile push every task down (a task is then
 * met twice: harmless). A page made only of tasks met earlier in the walk is told apart from a
 * service that ignores `page` by reading the walk's first page again (service/list.ts).
 *
 * The list's order is not documented. The setting (newest first unless told) says where new tasks
 * appear; until new tasks have appeared there once, each poll also looks at the other end, and a
 * task found there is taken too, with a warning that the setting contradicts the service.
 */

/** How a stretch of reading ended: at tasks read before, at the list's end, or stopped (budget, failure). */
type Stop =
	| { at: 'known' }
	| { at: 'end'; page: number; last?: string }
	| { at: 'stopped'; page: number; after?: string };

/** One poll: the memory it starts from, what it meets, and the readers. */
class Walk {
	readonly seenBefore: Set<string>;

	readonly pendingBefore: Set<string>;

	readonly selected: Set<string>;

	/** IDs met this poll, in the order met; a task met twice (the list moved) counts once. */
	readonly met = new Set<string>();

	readonly stillPending = new Set<string>();

	readonly emit: Finished[] = [];

	readonly warnings: string[] = [];

	pagesRead = 0;

	failure: unknown;

	/** The list as this poll reads it: the last-page and repeated-page decisions (service/list.ts). */
	readonly pages: ListWalk;

	/**
	 * The last task read before each gap, and whether the tasks after it were listed before the
	 * trigger started: a reading that passes one of them goes on into that gap.
	 */
	readonly anchors = new Map<string, boolean>();

	/** The page where the last stretch met what it knew, and its task IDs. */
	connectedPage = 0;

	connectedAt: string[] = [];

	/** New tasks met above known ones, or below them: evidence of the list's order. */
	newOnTop = false;

	newAtEnd = false;

	constructor(
		readonly previous: PollState | undefined,
		readonly settings: PollSettings,
		readonly readPage: PageReader,
	) {
		this.seenBefore = new Set(previous?.seen ?? []);
		this.pendingBefore = new Set(previous?.pending ?? []);
		this.selected = new Set(settings.events);
		this.pages = new ListWalk(async (n) => await this.readWithinBudget(n));
	}

	/** A page, or undefined when the budget is spent or the request failed (the walk stops there). */
	async read(n: number): Promise<ListPage | undefined> {
		return await this.pages.page(n);
	}

	private async readWithinBudget(n: number): Promise<ListPage | undefined> {
		if (this.failure !== undefined || this.pagesRead >= this.settings.maxPages) return undefined;
		if (this.settings.canRead && !this.settings.canRead()) return undefined;
		this.pagesRead++;
		try {
			return await this.readPage(n);
		} catch (error) {
			this.failure = error;
			return undefined;
		}
	}

	known(id: string) {
		return this.seenBefore.has(id) || this.met.has(id);
	}

	/**
	 * Takes one record: followed while unfinished, emitted when it finishes — unless it sits where
	 * tasks listed before the trigger started are (`quiet`) and was not followed.
	 */
	take(
		record: IDataObject,
		quiet: boolean,
	): { known: boolean; unfinished: boolean; fresh: boolean } {
		const id = taskIdOf(record);
		if (id === undefined || this.met.has(id))
			return { known: true, unfinished: false, fresh: false };
		this.met.add(id);
		const event = eventOf(record.status);
		const wasSeen = this.seenBefore.has(id);
		const wasPending = this.pendingBefore.has(id);
		if (event === undefined) {
			// A task seen finished and listed unfinished again (not expected) is not followed again.
			if (!wasSeen || wasPending) this.stillPending.add(id);
			return { known: wasSeen, unfinished: !wasSeen || wasPending, fresh: true };
		}
		if ((wasPending || (!wasSeen && !quiet)) && this.selected.has(event))
			this.emit.push({ event, taskId: id, status: record.status, task: record });
		return { known: wasSeen, unfinished: false, fresh: true };
	}

	/** Where new tasks sit beside known ones in the stretch being read (see `takePage`). */
	private stretch = { sawNew: false, sawKnown: false };

	/**
	 * Takes a page's records (from `from` on). `connects`: it holds tasks not met before in this
	 * poll, every one of them read in an earlier poll and none followed — the walk has reached what
	 * it knew. `evidence`: the stretch is read at the list's top (new tasks above known ones show a
	 * newest-first list) or at its end (new tasks below known ones show an oldest-first list).
	 */
	takePage(page: ListPage, quiet: boolean, from = 0, evidence?: 'top' | 'end') {
		let allKnown = true;
		let anyUnfinished = false;
		let anyFresh = false;
		for (const record of page.records.slice(from)) {
			const { known, unfinished, fresh } = this.take(record, quiet);
			// Past the last task read before a gap, the gap's own tasks follow.
			const id = taskIdOf(record);
			if (id !== undefined && this.anchors.has(id)) quiet = this.anchors.get(id)!;
			if (unfinished) anyUnfinished = true;
			if (!fresh) continue;
			anyFresh = true;
			if (!known) {
				allKnown = false;
				if (evidence === 'end' && this.stretch.sawKnown) this.newAtEnd = true;
				this.stretch.sawNew = true;
			} else {
				if (evidence === 'top' && this.stretch.sawNew) this.newOnTop = true;
				this.stretch.sawKnown = true;
			}
		}
		return {
			connects: anyFresh && allKnown && !anyUnfinished,
			repeated: page.records.length > 0 && !anyFresh,
			quiet,
		};
	}

	/** A new stretch of reading: evidence of the order is gathered within one stretch. */
	startStretch() {
		this.stretch = { sawNew: false, sawKnown: false };
	}

	/**
	 * Reads down from page `n` until a page that `connects` (the walk has reached tasks read before),
	 * the end of the list, or the end of the budget (`stopped`). A page of tasks all met earlier in
	 * this stretch is a moved list, or a service that ignores `page`: the stretch's first page, read
	 * again, tells which.
	 */
	async down(n: number, quiet: boolean, after?: string, evidence?: 'top' | 'end'): Promise<Stop> {
		let last = after;
		let ref: { n: number } | undefined;
		for (; ; n++) {
			const page = await this.read(n);
			if (!page) return { at: 'stopped', page: n, after: last };
			const ids = idsOf(page);
			ref ??= { n };
			const taken = this.takePage(page, quiet, 0, evidence);
			const { connects, repeated } = taken;
			quiet = taken.quiet;
			last = ids[ids.length - 1] ?? last;
			if (this.pages.isLast(page, n)) return { at: 'end', page: n, last };
			if (repeated && ref.n !== n) {
				// Only compared, not taken: tasks added on top are read by the next poll's walk from the
				// top, which stops at the first page it knew — taking some of them now would leave the
				// others between two stretches of known tasks, where no walk looks.
				const ignores = await this.pages.ignoresPage(ref.n, ids);
				if (ignores === undefined) return { at: 'stopped', page: n + 1, after: last };
				if (ignores) {
					this.warnings.push(
						`The service answered page ${n} of the task list with the tasks of page ${ref.n}: it seems to ignore the "page" parameter, so only one page of tasks can be read.`,
					);
					return { at: 'end', page: n, last };
				}
			}
			if (connects) {
				this.connect(n, ids);
				return { at: 'known' };
			}
		}
	}

	/**
	 * Goes on at a gap: finds the last task read before it — on the page where the stretch before
	 * just stopped, else from the page that held it, moving down while the tasks read are all known
	 * (tasks were added above) or up while they are new (tasks above were deleted) — takes what
	 * follows and reads down from there.
	 */
	async resume(gap: Gap, evidence?: 'end'): Promise<Stop> {
		this.startStretch();
		if (gap.after !== undefined && this.connectedAt[this.connectedAt.length - 1] === gap.after) {
			this.stretch.sawKnown = true;
			return await this.down(this.connectedPage + 1, gap.baseline, gap.after, evidence);
		}
		let n = gap.after === undefined ? gap.page : Math.max(1, gap.page - 1);
		let direction = 0;
		for (;;) {
			const page = await this.read(n);
			if (!page) return { at: 'stopped', page: n, after: gap.after };
			const ids = idsOf(page);
			const anchor = gap.after === undefined ? -1 : ids.indexOf(gap.after);
			if (anchor < 0 && direction >= 0 && ids.length > 0 && ids.every((id) => this.known(id))) {
				direction = 1;
				n++;
				continue;
			}
			if (anchor < 0 && direction <= 0 && n > 1 && (ids.length === 0 || !this.known(ids[0]))) {
				direction = -1;
				n--;
				continue;
			}
			// Evidence counts from the anchor on: the known task before what follows it.
			if (anchor >= 0) this.stretch.sawKnown = true;
			const { connects } = this.takePage(page, gap.baseline, anchor + 1, evidence);
			const last = ids[ids.length - 1] ?? gap.after;
			if (this.pages.isLast(page, n)) return { at: 'end', page: n, last };
			if (connects) {
				this.connect(n, ids);
				return { at: 'known' };
			}
			return await this.down(n + 1, gap.baseline, last, evidence);
		}
	}

	/** The stretch met what it knew on page `n`. */
	connect(n: number, ids: string[]) {
		this.connectedPage = n;
		this.connectedAt = ids;
	}
}

/** Newest first: the top until known tasks, then the gaps left by earlier polls, in order. */
async function walkNewest(walk: Walk, previous: PollState | undefined, baseline: boolean) {
	const state = {
		gaps: [...(previous?.gaps ?? [])],
		end: previous?.end,
		orderConfirmed: previous?.orderConfirmed,
	};
	for (const gap of state.gaps)
		if (gap.after !== undefined) walk.anchors.set(gap.after, gap.baseline);
	walk.startStretch();
	const top = await walk.down(1, baseline, undefined, 'top');
	let reachedEnd = top.at === 'end';
	if (top.at === 'stopped') {
		// Below the last task read, down to what was known: the same gap as one left before, if it
		// ends at the same task; nothing new at all if no task was read.
		if (top.after !== undefined) {
			state.gaps = state.gaps.filter((gap) => gap.after !== top.after);
			state.gaps.unshift({ page: top.page, after: top.after, baseline });
		}
	} else if (top.at === 'end') {
		// Read to the end: nothing is left unread below.
		state.gaps = [];
		if (top.last !== undefined) state.end = { page: top.page, last: top.last };
	} else {
		// Gaps whose last task this reading passed (met before the page where it stopped) were read
		// through.
		const passed = (gap: Gap) =>
			gap.after !== undefined && walk.met.has(gap.after) && !walk.connectedAt.includes(gap.after);
		while (state.gaps.length > 0 && passed(state.gaps[0])) state.gaps.shift();
		while (state.gaps.length > 0) {
			const gap = state.gaps[0];
			const stop = await walk.resume(gap);
			if (stop.at === 'known') {
				state.gaps.shift();
				continue;
			}
			if (stop.at === 'end') {
				reachedEnd = true;
				state.gaps = [];
				if (stop.last !== undefined) state.end = { page: stop.page, last: stop.last };
				break;
			}
			state.gaps[0] = { page: stop.page, after: stop.after, baseline: gap.baseline };
			break;
		}
	}
	if (walk.newOnTop) state.orderConfirmed = true;
	// The other end, until new tasks have appeared on top once: a service that appends new tasks
	// at the end is read there too, and said to contradict the setting.
	if (!baseline && !state.orderConfirmed && !reachedEnd && state.end && state.gaps.length === 0) {
		const stop = await walk.resume(
			{ page: state.end.page + 1, after: state.end.last, baseline: false },
			'end',
		);
		if (walk.newAtEnd) {
			walk.warnings.push(
				'The service lists new tasks at the end of its task list (oldest first), but List Order is Newest First. The trigger reads the end of the list too, one request more per poll: set Options → List Order to Oldest First.',
			);
		}
		if (stop.at === 'end' && stop.last !== undefined)
			state.end = { page: stop.page, last: stop.last };
	}
	if (state.gaps.length > walk.settings.maxGaps) {
		walk.warnings.push(
			`More than ${walk.settings.maxGaps} stretches of the task list are left unread: the deepest are given up. Poll more often, or raise Max Pages per Poll.`,
		);
		state.gaps.length = walk.settings.maxGaps;
	}
	if (state.gaps.length > 0)
		walk.warnings.push(
			`Not all new tasks could be read in this poll (${walk.failure === undefined ? 'Max Pages per Poll, or its time, ran out' : 'a request failed'}); the next poll goes on where this one stopped.`,
		);
	return state;
}

/**
 * Oldest first: new tasks are appended at the end. Resume one page before where the previous poll
 * ended (a deletion moves tasks up), and step back further while the first page read starts with
 * a task never met (more deletions than a page).
 */
async function walkOldest(walk: Walk, previous: PollState | undefined, baseline: boolean) {
	let n = baseline ? (previous?.resumePage ?? 1) : Math.max(1, (previous?.resumePage ?? 1) - 1);
	let orderConfirmed = previous?.orderConfirmed;
	walk.startStretch();
	let page = await walk.read(n);
	if (page && !baseline) {
		while (n > 1) {
			const ids = idsOf(page);
			if (ids.length > 0 && walk.seenBefore.has(ids[0])) break;
			const before = await walk.read(n - 1);
			if (!before) break;
			n--;
			page = before;
		}
	}
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
			`The task list did not end within this poll's budget: the next poll continues at page ${lastPage}.`,
		);
	}
	// The other end, until new tasks have appeared at the end once (see walkNewest): a service that
	// lists new tasks on top is read there too, down to the tasks read before.
	if (!baseline && !orderConfirmed && reachedEnd && lastPage > 1) {
		walk.startStretch();
		await walk.down(1, false, undefined, 'top');
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

/**
 * Followed tasks not met on the pages read: read one by one, a bounded number, longest-waiting
 * first. Returns those read (`checked`) and those still unfinished.
 */
async function checkFollowed(walk: Walk, unmet: string[], readTask: TaskReader) {
	const { settings } = walk;
	const checked = new Set<string>();
	const stillFollowed: string[] = [];
	for (const id of unmet.slice(0, settings.maxChecks)) {
		if (walk.failure !== undefined || (settings.canRead && !settings.canRead())) break;
		let task: IDataObject | undefined;
		try {
			task = await readTask(id);
		} catch (error) {
			walk.failure = error;
			break;
		}
		checked.add(id);
		if (task === undefined) continue; // deleted: nothing will finish
		const event = eventOf(task.status);
		if (event === undefined) stillFollowed.push(id);
		else if (walk.selected.has(event))
			walk.emit.push({ event, taskId: id, status: task.status, task });
	}
	return { checked, stillFollowed };
}

type Listed = Awaited<ReturnType<typeof walkNewest>> | Awaited<ReturnType<typeof walkOldest>>;

/** The memory after this poll: the tasks met, those followed, and where each walk goes on. */
function nextState(
	walk: Walk,
	listed: Listed,
	unmet: string[],
	followed: Awaited<ReturnType<typeof checkFollowed>>,
): PollState {
	const { settings, previous } = walk;
	// Most recently met first.
	const met = [...walk.met];
	const nextSeen = [...met, ...(previous?.seen ?? []).filter((id) => !walk.met.has(id))];
	if (nextSeen.length > settings.maxSeen) nextSeen.length = settings.maxSeen;

	// The next poll checks first those not checked now, then the rest in turn.
	const newPending = [...walk.stillPending];
	let nextPending = [
		...unmet.filter((id) => !followed.checked.has(id)),
		...followed.stillFollowed,
		...(settings.order === 'newest' ? newPending.reverse() : newPending),
	];
	if (nextPending.length > settings.maxPending) {
		walk.warnings.push(
			`More than ${settings.maxPending} unfinished tasks are followed: the ${nextPending.length - settings.maxPending} followed longest are no longer followed.`,
		);
		nextPending = nextPending.slice(nextPending.length - settings.maxPending);
	}

	const state: PollState = { v: 2, seen: nextSeen, pending: nextPending, gaps: [] };
	if ('gaps' in listed) {
		state.gaps = listed.gaps;
		if (listed.end) state.end = listed.end;
	} else {
		state.resumePage = listed.resumePage;
		if (listed.baselining) state.baselining = true;
	}
	if (listed.orderConfirmed) state.orderConfirmed = true;
	return state;
}

/** Runs one poll. Reads only; the returned state replaces the old one (also after a failure). */
export async function pollOnce(
	previous: PollState | undefined,
	settings: PollSettings,
	readPage: PageReader,
	readTask: TaskReader,
): Promise<PollResult> {
	// A first reading is a baseline; so is an oldest-first one that has not reached the end yet.
	const baseline = previous === undefined || previous.baselining === true;
	const walk = new Walk(previous, settings, readPage);
	const listed =
		settings.order === 'newest'
			? await walkNewest(walk, previous, previous === undefined)
			: await walkOldest(walk, previous, baseline);
	const fromList = walk.emit.length;
	const unmet = (previous?.pending ?? []).filter((id) => !walk.met.has(id));
	const followed = await checkFollowed(walk, unmet, readTask);
	const state = nextState(walk, listed, unmet, followed);
	// Oldest first where known: a newest-first list is met newest first.
	const fromPages = walk.emit.slice(0, fromList);
	const emit = [
		...(settings.order === 'newest' ? fromPages.reverse() : fromPages),
		...walk.emit.slice(fromList),
	];
	const nothingLearnt = previous === undefined && walk.met.size === 0 && walk.failure !== undefined;
	return {
		state: nothingLearnt ? undefined : state,
		emit,
		baseline: previous === undefined,
		pagesRead: walk.pagesRead,
		checks: followed.checked.size,
		warnings: walk.warnings,
		failure: walk.failure,
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
