import type { IDataObject } from 'n8n-workflow';

import { idsOf, ListWalk, samePage, taskIdOf } from '../service/list';
import type { ListPage } from '../shared/records';
import type { Finished, Gap, PageReader, PollSettings, PollState } from './poll-state';
import { eventOf } from './events';

/**
 * One poll's reading of the task list: the poll's time, what it met, and the stretches it reads (see
 * ./walk.ts for the whole poll, ./walk-newest.ts and ./walk-oldest.ts for the two orders).
 *
 * The list moves while it is read: tasks submitted meanwhile push every task down. A stretch is
 * therefore read from a cursor — the deepest task it has taken — and takes on each page only what
 * follows the cursor: tasks above it (met already, or new on top, left to the next poll's reading
 * from the top) are never taken, so a stretch holds the tasks between its first one and its
 * cursor, and nothing else. Where it stops, the gap it leaves begins at the cursor, so a later
 * reading of that gap never meets the stretch's own tasks and takes them for the end of the gap.
 * Pages are read one after the other: tasks only move down, so the next page never skips a task.
 * Reading down a list that moves by a page per read makes no headway (every page shows the same
 * tasks again); the stretch stops when the poll's time is up, with its gap and goes on once the list calms,
 * where a task read above the gap (`Gap.top`) tells at once on which page the gap now begins.
 */

/** How a stretch of reading ended: at tasks read before, at the list's end, or stopped (the poll's time, a failure). */
export type Stop =
	| { at: 'known' }
	| { at: 'end'; page: number; last?: string }
	| { at: 'stopped'; gaps: Array<Omit<Gap, 'baseline'>> };

/** A stretch: the task IDs taken, in list order, from its first one down to its cursor. */
export class Stretch {
	readonly ids: string[] = [];

	private readonly at = new Map<string, number>();

	/** The stretch's first page (number and IDs): a page that repeats it may be a service ignoring `page`. */
	first?: { n: number; ids: string[] };

	/** The last task of the page read last: the deepest one, unless the list moved (see `stopped`). */
	frontier?: string;

	/** A task the stretch reads past before known tasks end it (a gap merged with the next one). */
	through?: string;

	/** Known tasks do not end the stretch yet: it has not read past `through`. */
	goesOn() {
		const through = this.through;
		return through !== undefined && (!this.at.has(through) || this.cursor === through);
	}

	/** Cursors followed by a page that held no task of the stretch (taken as what followed them). */
	private readonly unsure = new Set<string>();

	/** The next page holds no task of the stretch: it is taken as what follows the cursor. */
	guess() {
		if (this.cursor !== undefined) this.unsure.add(this.cursor);
	}

	constructor(
		/** The task the stretch's `depth` counts from (see Gap.top). */
		readonly top?: string,
		readonly depthBefore = 0,
	) {}

	add(id: string) {
		if (this.at.has(id)) return;
		this.at.set(id, this.ids.length);
		this.ids.push(id);
	}

	has(id: string) {
		return this.at.has(id);
	}

	get cursor(): string | undefined {
		return this.ids[this.ids.length - 1];
	}

	/**
	 * Stopped before page `page`: the gap below the cursor, with what finds the cursor again. A page
	 * holding no task of the stretch is taken as what follows the cursor; if the list had moved by
	 * more than a page plus the stretch during that one read, it held tasks new on top instead, and
	 * a later page shows the stretch again ending at that guessed-at cursor (the frontier). Both then
	 * lead a gap: the one that was not the deepest meets known tasks at once and closes.
	 */
	stopped(page: number): Stop {
		const top = this.top ?? this.ids[0];
		const gapAfter = (after: string | undefined) => {
			const found =
				top !== undefined && after !== undefined
					? { top, depth: this.depthBefore + (this.at.get(after) ?? 0) }
					: {};
			return { page, after, ...found, ...(this.goesOn() ? { through: this.through } : {}) };
		};
		const gaps = [gapAfter(this.cursor)];
		const frontier = this.frontier;
		if (frontier !== undefined && frontier !== this.cursor && this.unsure.has(frontier))
			gaps.push(gapAfter(frontier));
		return { at: 'stopped', gaps };
	}
}

