'use strict';
/**
 * The poller (dist/nodes/DocumentOcr/waiting/poller.js) against a simulated service on a virtual
 * clock: no server, no real time. A service of W workers takes tasks from its queue in one of
 * three orders (fifo, random, smallest first) and spends `msPerPage` per page on each. Every
 * status request costs `rttMs` of virtual time. Returns what the batch cost and how late its
 * end was noticed.
 *
 *   simulate({ pages: [1, 3, ...], workers: 4, msPerPage: 250, order: 'random' })
 */
const { Poller, DEFAULT_POLLER } = require('../../dist/nodes/DocumentOcr/waiting/poller');

function rng(seed) {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

/** A virtual clock: timers fire in time order once every pending promise has settled. */
class Clock {
	constructor() {
		this.t = 0;
		this.timers = [];
		this.seq = 0;
	}

	now() {
		return this.t;
	}

	at(time, fn) {
		const timer = { time: Math.max(time, this.t), seq: this.seq++, fn, off: false };
		this.timers.push(timer);
		return timer;
	}

	sleep(ms, signal) {
		return new Promise((resolve, reject) => {
			if (signal?.aborted) return reject(new Error('aborted'));
			const timer = this.at(this.t + ms, resolve);
			signal?.addEventListener('abort', () => {
				timer.off = true;
				reject(new Error('aborted'));
			});
		});
	}

	async idle() {
		for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
	}

	/** Runs until `done()` is true; throws when nothing is left to run. */
	async run(done, limitMs = 10 * 3600_000) {
		await this.idle();
		while (!done()) {
			this.timers = this.timers.filter((t) => !t.off);
			if (!this.timers.length) throw new Error(`stuck at ${this.t} ms`);
			this.timers.sort((a, b) => a.time - b.time || a.seq - b.seq);
			const timer = this.timers.shift();
			this.t = timer.time;
			if (this.t > limitMs) throw new Error('virtual time limit');
			timer.fn();
			await this.idle();
		}
	}
}

/** A service with `workers` workers taking queued tasks in `order`. */
function service(clock, { pages, workers, msPerPage, order, seed = 7 }) {
	const random = rng(seed);
	const tasks = pages.map((p, i) => ({ i, pages: p, status: 'queued', doneAt: undefined }));
	const queue = [...tasks];
	let busy = 0;
	const pump = () => {
		while (busy < workers && queue.length) {
			let k = 0;
			if (order === 'random') k = Math.floor(random() * queue.length);
			if (order === 'smallest')
				k = queue.reduce((best, t, j) => (t.pages < queue[best].pages ? j : best), 0);
			const task = queue.splice(k, 1)[0];
			busy++;
			task.status = 'processing';
			clock.at(clock.now() + task.pages * msPerPage, () => {
				task.status = 'done';
				task.doneAt = clock.now();
				busy--;
				pump();
			});
		}
	};
	pump();
	return tasks;
}

async function simulate({
	pages,
	workers = 4,
	msPerPage = 250,
	order = 'fifo',
	rttMs = 5,
	deadlineMs = 3600_000,
	settings = {},
	seed,
}) {
	const clock = new Clock();
	const tasks = service(clock, { pages, workers, msPerPage, order, seed });
	let polls = 0;
	const poller = new Poller({
		...DEFAULT_POLLER,
		...settings,
		now: () => clock.now(),
		sleep: (ms, signal) => clock.sleep(ms, signal),
		cancelled: () => false,
	});
	const ended = [];
	for (const task of tasks) {
		const fetch = async () => {
			polls++;
			await clock.sleep(rttMs);
			return { record: { taskId: String(task.i), status: task.status } };
		};
		void poller
			.wait(fetch, { deadline: clock.now() + deadlineMs })
			.then((outcome) => ended.push({ task, outcome, at: clock.now() }));
	}
	await clock.run(() => ended.length === tasks.length);
	const lastDone = Math.max(...tasks.map((t) => t.doneAt ?? 0));
	const end = Math.max(...ended.map((e) => e.at));
	return {
		polls,
		pollsPerTask: polls / tasks.length,
		serviceEndMs: lastDone,
		noticedEndMs: end,
		lateMs: end - lastDone,
		outcomes: ended.map((e) => e.outcome.state),
		/** When each task's wait ended, by task number. */
		endedAt: tasks.map((t) => ended.find((e) => e.task === t).at),
		doneAt: tasks.map((t) => t.doneAt),
	};
}

/** `n` page counts from 1 to `max`, a seeded mix. */
function mixedPages(n, max = 20, seed = 3) {
	const random = rng(seed);
	return Array.from({ length: n }, () => 1 + Math.floor(random() * max));
}

module.exports = { simulate, mixedPages, Clock };

if (require.main === module) {
	(async () => {
		const rows = [
			['in order, 200 × 1 page, 4 workers', { pages: Array(200).fill(1), order: 'fifo' }],
			['random, 200 × 1 page, 4 workers', { pages: Array(200).fill(1), order: 'random' }],
			['random, 200 × 1–20 pages, 4 workers', { pages: mixedPages(200), order: 'random' }],
			['smallest first, 200 × 1–20 pages', { pages: mixedPages(200), order: 'smallest' }],
			['fifo, 200 × 1–20 pages', { pages: mixedPages(200), order: 'fifo' }],
			[
				'random, 1000 × 1 page, 32 w × 100 ms',
				{ pages: Array(1000).fill(1), order: 'random', workers: 32, msPerPage: 100 },
			],
			['one task of 40 pages', { pages: [40], order: 'fifo', workers: 1 }],
		];
		for (const [name, options] of rows) {
			const r = await simulate(options);
			console.log(
				`${name.padEnd(40)} polls/task ${r.pollsPerTask.toFixed(2)}  service end ${(r.serviceEndMs / 1000).toFixed(1)} s  noticed +${r.lateMs} ms`,
			);
		}
	})();
}
