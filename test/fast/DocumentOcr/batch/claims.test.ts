/**
 * The claims in n8n's deduplication table (batch/claims.ts): what a claim asks n8n for, a write
 * that conflicts tried again, where the table is not used, and a refused submission let go.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { DatabaseClaims } from '../../../../nodes/DocumentOcr/batch/claims';
import { MEMORY_LIMIT } from '../../../../nodes/DocumentOcr/batch/store';

/** A context whose table answers with `answers` in turn (an Error is thrown). */
function context(answers: Array<string[] | Error>) {
	const calls: unknown[][] = [];
	const removed: unknown[][] = [];
	const ctx = {
		logger: { debug() {} },
		helpers: {
			checkProcessedAndRecord: async (...args: unknown[]) => {
				calls.push(args);
				const answer = answers.shift();
				if (answer instanceof Error) throw answer;
				return { new: [], processed: answer ?? [] };
			},
			removeProcessed: async (...args: unknown[]) => {
				removed.push(args);
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, calls, removed };
}

/** Calls the table at once (a process queue of one). */
const direct = async <T>(call: () => Promise<T>): Promise<T> => await call();

describe('a claim in the deduplication table', () => {
	test('asks for the key in node scope, entries mode, as many entries as the memory keeps', async () => {
		const { ctx, calls } = context([[]]);
		expect(await new DatabaseClaims(ctx, direct).claim('task:a')).toBe(true);
		expect(calls).toEqual([[['task:a'], 'node', { mode: 'entries', maxEntries: MEMORY_LIMIT }]]);
	});

	test('a key the table already holds is claimed elsewhere', async () => {
		const { ctx } = context([['task:a']]);
		expect(await new DatabaseClaims(ctx, direct).claim('task:a')).toBe(false);
	});

	test('a write that conflicts (two processes inserting the row) is tried again, and the second read decides', async () => {
		const { ctx, calls } = context([new Error('duplicate key value'), ['task:a']]);
		expect(await new DatabaseClaims(ctx, direct).claim('task:a')).toBe(false);
		expect(calls).toHaveLength(2);
	});

	test('a table that fails three times does not stop the send: the process memory still holds', async () => {
		const down = new Error('database is locked');
		const { ctx, calls } = context([down, down, down]);
		expect(await new DatabaseClaims(ctx, direct).claim('task:a')).toBe(true);
		expect(calls).toHaveLength(3);
	});

	test('not used for a memory of its own (manual runs), nor where n8n gives no such helper', async () => {
		const { ctx, calls } = context([['task:a']]);
		expect(await new DatabaseClaims(ctx, undefined).claim('task:a')).toBe(true);
		const bare = { helpers: {} } as unknown as IExecuteFunctions;
		expect(await new DatabaseClaims(bare, direct).claim('task:a')).toBe(true);
		expect(calls).toHaveLength(0);
	});

	test("one process's calls go one at a time (n8n reads the row, then writes it whole)", async () => {
		const { SharedMemory } = await import('../../../../nodes/DocumentOcr/batch/shared');
		const memory = new SharedMemory();
		let running = 0;
		let most = 0;
		const ctx = {
			helpers: {
				checkProcessedAndRecord: async () => {
					most = Math.max(most, ++running);
					await sleep(5);
					running--;
					return { new: [], processed: [] };
				},
				removeProcessed: async () => {
					most = Math.max(most, ++running);
					await sleep(5);
					running--;
				},
			},
		} as unknown as IExecuteFunctions;
		const serial = async <T>(call: () => Promise<T>) => await memory.inTurn(call);
		const one = new DatabaseClaims(ctx, serial);
		const other = new DatabaseClaims(ctx, serial);
		await Promise.all([one.claim('a'), other.claim('b'), one.release('c'), other.release('d')]);
		expect(most).toBe(1);
	});

	test('a refused submission is let go in the same scope and mode', async () => {
		const { ctx, removed } = context([]);
		await new DatabaseClaims(ctx, direct).release('task:a');
		expect(removed).toEqual([[['task:a'], 'node', { mode: 'entries', maxEntries: MEMORY_LIMIT }]]);
	});
});
