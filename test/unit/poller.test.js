'use strict';
/**
 * The poller alone, on a virtual clock against simulated services (poller-sim.js): what a batch
 * costs in status requests and how soon its end is noticed, whatever order the service finishes
 * tasks in; and that every wait ends by its own deadline. No server, no real time.
 */
const { simulate, mixedPages, Clock } = require('./poller-sim');
const { Poller, DEFAULT_POLLER } = require('../../dist/nodes/DocumentOcr/waiting/poller');

describe('the poller assumes no completion order', () => {
	test.each([
		['in order', 'fifo'],
		['random order', 'random'],
		['smallest first', 'smallest'],
	])(
		'200 one-page tasks, %s: ≤ 2 requests per task, the end noticed within 1.5 s',
		async (_, order) => {
			const r = await simulate({ pages: Array(200).fill(1), order, workers: 4, msPerPage: 250 });
			expect(r.outcomes.every((s) => s === 'done')).toBe(true);
			expect(r.pollsPerTask).toBeLessThanOrEqual(2);
			expect(r.lateMs).toBeLessThanOrEqual(1500);
		},
	);

	test.each([1, 2, 3])(
		'200 tasks of 1–20 pages finishing out of order (seed %i): ≤ 2.5 requests per task, end within 1.5 s',
		async (seed) => {
			const r = await simulate({ pages: mixedPages(200, 20, seed), order: 'random', seed });
			expect(r.pollsPerTask).toBeLessThanOrEqual(2.5);
			expect(r.lateMs).toBeLessThanOrEqual(1500);
		},
	);

	test('a task that finishes early is found although the ones sent before it run for long', async () => {
		// Smallest first: the last-sent 1-page task finishes first, behind ten 40-page ones.
		const pages = [...Array(10).fill(40), 1];
		const r = await simulate({ pages, order: 'smallest', workers: 1, msPerPage: 100 });
		expect(r.outcomes.every((s) => s === 'done')).toBe(true);
		expect(r.doneAt[10]).toBe(100);
		// Found within a second, not after the 40 s the tasks in front of it take.
		expect(r.endedAt[10]).toBeLessThan(1_000);
	});
});

describe('deadlines are per record', () => {
	function harness() {
		const clock = new Clock();
		const poller = new Poller({
			...DEFAULT_POLLER,
			now: () => clock.now(),
			sleep: (ms, signal) => clock.sleep(ms, signal),
			cancelled: () => false,
		});
		return { clock, poller };
	}

	test('a status request stalled by a Retry-After of an hour holds neither its record nor the others', async () => {
		const { clock, poller } = harness();
		const ended = [];
		// Record 0's requests hang for an hour (a 5xx with Retry-After: 3600 inside the transport).
		const stalled = () => clock.sleep(3600_000).then(() => ({ record: { status: 'processing' } }));
		let doneAt = 2_000;
		const finishing = () =>
			clock
				.sleep(5)
				.then(() => ({ record: { status: clock.now() >= doneAt ? 'done' : 'queued' } }));
		void poller
			.wait(stalled, { deadline: 6_000 })
			.then((o) => ended.push([0, o.state, clock.now()]));
		for (let i = 1; i <= 9; i++)
			void poller
				.wait(finishing, { deadline: 6_000 })
				.then((o) => ended.push([i, o.state, clock.now()]));
		await clock.run(() => ended.length === 10);
		const first = ended.find(([i]) => i === 0);
		expect(first[1]).toBe('timeout');
		expect(first[2]).toBeLessThanOrEqual(6_100);
		for (const [i, state, at] of ended.filter(([i]) => i !== 0)) {
			expect([i, state]).toEqual([i, 'done']);
			expect(at).toBeLessThan(4_000);
		}
		doneAt = 0;
	});

	test('a record still running at its deadline is asked once more, then times out', async () => {
		const { clock, poller } = harness();
		const asked = [];
		const fetch = () => {
			asked.push(clock.now());
			return clock.sleep(5).then(() => ({ record: { status: 'processing' } }));
		};
		let outcome;
		void poller.wait(fetch, { deadline: 30_000 }).then((o) => (outcome = o));
		await clock.run(() => outcome !== undefined);
		expect(outcome.state).toBe('timeout');
		expect(outcome.record).toEqual({ status: 'processing' });
		expect(asked[asked.length - 1]).toBe(30_000);
		// The pauses grow while nothing is learnt: a few requests, not one every 250 ms.
		expect(asked.length).toBeLessThan(15);
	});

	test('a halt ends every wait at once, and no request is sent after it', async () => {
		const clock = new Clock();
		let halted = false;
		const poller = new Poller({
			...DEFAULT_POLLER,
			now: () => clock.now(),
			sleep: (ms, signal) => clock.sleep(ms, signal),
			cancelled: () => false,
			halted: () => halted,
		});
		let requests = 0;
		const fetch = () => {
			requests++;
			return clock.sleep(5).then(() => ({ record: { status: 'queued' } }));
		};
		const outcomes = [];
		for (let i = 0; i < 5; i++)
			void poller.wait(fetch, { deadline: 600_000 }).then((o) => outcomes.push(o.state));
		clock.at(1_000, () => {
			halted = true;
			poller.interrupt();
		});
		await clock.run(() => outcomes.length === 5);
		const sentBefore = requests;
		expect(outcomes).toEqual(Array(5).fill('halted'));
		expect(clock.now()).toBeLessThan(1_300);
		expect(requests).toBe(sentBefore);
	});
});
