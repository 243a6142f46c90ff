/**
 * The claims in n8n's deduplication table (batch/claims.ts), against the table as n8n 2.41 writes
 * it (scripts/dedup-store.js: read the row, a round trip, write it whole; only a first insert
 * atomic): what a claim asks n8n for, conflicts and failures, one call at a time with the claims
 * asked meanwhile together, a process's own claims, release, and two processes claiming inside
 * one read-then-write.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ClaimQueue, DatabaseClaims } from '../../../../nodes/DocumentOcr/batch/claims';
import { MEMORY_LIMIT } from '../../../../nodes/DocumentOcr/batch/store';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ProcessedDataTable } = require('../../../../scripts/dedup-store') as {
	ProcessedDataTable: new () => {
		checkProcessedAndRecord: (
			...args: unknown[]
		) => Promise<{ new: string[]; processed: string[] }>;
		removeProcessed: (...args: unknown[]) => Promise<void>;
		has: (workflowId: string, nodeId: string, value: string) => boolean;
	};
};

const WHERE = { workflow: { id: 'wf' }, node: { id: 'ocr' } };

type Call = { method: string; items: unknown[]; scope: unknown; options: unknown };

/**
 * An execution's context over `table` (one database for every process of a test); `fail` makes
 * the next calls throw (an Error each, in turn). `idle()` resolves once no call of it is under
 * way: what was queued after an answer (a token's removal) has landed, however busy the machine.
 */
function context(table = new ProcessedDataTable(), fail: Error[] = []) {
	const calls: Call[] = [];
	const underWay = new Set<Promise<unknown>>();
	const tracked = async <T>(call: Promise<T>): Promise<T> => {
		underWay.add(call);
		try {
			return await call;
		} finally {
			underWay.delete(call);
		}
	};
	const ctx = {
		logger: { debug() {} },
		getExecutionCancelSignal: () => undefined,
		helpers: {
			checkProcessedAndRecord: async (items: unknown[], scope: unknown, options: unknown) => {
				calls.push({ method: 'record', items, scope, options });
				const error = fail.shift();
				if (error) throw error;
				return await tracked(table.checkProcessedAndRecord(items, scope, WHERE, options));
			},
			removeProcessed: async (items: unknown[], scope: unknown, options: unknown) => {
				calls.push({ method: 'remove', items, scope, options });
				await tracked(table.removeProcessed(items, scope, WHERE, options));
			},
		},
	} as unknown as IExecuteFunctions;
	const idle = async () => {
		// A few turns of the event loop for calls queued behind an answer to start, then theirs.
		for (let turn = 0; turn < 3; turn++) {
			await sleep(0);
			while (underWay.size > 0) await Promise.allSettled([...underWay]);
		}
	};
	return { ctx, calls, table, idle };
}

/** A process: its queue for the node. */
const process = () => new ClaimQueue();

