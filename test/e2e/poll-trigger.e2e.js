'use strict';
/**
 * The poll trigger in real n8n 2.x: example 08 active on a 1-minute poll while 50 tasks finish
 * out of order over several polls (some fail), with two n8n restarts (same database): one before
 * the trigger reported anything, one after.
 * Every task must start the workflow exactly once; tasks finished before activation never.
 */
const { request } = require('undici');
const { createInstance, example, KEYS } = require('../../scripts/n8n-instance');
const documents = require('../../emulator/documents');

const WORKFLOW = 'ocrExamplePollDone';
const TRIGGER = 'Every minute: finished tasks';

let n8n;

async function submit(emu, texts) {
	const ids = [];
	for (const [i, text] of texts.entries()) {
		const response = await request(`${emu.url}/api/ocr`, {
			method: 'POST',
			body: JSON.stringify({
				imageBase64: documents.makePdf([text]).toString('base64'),
				filename: `poll-${i}.pdf`,
			}),
			headers: { authorization: `Bearer ${KEYS.full}`, 'content-type': 'application/json' },
		});
		const answer = await response.body.json();
		if (response.statusCode !== 200) throw new Error(JSON.stringify(answer));
		ids.push(answer.taskId);
	}
	return ids;
}

const listReads = () => n8n.emu.stats().byRoute['GET /api/tasks'] ?? 0;

/**
 * Resolves once the trigger has listed tasks again (a poll started: n8n's next minute, or later on
 * a loaded machine), its reads are over (no request for 3 s) and what it started has settled.
 */
async function nextPoll() {
	const before = listReads();
	await n8n.emu.waitFor(() => listReads() > before, { timeoutMs: 180_000, intervalMs: 200 });
	await n8n.emu.requestsIdle(3_000);
	await n8n.settledExecutions(WORKFLOW, 1, { quietMs: 3_000 });
}

/** Every item the trigger emitted, per execution. */
async function emitted() {
	const executions = await n8n.executions(WORKFLOW);
	return executions.map((e) => ({
		id: e.id,
		status: e.status,
		items: (e.data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json),
	}));
}

beforeAll(async () => {
	n8n = await createInstance({ label: 'poll', emulator: { msPerPage: 5 } });
	await n8n.importCredential();
	await n8n.importWorkflows([example('08-poll-finished-tasks.json')]);
	await n8n.publish(WORKFLOW);
});

afterAll(async () => {
	await n8n?.close();
});

test('an active 1-minute poll trigger runs once per finished task over several polls and two restarts', async () => {
	const started = Date.now();
	const { emu } = n8n;
	// Finished before the workflow is active: never reported.
	const old = await submit(emu, ['Old one', 'Old two', 'Old FAIL three']);
	for (const id of old) await emu.waitForTask(id);

	await n8n.startServer();
	await n8n.setupOwner();
	// The activation poll ran at start: it recorded the starting point, which n8n saves at the
	// end of the activation even though the poll started no run (the workflow's static data).
	await emu.waitFor(() => listReads() > 0, { timeoutMs: 120_000, intervalMs: 200 });
	await emu.waitFor(
		async () =>
			JSON.stringify((await n8n.workflow(WORKFLOW)).staticData ?? {}).includes('taskPoll'),
		{ timeoutMs: 120_000, intervalMs: 500 },
	);

	// Restart before anything was reported: the 50 tasks are created while n8n is down and 5 of
	// them finish then; the restart's activation poll must report those 5 (not take a new start).
	await n8n.stopServer();
	// 50 tasks, held until released; every sixth fails.
	const texts = Array.from({ length: 50 }, (_, i) => `Poll e2e document ${i} STUCK`);
	const ids = await submit(emu, texts);
	const failing = new Set(ids.filter((_, i) => i % 6 === 0));
	// Released out of creation order (oldest-created ones among the last).
	const order = ids.map((id, i) => ({ id, k: (i * 31) % 53 })).sort((a, b) => a.k - b.k);
	const release = (batch) => {
		for (const { id } of batch) {
			const task = emu.getTask(id);
			task.fate = failing.has(id) ? 'fail' : null;
			emu.finish(task);
		}
	};
	release(order.slice(0, 5));
	await n8n.startServer();
	await n8n.settledExecutions(WORKFLOW, 1, { quietMs: 2000 });
	expect((await emitted()).flatMap((e) => e.items)).toHaveLength(5);

	// The next poll: 15 more (the other 30 are followed, unfinished).
	release(order.slice(5, 20));
	await emu.waitFor(async () => (await emitted()).flatMap((e) => e.items).length >= 20, {
		timeoutMs: 180_000,
		intervalMs: 1000,
	});

	// 10 more finish while n8n runs, 10 while it is down; the restart's activation poll reads both.
	release(order.slice(20, 30));
	await n8n.stopServer();
	release(order.slice(30, 40));
	await n8n.startServer();
	await emu.waitFor(async () => (await emitted()).flatMap((e) => e.items).length >= 40, {
		timeoutMs: 180_000,
		intervalMs: 1000,
	});

	// The last 10 after the restart, then one more poll that must start nothing.
	release(order.slice(40));
	await emu.waitFor(async () => (await emitted()).flatMap((e) => e.items).length >= 50, {
		timeoutMs: 180_000,
		intervalMs: 1000,
	});
	await nextPoll();

	const executions = await emitted();
	const items = executions.flatMap((e) => e.items);
	const perTask = new Map();
	for (const item of items) perTask.set(item.taskId, (perTask.get(item.taskId) ?? 0) + 1);
	expect(items).toHaveLength(50);
	expect([...perTask.keys()].sort()).toEqual([...ids].sort());
	expect([...perTask.values()].every((n) => n === 1)).toBe(true);
	for (const id of old) expect(perTask.has(id)).toBe(false);
	for (const item of items) {
		expect(item.event).toBe(failing.has(item.taskId) ? 'ocr.failed' : 'ocr.done');
		expect(item.dedupeKey).toBe(`task:${item.event}:${item.taskId}`);
		// Include Task Details (example 08): the task as GET /api/tasks/{id} returns it.
		expect(item.task.taskId).toBe(item.taskId);
		if (item.event === 'ocr.done') expect(item.task.resultText).toMatch(/Poll e2e document/);
	}
	expect(executions.every((e) => e.status === 'success')).toBe(true);
	process.stdout.write(
		`\npoll trigger e2e: ${executions.length} executions, ${items.length} items for 50 tasks (${failing.size} failed), ${listReads()} list reads, ${Math.round((Date.now() - started) / 1000)} s\n`,
	);
});
