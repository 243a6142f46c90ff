/**
 * The poller on a virtual clock against simulated services: what a batch costs in status
 * requests and how soon its end is noticed, whatever order the service finishes tasks in; and
 * that every wait ends by its own deadline.
 */

import * as pollerModule from '../../../../nodes/DocumentOcr/waiting/poller';
import type { PollOutcome } from '../../../../nodes/DocumentOcr/waiting/poller';
import { simulation } from '../../../support/simulation';

const { Clock, mixedPages, poller, simulate } = simulation(pollerModule);

describe('no completion order is assumed', () => {
	test.each(['fifo', 'random', 'smallest'] as const)(
		'200 one-page tasks (%s): ≤ 2 requests per task, the end noticed within 1.5 s',
		async (order) => {
			const r = await simulate({ pages: Array(200).fill(1), order });
			expect(r.states.every((s) => s === 'done')).toBe(true);
			expect(r.pollsPerTask).toBeLessThanOrEqual(2);
			expect(r.lateMs).toBeLessThanOrEqual(1500);
		},
	);

	test.each([1, 2, 3])(
		'200 tasks of 1–20 pages out of order (seed %i): ≤ 2.5 requests per task, end within 1.5 s',
		async (seed) => {
			const r = await simulate({ pages: mixedPages(200, 20, seed), order: 'random', seed });
			expect(r.pollsPerTask).toBeLessThanOrEqual(2.5);
			expect(r.lateMs).toBeLessThanOrEqual(1500);
		},
	);

	// A rate learnt from a sample of a dozen records can be half the true one; a pause planned on
	// it alone overshot the end of the batch by up to 3.6 s (one-page tasks) and 2.8 s (a mix).
	test.each([
		['200 one-page tasks, random order', false, 'random'],
		['200 tasks of 1–20 pages, in order', true, 'fifo'],
		['200 tasks of 1–20 pages, random order', true, 'random'],
	] as const)(
		'%s, 30 seeds: the end noticed within 1.5 s in every run',
		async (_, mixed, order) => {
			const late: number[] = [];
			const polls: number[] = [];
			for (let seed = 1; seed <= 30; seed++) {
				const pages = mixed ? mixedPages(200, 20, seed) : Array<number>(200).fill(1);
				const r = await simulate({ pages, order, seed });
				late.push(r.lateMs);
				polls.push(r.pollsPerTask);
			}
			expect(Math.max(...late)).toBeLessThanOrEqual(1500);
			expect(polls.reduce((a, b) => a + b) / polls.length).toBeLessThanOrEqual(2.5);
		},
	);

	test('a task that finishes early is found although the ones sent before it run for long', async () => {
		const r = await simulate({
			pages: [...Array(10).fill(40), 1],
			order: 'smallest',
			workers: 1,
			msPerPage: 100,
		});
		expect(r.doneAt[10]).toBe(100);
		expect(r.endedAt[10]).toBeLessThan(1_000);
	});
});

