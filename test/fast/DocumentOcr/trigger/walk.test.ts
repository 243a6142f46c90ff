/**
 * The poll trigger's memory and walk on a fake task list: tasks finishing out of order, capped
 * pages, list shapes, bounds, and failed polls that must change nothing.
 */
import type { IDataObject } from 'n8n-workflow';

import { unwrapList } from '../../../../nodes/DocumentOcr/shared/records';
import type { PollSettings, PollState } from '../../../../nodes/DocumentOcr/trigger/poll-state';
import { DEFAULT_SETTINGS, readState } from '../../../../nodes/DocumentOcr/trigger/poll-state';
import { newestFinished } from '../../../../nodes/DocumentOcr/trigger/sample';
import { pollOnce } from '../../../../nodes/DocumentOcr/trigger/walk';

type Shape = 'array' | 'items' | 'data' | 'tasks';

/** A task service in memory: newest first by default, pages capped like the spec-strict emulator. */
class FakeService {
	tasks: Array<{ taskId: string; status: string; seq: number }> = [];
	seq = 0;
	pageCalls = 0;
	taskCalls = 0;
	shape: Shape = 'array';
	order: 'newest' | 'oldest' = 'newest';
	cap = 20;
	/** Throws on the n-th page read from now (1 = the next one). */
	failPageAt = 0;
	failTaskAt = 0;
	/** Requests answered before a 429 (a rate limit per poll; reset by the Trigger). */
	allowance = Infinity;
	/** Runs after each page answered (another client submitting while the list is read). */
	afterPage?: (page: number) => void;

	create(n = 1, status = 'queued') {
		const ids: string[] = [];
		for (let i = 0; i < n; i++) {
			const taskId = `t${++this.seq}`;
			this.tasks.push({ taskId, status, seq: this.seq });
			ids.push(taskId);
		}
		return ids;
	}

	finish(id: string, status = 'done') {
		const task = this.tasks.find((t) => t.taskId === id);
		if (!task) throw new Error(`no task ${id}`);
		task.status = status;
	}

	remove(id: string) {
		this.tasks = this.tasks.filter((t) => t.taskId !== id);
	}

	body(page: number, pageSize = 20): unknown {
		const size = Math.min(pageSize, this.cap);
		const sorted = [...this.tasks].sort((a, b) =>
			this.order === 'newest' ? b.seq - a.seq : a.seq - b.seq,
		);
		const items = sorted.slice((page - 1) * size, page * size).map((t) => ({
			taskId: t.taskId,
			provider: 'provider-async',
			status: t.status,
			metadata: {},
		}));
		const total = sorted.length;
		switch (this.shape) {
			case 'items':
				return { items, page, pageSize: size, total };
			case 'data':
				return {
					data: items,
					pagination: { page, pageSize: size, total, totalPages: Math.ceil(total / size) },
				};
			case 'tasks':
				return { tasks: items, total };
			default:
				return items;
		}
	}

	readPage = async (page: number) => {
		this.pageCalls++;
		if (this.failPageAt > 0 && --this.failPageAt === 0) throw new Error('HTTP 429 rate_limited');
		if (this.allowance-- <= 0) throw new Error('HTTP 429 rate_limited');
		const list = unwrapList(this.body(page));
		if (!list) throw new Error('unreadable list');
		this.afterPage?.(page);
		return list;
	};

	readTask = async (id: string): Promise<IDataObject | undefined> => {
		this.taskCalls++;
		if (this.failTaskAt > 0 && --this.failTaskAt === 0) throw new Error('HTTP 503');
		if (this.allowance-- <= 0) throw new Error('HTTP 429 rate_limited');
		const task = this.tasks.find((t) => t.taskId === id);
		return task ? { ...task } : undefined;
	};
}

/**
 * Polls as the node does: the state a poll returns is stored and what it found is emitted, also
 * when a request failed midway (the failure is recorded, as n8n records a poll's error).
 */
