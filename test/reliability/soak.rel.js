'use strict';
/**
 * Fault soak: 500 documents through Task → Submit + Wait for Completion in n8n-core's engine,
 * Continue on Fail on, while the emulator injects
 *   - 10 % 5xx (500/502/503/504 alike),
 *   - a 429 rate_limited with Retry-After on every 7th request,
 *   - 2 % connection resets (before the service reads the request),
 *   - 2 % lost responses on submissions (the task is created and charged, the answer never comes).
 * Every item must end as a finished result or a per-item error, in order, none lost, and the
 * ledger must show no document charged twice. The figures are printed at the end.
 *
 * SOAK_DOCUMENTS / SOAK_RETRY_AFTER (seconds) change the size and the Retry-After of the run.
 */
const h = require('../helpers');
const secrets = require('../harness/secrets');
const report = require('./report');

const DOCUMENTS = Number(process.env.SOAK_DOCUMENTS || 500);
const RETRY_AFTER = Number(process.env.SOAK_RETRY_AFTER || 1);

const emu = h.useEmulator({ workers: 8, msPerPage: 20, seed: 7 });

const text = (i) => `Soak document ${String(i).padStart(4, '0')}`;

describe(`fault soak: ${DOCUMENTS} documents, Submit + Wait, under injected faults`, () => {
	let result;
	let elapsedMs;
	const retries = { total: 0, byCause: {} };

	beforeAll(async () => {
		for (const status of [500, 502, 503, 504])
			emu.fault({ kind: 'status', status, probability: 0.025 });
		emu.fault({ kind: 'rateLimit', every: 7, retryAfter: RETRY_AFTER });
		emu.fault({ kind: 'reset', probability: 0.02 });
		emu.fault({ method: 'POST', path: '/api/ocr', kind: 'lostResponse', probability: 0.02 });

		const onLog = (_level, message, meta) => {
			if (!meta?.retry) return;
			retries.total++;
			const cause = /got (.+); retrying/.exec(message)?.[1] ?? 'other';
			retries.byCause[cause] = (retries.byCause[cause] ?? 0) + 1;
		};
		secrets.listeners.add(onLog);
		const items = Array.from({ length: DOCUMENTS }, (_, i) =>
			h.pdfItem(text(i), `soak-${i}.pdf`, { n: i }),
		);
		const started = Date.now();
		result = await h.run(emu, h.submit({ options: { waitTimeout: 10 } }), items, {
			continueOnFail: true,
		});
		elapsedMs = Date.now() - started;
		secrets.listeners.delete(onLog);
	});

	test('the run itself succeeds: per-item errors only', () => {
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
	});

	test('output count equals input count, in order, each paired to its input', () => {
		expect(result.output).toHaveLength(DOCUMENTS);
		result.output.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
		});
	});

	test('every item is a finished result with its own text, or an error that says what happened', () => {
		result.output.forEach((item, i) => {
			if (item.json.error === undefined) {
				expect(item.json.status).toBe('done');
				expect(item.json.resultText).toContain(text(i));
			} else {
				expect(typeof item.json.error).toBe('string');
				expect(item.json.error.length).toBeGreaterThan(10);
			}
		});
	});

	test('no document is charged twice, and every charge belongs to a task the service created', () => {
		const tasks = emu.tasks;
		const byId = new Map(tasks.map((t) => [t.taskId, t]));
		const chargesPerDocument = new Map();
		for (const entry of emu.ledger('acme')) {
			const task = byId.get(entry.taskId);
			expect(task).toBeDefined();
			const key = task.text;
			chargesPerDocument.set(key, (chargesPerDocument.get(key) ?? 0) - entry.delta);
		}
		const twice = [...chargesPerDocument].filter(([, pages]) => pages > 1);
		expect(twice).toEqual([]);
		// A result delivered means a task the service created and charged for that document.
		result.output.forEach((item, i) => {
			if (item.json.error === undefined) expect(chargesPerDocument.get(text(i))).toBe(1);
		});
	});

	test('a submission whose answer was lost is reported as "may have been created", not resent', () => {
		const submitted = h.hits(emu, 'POST /api/ocr');
		const created = emu.tasks.length;
		const lost = emu.stats().lostResponses;
		expect(lost).toBeGreaterThan(0);
		// Every task created with no result delivered is explained by an item error saying so.
		const delivered = result.output.filter((item) => item.json.error === undefined).length;
		const mayExist = result.output.filter((item) =>
			/may have been created/.test(`${item.json.error} ${item.json.description}`),
		).length;
		expect(created - delivered).toBeLessThanOrEqual(mayExist);
		expect(submitted).toBeGreaterThanOrEqual(DOCUMENTS);
	});

	afterAll(() => {
		if (!result) return;
		const output = result.output;
		const done = output.filter((item) => item.json.error === undefined).length;
		const errored = output.filter((item) => item.json.error !== undefined).length;
		const reasons = {};
		for (const item of output) {
			if (item.json.error === undefined) continue;
			const reason = String(item.json.error)
				.replace(/^Item \d+: /, '')
				.replace(/"[^"]*"/g, '"…"')
				.slice(0, 90);
			reasons[reason] = (reasons[reason] ?? 0) + 1;
		}
		const stats = emu.stats();
		const pagesCharged = h.netCharged(emu);
		report.figures(`Fault soak — ${DOCUMENTS} documents, Submit + Wait (n8n-core engine)`, {
			'items in / out': `${DOCUMENTS} / ${output.length}`,
			'done / errored / lost': `${done} / ${errored} / ${DOCUMENTS - output.length}`,
			'pages charged vs documents': `${pagesCharged} pages for ${DOCUMENTS} documents (${emu.tasks.length} tasks created; no document charged twice)`,
			'results delivered vs charged': `${done} of ${pagesCharged} charged tasks (the rest: answers lost or 5xx after creation, reported per item)`,
			'retries made by the node': `${retries.total} (${Object.entries(retries.byCause)
				.map(([cause, n]) => `${n} × ${cause}`)
				.join(', ')})`,
			'faults injected': `${stats.faultsFired} on ${stats.requests} requests (lost responses ${stats.lostResponses})`,
			'item errors by reason': Object.entries(reasons)
				.sort((a, b) => b[1] - a[1])
				.map(([reason, n]) => `${n} × ${reason}`)
				.join('; '),
			time: `${(elapsedMs / 1000).toFixed(1)} s (Retry-After ${RETRY_AFTER} s on every 7th request)`,
		});
	});
});
