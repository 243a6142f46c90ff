import type { IExecuteFunctions } from 'n8n-workflow';

import { KeepBudget } from '../documents/budget';
import { ServiceClient } from '../service/client';
import type { Poller } from '../waiting/poller';
import { newPoller } from '../waiting/wait';
import { BillingLedger } from './ledger';
import { SubmissionOrder } from './order';
import { SubmittedDocuments } from './submitted';

/**
 * One run of the action node over its items: made by the router, handed to every operation. It
 * holds the run's parts, each of them small and on its own:
 *  - `client`: the service client, and with it the request slots and the rate-limit gate;
 *  - `order`: the order items submit in, and the halt (./order.ts);
 *  - `ledger`: what the service billed in this run (./ledger.ts);
 *  - `submitted`: the node's remembered submissions and the documents being submitted now
 *    (./submitted.ts);
 * and what the items share: the one poller that waits for all of them, work done once per run
 * (`once`), and the bytes kept in memory between the check and send phases (`kept`).
 */
export class Execution {
	readonly client: ServiceClient;

	readonly order: SubmissionOrder;

	readonly ledger = new BillingLedger();

	readonly submitted: SubmittedDocuments;

	/** Documents kept in memory between the check and send phases. */
	readonly kept = new KeepBudget();

	private madePoller?: Poller;

	private onceResults = new Map<string, Promise<unknown>>();

	/**
	 * @param concurrency the most requests in flight at once (the user's cap); items themselves
	 *   may all be under way, most just waiting.
	 * @param stopOnFailure Continue on Fail is off: the first failing item fails the node.
	 */
	constructor(
		readonly ctx: IExecuteFunctions,
		options: { concurrency: number; stopOnFailure: boolean },
	) {
		this.client = new ServiceClient(ctx, { concurrency: options.concurrency });
		// A halt ends every wait at once: the poller stops sleeping and reports it.
		this.order = new SubmissionOrder(options.stopOnFailure, () => this.madePoller?.interrupt());
		this.submitted = new SubmittedDocuments(ctx, this.order);
	}

	/** The one poller every waiting item of this run shares, made on the first wait. */
	get poller(): Poller {
		this.madePoller ??= newPoller(this.ctx, () => this.order.halted);
		return this.madePoller;
	}

	/** Runs `work` once per execution under `key`; every caller gets the same result (or error). */
	async once<T>(key: string, work: () => Promise<T>): Promise<T> {
		if (!this.onceResults.has(key)) this.onceResults.set(key, work());
		return (await this.onceResults.get(key)) as T;
	}
}
