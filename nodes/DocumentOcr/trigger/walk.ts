import type { IDataObject } from 'n8n-workflow';

import type { PollResult, PollSettings, PollState, PageReader, TaskReader } from './poll-state';
import { eventOf } from './events';
import { Walk } from './stretches';
import { walkNewest } from './walk-newest';
import { walkOldest } from './walk-oldest';

/**
 * What the poll trigger remembers between polls, and one poll as a pure function of it: no n8n
 * context, no HTTP, no clock (a check of the poll's time is injected). The node hands in two readers (a page of
 * `GET /api/tasks`, one `GET /api/tasks/{id}`) and stores the returned state.
 *
 * Why it reads the list WITHOUT the status filter: tasks finish out of order, so a task still
 * queued at one poll may finish behind pages of tasks already reported; a `done`-filtered list
 * would show it deep among them, and `failed` is no documented filter value. Instead the trigger
 * remembers which tasks it saw unfinished (`pending`) and looks for them again: on the pages it
 * walks anyway, else one by one (`GET /api/tasks/{id}`, a bounded number per poll, in turn).
 *
 * A poll never throws away what it learnt. It reads until it meets the tasks of the previous
 * poll, the end of the list, or the end of what it may read (pages, time, a request that failed); where
 * it stopped before meeting known tasks it leaves a gap — the page and the deepest task read, found
 * again however the list moved — and the next polls go on from there. So a burst of thousands of
 * tasks, or a service that rate-limits, is worked off over several polls instead of dropped, and
 * the state always matches exactly what was emitted.
 *
 * The list moves while it is read: tasks submitted meanwhile push every task down. How a stretch
 * is read from its cursor so that it never takes a task out of order is ./stretches.ts; a page made
 * only of tasks met earlier is told apart from a service that ignores `page` by reading the
 * stretch's first page again (service/list.ts), until the service has shown that it honours it.
 *
 * The list's order is not documented. The setting (newest first unless told) says where new tasks
 * appear; until new tasks have appeared there once, each poll also looks at the other end, and a
 * task found there is taken too, with a warning that the setting contradicts the service.
 */

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
	if (walk.honoursPage) state.honoursPage = true;
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
