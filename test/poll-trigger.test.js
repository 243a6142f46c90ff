'use strict';
/**
 * Document OCR Poll Trigger in n8n-core's real engine (a real PollContext per poll, as n8n's
 * poll executor creates it) against the spec-strict emulator: a bare-array list capped at 20
 * per page, newest first, tasks finishing out of order.
 */
const { request } = require('undici');
const h = require('./helpers');
const { startPollTrigger } = require('./harness');
const { watchLateness } = require('./support/lateness');

const emu = h.useEmulator({ perTest: true, msPerPage: 5 });

/** Submits `n` one-page PDFs through the API; their text decides their fate (STUCK holds a task). */
async function submit(n, text = 'Hello poll') {
	const ids = [];
	for (let i = 0; i < n; i++) {
		const body = JSON.stringify({
			imageBase64: h.documents.makePdf([`${text} ${i}`]).toString('base64'),
			filename: `doc-${i}.pdf`,
		});
		const response = await request(`${emu.url}/api/ocr`, {
			method: 'POST',
			body,
			headers: { authorization: 'Bearer ocr_test_full', 'content-type': 'application/json' },
		});
		const answer = await response.body.json();
		if (response.statusCode !== 200) throw new Error(JSON.stringify(answer));
		ids.push(answer.taskId);
	}
	return ids;
}

/** Lets a held (STUCK) task finish now, as done or failed. */
function release(id, fate = null) {
	const t = emu.getTask(id);
	t.fate = fate;
	emu.finish(t);
}

async function settled(ids) {
	for (const id of ids) await emu.waitForTask(id);
}

function start(parameters = {}, staticData, pollBudgetMs) {
	return startPollTrigger({
		parameters: {
			events: ['ocr.done', 'ocr.failed'],
			includeTaskDetails: false,
			options: {},
			...parameters,
		},
		credentials: h.credentials(emu),
		staticData,
		pollBudgetMs,
	});
}

const byTask = (items) => items.map((i) => `${i.event}:${i.taskId}`).sort();