/** One poll: the memory it starts from, what it meets, and the readers. */
export class Walk {
	readonly seenBefore: Set<string>;

	readonly pendingBefore: Set<string>;

	readonly selected: Set<string>;

	/** IDs met this poll, in the order met; a task met twice (the list moved) counts once. */
	readonly met = new Set<string>();

	/** Where each task met this poll was listed when last read (0 = the first task of page 1). */
	readonly position = new Map<string, number>();

	readonly stillPending = new Set<string>();

	readonly emit: Finished[] = [];

	readonly warnings: string[] = [];

	pagesRead = 0;

	failure: unknown;

	/** The service is known to honour `page`: a reading ended the list on a page after the first. */
	honoursPage: boolean;

	/** The first page, read again in this poll, showed that the list moves (not that `page` is ignored). */
	moved = false;

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
		this.honoursPage = previous?.honoursPage === true;
		this.pages = new ListWalk(async (n) => await this.readInTime(n));
	}

	/** A page, or undefined when the poll's time is up or the request failed (the walk stops there). */
	async read(n: number): Promise<ListPage | undefined> {
		const page = await this.pages.page(n);
		if (!page) return undefined;
		const size = this.pageSize(page);
		page.records.forEach((record, i) => {
			const id = taskIdOf(record);
			if (id !== undefined) this.position.set(id, (n - 1) * size + i);
		});
		// A service that ignores `page` never ends its list on a later page.
		if (n > 1 && this.pages.isLast(page, n)) this.honoursPage = true;
		return page;
	}

	/** The number of tasks per page, as the service says or as read. */
	pageSize(page?: ListPage): number {
		return Math.max(1, page?.pageSize ?? this.pages.longest);
	}

	private async readInTime(n: number): Promise<ListPage | undefined> {
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
	 * Takes a page's records (from `from` on; into `into`, the stretch, when given). `connects`: it
	 * holds tasks not met before in this poll, every one of them read in an earlier poll and none
	 * followed — the walk has reached what it knew. `evidence`: the stretch is read at the list's
	 * top (new tasks above known ones show a newest-first list) or at its end (new tasks below known
	 * ones show an oldest-first list).
	 */
	takePage(page: ListPage, quiet: boolean, from = 0, evidence?: 'top' | 'end', into?: Stretch) {
		let allKnown = true;
		let anyUnfinished = false;
		let anyFresh = false;
		for (const record of page.records.slice(from)) {
			const { known, unfinished, fresh } = this.take(record, quiet);
			// Past the last task read before a gap, the gap's own tasks follow.
			const id = taskIdOf(record);
			if (id !== undefined) into?.add(id);
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

	/** The index after the deepest record of `stretch` on the page (0 when none is on it). */
	private after(page: ListPage, stretch: Stretch): number {
		for (let i = page.records.length - 1; i >= 0; i--) {
			const id = taskIdOf(page.records[i]);
			if (id !== undefined && stretch.has(id)) return i + 1;
		}
		return 0;
	}

	/**
	 * Reads down from page `n` until a page that `connects` (the walk has reached tasks read before),
	 * the end of the list, or the end of the poll's time (`stopped`, leaving the gap below the cursor).
	 */
	async down(n: number, quiet: boolean, stretch: Stretch, evidence?: 'top' | 'end'): Promise<Stop> {
		// Whether a page holding no task of the stretch can be what follows the cursor: not after the
		// first page was read again (the list moved meanwhile by an unknown number of tasks), nor
		// when the page before ended above the cursor (the list moved faster than the reading; the
		// page after it then lies above the stretch, among tasks new on top).
		let unsure = false;
		for (; ; n++) {
			const page = await this.read(n);
			if (!page) return stretch.stopped(n);
			const ids = idsOf(page);
			stretch.first ??= { n, ids };
			const from = this.after(page, stretch);
			if (from === 0 && ids.length > 0 && stretch.cursor !== undefined) {
				if (unsure) return stretch.stopped(n);
				stretch.guess();
			}
			const taken = this.takePage(page, quiet, from, evidence, stretch);
			quiet = taken.quiet;
			if (ids.length > 0) stretch.frontier = ids[ids.length - 1];
			if (this.pages.isLast(page, n)) return { at: 'end', page: n, last: stretch.cursor };
			if (taken.connects && !stretch.goesOn()) {
				this.connect(n, ids);
				return { at: 'known' };
			}
			unsure = ids.length > 0 && ids[ids.length - 1] !== stretch.cursor;
			// Nothing below the cursor and the stretch's first page again: the list moved by whole
			// pages, or the service answers every page with the first. Reading the first page again
			// tells which, until a reading has ended the list on a later page.
			const repeats = from === page.records.length && n !== stretch.first.n;
			if (repeats && !this.honoursPage && !this.moved && samePage(stretch.first.ids, ids)) {
				const ignores = await this.pages.ignoresPage(stretch.first.n, ids);
				if (ignores === undefined) return stretch.stopped(n + 1);
				if (ignores) {
					this.warnings.push(
						`The service answered page ${n} of the task list with the tasks of page ${stretch.first.n}: it seems to ignore the "page" parameter, so only one page of tasks can be read.`,
					);
					return { at: 'end', page: n, last: stretch.cursor };
				}
				// Not remembered beyond this poll: a service ignoring `page` whose first page changes
				// meanwhile looks the same.
				this.moved = true;
				unsure = true;
			}
		}
	}

	/**
	 * Goes on at a gap: finds the last task read before it — on the page where the stretch before
	 * just stopped, else near where it is now (below the task the gap counts its depth from, when
	 * that was read in this poll), else from the page that held it, moving down while the tasks
	 * read are all known (tasks were added above) or up while they are new (tasks above were
	 * deleted) — takes what follows and reads down from there.
	 */
	async resume(gap: Gap, evidence?: 'end'): Promise<Stop> {
		this.startStretch();
		const stretch = new Stretch(gap.top ?? gap.after, gap.top ? (gap.depth ?? 0) : 0);
		if (gap.after !== undefined) stretch.add(gap.after);
		stretch.through = gap.through;
		if (gap.after !== undefined && this.connectedAt[this.connectedAt.length - 1] === gap.after) {
			this.stretch.sawKnown = true;
			return await this.down(this.connectedPage + 1, gap.baseline, stretch, evidence);
		}
		let n = gap.after === undefined ? gap.page : Math.max(1, gap.page - 1);
		const topAt = gap.top === undefined ? undefined : this.position.get(gap.top);
		if (gap.after !== undefined && topAt !== undefined && gap.depth !== undefined) {
			// The tasks between the two do not move apart (new tasks are listed above both): the page
			// where that puts the gap's task when `top` was read, or below it by now.
			n = Math.floor((topAt + gap.depth) / this.pageSize()) + 1;
		}
		let direction = 0;
		for (;;) {
			const page = await this.read(n);
			if (!page) return stretch.stopped(n);
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
			stretch.first = { n, ids };
			const recordAt = anchor < 0 ? 0 : this.after(page, stretch);
			if (recordAt === 0) stretch.guess();
			const { connects } = this.takePage(page, gap.baseline, recordAt, evidence, stretch);
			if (ids.length > 0) stretch.frontier = ids[ids.length - 1];
			if (this.pages.isLast(page, n)) return { at: 'end', page: n, last: stretch.cursor };
			if (connects && !stretch.goesOn()) {
				this.connect(n, ids);
				return { at: 'known' };
			}
			return await this.down(n + 1, gap.baseline, stretch, evidence);
		}
	}

	/** The stretch met what it knew on page `n`. */
	connect(n: number, ids: string[]) {
		this.connectedPage = n;
		this.connectedAt = ids;
	}
}