describe('deadlines are per record', () => {
	test('a request stalled by a Retry-After of an hour holds neither its record nor the others', async () => {
		const clock = new Clock();
		const p = poller(clock);
		const ended: Array<[number, string, number]> = [];
		const stalled = async () => {
			await clock.sleep(3600_000);
			return { record: { status: 'processing' } };
		};
		const finishing = async () => {
			await clock.sleep(5);
			return { record: { status: clock.now() >= 2_000 ? 'done' : 'queued' } };
		};
		void p.wait(stalled, { deadline: 6_000 }).then((o) => ended.push([0, o.state, clock.now()]));
		for (let i = 1; i <= 9; i++)
			void p
				.wait(finishing, { deadline: 6_000 })
				.then((o) => ended.push([i, o.state, clock.now()]));
		await clock.run(() => ended.length === 10);
		const [, state, at] = ended.find(([i]) => i === 0)!;
		expect(state).toBe('timeout');
		expect(at).toBeLessThanOrEqual(6_100);
		for (const [, s, t] of ended.filter(([i]) => i !== 0)) {
			expect(s).toBe('done');
			expect(t).toBeLessThan(4_000);
		}
	});

	test('a record still running at its deadline is asked once more before it, then times out at the deadline; pauses grow', async () => {
		const clock = new Clock();
		const asked: number[] = [];
		let outcome: PollOutcome | undefined;
		let endedAt = 0;
		void poller(clock)
			.wait(
				async () => {
					asked.push(clock.now());
					await clock.sleep(5);
					return { record: { status: 'processing' } };
				},
				{ deadline: 30_000 },
			)
			.then((o) => {
				outcome = o;
				endedAt = clock.now();
			});
		await clock.run(() => outcome !== undefined);
		expect(outcome).toEqual({ state: 'timeout', record: { status: 'processing' } });
		// The last ask leaves time for its answer (5 ms here) before the deadline.
		expect(asked[asked.length - 1]).toBeGreaterThanOrEqual(30_000 - 300);
		expect(asked[asked.length - 1]).toBeLessThan(30_000);
		expect(endedAt).toBe(30_000);
		expect(asked.length).toBeLessThan(15);
	});

	test('a halt ends every wait at once, and no request is sent after it', async () => {
		const clock = new Clock();
		let halted = false;
		const p = poller(clock, { halted: () => halted });
		let requests = 0;
		const states: string[] = [];
		for (let i = 0; i < 5; i++)
			void p
				.wait(
					async () => {
						requests++;
						await clock.sleep(5);
						return { record: { status: 'queued' } };
					},
					{ deadline: 600_000 },
				)
				.then((o) => states.push(o.state));
		clock.at(1_000, () => {
			halted = true;
			p.interrupt();
		});
		await clock.run(() => states.length === 5);
		const sent = requests;
		expect(states).toEqual(Array(5).fill('halted'));
		expect(clock.now()).toBeLessThan(1_300);
		expect(requests).toBe(sent);
	});

	test('the service estimate times the first look; a synchronous task is asked at once', async () => {
		const clock = new Clock();
		const p = poller(clock);
		const firstAsk: Record<string, number> = {};
		const ended: string[] = [];
		const record = (name: string, doneAt: number) => async () => {
			firstAsk[name] ??= clock.now();
			await clock.sleep(5);
			return { record: { status: clock.now() >= doneAt ? 'done' : 'queued' } };
		};
		void p
			.wait(record('sync', 0), { deadline: 60_000, expectedAfterMs: 0 })
			.then(() => ended.push('sync'));
		void p
			.wait(record('v2', 4_000), { deadline: 60_000, expectedAfterMs: 4_000 })
			.then(() => ended.push('v2'));
		await clock.run(() => ended.length === 2);
		expect(firstAsk.sync).toBe(0);
		expect(firstAsk.v2).toBe(4_000);
	});
});

describe('a slow service (answers of seconds, requests queued for a slot)', () => {
	// Every task is done at 5 s (as many workers as tasks); the node has 16 request slots.
	const allDoneAt5s = (n: number, rttMs: number) =>
		simulate({
			pages: Array<number>(n).fill(1),
			workers: n,
			msPerPage: 5_000,
			rttMs,
			requestSlots: 16,
			deadlineMs: 600_000,
		});

	test.each([900, 1_100, 1_500, 3_000])(
		'200 tasks, every answer taking %i ms: all done, the end noticed within two rounds of requests',
		async (rttMs) => {
			const r = await allDoneAt5s(200, rttMs);
			expect(r.states.every((s) => s === 'done')).toBe(true);
			// One round of 200 requests through 16 slots takes 13 answer times.
			expect(r.lateMs).toBeLessThanOrEqual(2 * 13 * rttMs + 5_000);
		},
	);

	test('3,000 tasks, every answer taking 1.2 s: none is reported as timed out within 10 minutes', async () => {
		const r = await allDoneAt5s(3_000, 1_200);
		expect(r.states.filter((s) => s !== 'done')).toEqual([]);
		expect(r.pollsPerTask).toBeLessThanOrEqual(1.5);
	});
});

describe('the last ask before a deadline', () => {
	test.each([5, 50, 500, 1_000, 2_000])(
		'10 tasks done at 57 s, a 60 s deadline, answers taking %i ms: all done, none timed out',
		async (rttMs) => {
			const r = await simulate({
				pages: Array<number>(10).fill(1),
				workers: 10,
				msPerPage: 57_000,
				rttMs,
				deadlineMs: 60_000,
			});
			expect(r.states).toEqual(Array(10).fill('done'));
			expect(Math.max(...r.endedAt)).toBeLessThanOrEqual(60_000);
		},
	);

	test('a task that never finishes ends at its deadline exactly, not a millisecond later', async () => {
		const r = await simulate({
			pages: [1, 1],
			workers: 1,
			msPerPage: 3_600_000,
			rttMs: 700,
			deadlineMs: 60_000,
		});
		expect(r.states).toEqual(['timeout', 'timeout']);
		expect(r.endedAt).toEqual([60_000, 60_000]);
	});
});