class Trigger {
	state: PollState | undefined;
	emitted: string[] = [];
	errors: unknown[] = [];
	get failures() {
		return this.errors.length;
	}
	constructor(
		readonly service: FakeService,
		readonly settings: PollSettings = DEFAULT_SETTINGS,
	) {}

	async poll() {
		const result = await pollOnce(
			this.state,
			this.settings,
			this.service.readPage,
			this.service.readTask,
		);
		this.state = result.state && (JSON.parse(JSON.stringify(result.state)) as PollState);
		this.emitted.push(...result.emit.map((e) => `${e.event}:${e.taskId}`));
		if (result.failure !== undefined) this.errors.push(result.failure);
		return result;
	}
}

const SEEDS = Array.from({ length: 30 }, (_, i) => 7 + i * 13);

const count = (list: string[]) => {
	const counts = new Map<string, number>();
	for (const x of list) counts.set(x, (counts.get(x) ?? 0) + 1);
	return counts;
};

describe('first poll', () => {
	test('records a starting point and emits nothing old; unfinished tasks are followed', async () => {
		const svc = new FakeService();
		const old = svc.create(45, 'done');
		const waiting = svc.create(3, 'queued');
		const t = new Trigger(svc);
		const first = await t.poll();
		expect(first?.baseline).toBe(true);
		expect(first?.emit).toEqual([]);
		expect(t.state?.seen).toHaveLength(48);
		expect(new Set(t.state?.pending)).toEqual(new Set(waiting));
		// 48 tasks on pages of 20: three pages, the last one short.
		expect(first?.pagesRead).toBe(3);

		svc.finish(waiting[1]);
		svc.finish(old[0], 'failed'); // a finished task does not finish again: nothing
		const second = await t.poll();
		expect(second?.baseline).toBe(false);
		expect(t.emitted).toEqual([`ocr.done:${waiting[1]}`]);
	});

	test('an empty account', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		expect((await t.poll())?.emit).toEqual([]);
		svc.create(1, 'done');
		await t.poll();
		expect(t.emitted).toEqual(['ocr.done:t1']);
	});
});

describe('steady state', () => {
	test('one page is read when nothing changed (once the order is confirmed)', async () => {
		const svc = new FakeService();
		svc.create(100, 'done');
		const t = new Trigger(svc);
		await t.poll();
		svc.create(1, 'done');
		await t.poll();
		svc.pageCalls = 0;
		const result = await t.poll();
		expect(result?.emit).toEqual([]);
		expect(svc.pageCalls).toBe(1);
		expect(svc.taskCalls).toBe(0);
	});

	test('a task created long ago that finishes behind pages of reported tasks is emitted once', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const [slow] = svc.create(1);
		await t.poll();
		const quick = svc.create(70);
		for (const id of quick) svc.finish(id);
		await t.poll();
		expect(t.emitted).toHaveLength(70);
		// The slow task now sits on page 4; page 1 alone is read, then it is checked by ID.
		svc.finish(slow, 'failed');
		svc.pageCalls = 0;
		svc.taskCalls = 0;
		await t.poll();
		expect(t.emitted.slice(70)).toEqual([`ocr.failed:${slow}`]);
		expect(svc.pageCalls).toBe(1);
		expect(svc.taskCalls).toBe(1);
		await t.poll();
		expect(t.emitted).toHaveLength(71);
		expect(t.state?.pending).toEqual([]);
	});

	test('pages holding followed tasks are read on instead of one read per task', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const batch = svc.create(50);
		await t.poll();
		expect(t.state?.pending).toHaveLength(50);
		svc.pageCalls = 0;
		svc.taskCalls = 0;
		svc.finish(batch[0]); // the oldest of the batch, on page 3
		await t.poll();
		expect(t.emitted).toEqual([`ocr.done:${batch[0]}`]);
		expect(svc.pageCalls).toBe(3); // pages 1-3 hold followed tasks, page 3 is short: the end
		expect(svc.taskCalls).toBe(0);
	});

	test('deleted followed tasks are dropped (404)', async () => {
		const svc = new FakeService();
		svc.create(30, 'done');
		const t = new Trigger(svc);
		const [gone] = svc.create(1);
		await t.poll();
		svc.create(40, 'done');
		await t.poll();
		svc.remove(gone);
		await t.poll();
		expect(t.state?.pending).toEqual([]);
		expect(t.emitted).toHaveLength(40);
	});

	test('only the selected events are emitted, and the others are not emitted later', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc, { ...DEFAULT_SETTINGS, events: ['ocr.failed'] });
		await t.poll();
		const [a, b] = svc.create(2);
		await t.poll();
		svc.finish(a, 'done');
		svc.finish(b, 'error');
		await t.poll();
		await t.poll();
		expect(t.emitted).toEqual([`ocr.failed:${b}`]);
	});

	test('unknown statuses count as unfinished', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const [a] = svc.create(1, 'ocr_running_weird');
		await t.poll();
		expect(t.emitted).toEqual([]);
		expect(t.state?.pending).toEqual([a]);
		svc.finish(a, 'completed');
		await t.poll();
		expect(t.emitted).toEqual([`ocr.done:${a}`]);
	});

	test('a task listed twice while the list moves is emitted once', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		svc.create(25, 'done');
		// Between page 1 and page 2 a new task is created: the last task of page 1 moves to page 2.
		const read = svc.readPage;
		let calls = 0;
		svc.readPage = async (page) => {
			if (++calls === 2) svc.create(1, 'queued');
			return await read(page);
		};
		await t.poll();
		expect(count(t.emitted).size).toBe(25);
		expect(t.emitted).toHaveLength(25);
	});
});

