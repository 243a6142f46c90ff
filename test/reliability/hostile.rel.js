'use strict';
/**
 * The promises against a slow, busy, rate-limiting service, in real n8n 2.x and in n8n's engine
 * (the long variants of `test/invariants.test.js`). Figures printed at the end.
 *
 *  - real n8n: 200 documents whose every status answer takes 1.5 s all end `done`, none reported
 *    as timed out;
 *  - n8n's engine: the action node's invariants (nothing billed twice, no billed ID or result lost
 *    unnamed, every wait ends by its deadline and no finished task reported as timed out) over
 *    seeds of the hostile profile with answers of 0.5–5 s, and the poll trigger's (every task
 *    that finishes emitted exactly once) with answers of 50–500 ms.
 * Seeds: 4 for the action node (HOSTILE_SEEDS), 3 for the poll trigger (HOSTILE_POLL_SEEDS; each
 * takes 40–110 s, and the engine tier already runs six shorter ones): raise them for a longer run.
 */
const fs = require('node:fs');
const path = require('node:path');
const { createInstance } = require('../../scripts/n8n-instance');
const { folderWorkflow } = require('../e2e/scenarios');
const documents = require('../../emulator/documents');
const { actionRun, pollTriggerRun } = require('../invariants');
const report = require('./report');

const rows = [];

describe('real n8n against a slow service', () => {
	let n8n;

	beforeAll(async () => {
		// Every status answer takes 1.5 s; the service itself finishes a one-page task in 50 ms.
		n8n = await createInstance({
			label: 'hostile',
			emulator: { workers: 8, msPerPage: 50, latency: { 'GET /api/tasks/:id': 1_500 } },
		});
		await n8n.importCredential();
		await n8n.importWorkflows([
			folderWorkflow('ocrRelSlowStatus', 'slow-status', {
				resource: 'task',
				operation: 'submit',
				waitForCompletion: true,
				options: {},
			}),
		]);
	});

	afterAll(async () => {
		await n8n?.close();
	});

	test('200 documents, every status answer taking 1.5 s: all end done, none reported as timed out', async () => {
		const folder = path.join(n8n.inbox, 'slow-status');
		fs.mkdirSync(folder, { recursive: true });
		for (let i = 0; i < 200; i++)
			fs.writeFileSync(
				path.join(folder, `doc-${String(i).padStart(3, '0')}.pdf`),
				documents.makePdf([`Slow status ${i}`]),
			);
		const mark = n8n.emu.ledger('acme').length;
		const started = Date.now();
		const run = await n8n.execute('ocrRelSlowStatus');
		const seconds = (Date.now() - started) / 1000;
		const items = run.data.resultData.runData['Document OCR'][0].data.main[0];
		expect(run.data.resultData.error).toBeUndefined();
		expect(items).toHaveLength(200);
		expect(items.every((item) => item.json.status === 'done')).toBe(true);
		expect(n8n.chargedSince(mark)).toBe(200);
		const stats = n8n.emu.stats();
		rows.push([
			'real n8n: 200 × 1 page, every status answer 1.5 s',
			`200 of 200 done, 0 timed out, ${seconds.toFixed(1)} s (n8n execute)`,
			`${stats.avgPollsPerTask.toFixed(2)} status requests/task`,
			'200 pages, once each',
		]);
	});
});

describe('the action node on a hostile service with answers of 0.5–5 s (engine)', () => {
	const SEEDS = Number(process.env.HOSTILE_SEEDS || 4);
	test.each(Array.from({ length: SEEDS }, (_, i) => 101 + i))(
		'seed %i',
		async (seed) => {
			const { plan, violations, seconds, rateLimited } = await actionRun(seed, {
				timeScale: 1,
				rateLimit: { perSecond: 3, burst: 6 },
				answerAllowanceMs: 10_000,
				maxItems: 24,
				backlog: 200,
				syncTimeoutMs: 2_000,
			});
			rows.push([
				`engine, hostile 0.5–5 s, seed ${seed}: ${plan.summary}`,
				`${violations.length} violation(s)`,
				`${seconds.toFixed(1)} s`,
				`${rateLimited} × 429`,
			]);
			expect({ seed, plan: plan.summary, violations }).toEqual({
				seed,
				plan: plan.summary,
				violations: [],
			});
		},
		600_000,
	);
});

describe('the poll trigger on a hostile service with answers of 50–500 ms (engine)', () => {
	const SEEDS = Number(process.env.HOSTILE_POLL_SEEDS || 3);
	test.each(Array.from({ length: SEEDS }, (_, i) => 201 + i))(
		'seed %i',
		async (seed) => {
			const started = Date.now();
			const result = await pollTriggerRun(seed, { timeScale: 0.1, rounds: 12 });
			rows.push([
				`poll trigger, hostile 50–500 ms, seed ${seed}: ${result.tasks} tasks, ${result.polls} polls`,
				`${result.twice.length} emitted twice, ${result.missing.length} missing`,
				`${((Date.now() - started) / 1000).toFixed(1)} s`,
				`${result.rateLimited} × 429`,
			]);
			expect({ seed, twice: result.twice, missing: result.missing }).toEqual({
				seed,
				twice: [],
				missing: [],
			});
		},
		600_000,
	);
});

afterAll(() => {
	report.table(
		'Hostile service: slow answers, rate limits, lost answers',
		['case', 'result', 'cost', 'billing'],
		rows,
	);
});
