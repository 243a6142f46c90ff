import type { IDataObject } from 'n8n-workflow';

import type { ListPage } from '../shared/records';
import type { TaskEvent } from './events';

/**
 * What the poll trigger remembers between polls (kept in the node's static data), its settings,
 * and what one poll returns; the walk itself is ./walk.ts.
 */

export type ListOrder = 'newest' | 'oldest';

/** Where a newest-first walk stopped before it met tasks read before: the next poll goes on there. */
export interface Gap {
	/** The page to read next. */
	page: number;
	/** The last task read before the gap (found again however the list moved). */
	after?: string;
	/** The tasks below were listed before the trigger started: followed if unfinished, not emitted. */
	baseline: boolean;
	/**
	 * A task read above `after` in the same stretch, and how many tasks lie from it down to `after`:
	 * new tasks are listed above both, so where a later poll meets this one tells where `after` is.
	 */
	top?: string;
	depth?: number;
	/**
	 * Two gaps merged into one (more gaps than kept): the later one's task. Known tasks do not end
	 * the gap before it is read past, so the stretch between the two and the later gap are read.
	 */
	through?: string;
}

export interface PollState {
	/** Format of this record. */
	v: 2;
	/** Task IDs met in the list (any status), most recently met first; bounded by `maxSeen`. */
	seen: string[];
	/** Task IDs met unfinished: emitted when they finish (or dropped once gone); next to check first. */
	pending: string[];
	/** Newest first: stretches of the list not read yet, from the top down. */
	gaps: Gap[];
	/** Oldest first: the page where the previous poll ended. */
	resumePage?: number;
	/** Oldest first: the first reading has not reached the end of the list yet. */
	baselining?: boolean;
	/** Newest first: the end of the list as last reached (the order check reads it again). */
	end?: { page: number; last: string };
	/** New tasks appeared where the setting says: the other end is no longer looked at. */
	orderConfirmed?: boolean;
	/** A reading ended the list on a page after the first: the service honours `page`. */
	honoursPage?: boolean;
}

export interface PollSettings {
	events: string[];
	order: ListOrder;
	/** Pages read per poll at most (a first reading, gaps and checks of the order included). */
	maxPages: number;
	/** Unfinished tasks not met on the walked pages that are read one by one per poll, at most. */
	maxChecks: number;
	maxSeen: number;
	maxPending: number;
	/** Most gaps remembered (beyond, the deepest are merged two by two into one; see Gap.through). */
	maxGaps: number;
	/** Whether the poll may send another request (its time); always, unless given. */
	canRead?: () => boolean;
}

export const DEFAULT_SETTINGS: PollSettings = {
	events: ['ocr.done', 'ocr.failed'],
	order: 'newest',
	maxPages: 50,
	maxChecks: 25,
	maxSeen: 10_000,
	maxPending: 2_000,
	maxGaps: 20,
};

export interface Finished {
	event: TaskEvent;
	taskId: string;
	status: IDataObject[string];
	/** The task as the list (or the single read) gave it. */
	task: IDataObject;
}

export interface PollResult {
	/** The memory to keep; undefined when a first poll read nothing (the next one starts over). */
	state: PollState | undefined;
	/** Tasks that finished since they were last seen, with a selected event, oldest first as far as known. */
	emit: Finished[];
	/** This poll began the trigger's memory (first activation): nothing old is emitted. */
	baseline: boolean;
	pagesRead: number;
	checks: number;
	/** Things an operator should know (logged by the node), e.g. a gap left for the next poll. */
	warnings: string[];
	/** The request that failed and ended the poll early (what was read before it counts). */
	failure?: unknown;
}

/** One page of GET /api/tasks, already read by the list-shape reader. */
export type PageReader = (page: number) => Promise<ListPage>;
/** GET /api/tasks/{id}: the task, or undefined when the service says it does not exist (404). */
export type TaskReader = (taskId: string) => Promise<IDataObject | undefined>;

const strings = (a: unknown): a is string[] =>
	Array.isArray(a) && a.every((x) => typeof x === 'string');

function readGap(value: unknown): Gap | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const g = value as Partial<Gap>;
	if (typeof g.page !== 'number' || g.page < 1) return undefined;
	const gap: Gap = {
		page: Math.floor(g.page),
		after: typeof g.after === 'string' ? g.after : undefined,
		baseline: g.baseline === true,
	};
	if (typeof g.top === 'string' && typeof g.depth === 'number' && g.depth >= 0) {
		gap.top = g.top;
		gap.depth = Math.floor(g.depth);
	}
	if (typeof g.through === 'string') gap.through = g.through;
	return gap;
}

/** The stored state, if it is one this version understands (v1 is carried over); else none. */
export function readState(value: unknown): PollState | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const s = value as Partial<Omit<PollState, 'v'>> & { v?: unknown };
	if ((s.v !== 1 && s.v !== 2) || !strings(s.seen) || !strings(s.pending)) return undefined;
	const state: PollState = { v: 2, seen: [...s.seen], pending: [...s.pending], gaps: [] };
	if (Array.isArray(s.gaps))
		state.gaps = s.gaps.map(readGap).filter((g): g is Gap => g !== undefined);
	if (typeof s.resumePage === 'number' && s.resumePage >= 1)
		state.resumePage = Math.floor(s.resumePage);
	if (s.baselining === true) state.baselining = true;
	const end = s.end as { page?: unknown; last?: unknown } | undefined;
	if (end && typeof end.page === 'number' && typeof end.last === 'string')
		state.end = { page: Math.max(1, Math.floor(end.page)), last: end.last };
	if (s.orderConfirmed === true) state.orderConfirmed = true;
	if (s.honoursPage === true) state.honoursPage = true;
	return state;
}