describe.each<Shape>(['array', 'items', 'data', 'tasks'])('list shape %s', (shape) => {
	test('out-of-order finishing over many polls: each task exactly once', async () => {
		const svc = new FakeService();
		svc.shape = shape;
		svc.create(30, 'done');
		const t = new Trigger(svc);
		await t.poll();
		const ids = svc.create(60);
		// Finish in a scrambled order, a few per poll, some failing.
		const order = ids.map((id, i) => ({ id, k: (i * 37) % 61 })).sort((x, y) => x.k - y.k);
		for (let i = 0; i < order.length; i++) {
			svc.finish(order[i].id, i % 7 === 0 ? 'failed' : 'done');
			if (i % 5 === 4) await t.poll();
		}
		await t.poll();
		const counts = count(t.emitted.map((e) => e.split(':')[1]));
		expect(counts.size).toBe(60);
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
		expect(t.emitted.filter((e) => e.startsWith('ocr.failed'))).toHaveLength(9);
		expect(t.state?.pending).toEqual([]);
	});
});

test('a capped page size does not end the walk early', async () => {
	const svc = new FakeService();
	svc.cap = 10; // the service sends 10 whatever is asked
	const t = new Trigger(svc);
	await t.poll();
	const ids = svc.create(35, 'done');
	await t.poll();
	expect(new Set(t.emitted)).toEqual(new Set(ids.map((id) => `ocr.done:${id}`)));
});

test('a service that ignores `page` (the same page again) ends the walk', async () => {
	const svc = new FakeService();
	svc.create(30, 'done');
	const read = svc.readPage;
	svc.readPage = async () => await read(1);
	const t = new Trigger(svc);
	svc.pageCalls = 0;
	const first = await t.poll();
	// Page 2 repeats page 1, and page 1 read again is unchanged: the service ignores `page`.
	expect(first?.pagesRead).toBe(3);
	expect(first?.warnings.join(' ')).toMatch(/ignore the "page" parameter/);
	svc.create(1, 'done');
	await t.poll();
	expect(t.emitted).toEqual(['ocr.done:t31']);
});

