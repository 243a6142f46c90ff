'use strict';
/**
 * Opt-in profiles of the emulator. The default (no profile) follows the spec strictly and answers
 * at once; `hostile` is the service the package must survive in production, everything at once:
 *
 *   - slow answers on every route: a seeded time in `slowMs` ([min, max]) before each request
 *     is handled (so a status answer shows the task as it is when the answer leaves);
 *   - a request-rate limit per key: 429 `rate_limited` with Retry-After (seconds);
 *   - another client of the same account (carol, a team member) submitting tasks while the node
 *     walks the task list: after a page of `GET /api/tasks` is answered, with `shiftProbability`,
 *     `shiftTasks` ([min, max]) new tasks are created, so the next page read is shifted;
 *   - a storm (opt-in, `hostile: { storm: { tasks, ms, pageSize } }`): instead of the random
 *     shifts, that client submits `tasks` new tasks after EVERY page of the list answered, for
 *     `ms` (scaled) from the first page answered, while the service clamps the page size to
 *     `pageSize` — so each page read meets a list moved by about a page;
 *   - a backlog: `backlog` finished tasks of that other client in the account's list at start;
 *   - answers lost after the service acted: on submissions, `lostAfterAct` of them are created
 *     and charged, then answered 502 (an HTML gateway page), and as many more lose their
 *     connection after creation;
 *   - tasks finishing out of order (the default `completionOrder: 'random'`).
 *
 * Off unless asked for in `hostile` (each a seeded probability per request, 0 by default):
 *   - `echo`: an answer that echoes the request — method, path and every header, Authorization
 *     included — as a proxy or debug endpoint would: on reads a 200 JSON (the export route: a
 *     file, application/octet-stream), on submissions after the service acted and charged;
 *   - `crossOriginRedirect`: reads (GET, DELETE) redirected (307) to the same path at another
 *     origin, the emulator's second listener, which records what it is sent and answers 403;
 *   - `wrongShape`: a 2xx of the wrong shape (`{}`, `[]`, `null`, an HTML page, a JSON string):
 *     on reads instead of the answer, on submissions after the service acted and charged.
 *
 * Every random choice comes from `seed`. `timeScale` multiplies every time (0.1 gives answers of
 * 50–500 ms for the engine tier). Pass any emulator option beside `profile` to override one part:
 *   startEmulator({ profile: 'hostile', seed: 7, timeScale: 0.1, listOrder: 'oldest' })
 */

const HOSTILE = {
	slowMs: [500, 5_000],
	rateLimit: { perSecond: 10, burst: 20 },
	shiftProbability: 0.3,
	shiftTasks: [1, 20],
	backlog: 2_000,
	lostAfterAct: 0.03,
	echo: 0,
	crossOriginRedirect: 0,
	wrongShape: 0,
};

const SUBMISSIONS = { regex: '^/(api/ocr|api/v2/ocr|v1/(markdown|ocr|extract|jobs))$' };
/** The routes that read (GET) or delete: everything but the submissions and the export. */
const READS = { regex: '^/(api/tasks|v1/jobs/)' };
const EXPORT = { regex: '^/api/export/' };

/** The opt-in parts of the hostile profile (`echo`, `crossOriginRedirect`, `wrongShape`). */
function optInFaults(h) {
	const faults = [];
	if (h.echo > 0)
		faults.push(
			{ path: READS, kind: 'echo', probability: h.echo },
			// The export answers a file: the echo comes as a download, or as JSON.
			{
				path: EXPORT,
				kind: 'echo',
				contentType: 'application/octet-stream',
				probability: h.echo,
			},
			{ path: EXPORT, kind: 'echo', probability: h.echo / 2 },
			{ path: SUBMISSIONS, method: 'POST', kind: 'echo', afterAct: true, probability: h.echo },
		);
	if (h.crossOriginRedirect > 0)
		for (const method of ['GET', 'DELETE'])
			for (const path of [READS, EXPORT])
				faults.push({ path, method, kind: 'redirect', probability: h.crossOriginRedirect });
	if (h.wrongShape > 0)
		faults.push(
			{ path: READS, method: 'GET', kind: 'wrongShape', probability: h.wrongShape },
			{
				path: SUBMISSIONS,
				method: 'POST',
				kind: 'wrongShape',
				afterAct: true,
				probability: h.wrongShape,
			},
		);
	return faults;
}

/** The emulator options of the hostile profile (merged under the caller's own options). */
function hostileOptions({ seed = 42, timeScale = 1, ...overrides } = {}) {
	const h = { ...HOSTILE, ...(overrides.hostile || {}) };
	const scale = (range) => range.map((ms) => Math.round(ms * timeScale));
	const storm = h.storm
		? {
				listShift: {
					probability: 1,
					tasks: h.storm.tasks ?? 5,
					forMs: Math.round((h.storm.ms ?? 60_000) * timeScale),
				},
				maxPageSize: h.storm.pageSize ?? 5,
			}
		: { listShift: { probability: h.shiftProbability, tasks: h.shiftTasks } };
	return {
		seed,
		latency: { '*': scale(h.slowMs) },
		rateLimit: h.rateLimit,
		...storm,
		backlog: h.backlog,
		faults: [
			{ path: SUBMISSIONS, method: 'POST', kind: 'actThenError', probability: h.lostAfterAct },
			{ path: SUBMISSIONS, method: 'POST', kind: 'lostResponse', probability: h.lostAfterAct },
			...optInFaults(h),
		],
		...(h.crossOriginRedirect > 0 ? { otherOrigin: true } : {}),
	};
}

const PROFILES = { hostile: hostileOptions };

/** The options a profile stands for, with the caller's options on top. */
function applyProfile(options = {}) {
	if (!options.profile) return options;
	const profile = PROFILES[options.profile];
	if (!profile) throw new Error(`unknown emulator profile "${options.profile}"`);
	const base = profile(options);
	return { ...base, ...options, latency: options.latency ?? base.latency };
}

module.exports = { applyProfile, hostileOptions, HOSTILE, PROFILES };
