import type { Gap, PollState } from './poll-state';
import type { Walk } from './stretches';
import { Stretch } from './stretches';

/** What a poll of the newest-first list keeps: the gaps, the list's end, the order seen. */
type NewestState = Pick<PollState, 'gaps' | 'end' | 'orderConfirmed'>;

/**
 * After the top was read down to known tasks: the gaps left by earlier polls, in order. Gaps
 * whose last task this reading passed (met before the page where it stopped) were read through;
 * of a merged gap, what lies past its later task is left, unless that was passed too. True when
 * a gap was read to the end of the list.
 */
async function readGaps(walk: Walk, state: NewestState): Promise<boolean> {
	const passed = (id: string | undefined) =>
		id !== undefined && walk.met.has(id) && !walk.connectedAt.includes(id);
	while (state.gaps.length > 0 && passed(state.gaps[0].after)) {
		const { through, page, baseline: quiet } = state.gaps[0];
		if (through !== undefined && !passed(through)) {
			state.gaps[0] = { page, after: through, baseline: quiet };
			break;
		}
		state.gaps.shift();
	}
	while (state.gaps.length > 0) {
		const gap = state.gaps[0];
		const stop = await walk.resume(gap);
		if (stop.at === 'known') {
			state.gaps.shift();
			continue;
		}
		if (stop.at === 'end') {
			state.gaps = [];
			if (stop.last !== undefined) state.end = { page: stop.page, last: stop.last };
			return true;
		}
		state.gaps.splice(0, 1, ...stop.gaps.map((left) => ({ ...left, baseline: gap.baseline })));
		break;
	}
	return false;
}

/**
 * Newest first: the top until known tasks, then the gaps left by earlier polls, in order (from the
 * top down). A stretch that stops leaves a gap below its cursor, the deepest task it took.
 */
export async function walkNewest(walk: Walk, previous: PollState | undefined, baseline: boolean) {
	const state = {
		gaps: [...(previous?.gaps ?? [])],
		end: previous?.end,
		orderConfirmed: previous?.orderConfirmed,
	};
	for (const gap of state.gaps)
		if (gap.after !== undefined) walk.anchors.set(gap.after, gap.baseline);
	walk.startStretch();
	const top = await walk.down(1, baseline, new Stretch(), 'top');
	let reachedEnd = top.at === 'end';
	if (top.at === 'stopped') {
		// Below the cursor, down to what was known: the same gap as one left before, if it ends at
		// the same task; nothing new at all if no task was read.
		const left = top.gaps.filter((gap) => gap.after !== undefined);
		const ends = new Set(left.map((gap) => gap.after));
		state.gaps = [
			...left.map((gap) => ({ ...gap, baseline })),
			...state.gaps.filter((gap) => !ends.has(gap.after)),
		];
	} else if (top.at === 'end') {
		// Read to the end: nothing is left unread below.
		state.gaps = [];
		if (top.last !== undefined) state.end = { page: top.page, last: top.last };
	} else if (await readGaps(walk, state)) reachedEnd = true;
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
	if (!mergeGaps(state.gaps, walk.settings.maxGaps)) {
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
 * More gaps than kept: the deepest two of the same kind (both from the first reading, or neither)
 * become one that reads on past the later one's task (Gap.through) — the known stretch between
 * them is read again, and nothing is given up. False when no two can be merged.
 */
function mergeGaps(gaps: Gap[], max: number): boolean {
	while (gaps.length > max) {
		let k = gaps.length - 2;
		while (k >= 0 && gaps[k].baseline !== gaps[k + 1].baseline) k--;
		if (k < 0) return false;
		const [upper, lower] = [gaps[k], gaps[k + 1]];
		gaps.splice(k, 2, { ...upper, through: lower.through ?? lower.after });
	}
	return true;
}
