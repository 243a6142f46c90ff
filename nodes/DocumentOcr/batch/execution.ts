import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { KeepBudget } from '../documents/budget';
import type { Accepted, RecordKind } from '../service/client';
import { recordLabel, ServiceClient } from '../service/client';
import type { StreamedBlob } from '../shared/blob';
import { httpStatus, StoppedError } from '../transport/errors';
import type { BillableHooks } from '../transport/request';
import type { Poller } from '../waiting/poller';
import type { WaitSettings } from '../waiting/wait';
import { newPoller, waitUntilFinished } from '../waiting/wait';

/** Something the service created — and billed — for an item of this execution. */
export interface Created {
	itemIndex: number;
	kind: 'task' | 'job' | 'document';
	/** The ID the answer carried (a `/v1/ocr` or `/v1/extract` answer may carry none). */
	id?: string;
	/** Pages the answer says were billed, when it says so. */
	pagesBilled?: number;
	/** The document's file name, to name a billed document that has no ID. */
	fileName?: string;
}

/** A `/v1` document result the service billed, and how to find the document's memory key. */
export interface BilledResult {
	result: IDataObject;
	key: () => Promise<string>;
}

/**
 * One run of the action node over its items: made by the router, handed to every operation.
 * It owns the service client (and with it the request slots) and the money rules of a batch:
 *  - submissions start in item order (`turn` / `passTurn`): item i's billable request starts no
 *    later than item i+1's, so which items are billed never depends on timing;
 *  - `failed()`: once an item has failed the node (Continue on Fail off), no billable request
 *    starts any more — checked right before sending — and every wait ends (`halted`);
 *  - `created`: every task, job or document the service accepted, with its item, so that no
 *    billed ID is lost when an item or the node fails;
 * and what the items share: the one poller that waits for all of them, the documents being
 * submitted (same document, two items), the `/v1` results billed, and the bytes kept in memory.
 */
export class Execution {
	readonly client: ServiceClient;

	readonly created: Created[] = [];

	/** Documents being submitted, by memory key (see ./memory.ts). */
	readonly inFlightSubmissions = new Map<string, Promise<unknown>>();

	/** `/v1` results billed, by item: kept for the next run if this one fails before they reach the user. */
	readonly billedResults = new Map<number, BilledResult>();

	/** Memory keys of held results this run outputs instead of sending their documents. */
	readonly deliveredHeld = new Set<string>();

	/** Documents kept in memory between the check and send phases. */
	readonly kept = new KeepBudget();

	halted = false;

	private readonly stopOnFailure: boolean;

	private poller?: Poller;

	private onceResults = new Map<string, Promise<unknown>>();

	/** Items (by index) that have passed their submission turn: started it, or will send none. */
	private passed = new Set<number>();

	private nextTurn = 0;

	private turnWaiters = new Map<number, () => void>();

