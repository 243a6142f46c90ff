'use strict';
/**
 * The action node's promises, checked from outside: a seeded scenario (operation, batch, settings)
 * and the invariants over what the node returned and what the emulator's ledger and request log
 * saw. Used by the engine tier (`invariants.test.js`) and the reliability tier
 * (`reliability/hostile.rel.js`).
 */
const h = require('./helpers');
const { PAGE_SEPARATOR } = require('../emulator/documents');
const { timeStatusReads } = require('./support/status-reads');
const { SENDING } = require('./support/sending');

function rng(seed) {
	let s = (seed * 2654435761) >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

const pick = (random, list) => list[Math.floor(random() * list.length)];

/**
 * The runs a scenario draws from, with the parameters of each: every operation that bills
 * (test/support/sending.js), and Task → Submit without waiting and on the synchronous provider.
 */
const OPERATIONS = {
	...Object.fromEntries(
		Object.entries(SENDING).map(([value, { params }]) => [value, (o) => params({ options: o })]),
	),
	submitNoWait: (o) => SENDING.submit.params({ waitForCompletion: false, options: o }),
	submitSync: (o) => SENDING.submit.params({ provider: 'provider-sync', options: o }),
};

/** The runs that wait for their results (Wait for Completion, on by default). */
const WAITS = new Set([
	...Object.keys(SENDING).filter((value) => SENDING[value].waits),
	'submitSync',
]);

/** A seeded batch: each item a PDF of 1–3 pages with a text of its own; some fail, some never finish. */
function scenario(seed, { timeScale = 0.02, maxItems = 16 } = {}) {
	const random = rng(seed);
	const operation = pick(random, Object.keys(OPERATIONS));
	const n = 3 + Math.floor(random() * (maxItems - 2));
	const continueOnFail = random() < 0.5;
	const concurrency = pick(random, [1, 2, 5, 16]);
	const waitTimeoutMinutes = Math.max(0.05, (pick(random, [4, 6, 10]) * timeScale) / 0.02 / 60);
	const texts = [];
	const items = [];
	let pages = 0;
	for (let i = 0; i < n; i++) {
		const fate = random();
		const marker = fate < 0.1 ? ' FAIL' : fate < 0.18 ? ' STUCK' : '';
		const count = 1 + Math.floor(random() * 3);
		const text = `Seed ${seed} item ${i}${marker}`;
		texts.push(text);
		pages += count;
		const pdf = h.documents.makePdf(
			Array.from({ length: count }, (_, p) => (p === 0 ? text : `page ${p + 1}`)),
		);
		items.push(h.binaryItem(pdf, `seed-${seed}-item-${i}.pdf`));
	}
	const options = { concurrency };
	if (WAITS.has(operation)) options.waitTimeout = waitTimeoutMinutes;
	// A third of the runs cannot pay for the whole batch: the balance runs out midway.
	const balance = random() < 0.33 ? Math.floor(pages * (0.3 + random() * 0.5)) : undefined;
	return {
		seed,
		operation,
		parameters: OPERATIONS[operation](options),
		items,
		texts,
		continueOnFail,
		balance,
		waitTimeoutMs: WAITS.has(operation) ? waitTimeoutMinutes * 60_000 : undefined,
		msPerPage: Math.round(400 * (timeScale / 0.02)),
		summary: `${operation} × ${n}, continueOnFail ${continueOnFail}, concurrency ${concurrency}${balance === undefined ? '' : `, balance ${balance} of ${pages} pages`}`,
	};
}

/** The item a charge belongs to: its document's first page is the item's own text. */
function itemOf(plan, document) {
	return typeof document === 'string' ? plan.texts.indexOf(document.split(PAGE_SEPARATOR)[0]) : -1;
}

const SYNC_V1 = new Set(['POST /v1/markdown', 'POST /v1/ocr', 'POST /v1/extract']);
const MAY_EXIST =
	/may have been created|may exist|may have been charged|(was|were) (charged|billed)/i;
const TIMED_OUT = /did not finish within/;

/**
 * What the node promised, checked against what the service saw. Returns the violations found
 * (an empty list when every promise held). `answerAllowanceMs`: how long a status answer may
 * take — a read sent before a deadline may be answered after it, and a task that finished in the
 * last `answerAllowanceMs` before its deadline may be reported as timed out.
 */
function checkInvariants({ emu, plan, result, answerAllowanceMs = 3_000 }) {
	const violations = [];
	const { output, error } = result;

	// 4. pairedItem on every output item.
	for (const item of output)
		if (!item.pairedItem || typeof item.pairedItem.item !== 'number')
			violations.push(
				`an output item has no pairedItem: ${JSON.stringify(item.json).slice(0, 120)}`,
			);

	// The node's own charges (alice's key; the other client is carol), net of refunds.
	const ledger = emu.ledger('acme').filter((e) => e.user === 'alice');
	const refunded = new Set(ledger.filter((e) => e.reason === 'refund').map((e) => e.taskId));
	const charges = ledger.filter((e) => e.reason === 'submit' && !refunded.has(e.taskId));

	// 1. Nothing billed twice: one charge per document at most.
	const byItem = new Map();
	for (const charge of charges) {
		const index = itemOf(plan, charge.document);
		if (index < 0) {
			violations.push(`a charge for a document of no item: ${charge.taskId}`);
			continue;
		}
		if (byItem.has(index))
			violations.push(
				`item ${index} was billed twice (${byItem.get(index).taskId}, ${charge.taskId})`,
			);
		byItem.set(index, charge);
	}

	// 2. Every charge reaches the user: as the item's output, or named by an error.
	const outputs = new Map();
	for (const item of output) {
		const index = item.pairedItem?.item;
		if (!outputs.has(index)) outputs.set(index, []);
		outputs.get(index).push(item.json);
	}
	const created = error?.context?.created ?? [];
	const failedItem = error?.context?.itemIndex;
	const errorText = error ? `${error.message}\n${error.description ?? ''}` : '';
	for (const [index, charge] of byItem) {
		// The emulator charges a /v1 recognition it then fails (422 `ocr_failed`, text FAIL): there
		// is no result and no ID to deliver, and the item's own error says it failed.
		if (SYNC_V1.has(charge.endpoint) && / FAIL$/.test(plan.texts[index])) continue;
		const jsons = outputs.get(index) ?? [];
		const success = jsons.find((j) => j.error === undefined);
		const failure = jsons.find((j) => j.error !== undefined);
		const mentions = (json) => JSON.stringify(json).includes(charge.taskId);
		if (success) {
			// A result is its own proof; an ID, when the service gave one, must be there.
			const hasResult = ['markdown', 'text', 'data', 'resultText', 'taskId', 'id', 'jobId'].some(
				(k) => success[k] !== undefined,
			);
			if (!hasResult)
				violations.push(
					`item ${index}: billed, and its output carries neither the result nor the ID`,
				);
			continue;
		}
		// An item whose request the service answered with a 4xx: the service decided, and the
		// item's own error says so (it gave the node no ID to name).
		const refused = (httpCode) => /^4\d\d$/.test(String(httpCode ?? ''));
		if (failure) {
			if (
				!mentions(failure) &&
				!MAY_EXIST.test(`${failure.error} ${failure.description ?? ''}`) &&
				!failure.taskId &&
				!failure.id &&
				!failure.jobId &&
				!refused(failure.httpCode)
			)
				violations.push(
					`item ${index}: billed (${charge.taskId}), and its error item neither names the ID nor says it may have been billed: ${failure.error}`,
				);
			continue;
		}
		if (error) {
			// Named as billed (with its ID or file), or as an item whose answer was lost after the send.
			const listed =
				created.some((c) => c.itemIndex === index) ||
				(error.context?.lostAnswers ?? []).includes(index);
			const ownError =
				failedItem === index &&
				(errorText.includes(charge.taskId) || MAY_EXIST.test(errorText) || refused(error.httpCode));
			if (!listed && !ownError)
				violations.push(
					`item ${index}: billed (${charge.taskId} on ${charge.endpoint}), and the node's error does not name it`,
				);
			continue;
		}
		violations.push(
			`item ${index}: billed (${charge.taskId}), and neither an output nor an error reached the user`,
		);
	}

	// 3. Waits: a timed-out task did not finish long before its deadline; no status request
	// after a wait's deadline.
	if (plan.waitTimeoutMs !== undefined) {
		const polls = emu.stats().pollLog;
		for (const [index, charge] of byItem) {
			const deadline = Date.parse(charge.at) + plan.waitTimeoutMs;
			const last = Math.max(0, ...polls.filter((p) => p.taskId === charge.taskId).map((p) => p.at));
			if (last > deadline + answerAllowanceMs)
				violations.push(
					`item ${index}: its task was still asked ${last - deadline} ms after its wait's deadline`,
				);
			const jsons = outputs.get(index) ?? [];
			const timedOut =
				jsons.some((j) => TIMED_OUT.test(String(j.error))) ||
				(failedItem === index && TIMED_OUT.test(errorText));
			const record = emu.getTask(charge.taskId);
			const finishedAt = record?.completedAt ? Date.parse(record.completedAt) : undefined;
			if (timedOut && finishedAt !== undefined && finishedAt < deadline - answerAllowanceMs)
				violations.push(
					`item ${index}: reported as timed out, but its task finished ${deadline - finishedAt} ms before the deadline`,
				);
		}
	}
	return violations;
}

/**
 * One seed of the action node on the hostile emulator: the seed's scenario run in n8n's engine,
 * and the invariants checked. `timeScale` scales the service's answers; `rateLimit` its limit;
 * `answerAllowanceMs` how long before a deadline a finished task may still end as timed out —
 * or, when the run's status reads were slower (a 429 and its Retry-After inside one read, a
 * loaded machine), the node's own lead before a deadline, measured from them
 * (support/status-reads.js): the node asks a record for the last time that long before its
 * deadline, so a task finishing after that may end as timed out, one finishing before may not.
 */
async function actionRun(
	seed,
	{ timeScale, rateLimit, answerAllowanceMs = 3_000, maxItems, backlog = 50, syncTimeoutMs = 300 },
) {
	const { startEmulator } = require('../emulator');
	const plan = scenario(seed, { maxItems });
	const emu = await startEmulator({
		profile: 'hostile',
		seed,
		timeScale,
		backlog,
		rateLimit,
		workers: 4,
		msPerPage: plan.msPerPage,
		syncMsPerPage: 5,
		syncTimeoutMs,
	});
	const reads = timeStatusReads();
	try {
		if (plan.balance !== undefined) emu.setBalance('acme', plan.balance);
		const started = Date.now();
		const result = await h.run(emu, plan.parameters, plan.items, {
			continueOnFail: plan.continueOnFail,
		});
		reads.stop();
		const allowanceMs = Math.max(answerAllowanceMs, Math.ceil(reads.leadMs()));
		const violations = checkInvariants({ emu, plan, result, answerAllowanceMs: allowanceMs });
		return {
			plan,
			violations,
			seconds: (Date.now() - started) / 1000,
			rateLimited: emu.stats().rateLimited,
			allowanceMs,
		};
	} finally {
		reads.stop();
		await emu.close();
	}
}

const FINAL = new Set(['done', 'failed']);

/**
 * The poll trigger, activated on a hostile service with a backlog and unfinished tasks, then
 * polled while bursts of tasks are submitted (by another client of the account) and the list
 * moves under the walk; at the end every task finishes and the trigger drains its gaps and
 * followed tasks. Returns the tasks emitted twice and those that finished after the activation
 * and were never emitted. Newest first, or oldest first with List Order set to match (a
 * contradicting setting is the subject of its own test in poll-trigger.test.js).
 */
async function pollTriggerRun(seed, { timeScale, rounds = 8 }) {
	const { startEmulator } = require('../emulator');
	const { startPollTrigger } = require('./harness');
	const random = rng(seed);
	const order = random() < 0.25 ? 'oldest' : 'newest';
	const emu = await startEmulator({
		profile: 'hostile',
		seed,
		timeScale,
		backlog: 100 + Math.floor(random() * 400),
		rateLimit: { perSecond: 20, burst: 8 },
		workers: 4,
		msPerPage: 20,
		listOrder: order === 'oldest' ? 'oldest' : undefined,
	});
	try {
		// Unfinished tasks at activation are reported when they finish; finished ones are not.
		for (let i = 0; i < 10; i++) emu.submitAsOtherClient('acme');
		emu.pauseQueue();
		const trigger = startPollTrigger({
			parameters: {
				events: ['ocr.done', 'ocr.failed'],
				includeTaskDetails: false,
				options: { maxPages: 5 + Math.floor(random() * 20), listOrder: order },
			},
			credentials: h.credentials(emu),
		});
		await trigger.poll();
		const before = new Set(emu.tasks.filter((t) => FINAL.has(t.status)).map((t) => t.taskId));
		emu.resumeQueue();
		for (let round = 0; round < rounds; round++) {
			const burst = random() < 0.3 ? 50 + Math.floor(random() * 150) : Math.floor(random() * 30);
			for (let i = 0; i < burst; i++) emu.submitAsOtherClient('acme');
			if (random() < 0.3) emu.addFinishedTasks(Math.floor(random() * 60));
			await trigger.poll();
		}
		emu.options.listShift = null;
		await emu.waitFor(() => emu.tasks.every((t) => FINAL.has(t.status)), { timeoutMs: 120_000 });
		for (let i = 0; i < 40; i++) {
			const memory = trigger.memory()?.taskPoll;
			if (i > 2 && memory && memory.gaps.length === 0 && memory.pending.length === 0) break;
			emu.buckets.clear();
			await trigger.poll();
		}
		const emitted = trigger.emitted.map((item) => item.taskId);
		const seen = new Set(emitted);
		return {
			twice: emitted.filter((id, i) => emitted.indexOf(id) !== i),
			missing: emu.tasks
				.filter((t) => !before.has(t.taskId) && !seen.has(t.taskId))
				.map((t) => t.taskId),
			polls: trigger.polls,
			rateLimited: emu.stats().rateLimited,
			tasks: emu.tasks.length,
		};
	} finally {
		await emu.close();
	}
}

/**
 * The poll trigger under a storm of submissions (issue 29, finding 8): for `stormMs` (scaled),
 * another client submits a page's worth of tasks (5) after every page of the list answered, on a
 * service that clamps the page size to 5, so every walk meets a list moved by a page per read. The
 * trigger polls back to back through the storm; once it has ended and every task has finished, it
 * polls until its memory holds no gap and no followed task (at most `drainPolls`). Returns the
 * tasks emitted twice, those that finished after the activation and were never emitted, the
 * tasks of the run, the polls needed after the storm and the trigger's Max Pages per Poll.
 */
async function pollTriggerStormRun(
	seed,
	{ timeScale = 0.02, stormMs = 180_000, drainPolls = 40 } = {},
) {
	const { startEmulator } = require('../emulator');
	const { startPollTrigger } = require('./harness');
	const random = rng(seed);
	const emu = await startEmulator({
		profile: 'hostile',
		seed,
		timeScale,
		hostile: { slowMs: [100, 500], storm: { tasks: 5, ms: stormMs, pageSize: 5 } },
		backlog: 50 + Math.floor(random() * 200),
		rateLimit: { perSecond: 200, burst: 20 },
		workers: 4,
		msPerPage: 10,
	});
	try {
		for (let i = 0; i < 10; i++) emu.submitAsOtherClient('acme');
		emu.pauseQueue();
		const maxPages = 10 + Math.floor(random() * 20);
		const trigger = startPollTrigger({
			parameters: {
				events: ['ocr.done', 'ocr.failed'],
				includeTaskDetails: false,
				options: { maxPages },
			},
			credentials: h.credentials(emu),
		});
		// The storm begins once the trigger is active (its first reading is the list as it was).
		const shift = emu.options.listShift;
		emu.options.listShift = null;
		await trigger.poll();
		emu.options.listShift = shift;
		const before = new Set(emu.tasks.filter((t) => FINAL.has(t.status)).map((t) => t.taskId));
		emu.resumeQueue();
		const storming = () => Date.now() - (shift.startedAt ?? Date.now()) <= shift.forMs;
		let stormPolls = 0;
		while (storming() && stormPolls < 500) {
			await trigger.poll();
			stormPolls++;
		}
		emu.options.listShift = null;
		await emu.waitFor(() => emu.tasks.every((t) => FINAL.has(t.status)), { timeoutMs: 120_000 });
		let pollsAfter = 0;
		for (; pollsAfter < drainPolls; pollsAfter++) {
			const memory = trigger.memory()?.taskPoll;
			if (pollsAfter > 1 && memory && memory.gaps.length === 0 && memory.pending.length === 0)
				break;
			emu.buckets.clear();
			await trigger.poll();
		}
		const emitted = trigger.emitted.map((item) => item.taskId);
		const seen = new Set(emitted);
		const expected = emu.tasks.filter((t) => !before.has(t.taskId));
		return {
			twice: emitted.filter((id, i) => emitted.indexOf(id) !== i),
			missing: expected.filter((t) => !seen.has(t.taskId)).map((t) => t.taskId),
			expected: expected.length,
			emitted: seen.size,
			stormPolls,
			pollsAfter,
			maxPages,
		};
	} finally {
		await emu.close();
	}
}

module.exports = { scenario, checkInvariants, actionRun, pollTriggerRun, pollTriggerStormRun, rng };