describe('a claim in the deduplication table', () => {
	test('asks for the key and a token in node scope, entries mode, as many entries as the memory keeps; confirms it; lets the token go', async () => {
		const { ctx, calls, table, idle } = context();
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
		const options = { mode: 'entries', maxEntries: MEMORY_LIMIT };
		expect(calls[0]).toEqual({
			method: 'record',
			items: ['task:a', expect.stringMatching(/^claim-token:/)],
			scope: 'node',
			options,
		});
		const token = calls[0].items[1];
		expect(calls[1]).toEqual({ method: 'record', items: [token], scope: 'node', options });
		await idle();
		expect(calls[2]).toEqual({ method: 'remove', items: [token], scope: 'node', options });
		expect(table.has('wf', 'ocr', 'task:a')).toBe(true);
		expect(table.has('wf', 'ocr', token as string)).toBe(false);
	});

	test('a key another process claimed is not this one’s', async () => {
		const { ctx, table } = context();
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
		const other = context(table);
		expect(await new DatabaseClaims(other.ctx, process()).claim('task:a')).toBe(false);
	});

	test('a write that conflicts (two processes inserting the row) is tried again', async () => {
		const { ctx, calls } = context(undefined, [new Error('duplicate key value')]);
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
		expect(calls.filter((c) => c.method === 'record').length).toBeGreaterThanOrEqual(3);
	});

	test('a table that fails three times does not stop the send: the process memory still decides', async () => {
		const down = new Error('database is locked');
		const { ctx, calls } = context(undefined, [down, down, down]);
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
		expect(calls).toHaveLength(3);
	});

	test('not used for a memory of its own (manual runs), nor where n8n gives no such helper', async () => {
		const { ctx, calls } = context();
		expect(await new DatabaseClaims(ctx, undefined).claim('task:a')).toBe(true);
		const bare = { helpers: {} } as unknown as IExecuteFunctions;
		expect(await new DatabaseClaims(bare, process()).claim('task:a')).toBe(true);
		expect(calls).toHaveLength(0);
	});

	test("one process's calls go one at a time; the claims asked meanwhile go together", async () => {
		const { ctx, calls } = context();
		const shared = process();
		const one = new DatabaseClaims(ctx, shared);
		const other = new DatabaseClaims(ctx, shared);
		// Asked together: one call. Asked while it is under way: together in the next.
		const first = [one.claim('a'), other.claim('e')];
		while (calls.length === 0) await sleep(1);
		const later = [other.claim('b'), one.claim('c'), other.claim('b')];
		expect(await Promise.all([...first, ...later])).toEqual([true, true, true, true, true]);
		const records = calls.filter((c) => c.method === 'record' && c.items.length > 1);
		expect(records.map((c) => c.items.slice(0, -1))).toEqual([
			['a', 'e'],
			['b', 'c'],
		]);
	});

	test('a key this process claimed is its own, whatever the table says later; let go, it is not', async () => {
		const { ctx, table } = context();
		const shared = process();
		expect(await new DatabaseClaims(ctx, shared).claim('task:a')).toBe(true);
		// Another execution of this process: the table holds the key (this process's claim).
		expect(await new DatabaseClaims(ctx, shared).claim('task:a')).toBe(true);
		await new DatabaseClaims(ctx, shared).release('task:a');
		expect(table.has('wf', 'ocr', 'task:a')).toBe(false);
		const other = context(table);
		expect(await new DatabaseClaims(other.ctx, process()).claim('task:a')).toBe(true);
		expect(await new DatabaseClaims(ctx, shared).claim('task:a')).toBe(false);
	});

	test('a write that landed and then failed: the retry finds its own token, and the keys are this process’s', async () => {
		const table = new ProcessedDataTable();
		let landedThenFailed = false;
		const { ctx } = context(table);
		const record = ctx.helpers.checkProcessedAndRecord;
		ctx.helpers.checkProcessedAndRecord = async (...args: Parameters<typeof record>) => {
			const answer = await record(...args);
			if (!landedThenFailed) {
				landedThenFailed = true;
				throw new Error('connection lost after the write');
			}
			return answer;
		};
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
	});

	test('a claim asked while the key is let go waits for the removal, and is this process’s', async () => {
		const { ctx, table } = context();
		const shared = process();
		const claims = new DatabaseClaims(ctx, shared);
		expect(await claims.claim('task:a')).toBe(true);
		// Another batch is queued (another document) as the key is let go and claimed again.
		const other = claims.claim('task:b');
		const release = claims.release('task:a');
		const again = claims.claim('task:a');
		await release;
		expect(await again).toBe(true);
		expect(await other).toBe(true);
		expect(table.has('wf', 'ocr', 'task:a')).toBe(true);
	});

	test('no call writes more than 500 claims (n8n trims the row oldest first)', async () => {
		const { ctx, calls, table } = context();
		const claims = new DatabaseClaims(ctx, process());
		const keys = Array.from({ length: 1_200 }, (_, i) => `task:${i}`);
		expect(await Promise.all(keys.map(async (key) => await claims.claim(key)))).toEqual(
			keys.map(() => true),
		);
		const writes = calls.filter((c) => c.method === 'record' && c.items.length > 1);
		expect(writes.map((c) => c.items.length - 1)).toEqual([500, 500, 200]);
		expect(keys.every((key) => table.has('wf', 'ocr', key))).toBe(true);
	});

	test('claims overwritten by another process three times are not this process’s', async () => {
		const table = new ProcessedDataTable();
		const { ctx } = context(table);
		const record = ctx.helpers.checkProcessedAndRecord;
		// Every check of a token finds it gone, as if another write landed over each of ours.
		ctx.helpers.checkProcessedAndRecord = async (...args: Parameters<typeof record>) => {
			const items = args[0] as string[];
			if (items.length === 1 && items[0].startsWith('claim-token:'))
				return { new: items, processed: [] };
			return await record(...args);
		};
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(false);
	});

	test('a token is let go also when no key of its write was new', async () => {
		const { ctx, calls, table, idle } = context();
		expect(await new DatabaseClaims(ctx, process()).claim('task:a')).toBe(true);
		// Its token's removal goes after the answer: let it land before the other process reads.
		await idle();
		const other = context(table);
		expect(await new DatabaseClaims(other.ctx, process()).claim('task:a')).toBe(false);
		await other.idle();
		const tokens = [...calls, ...other.calls].flatMap((c) =>
			c.items.filter((item) => String(item).startsWith('claim-token:')),
		);
		expect(tokens.filter((token) => table.has('wf', 'ocr', String(token)))).toEqual([]);
	});

	test.each([1, 5, 40])(
		'two processes claiming %i documents inside one read-then-write: each document is one process’s',
		async (count) => {
			const table = new ProcessedDataTable();
			const keys = Array.from({ length: count }, (_, i) => `task:${i}`);
			const [one, two] = [context(table), context(table)];
			// The row exists (its first insert is atomic: two inserts do not both pass).
			await new DatabaseClaims(one.ctx, process()).claim('task:earlier');
			const claims = [
				new DatabaseClaims(one.ctx, process()),
				new DatabaseClaims(two.ctx, process()),
			];
			const results = await Promise.all(
				claims.map(async (c) => await Promise.all(keys.map(async (key) => await c.claim(key)))),
			);
			// Both first writes read the row before either wrote (the table's round trip): without
			// the confirmation both would send every document.
			for (let i = 0; i < count; i++) expect([results[0][i], results[1][i]]).toContain(true);
			for (let i = 0; i < count; i++) expect(results[0][i] && results[1][i]).toBe(false);
			for (const key of keys) expect(table.has('wf', 'ocr', key)).toBe(true);
		},
	);
});
