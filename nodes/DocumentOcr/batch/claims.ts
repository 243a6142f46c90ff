import { randomBytes } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { MEMORY_LIMIT } from './store';

/**
 * Skip Submitted Documents across n8n processes (issue 43): the documents this workflow node
 * submitted, claimed in n8n's deduplication store (the table behind Remove Duplicates, in n8n's
 * database: `checkProcessedAndRecord`, node scope, the newest MEMORY_LIMIT entries). It is the one
 * store n8n shares between its processes that a node can write: queue-mode workers start every
 * execution with empty static data (n8n 2.41), so what another worker sent is known only here.
 * It keeps seen / not seen (an MD5 of the key), not the task: a document claimed by another
 * process is not sent again, and its item says so (./submitted.ts `claimedElsewhereError`).
 *
 * n8n reads the row and then writes it whole, with no transaction: two processes claiming within
 * that moment both see a document new, and the write that lands last overwrites the other; only
 * the row's first write is atomic. Each write of claims carries a token and is confirmed a moment
 * later (`ClaimQueue`), which tells the overwritten process. A claim whose write conflicts is
 * tried again. The calls of one process go one at a time, the claims asked for meanwhile
 * together. A document whose submission the service refused is let go, so that a later run may
 * send it.
 *
 * Used only where n8n shares the store: production executions of a saved workflow, on an n8n
 * whose node helpers include it; manual runs and the engines without it keep the process's
 * memory alone (./shared.ts).
 */

/** The store's options: the entries mode, as many entries as the node's own memory keeps. */
const OPTIONS = { mode: 'entries' as const, maxEntries: MEMORY_LIMIT };

/** Times a call is tried when n8n's write of the row fails (a conflict with another process). */
const TRIES = 3;

/**
 * How long a claim waits before it is confirmed: past another process's read-then-write under
 * way when the claim was written (a database round trip, like the claim's own call), so that the
 * write which lands last has landed: three times the claim's own call, and at least this. Each
 * wave of an execution's new documents waits it once before the first of them is sent.
 */
const CONFIRM_AFTER_MS = 50;

/** The wait, in calls of the claim's own length (see CONFIRM_AFTER_MS). */
const CONFIRM_CALLS = 3;

/** The most claims one call writes: far below the table's entries, which n8n trims oldest first. */
const MOST_PER_CALL = 500;

/** The table's calls as one execution makes them (its node's helpers: the node's row). */
type Table = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'>;

/** A batch of claims: the table to call, the keys' waiters. */
interface Batch {
	table: Table;
	keys: Map<string, Array<(claimed: boolean) => void>>;
}

type Log = (message: string) => void;

/**
 * A process's calls to the table for one workflow node (kept with its memory, ./shared.ts): one
 * at a time, since n8n reads the row and writes it whole and two calls of one process at once
 * would drop each other's writes; the claims asked for while a call is under way go together in
 * the next (one row write for many documents: items ask before their turn, ./submitted.ts).
 *
 * A claim is written with a token of its own and confirmed a moment later (`confirm`): when two
 * processes claim inside one read-then-write, the write that lands last overwrites the other,
 * token and all. The process whose token is gone claims its documents again: those the other
 * wrote are its (not sent here), the rest are claimed anew. Two processes both send a document
 * only when one's write lands more than CONFIRM_AFTER_MS after the other's.
 */
export class ClaimQueue {
	/** The end of the last call queued. */
	private tail: Promise<unknown> = Promise.resolve();

	/** The claims of the next call. */
	private next: Batch | undefined;

	/** Keys this process claimed and has not let go: its own, whatever the table says later. */
	private readonly ours = new Set<string>();

	/** Claims of this process not settled yet, by key: a second asker shares the first's. */
	private readonly pending = new Map<string, Promise<boolean>>();

	/** Keys being let go, by key: a claim of one waits until the table has let it go. */
	private readonly releasing = new Map<string, Promise<void>>();

	/**
	 * Claims `key`: true when no other process had (this process sends it), false when one had.
	 * Where the table cannot be written, true: the process's memory still keeps its own apart.
	 */
	async claim(table: Table, key: string, log: Log): Promise<boolean> {
		// A key being let go is claimed in a call after its removal, not one queued before it.
		await this.releasing.get(key);
		if (this.ours.has(key)) return true;
		const pending = this.pending.get(key);
		if (pending) return await pending;
		const claimed = new Promise<boolean>((resolve) => {
			if (!this.next || this.next.keys.size >= MOST_PER_CALL) {
				const batch: Batch = { table, keys: new Map() };
				this.next = batch;
				void this.queued(async () => await this.send(batch, log));
			}
			const waiting = this.next.keys.get(key) ?? [];
			waiting.push(resolve);
			this.next.keys.set(key, waiting);
		});
		this.pending.set(key, claimed);
		return await claimed;
	}

	/** Lets `key` go: its submission created nothing, so a later run may send it. */
	async release(table: Table, key: string, log: Log): Promise<void> {
		this.ours.delete(key);
		const removal = this.queued(async () => {
			await this.call(table, 'removeProcessed', [key], log);
		});
		this.releasing.set(key, removal);
		await removal;
		if (this.releasing.get(key) === removal) this.releasing.delete(key);
	}

	/** Runs `call` after the calls queued before it. */
	private async queued<T>(call: () => Promise<T>): Promise<T> {
		const result = this.tail.then(call);
		this.tail = result.catch(() => undefined);
		return await result;
	}