describe('a failed poll keeps what it learnt', () => {
	test.each([1, 2, 3])(
		'error on page %i: what was read before is emitted, the next poll goes on from there',
		async (at) => {
			const svc = new FakeService();
			const t = new Trigger(svc);
			await t.poll();
			const ids = svc.create(50, 'done');
			svc.failPageAt = at;
			const failed = await t.poll();
			expect(failed.failure).toBeDefined();
			expect(t.emitted).toHaveLength(20 * (at - 1));
			svc.pageCalls = 0;
			await t.poll();
			expect(new Set(t.emitted)).toEqual(new Set(ids.map((id) => `ocr.done:${id}`)));
			expect(t.emitted).toHaveLength(50);
			// Only what was not read yet: the top, the page that held the last task read, and on.
			expect(svc.pageCalls).toBeLessThanOrEqual(6 - at);
		},
	);

	test('error while checking a followed task: the next poll checks it again', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const [slow] = svc.create(1);
		await t.poll();
		svc.create(30, 'done');
		await t.poll();
		svc.finish(slow);
		svc.failTaskAt = 1;
		expect((await t.poll()).failure).toBeDefined();
		await t.poll();
		expect(t.emitted.filter((e) => e.endsWith(`:${slow}`))).toHaveLength(1);
	});

	test('a first poll failing after its first page keeps its starting point', async () => {
		const svc = new FakeService();
		svc.create(45, 'done');
		const [waiting] = svc.create(1);
		const t = new Trigger(svc);
		svc.failPageAt = 2;
		const first = await t.poll();
		expect(first.baseline).toBe(true);
		expect(first.failure).toBeDefined();
		// The gap also names the first task of its stretch and how deep below it the gap begins.
		expect(t.state?.gaps).toEqual([
			{ page: 2, after: expect.any(String), baseline: true, top: 't46', depth: 19 },
		]);
		const fresh = svc.create(2, 'done');
		svc.finish(waiting);
		await t.poll();
		// The rest of the first reading is read quietly; the new tasks and the followed one are emitted.
		expect(new Set(t.emitted)).toEqual(new Set([...fresh, waiting].map((id) => `ocr.done:${id}`)));
		expect(t.state?.gaps).toEqual([]);
	});
});

describe('a list that moves while it is read (issue 23, finding 3)', () => {
	test.each([
		[20, 30, 20],
		[1, 3, 1],
		[20, 100, 40],
	])(
		'page size %i, %i new tasks, %i more submitted between two page reads: every task emitted once',
		async (pageSize, n, between) => {
			const svc = new FakeService();
			svc.cap = pageSize;
			const t = new Trigger(svc);
			await t.poll();
			const ids = svc.create(n, 'done');
			let extra: string[] = [];
			svc.afterPage = (page) => {
				if (page === 1 && extra.length === 0) extra = svc.create(between, 'done');
			};
			await t.poll();
			svc.afterPage = undefined;
			await t.poll();
			const all = [...ids, ...extra].map((id) => `ocr.done:${id}`);
			expect(t.emitted.sort()).toEqual(all.sort());
		},
	);
});

test('a page repeated because tasks were added while the first page was read again is not taken for a service ignoring `page`', async () => {
	const svc = new FakeService();
	const t = new Trigger(svc);
	await t.poll();
	const ids = svc.create(45, 'done');
	let shifts = 2;
	const extra: string[] = [];
	svc.afterPage = () => {
		if (shifts-- > 0) extra.push(...svc.create(20, 'done'));
	};
	await t.poll();
	svc.afterPage = undefined;
	for (let i = 0; i < 3; i++) await t.poll();
	expect(t.emitted.sort()).toEqual([...ids, ...extra].map((id) => `ocr.done:${id}`).sort());
});

