import type { IExecuteFunctions } from 'n8n-workflow';

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
 * that moment may both see a document new (and one may overwrite the other's entries); only the
 * row's first write is atomic. A claim whose write conflicts is tried again. The calls of one
 * process go one at a time (./shared.ts `inTurn`), so that they never drop each other's writes.
 * A document whose submission the service refused is let go, so that a later run may send it.
 *
 * Used only where n8n shares the store: production executions of a saved workflow, on an n8n
 * whose node helpers include it; manual runs and the engines without it keep the process's
 * memory alone (./shared.ts).
 */

/** The store's options: the entries mode, as many entries as the node's own memory keeps. */
const OPTIONS = { mode: 'entries' as const, maxEntries: MEMORY_LIMIT };

/** Times a claim is tried when n8n's write of the row fails (a conflict with another process). */
const TRIES = 3;

/** Runs a call to the table after the process's earlier ones (./shared.ts `inTurn`). */
type Serial = <T>(call: () => Promise<T>) => Promise<T>;

export class DatabaseClaims {
	private readonly serial: Serial | undefined;

	/**
	 * @param serial the process's queue of calls to the table (undefined: a memory of the
	 *   execution's own, which claims nothing there)
	 */
	constructor(
		private readonly ctx: IExecuteFunctions,
		serial: Serial | undefined,
	) {
		const usable = typeof ctx.helpers?.checkProcessedAndRecord === 'function';
		this.serial = usable ? serial : undefined;
	}

	/**
	 * Claims `key` for this execution: true when no process claimed it before (this one sends it),
	 * false when one did. Where n8n's store cannot be written, true: the process's memory still
	 * keeps its own executions apart.
	 */
	async claim(key: string): Promise<boolean> {
		const { serial } = this;
		if (!serial) return true;
		for (let attempt = 1; ; attempt++) {
			try {
				const checked = await serial(
					async () => await this.ctx.helpers.checkProcessedAndRecord([key], 'node', OPTIONS),
				);
				return checked.processed.length === 0;
			} catch (error) {
				if (attempt >= TRIES) {
					this.ctx.logger?.debug(
						`Document OCR: the deduplication store could not record a submission (${(error as Error).message}); sending with this process's memory alone`,
					);
					return true;
				}
			}
		}
	}

	/** Lets `key` go: its submission created nothing, so a later run may send it. */
	async release(key: string): Promise<void> {
		const { serial } = this;
		if (!serial) return;
		try {
			await serial(async () => await this.ctx.helpers.removeProcessed([key], 'node', OPTIONS));
		} catch (error) {
			this.ctx.logger?.debug(
				`Document OCR: the deduplication store could not let a refused submission go (${(error as Error).message})`,
			);
		}
	}
}
