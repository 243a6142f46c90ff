import type { IExecuteFunctions } from 'n8n-workflow';

import type { DocumentReads } from '../documents/kept';
import { documentReads } from '../documents/kept';
import type { PageCount } from '../formats';
import { ServiceClient } from '../service/client';
import type { BillableHooks } from '../transport/api';
import type { Poller } from '../waiting/poller';
import { newPoller } from '../waiting/wait';
import type { BudgetPart } from './budget';
import { PageBudget } from './budget';
import { BillingLedger } from './ledger';
import { DatabaseClaims } from './claims';
import { SubmissionOrder } from './order';
import type { MemoryView } from './shared';
import { openMemory } from './shared';
import { SubmittedDocuments } from './submitted';
import { TriedDocuments } from './tried';

/**
 * One run of the action node over its items: made by the router, handed to every operation. It
 * holds the run's parts, each of them small and on its own:
 *  - `client`: the service client, and with it the request slots and the rate-limit gate;
 *  - `order`: the order items submit in, and the halt (./order.ts);
 *  - `ledger`: what the service billed in this run (./ledger.ts);
 *  - `budget`: the Page Budget, the most pages the node may bill in the workflow execution
 *    (./budget.ts);
 *  - `memory`: the node's memory as this execution uses it, shared with the executions of the
 *    same workflow node in this process, closed by the router when the run ends (./shared.ts);
 *  - `submitted`: the node's remembered submissions and the documents being submitted now
 *    (./submitted.ts);
 *  - `tried`: what the earlier tries of this run billed, for Retry On Fail (./tried.ts);
 * and what the items share: the one poller that waits for all of them, work done once per run
 * (`once`), and how documents are read (`reads`: the bytes kept in memory between the check and
 * send phases, the turns to hold a document whole to count its pages).
 */
export class Execution {
	readonly client: ServiceClient;

	readonly order: SubmissionOrder;

	readonly ledger = new BillingLedger();

	readonly memory: MemoryView;

	readonly submitted: SubmittedDocuments;

	readonly budget: PageBudget;

	/** What the earlier tries of this run billed, for n8n's Retry On Fail (./tried.ts). */
	readonly tried: TriedDocuments;

	/** How the check phase reads documents (documents/kept.ts). */
	readonly reads: DocumentReads;

	private madePoller?: Poller;

	private onceResults = new Map<string, Promise<unknown>>();

	/**
	 * @param concurrency the most requests in flight at once (the user's cap); items themselves
	 *   may all be under way, most just waiting.
	 * @param stopOnFailure Continue on Fail is off: the first failing item fails the node.
	 * @param pageBudget the most pages the run may bill (Page Budget), when set.
	 */
	constructor(
		readonly ctx: IExecuteFunctions,
		options: { concurrency: number; stopOnFailure: boolean; pageBudget?: number },
	) {
		// What the budget spent is kept in the node's context for the whole workflow execution.
		const memory = options.pageBudget === undefined ? {} : ctx.getContext('node');
		this.budget = new PageBudget(options.pageBudget, ctx.getNode(), this.ledger, memory);
		this.reads = documentReads(options.pageBudget !== undefined);
		this.client = new ServiceClient(ctx, { concurrency: options.concurrency });
		// A halt ends every wait at once: the poller stops sleeping and reports it.
		this.order = new SubmissionOrder(options.stopOnFailure, () => this.madePoller?.interrupt());
		this.tried = new TriedDocuments(ctx);
		// What the earlier tries of this run billed is billed in this run too: its errors name it.
		for (const { itemIndex, key, tried } of this.tried.billed()) {
			if ('id' in tried) this.ledger.record({ itemIndex, kind: tried.kind, id: tried.id });
			if (!('json' in tried)) continue;
			const { json, fileName } = tried;
			const id = typeof json.id === 'string' ? json.id : undefined;
			const created = { itemIndex, kind: 'document' as const, id, fileName };
			this.ledger.record(created);
			this.ledger.billedResults.set(created, { result: json, key: async () => key });
		}
		// Opened last: nothing after it throws, so the router's `finally` always closes it.
		this.memory = openMemory(ctx);
		const claims = new DatabaseClaims(ctx, this.memory.table);
		this.submitted = new SubmittedDocuments(ctx, this.order, this.memory, claims);
	}

	/**
	 * How item `itemIndex`'s billable request keeps its place (its turn and the halt, ./order.ts)
	 * and, right before it goes out, sets the document's pages against the Page Budget — for a
	 * part of a split document, the pages of the parts from it on, all or none (./budget.ts).
	 */
	billable(itemIndex: number, count: PageCount, part?: BudgetPart): BillableHooks {
		return this.order.billable(itemIndex, () => this.budget.admit(itemIndex, count, part));
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