describe('a storm: a page of new tasks submitted after every page read, pages of 5 (issue 29, finding 8)', () => {
	test('a storm longer than the gaps kept (30 polls, Max Gaps 20): the deepest gaps are merged, not given up', async () => {
		const svc = new FakeService();
		svc.cap = 5;
		svc.create(100, 'done');
		const t = new Trigger(svc);
		for (let i = 0; i < 3; i++) await t.poll();
		let storm = true;
		svc.afterPage = () => {
			if (storm) svc.create(5, 'done');
		};
		let most = 0;
		for (let i = 0; i < 30; i++) {
			const { warnings } = await t.poll();
			expect(warnings.join(' ')).not.toMatch(/given up/);
			most = Math.max(most, t.state!.gaps.length);
		}
		expect(most).toBe(DEFAULT_SETTINGS.maxGaps);
		storm = false;
		for (let i = 0; i < 80 && (i < 2 || t.state!.gaps.length > 0); i++) await t.poll();
		expect(t.state!.gaps).toEqual([]);
		const expected = svc.tasks.slice(100).map((task) => `ocr.done:${task.taskId}`);
		expect(t.emitted.sort()).toEqual(expected.sort());
	});

	test('a storm faster than the reading (7 new tasks per read of 5): every task emitted once after it', async () => {
		const svc = new FakeService();
		svc.cap = 5;
		svc.create(100, 'done');
		const t = new Trigger(svc);
		for (let i = 0; i < 3; i++) await t.poll();
		let storm = true;
		svc.afterPage = () => {
			if (storm) svc.create(7, 'done');
		};
		for (let i = 0; i < 12; i++) await t.poll();
		storm = false;
		for (let i = 0; i < 60 && (i < 2 || t.state!.gaps.length > 0); i++) await t.poll();
		const expected = svc.tasks.slice(100).map((task) => `ocr.done:${task.taskId}`);
		expect(t.emitted.sort()).toEqual(expected.sort());
	});

	test.each([
		[5, 20],
		[5, 5],
		[4, 50],
		[3, 10],
	])(
		'%i new tasks per read, %i pages per poll: every task that finishes is emitted once, within the polls reading the storm takes',
		async (perRead, maxPages) => {
			const svc = new FakeService();
			svc.cap = 5;
			svc.create(100, 'done');
			const t = new Trigger(svc, { ...DEFAULT_SETTINGS, maxPages });
			let storm = false;
			let turn = 0;
			svc.afterPage = () => {
				if (storm) svc.create(perRead);
				// Tasks finish out of order while the list is read.
				for (const task of svc.tasks)
					if (task.status === 'queued' && (task.seq * 7 + ++turn) % 13 === 0) task.status = 'done';
			};
			for (let i = 0; i < 3; i++) await t.poll(); // the first reading of the 100 tasks
			expect(t.emitted).toEqual([]);
			storm = true;
			for (let i = 0; i < 12; i++) await t.poll();
			storm = false;
			for (const task of svc.tasks) if (task.status === 'queued') task.status = 'done';
			const stormTasks = svc.tasks.length - 100;
			let after = 0;
			while (
				after < 200 &&
				(after < 2 || t.state!.gaps.length > 0 || t.state!.pending.length > 0)
			) {
				await t.poll();
				after++;
			}
			const expected = svc.tasks.slice(100).map((task) => `ocr.done:${task.taskId}`);
			expect(t.emitted.sort()).toEqual(expected.sort());
			// What the storm added is read once, a poll's pages at a time; each poll also reads the top
			// and finds where a gap goes on, so at most twice that, and a few polls more.
			expect(after).toBeLessThanOrEqual(2 * Math.ceil(stormTasks / 5 / maxPages) + 3);
		},
	);
});