	/**
	 * One call to the table, tried again when its write conflicts; for a record, the keys another
	 * process had (undefined: the table could not be written).
	 */
	private async call(
		table: Table,
		method: 'checkProcessedAndRecord' | 'removeProcessed',
		keys: string[],
		log: Log,
	): Promise<Set<string> | undefined> {
		for (let attempt = 1; ; attempt++) {
			try {
				if (method === 'removeProcessed') {
					await table.removeProcessed(keys, 'node', OPTIONS);
					return new Set();
				}
				const checked = await table.checkProcessedAndRecord(keys, 'node', OPTIONS);
				return new Set(checked.processed.map(String));
			} catch (error) {
				if (attempt >= TRIES) {
					log(
						`could not be written (${(error as Error).message}); this process's memory alone decides`,
					);
					return undefined;
				}
			}
		}
	}

	/** The first call for the claims of `batch`; their confirmation follows off the queue. */
	private async send(batch: Batch, log: Log) {
		if (this.next === batch) this.next = undefined;
		const token = newToken();
		const started = Date.now();
		const keys = [...batch.keys.keys()];
		const had = await this.call(batch.table, 'checkProcessedAndRecord', [...keys, token], log);
		// The token already there: an attempt whose write landed and then failed wrote these keys.
		const fresh = had && !had.has(token) ? keys.filter((key) => !had.has(key)) : keys;
		const wait = Math.max(CONFIRM_AFTER_MS, CONFIRM_CALLS * (Date.now() - started));
		// Whatever happens in the check, every waiter is told: no item waits past it.
		void this.confirm(batch, fresh, had ? token : undefined, wait, 1, log).catch(() =>
			this.settle(batch, fresh),
		);
	}

	/**
	 * After `wait`, whether `token` (written with the `fresh` keys) is still in the table: then the
	 * keys are this process's; if not, another process's write landed over it, and the keys are
	 * claimed again with a new token (those it wrote are its). Settles every waiter of the batch.
	 */
	private async confirm(
		batch: Batch,
		fresh: string[],
		token: string | undefined,
		wait: number,
		attempt: number,
		log: Log,
	): Promise<void> {
		if (token !== undefined && fresh.length === 0)
			void this.queued(async () => await this.call(batch.table, 'removeProcessed', [token], log));
		if (token !== undefined && fresh.length > 0) {
			// Not cut short by a cancel: the batch may hold other executions' claims.
			await sleep(wait);
			const kept = await this.queued(
				async () => await this.call(batch.table, 'checkProcessedAndRecord', [token], log),
			);
			void this.queued(async () => await this.call(batch.table, 'removeProcessed', [token], log));
			if (kept && !kept.has(token) && attempt >= TRIES) {
				// Overwritten every time: none of them is this process's to send.
				log(`claims overwritten ${attempt} times by other processes' writes; not sent here`);
				this.settle(batch, []);
				return;
			}
			if (kept && !kept.has(token)) {
				const again = newToken();
				const had = await this.queued(
					async () =>
						await this.call(batch.table, 'checkProcessedAndRecord', [...fresh, again], log),
				);
				if (had) {
					log(
						`claims overwritten by another process's write: ${had.size} of ${fresh.length} were its`,
					);
					// The new token already there: a failed attempt's write of these keys landed.
					await this.confirm(
						batch,
						had.has(again) ? fresh : fresh.filter((key) => !had.has(key)),
						again,
						wait,
						attempt + 1,
						log,
					);
					return;
				}
			}
		}
		this.settle(batch, fresh);
	}

	/** Tells every waiter of `batch` whether its key is this process's (`fresh`, or claimed before). */
	private settle(batch: Batch, fresh: string[]) {
		const claimed = new Set(fresh);
		for (const [key, waiting] of batch.keys) {
			const own = claimed.has(key) || this.ours.has(key);
			if (own) this.ours.add(key);
			this.pending.delete(key);
			for (const resolve of waiting) resolve(own);
		}
		// Past the memory's own size the oldest go: the process's memory has them by then.
		for (const old of this.ours) {
			if (this.ours.size <= MEMORY_LIMIT) break;
			this.ours.delete(old);
		}
	}
}

/** A token of one write of claims. */
function newToken(): string {
	return `claim-token:${randomBytes(12).toString('hex')}`;
}

/** The claims as one execution makes them: through its process's queue, with its node's helpers. */
export class DatabaseClaims {
	private readonly queue: ClaimQueue | undefined;

	/**
	 * @param queue the process's queue for the node (undefined: a memory of the execution's own,
	 *   which claims nothing there)
	 */
	constructor(
		private readonly ctx: IExecuteFunctions,
		queue: ClaimQueue | undefined,
	) {
		const usable = typeof ctx.helpers?.checkProcessedAndRecord === 'function';
		this.queue = usable ? queue : undefined;
	}

	private readonly log = (message: string) =>
		this.ctx.logger?.debug(`Document OCR: the deduplication store ${message}`);

	/** Whether the table is used (a production execution of a saved workflow, on an n8n with it). */
	get active(): boolean {
		return this.queue !== undefined;
	}

	/** See `ClaimQueue.claim`; true where the table is not used. */
	async claim(key: string): Promise<boolean> {
		if (!this.queue) return true;
		return await this.queue.claim(this.ctx.helpers, key, this.log);
	}

	/** See `ClaimQueue.release`. */
	async release(key: string): Promise<void> {
		if (this.queue) await this.queue.release(this.ctx.helpers, key, this.log);
	}
}