describe('Document OCR Poll Trigger in the real engine (PollContext)', () => {
	test('the first poll records a starting point: nothing old is emitted', async () => {
		const old = await submit(25);
		await settled(old);
		const held = await submit(1, 'STUCK then done');
		const trigger = start();
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		expect(first.emitted).toBe(false);
		expect(trigger.memory().taskPoll.pending).toEqual(held);
		// A task unfinished at the start IS reported when it finishes.
		release(held[0]);
		const second = await trigger.poll();
		expect(byTask(second.items)).toEqual([`ocr.done:${held[0]}`]);
		expect(second.items[0]).toEqual({
			event: 'ocr.done',
			taskId: held[0],
			status: 'done',
			dedupeKey: `task:ocr.done:${held[0]}`,
		});
		expect((await trigger.poll()).emitted).toBe(false);
	});

	test('tasks finishing out of order across polls are each emitted exactly once; failures as ocr.failed', async () => {
		const trigger = start();
		await trigger.poll();
		const slow = await submit(3, 'STUCK slow');
		await trigger.poll();
		const quick = await submit(45);
		await settled(quick);
		const failing = await submit(2, 'FAIL please');
		await settled(failing);
		const a = await trigger.poll();
		expect(a.items).toHaveLength(47);
		// The slow tasks now sit on page 3, below 45 reported ones; they finish one per poll.
		release(slow[1]);
		const b = await trigger.poll();
		release(slow[0], 'fail');
		const c = await trigger.poll();
		release(slow[2]);
		const d = await trigger.poll();
		expect(byTask(b.items)).toEqual([`ocr.done:${slow[1]}`]);
		expect(byTask(c.items)).toEqual([`ocr.failed:${slow[0]}`]);
		expect(byTask(d.items)).toEqual([`ocr.done:${slow[2]}`]);
		expect((await trigger.poll()).emitted).toBe(false);

		const all = trigger.emitted.map((i) => i.taskId);
		expect(all).toHaveLength(new Set(all).size);
		expect(new Set(all)).toEqual(new Set([...quick, ...failing, ...slow]));
		expect(
			trigger.emitted
				.filter((i) => i.event === 'ocr.failed')
				.map((i) => i.taskId)
				.sort(),
		).toEqual([...failing, slow[0]].sort());
		expect(
			trigger.emitted.filter((i) => i.event === 'ocr.failed').every((i) => i.status === 'failed'),
		).toBe(true);
	});

	test('only Task Failed selected: done tasks start nothing, now or later', async () => {
		const trigger = start({ events: ['ocr.failed'] });
		await trigger.poll();
		const ok = await submit(3);
		const bad = await submit(1, 'FAIL');
		await settled([...ok, ...bad]);
		const result = await trigger.poll();
		expect(byTask(result.items)).toEqual([`ocr.failed:${bad[0]}`]);
		expect((await trigger.poll()).emitted).toBe(false);
	});

	test('a 429 whose Retry-After fits the poll is waited out: one poll, every task', async () => {
		const trigger = start();
		await trigger.poll();
		const ids = await submit(30);
		await settled(ids);
		emu.fault({
			method: 'GET',
			path: '/api/tasks',
			kind: 'rateLimit',
			retryAfter: 1,
			every: 2,
			times: 1,
		});
		const next = await trigger.poll();
		expect(next.error).toBeUndefined();
		expect(new Set(next.items.map((i) => i.taskId))).toEqual(new Set(ids));
		expect(next.items).toHaveLength(30);
	});

	test('a 429 whose Retry-After does not fit: the tasks read before it are emitted, the next poll goes on', async () => {
		const trigger = start();
		await trigger.poll();
		const ids = await submit(30);
		await settled(ids);
		emu.fault({
			method: 'GET',
			path: '/api/tasks',
			kind: 'rateLimit',
			retryAfter: 3600,
			every: 2,
			times: 1,
		});
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		expect(first.items).toHaveLength(20);
		expect(
			h.secretsLog().some((l) => /the next poll goes on where this one stopped/.test(l.text)),
		).toBe(true);
		const next = await trigger.poll();
		expect(next.items).toHaveLength(10);
		expect(trigger.emitted.map((i) => i.taskId).sort()).toEqual([...ids].sort());
	});

	test('a poll whose first request fails is a clear error that keeps the memory; the next poll catches up', async () => {
		const trigger = start();
		await trigger.poll();
		const ids = await submit(30);
		await settled(ids);
		const before = JSON.stringify(trigger.memory());
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'rateLimit', retryAfter: 3600, times: 1 });
		const failed = await trigger.poll();
		expect(failed.error.constructor.name).toBe('NodeApiError');
		expect(`${failed.error.message} ${failed.error.description}`).toMatch(/rate|429|throttl/i);
		expect(failed.error.description).toMatch(/next poll goes on where it stopped/);
		expect(JSON.stringify(trigger.memory())).toBe(before);
		const next = await trigger.poll();
		expect(new Set(next.items.map((i) => i.taskId))).toEqual(new Set(ids));
	});

	test('another client submitting between page reads (k × pageSize at a time): every task emitted exactly once', async () => {
		const trigger = start();
		await trigger.poll();
		const ids = await submit(45);
		await settled(ids);
		// After each of the next two pages answered, 20 tasks more of the team member.
		emu.options.listShift = { probability: 1, tasks: 20, times: 2 };
		await trigger.poll();
		emu.options.listShift = null;
		await emu.waitFor(() => emu.tasks.every((t) => t.status === 'done'));
		for (let i = 0; i < 5; i++) await trigger.poll();
		const emitted = trigger.emitted.map((i) => i.taskId);
		expect(emitted).toHaveLength(new Set(emitted).size);
		const created = emu.tasks.map((t) => t.taskId);
		expect(new Set(emitted)).toEqual(new Set(created));
	});

	test('an 800-task burst on a service allowing 20 requests per poll: worked off over polls, each task once', async () => {
		const trigger = start();
		await trigger.poll();
		emu.addFinishedTasks(800);
		emu.options.rateLimit = { perSecond: 0.001, burst: 20 };
		let polls = 0;
		while (trigger.emitted.length < 800 && polls < 10) {
			emu.buckets.clear(); // a new poll: the service allows 20 requests again
			await trigger.poll();
			polls++;
		}
		emu.options.rateLimit = null;
		const emitted = trigger.emitted.map((i) => i.taskId);
		expect(emitted).toHaveLength(800);
		expect(new Set(emitted).size).toBe(800);
		expect(polls).toBeLessThanOrEqual(4);
	});

	test('1,500 tasks between two polls (more than Max Pages per Poll holds): the rest come with the next poll', async () => {
		const trigger = start();
		await trigger.poll();
		emu.addFinishedTasks(1_500);
		const first = await trigger.poll();
		expect(first.items).toHaveLength(1_000);
		const second = await trigger.poll();
		expect(second.items).toHaveLength(500);
		expect(new Set(trigger.emitted.map((i) => i.taskId)).size).toBe(1_500);
	});

	test('an oldest-first service with the default setting: new tasks are reported, and a warning says to change the setting', async () => {
		emu.options.listOrder = 'oldest';
		await submit(25);
		await emu.waitFor(() => emu.tasks.every((t) => t.status === 'done'));
		const trigger = start();
		await trigger.poll();
		const ids = await submit(5);
		await settled(ids);
		const next = await trigger.poll();
		expect(new Set(next.items.map((i) => i.taskId))).toEqual(new Set(ids));
		expect(
			h
				.secretsLog()
				.some((l) => l.level === 'warn' && /set Options → List Order to Oldest First/.test(l.text)),
		).toBe(true);
	});

	test('deactivate and activate: starts from now (tasks finished while inactive are not reported); an n8n restart goes on', async () => {
		const trigger = start();
		await trigger.poll();
		const before = await submit(3);
		await settled(before);
		trigger.reactivate();
		expect((await trigger.poll()).items).toEqual([]);
		const after = await submit(2);
		await settled(after);
		trigger.restart();
		expect(new Set((await trigger.poll()).items.map((i) => i.taskId))).toEqual(new Set(after));
	});

	test('two polls at once (n8n does not wait for the previous tick): each task emitted once', async () => {
		const trigger = start();
		await trigger.poll();
		const ids = await submit(30);
		await settled(ids);
		emu.fault({ method: 'GET', path: '/api/tasks', kind: 'latency', ms: 300, times: 1 });
		const [a, b] = await Promise.all([trigger.poll(), trigger.poll()]);
		expect([a.items.length, b.items.length].sort()).toEqual([0, 30]);
		expect(trigger.emitted).toHaveLength(30);
	});

	test('a 5xx while checking a followed task: error, then caught up once', async () => {
		const trigger = start();
		await trigger.poll();
		const [held] = await submit(1, 'STUCK');
		await trigger.poll();
		const quick = await submit(40);
		await settled(quick);
		await trigger.poll();
		release(held);
		emu.fault({ method: 'GET', path: `/api/tasks/${held}`, kind: 'status', status: 503, times: 3 });
		const failed = await trigger.poll();
		expect(failed.error).toBeDefined();
		const next = await trigger.poll();
		expect(byTask(next.items)).toEqual([`ocr.done:${held}`]);
	});

	test.each(['items', 'data', 'tasks'])('list shape %s', async (shape) => {
		emu.options.shapes.list = shape;
		const trigger = start();
		const old = await submit(5);
		await settled(old);
		await trigger.poll();
		const [held] = await submit(1, 'STUCK');
		const ids = await submit(44);
		await settled(ids);
		const first = await trigger.poll();
		release(held, 'fail');
		const second = await trigger.poll();
		expect(new Set(first.items.map((i) => i.taskId))).toEqual(new Set(ids));
		expect(byTask(second.items)).toEqual([`ocr.failed:${held}`]);
		expect((await trigger.poll()).emitted).toBe(false);
	});

	test('oldest-first service (emulator listOrder: oldest) with List Order: Oldest First', async () => {
		emu.options.listOrder = 'oldest';
		const old = await submit(30);
		await settled(old);
		const trigger = start({ options: { listOrder: 'oldest' } });
		await trigger.poll();
		const [held] = await submit(1, 'STUCK');
		const ids = await submit(25);
		await settled(ids);
		const first = await trigger.poll();
		release(held);
		const second = await trigger.poll();
		expect(new Set(first.items.map((i) => i.taskId))).toEqual(new Set(ids));
		expect(byTask(second.items)).toEqual([`ocr.done:${held}`]);
	});

	test('Include Task Details fetches each task', async () => {
		const trigger = start({ includeTaskDetails: true });
		await trigger.poll();
		const [id] = await submit(1, 'Invoice text here');
		await settled([id]);
		const { items } = await trigger.poll();
		expect(items).toHaveLength(1);
		expect(items[0].task.taskId).toBe(id);
		expect(items[0].task.resultText).toMatch(/Invoice text here/);
	});

	test("Include Task Details reads the tasks within the poll's mark and time: a tick meanwhile starts nothing, what the time does not reach is emitted without details, marked (issue 29, finding 10)", async () => {
		// n8n grants the poll 10 s (the least the trigger takes); each task read takes 2 s.
		const trigger = start({ includeTaskDetails: true }, undefined, 10_000);
		await trigger.poll();
		const ids = await submit(6);
		await settled(ids);
		emu.options.latency = { 'GET /api/tasks/:id': 2_000 };
		const late = watchLateness();
		const started = Date.now();
		const polling = trigger.poll();
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		const tick = await trigger.poll(); // while the first poll reads the tasks
		const { items } = await polling;
		const ms = Date.now() - started;
		late.stop();
		expect(tick).toEqual({ items: [], emitted: false });
		expect(
			h
				.secretsLog()
				.some((l) => /previous poll is still running; this tick is skipped/.test(l.text)),
		).toBe(true);
		// Within the poll's 10 s (and the machine's stalls meanwhile): 12 s of reads were cut short.
		expect(ms).toBeLessThan(late.allowance(10_000));
		expect(new Set(items.map((i) => i.taskId))).toEqual(new Set(ids));
		const withDetails = items.filter((i) => i.task);
		const marked = items.filter((i) =>
			/^Not fetched: the poll's time ran out/.test(i.taskDetailsError),
		);
		expect(withDetails.length).toBeGreaterThan(0);
		expect(marked.length).toBeGreaterThan(0);
		// A read the poll's end cuts short reports its own error, as a failed read does.
		expect(items.every((i) => i.task || typeof i.taskDetailsError === 'string')).toBe(true);
		// Reported once: the next poll emits nothing again.
		emu.options.latency = null;
		expect((await trigger.poll()).emitted).toBe(false);
	});

	test('manual test run: the newest finished task as a sample, memory untouched', async () => {
		const trigger = start();
		const empty = await trigger.poll({ mode: 'manual' });
		expect(empty.emitted).toBe(false);
		const ids = await submit(3);
		await settled(ids);
		await submit(1, 'STUCK');
		const sample = await trigger.poll({ mode: 'manual' });
		expect(sample.items).toHaveLength(1);
		expect(sample.items[0].taskId).toBe(ids[2]);
		expect(trigger.memory()).toBeUndefined();
		// The active trigger still starts from now.
		expect((await trigger.poll()).emitted).toBe(false);
	});

	test('restart: memory saved with the last emit is enough; nothing lost, nothing twice', async () => {
		const trigger = start();
		await trigger.poll();
		const first = await submit(5);
		await settled(first);
		expect((await trigger.poll()).items).toHaveLength(5); // saved here
		const [held] = await submit(1, 'STUCK');
		expect((await trigger.poll()).emitted).toBe(false); // follows `held`, not saved
		const more = await submit(3);
		await settled(more);
		release(held);
		trigger.restart(); // back to the memory of the last emit
		const after = await trigger.poll();
		expect(new Set(after.items.map((i) => i.taskId))).toEqual(new Set([...more, held]));
		expect((await trigger.poll()).emitted).toBe(false);
		const all = trigger.emitted.map((i) => i.taskId);
		expect(all).toHaveLength(new Set(all).size);
	});
});