	/** Items waiting to come within `ahead` of the submission front (see `nearTurn`). */
	private frontWaiters = new Map<number, () => void>();

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
		this.stopOnFailure = options.stopOnFailure;
	}

	/**
	 * An item failed (or a submission did, which will fail its item): without Continue on Fail
	 * that fails the node, so start no more billable requests and end every wait.
	 */
	failed() {
		if (!this.stopOnFailure || this.halted) return;
		this.halted = true;
		this.poller?.interrupt();
		for (const wake of this.turnWaiters.values()) wake();
		this.turnWaiters.clear();
		for (const wake of this.frontWaiters.values()) wake();
		this.frontWaiters.clear();
	}

	/**
	 * Waits until `itemIndex` is at most `ahead` items past the submission front (every item
	 * before `itemIndex - ahead` has passed its turn). An item starts its work only then: an item
	 * that has started and waits for its turn holds its request and the frames under it, while an
	 * item waiting here holds almost nothing.
	 */
	async nearTurn(itemIndex: number, ahead: number): Promise<void> {
		if (this.nextTurn >= itemIndex - ahead || this.halted) return;
		await new Promise<void>((resolve) => this.frontWaiters.set(itemIndex - ahead, resolve));
	}

	/** Waits until every item before `itemIndex` has started its submission (or sends none). */
	async turn(itemIndex: number): Promise<void> {
		while (this.nextTurn < itemIndex && !this.halted) {
			await new Promise<void>((resolve) => this.turnWaiters.set(itemIndex, resolve));
		}
	}

	/** `itemIndex` started its submission, or will not send one: the next item may go. */
	passTurn(itemIndex: number) {
		if (itemIndex < this.nextTurn || this.passed.has(itemIndex)) return;
		this.passed.add(itemIndex);
		while (this.passed.has(this.nextTurn)) {
			this.passed.delete(this.nextTurn);
			this.nextTurn++;
			const near = this.frontWaiters.get(this.nextTurn);
			if (near) {
				this.frontWaiters.delete(this.nextTurn);
				near();
			}
		}
		const wake = this.turnWaiters.get(this.nextTurn);
		if (wake) {
			this.turnWaiters.delete(this.nextTurn);
			wake();
		}
	}

	/**
	 * How item `itemIndex`'s submission keeps its place (the transport calls these around each
	 * attempt): it waits for its turn before taking a request slot; with the slot in hand, once
	 * the rate-limit gate is open, it is stopped if the batch has halted, or else passes the turn
	 * on as it goes out; a failed submission halts the batch before its slot goes to the next one.
	 */
	billable(itemIndex: number): BillableHooks {
		return {
			beforeSlot: () => this.turn(itemIndex),
			beforeBillableSend: () => {
				if (this.halted) throw new StoppedError(itemIndex);
				this.passTurn(itemIndex);
			},
			onBillableFailure: () => this.failed(),
		};
	}

	createdBy(itemIndex: number): Created[] {
		return this.created.filter((c) => c.itemIndex === itemIndex);
	}

	/** Runs `work` once per execution under `key`; every caller gets the same result (or error). */
	async once<T>(key: string, work: () => Promise<T>): Promise<T> {
		if (!this.onceResults.has(key)) this.onceResults.set(key, work());
		return (await this.onceResults.get(key)) as T;
	}

	/** POST a document to a task endpoint, in the item's turn; the task is recorded as billed. */
	async submitTask(itemIndex: number, path: string[], body: StreamedBlob): Promise<Accepted> {
		const accepted = await this.client.submitTask(itemIndex, path, body, this.billable(itemIndex));
		this.created.push({
			itemIndex,
			kind: 'task',
			id: accepted.id,
			pagesBilled: accepted.pagesBilled,
		});
		return accepted;
	}

	/** POST /v1/jobs, in the item's turn; the job is recorded as billed. */
	async createJob(itemIndex: number, body: StreamedBlob): Promise<Accepted> {
		const accepted = await this.client.createJob(itemIndex, body, this.billable(itemIndex));
		this.created.push({
			itemIndex,
			kind: 'job',
			id: accepted.id,
			pagesBilled: accepted.pagesBilled,
		});
		return accepted;
	}

	/** POST a document to a `/v1` endpoint, in the item's turn; the document is recorded as billed. */
	async postDocument(
		itemIndex: number,
		endpoint: string,
		body: StreamedBlob,
		fileName?: string,
	): Promise<IDataObject> {
		const { answer, id, pagesBilled } = await this.client.postDocument(
			itemIndex,
			endpoint,
			body,
			this.billable(itemIndex),
		);
		this.created.push({ itemIndex, kind: 'document', id, pagesBilled, fileName });
		return answer;
	}

	/** Waits for a task or job until it is done (returns it) or failed / past the deadline (throws). */
	async waitFor(
		itemIndex: number,
		kind: RecordKind,
		id: string,
		settings: WaitSettings,
	): Promise<IDataObject> {
		this.poller ??= newPoller(this.ctx, () => this.halted);
		const fetch = async (deadline: number) =>
			await this.client.getRecord(itemIndex, kind, id, { deadline });
		const target = { label: recordLabel(kind, id), fetch };
		return await waitUntilFinished(this.ctx, this.poller, itemIndex, target, settings);
	}

	/**
	 * With Wait for Completion on, the key must be able to read tasks, or every document would be
	 * charged and then never read. Checked once per execution, before the first submission, with a
	 * request that costs nothing (the first list entry); only an answer about the key (401 / 403)
	 * stops the submissions — anything else is left to the submission itself.
	 */
	async ensureCanReadTasks(itemIndex: number): Promise<void> {
		await this.once('can-read-tasks', async () => {
			try {
				await this.client.listTasks(itemIndex, { page: 1, pageSize: 1 });
			} catch (error) {
				const status = httpStatus(error);
				if (!(error instanceof NodeApiError) || (status !== 401 && status !== 403)) return;
				const description =
					`${error.description ?? ''}\n\nWith "Wait for Completion" on, the node checks before submitting anything that the key can read tasks. Nothing was sent or charged. Give the key the "read" scope, or turn "Wait for Completion" off.`.trim();
				throw new NodeApiError(
					this.ctx.getNode(),
					{ message: error.message, description },
					{ message: error.message, description, httpCode: error.httpCode ?? undefined, itemIndex },
				);
			}
		});
	}
}