describe('a backlog on a rate-limiting service is worked off over several polls (finding 4)', () => {
	test('an 800-task burst, 20 requests allowed per poll: every task once, within 50 polls', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const ids = svc.create(800, 'done');
		const more: string[] = [];
		let polls = 0;
		while (t.emitted.length < 850 && polls < 50) {
			svc.allowance = 20;
			if (polls === 3) more.push(...svc.create(50, 'done'));
			await t.poll();
			polls++;
		}
		const expected = [...ids, ...more].map((id) => `ocr.done:${id}`);
		expect(new Set(t.emitted)).toEqual(new Set(expected));
		expect(t.emitted).toHaveLength(850);
		expect(t.failures).toBeGreaterThan(0);
		expect(polls).toBeLessThanOrEqual(50);
	});

	test('more tasks than Max Pages per Poll holds between two polls: the deeper ones come with the next polls', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc);
		await t.poll();
		const ids = svc.create(1_500, 'done');
		const first = await t.poll();
		expect(t.emitted).toHaveLength(1_000);
		expect(first.warnings.join(' ')).toMatch(/next poll goes on/);
		const later = svc.create(30, 'done');
		await t.poll();
		expect(new Set(t.emitted)).toEqual(new Set([...ids, ...later].map((id) => `ocr.done:${id}`)));
		expect(t.emitted).toHaveLength(1_530);
		expect(t.state?.gaps).toEqual([]);
	});

	test('a history of 3,000 tasks at activation: unfinished tasks deep in it are followed too', async () => {
		const svc = new FakeService();
		const [deep] = svc.create(1);
		svc.create(2_999, 'done');
		const t = new Trigger(svc);
		for (let i = 0; i < 4; i++) await t.poll();
		expect(t.emitted).toEqual([]);
		svc.finish(deep);
		await t.poll();
		expect(t.emitted).toEqual([`ocr.done:${deep}`]);
	});
});

describe('the list order is checked against the setting', () => {
	test('an oldest-first service with the default setting: new tasks are reported, with a warning', async () => {
		const svc = new FakeService();
		svc.order = 'oldest';
		svc.create(45, 'done');
		const t = new Trigger(svc);
		await t.poll();
		const fresh = svc.create(5, 'done');
		const result = await t.poll();
		expect(new Set(t.emitted)).toEqual(new Set(fresh.map((id) => `ocr.done:${id}`)));
		expect(result.warnings.join(' ')).toMatch(/set Options → List Order to Oldest First/);
	});

	test('a newest-first service with List Order: Oldest First: new tasks are reported, with a warning', async () => {
		const svc = new FakeService();
		svc.create(45, 'done');
		const t = new Trigger(svc, { ...DEFAULT_SETTINGS, order: 'oldest' });
		await t.poll();
		const fresh = svc.create(5, 'done');
		const result = await t.poll();
		expect(new Set(t.emitted)).toEqual(new Set(fresh.map((id) => `ocr.done:${id}`)));
		expect(result.warnings.join(' ')).toMatch(/set Options → List Order to Newest First/);
	});

	test('once new tasks have appeared where the setting says, the other end is no longer read', async () => {
		const svc = new FakeService();
		svc.create(45, 'done');
		const t = new Trigger(svc);
		await t.poll();
		svc.pageCalls = 0;
		await t.poll();
		expect(svc.pageCalls).toBe(2); // page 1, and the end of the list
		svc.create(3, 'done');
		await t.poll();
		expect(t.state?.orderConfirmed).toBe(true);
		svc.pageCalls = 0;
		await t.poll();
		expect(svc.pageCalls).toBe(1);
	});
});

test.each(SEEDS)(
	'random creations, finishes, deletions, failures, rate limits and lists moving while read (seed %i): nothing skipped, nothing twice',
	async (start) => {
		let seed = start;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		const svc = new FakeService();
		svc.create(40, 'done');
		svc.create(5);
		const t = new Trigger(svc);
		await t.poll();
		const expected = new Set(t.state?.pending);
		for (let round = 0; round < 200; round++) {
			const r = random();
			if (r < 0.35) for (const id of svc.create(1 + Math.floor(random() * 30))) expected.add(id);
			const open = svc.tasks.filter((x) => x.status === 'queued');
			for (const task of open)
				if (random() < 0.3) svc.finish(task.taskId, random() < 0.2 ? 'failed' : 'done');
			// Deletions between polls: a task deleted before it was reported is expected nowhere.
			if (random() < 0.3 && svc.tasks.length > 0) {
				const victim = svc.tasks[Math.floor(random() * svc.tasks.length)].taskId;
				svc.remove(victim);
				if (!t.emitted.some((e) => e.endsWith(`:${victim}`))) expected.delete(victim);
			}
			if (random() < 0.1) svc.failPageAt = 1 + Math.floor(random() * 3);
			if (random() < 0.05) svc.failTaskAt = 1;
			// Another client submitting while the list is read, and a rate limit of a few requests.
			svc.afterPage =
				random() < 0.3
					? () => {
							if (random() < 0.3)
								for (const id of svc.create(1 + Math.floor(random() * 25))) expected.add(id);
						}
					: undefined;
			svc.allowance = random() < 0.3 ? 1 + Math.floor(random() * 5) : Infinity;
			await t.poll();
		}
		svc.afterPage = undefined;
		svc.allowance = Infinity;
		for (const task of svc.tasks) if (task.status === 'queued') svc.finish(task.taskId);
		// Gaps left by the last polls are read, and followed tasks checked 25 a poll.
		const busy = () => (t.state?.gaps.length ?? 0) > 0 || (t.state?.pending.length ?? 0) > 0;
		for (let i = 0; i < 40 && busy(); i++) await t.poll();
		await t.poll();
		await t.poll();
		expect(t.failures).toBeGreaterThan(0);
		const ids = t.emitted.map((e) => e.split(':')[1]);
		expect(ids).toHaveLength(new Set(ids).size);
		expect(new Set(ids)).toEqual(expected);
	},
);

describe('bounds', () => {
	test('seen keeps the most recently listed tasks; pending is capped with a warning', async () => {
		const svc = new FakeService();
		const settings = { ...DEFAULT_SETTINGS, maxSeen: 50, maxPending: 10 };
		const t = new Trigger(svc, settings);
		await t.poll();
		svc.create(30, 'done');
		await t.poll();
		svc.create(30, 'done');
		await t.poll();
		expect(t.state?.seen).toHaveLength(50);
		expect(t.state?.seen[0]).toBe('t60');
		expect(t.state?.seen).not.toContain('t1');
		svc.create(15);
		const result = await t.poll();
		expect(t.state?.pending).toHaveLength(10);
		expect(result?.warnings.join(' ')).toMatch(/no longer followed/);
		expect(t.emitted).toHaveLength(60);
	});

	test('the page bound per poll is kept and reported', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc, { ...DEFAULT_SETTINGS, maxPages: 3 });
		await t.poll();
		svc.create(100, 'done');
		svc.pageCalls = 0;
		const result = await t.poll();
		expect(svc.pageCalls).toBe(3);
		expect(result?.warnings.join(' ')).toMatch(/Max Pages per Poll/);
		expect(t.emitted).toHaveLength(60);
	});

	test('the check bound per poll is kept, in turn', async () => {
		const svc = new FakeService();
		const t = new Trigger(svc, { ...DEFAULT_SETTINGS, maxChecks: 4 });
		await t.poll();
		const slow = svc.create(10);
		svc.create(1, 'done');
		// Push the slow tasks far down with a page of finished tasks after a gap.
		await t.poll();
		svc.create(40, 'done');
		await t.poll();
		for (const id of slow) svc.finish(id);
		svc.taskCalls = 0;
		const r1 = await t.poll();
		expect(r1?.checks).toBe(4);
		await t.poll();
		await t.poll();
		expect(t.emitted.filter((e) => slow.some((id) => e.endsWith(`:${id}`)))).toHaveLength(10);
		expect(svc.taskCalls).toBe(10);
	});
});

describe('oldest-first lists', () => {
	const oldest = { ...DEFAULT_SETTINGS, order: 'oldest' as const };

	test('resumes at the end of the list and catches tasks finishing out of order', async () => {
		const svc = new FakeService();
		svc.order = 'oldest';
		svc.create(95, 'done');
		const t = new Trigger(svc, oldest);
		await t.poll();
		expect(t.state?.resumePage).toBe(5);
		const ids = svc.create(30);
		await t.poll();
		svc.pageCalls = 0;
		for (const id of [...ids].reverse()) svc.finish(id, id === ids[3] ? 'failed' : 'done');
		await t.poll();
		expect(svc.pageCalls).toBeLessThanOrEqual(3);
		expect(t.emitted).toHaveLength(30);
		expect(t.emitted).toContain(`ocr.failed:${ids[3]}`);
		await t.poll();
		expect(t.emitted).toHaveLength(30);
	});

	test('deletions of more than a page before the resume point do not hide new tasks', async () => {
		const svc = new FakeService();
		svc.order = 'oldest';
		const old = svc.create(100, 'done');
		const t = new Trigger(svc, oldest);
		await t.poll();
		for (const id of old.slice(0, 45)) svc.remove(id);
		const fresh = svc.create(5, 'done');
		await t.poll();
		expect(new Set(t.emitted)).toEqual(new Set(fresh.map((id) => `ocr.done:${id}`)));
	});

	test('a first reading longer than the page bound continues over polls without emitting', async () => {
		const svc = new FakeService();
		svc.order = 'oldest';
		svc.create(100, 'done');
		const t = new Trigger(svc, { ...oldest, maxPages: 2 });
		await t.poll();
		expect(t.state?.baselining).toBe(true);
		await t.poll();
		await t.poll();
		expect(t.state?.baselining).toBeUndefined();
		expect(t.emitted).toEqual([]);
		svc.create(1, 'done');
		// Two pages per poll: the page before the resume point and the resume page; the next
		// poll reaches the new task.
		await t.poll();
		await t.poll();
		await t.poll();
		expect(t.emitted).toEqual(['ocr.done:t101']);
	});
});

describe('manual test run sample', () => {
	test('the newest finished task with a selected event', async () => {
		const svc = new FakeService();
		svc.create(3, 'done');
		svc.create(1, 'failed');
		svc.create(2, 'queued');
		expect((await newestFinished(DEFAULT_SETTINGS, svc.readPage))?.taskId).toBe('t4');
		expect(
			(await newestFinished({ ...DEFAULT_SETTINGS, events: ['ocr.done'] }, svc.readPage))?.taskId,
		).toBe('t3');
		svc.order = 'oldest';
		expect(
			(await newestFinished({ ...DEFAULT_SETTINGS, order: 'oldest' }, svc.readPage))?.taskId,
		).toBe('t4');
		expect(await newestFinished(DEFAULT_SETTINGS, new FakeService().readPage)).toBeUndefined();
	});
});

test('stored state is read defensively; the first version is carried over', () => {
	expect(readState(undefined)).toBeUndefined();
	expect(readState({ v: 3, seen: [], pending: [] })).toBeUndefined();
	expect(readState({ v: 1, seen: [1], pending: [] })).toBeUndefined();
	expect(readState({ v: 1, seen: ['a'], pending: ['b'], resumePage: 3 })).toEqual({
		v: 2,
		seen: ['a'],
		pending: ['b'],
		gaps: [],
		resumePage: 3,
	});
	expect(
		readState({
			v: 2,
			seen: ['a'],
			pending: [],
			gaps: [{ page: 4, after: 'x', baseline: false }, { page: 'bad' }],
			end: { page: 2, last: 'z' },
			orderConfirmed: true,
		}),
	).toEqual({
		v: 2,
		seen: ['a'],
		pending: [],
		gaps: [{ page: 4, after: 'x', baseline: false }],
		end: { page: 2, last: 'z' },
		orderConfirmed: true,
	});
});
