import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RecordKind } from '../service/client';
import { booleanField, itemFields } from '../shared/validate';
import { mayHaveCreated } from '../transport/errors';
import type { SubmissionOrder } from './order';
import { BoundedStore, MEMORY_LIMIT } from './store';

/**
 * What a workflow node remembers of the documents it submitted ("Skip Submitted Documents"), so
 * that a re-run does not pay twice: each document submitted and the task or job the service
 * created for it, by key (./key.ts). A document seen again is not sent: its task is returned.
 * Kept in the workflow's static data (node scope), which n8n saves after every production
 * execution — schedule, trigger, webhook, `n8n execute` — also when it fails; n8n does not save
 * it after manual test runs from the editor (`saveStaticData` in n8n's execution lifecycle hooks
 * skips manual mode), so there it lasts one execution. (The other memory, billed results held
 * for the next run, is ./held.ts.)
 *
 * A submission whose answer was lost after the document was sent (a reset, a 502 from a gateway:
 * the service may have created and charged a task whose ID the node never learnt) is remembered
 * too, with the time the answer was lost: a later run does not send that document again (its
 * item fails, saying how to look for the task) unless "Resend Unconfirmed Documents" is on. Such
 * a record does not expire: the time passed says nothing about whether the service created the
 * task, and an expiry would turn "may be charged twice" into silent spending later. Nor is it
 * pushed out by the documents sent after it: lost answers are kept in a store of their own
 * (`unconfirmed`), which only newer lost answers of the node can fill (10,000 of them, which would
 * mean the service loses most answers). It goes when a resend is accepted (the new task is
 * remembered in its place). The task the
 * lost send created is not looked for in the task list: the service does not show which task
 * came from which send (a task's filename and creation time are "not shown"; where a service
 * shows them, another submission of the same file name in the same seconds — a team member,
 * another workflow, another item — cannot be ruled out, and reusing the wrong task would output
 * another document's text as this one's).
 *
 * Kept in a BoundedStore (./store.ts): n8n observes static data through a Proxy, and a store
 * costs a few accesses through it per document however much it remembers. A remembered
 * submission is kept as a short JSON string (`[kind, id or null, time]`) rather than an object:
 * n8n wraps every object of the static data in its own Proxy each time it loads a workflow.
 *
 * Why not n8n's other stores: the deduplication helpers (`checkProcessedAndRecord`, behind the
 * Remove Duplicates node) record seen / not seen only, so the task or result the user paid for
 * could not be returned; data tables are reachable only from n8n's own Data Table and Evaluation
 * nodes (their proxy refuses other node types, checked in n8n 2.41).
 */

export const skipSubmittedOption: INodeProperties = {
	displayName: 'Skip Submitted Documents',
	name: 'skipSubmitted',
	type: 'boolean',
	default: false,
	description:
		'Whether to reuse the task of a document this node has already submitted (same file, same settings, same account) instead of sending and paying for it again. Remembered across production executions (schedule, trigger, webhook), not across manual test runs.',
};

export const resendUnconfirmedOption: INodeProperties = {
	displayName: 'Resend Unconfirmed Documents',
	name: 'resendUnconfirmed',
	type: 'boolean',
	default: false,
	description:
		'Whether to send again a document whose earlier submission may have been charged but whose answer was lost (a reset or a gateway error after sending). Off, its item fails and says how to look for the task. Only with Skip Submitted Documents on.',
};

/** The item's Skip Submitted Documents and Resend Unconfirmed Documents options. */
export function skipOptionsOf(ctx: IExecuteFunctions, itemIndex: number) {
	const fields = itemFields(ctx, itemIndex);
	return {
		skip: booleanField(fields, skipSubmittedOption, { path: 'options.skipSubmitted' }),
		resend: booleanField(fields, resendUnconfirmedOption, { path: 'options.resendUnconfirmed' }),
	};
}

/**
 * A remembered submission: the task or job the service created, or — no `id` — a send whose
 * answer was lost at `at` (the service may have created and charged it).
 */
interface Stored {
	kind: RecordKind;
	id?: string;
	at: number;
}

function encodeStored({ kind, id, at }: Stored): string {
	return JSON.stringify([kind, id ?? null, at]);
}

function decodeStored(value: unknown): Stored | undefined {
	if (typeof value !== 'string') return undefined;
	try {
		const [kind, id, at] = JSON.parse(value) as unknown[];
		if ((kind !== 'task' && kind !== 'job') || typeof at !== 'number') return undefined;
		if (typeof id === 'string') return { kind, id, at };
		return id === null ? { kind, at } : undefined;
	} catch {
		return undefined;
	}
}

/** An entry of the shape saved before issue 29 (`{ kind, id, at }`), as the store keeps it. */
function convertStored(value: unknown): string | undefined {
	const old = value as Partial<Stored> | null;
	if (typeof old !== 'object' || old === null || typeof old.id !== 'string') return undefined;
	if (old.kind !== 'task' && old.kind !== 'job') return undefined;
	return encodeStored({ kind: old.kind, id: old.id, at: Number(old.at) || 0 });
}

/** The node's remembered submissions: the tasks and jobs created. */
function submittedStore(ctx: IExecuteFunctions) {
	return new BoundedStore<string>(
		ctx.getWorkflowStaticData('node'),
		'submitted',
		MEMORY_LIMIT,
		convertStored,
	);
}

/** The node's lost answers: kept apart, so that no number of documents sent later pushes one out. */
function unconfirmedStore(ctx: IExecuteFunctions) {
	return new BoundedStore<string>(ctx.getWorkflowStaticData('node'), 'unconfirmed', MEMORY_LIMIT);
}

/** What the node remembers of `key`: its task or job, else a lost answer (also as stored before). */
function remembered(ctx: IExecuteFunctions, key: string): Stored | undefined {
	return decodeStored(submittedStore(ctx).get(key) ?? unconfirmedStore(ctx).get(key));
}

function remember(ctx: IExecuteFunctions, key: string, stored: Stored) {
	if (stored.id === undefined) {
		submittedStore(ctx).delete(key);
		unconfirmedStore(ctx).set(key, encodeStored(stored));
		return;
	}
	unconfirmedStore(ctx).delete(key);
	submittedStore(ctx).set(key, encodeStored(stored));
}

/**
 * The item's error when an earlier run sent its document and lost the answer: nothing is sent,
 * the user is told what may have been charged, how to look for it and how to send it anyway.
 * The time is when the answer was lost: the service created the task, if it did, shortly before.
 */
function unconfirmedError(node: INode, itemIndex: number, earlier: Stored): NodeOperationError {
	const when = new Date(earlier.at).toISOString();
	const what = earlier.kind === 'task' ? 'task' : 'job';
	const check =
		earlier.kind === 'task'
			? `list the tasks with Task → Get Many (or look in the service's dashboard) for one created shortly before ${when}; if it is there, get its result with Task → Get and its task ID`
			: `look in the service's dashboard for a job created shortly before ${when}; if it is there, get its result with Job → Get and its job ID`;
	const error = new NodeOperationError(
		node,
		`Item ${itemIndex} was not sent: an earlier run sent this document at about ${when} and its answer was lost, so it may have been charged already`,
		{
			description: `The answer to that submission was lost after the document reached the service (a reset connection or a gateway error), so the service may have created a ${what} for it and charged its pages, although the node never learnt its ID. Sending the document again could charge it twice, so the node did not. To check: ${check}. To send this document again on purpose, turn on "Resend Unconfirmed Documents" in the node's options for one run; the new ${what} is then remembered.`,
			itemIndex,
		},
	);
	error.context.answerLostAt = when;
	return error;
}

/** What another item of this execution that submits the same document learns of its outcome. */
type FirstOutcome = { id: string } | { refused: true } | { uncertain: number };

/** What an item learns when it claims its document (see `SubmittedDocuments.claim`). */
export type Claim =
	| {
			/** This item sends the document, and hands its submission over as it starts. */
			send: true;
			sending: (posting: Promise<{ id: string }>) => void;
	  }
	| {
			/** The document was submitted already: by an earlier run, or by another item of this one. */
			earlierId: string;
			fromEarlierRun: boolean;
	  };

/**
 * The remembered submissions as one execution uses them, with the documents its items are
 * submitting right now (same document, two items: the second waits for the first's outcome).
 */
export class SubmittedDocuments {
	/** Documents an item of this execution is submitting, by key. */
	private readonly inFlight = new Map<string, Promise<FirstOutcome>>();

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly order: Pick<SubmissionOrder, 'turn' | 'passTurn'>,
	) {}

	/**
	 * In the item's turn: whether the item sends its document (`send`: it hands the submission to
	 * `sending` as it starts, and the memory keeps its outcome) or not — the document was submitted before, or
	 * is being submitted by another item of this execution (then its task or job is returned). A
	 * second item with the same document sends it only when the first one's submission was
	 * refused; when the first one's answer was lost (a task may exist), it sends nothing and fails
	 * naming that item. A document whose answer was lost in an earlier run is not sent (the item
	 * fails, see `unconfirmedError`) unless `resendUnconfirmed`. What was created is remembered as
	 * soon as the service accepted it, a lost answer as soon as that is known: the node's memory
	 * must outlive this run even if it fails.
	 */
	async claim(
		itemIndex: number,
		key: string,
		kind: RecordKind,
		resendUnconfirmed: boolean,
	): Promise<Claim> {
		// In item order: of two items with the same document, the first one submits it.
		const { ctx, order } = this;
		await order.turn(itemIndex);
		const earlier = remembered(ctx, key);
		const first = this.inFlight.get(key);
		if (earlier?.id !== undefined || first) {
			// This item sends nothing (for now): the items after it need not wait for it.
			order.passTurn(itemIndex);
			if (earlier?.id !== undefined) return { earlierId: earlier.id, fromEarlierRun: true };
			const outcome = await first!;
			if ('id' in outcome) return { earlierId: outcome.id, fromEarlierRun: false };
			if ('uncertain' in outcome) {
				throw new NodeOperationError(
					ctx.getNode(),
					`Item ${itemIndex} was not sent: it is the same document as item ${outcome.uncertain}, whose submission may have created a task`,
					{
						description: `The answer to item ${outcome.uncertain}'s submission was lost, so the service may already have that document (and charged it). Sending it again could charge it twice. Check the task list (Get Many) for a task created just now.`,
						itemIndex,
					},
				);
			}
		}
		if (earlier && !resendUnconfirmed) {
			order.passTurn(itemIndex);
			throw unconfirmedError(ctx.getNode(), itemIndex, earlier);
		}
		// What the items waiting on this one learn: the ID, or whether the service may have the
		// document (then they must not send it) or refused it (then the next of them sends it).
		let settle!: (outcome: FirstOutcome) => void;
		this.inFlight.set(key, new Promise<FirstOutcome>((resolve) => (settle = resolve)));
		const sending = (posting: Promise<{ id: string }>) =>
			void posting.then(
				({ id }) => {
					settle({ id });
					remember(ctx, key, { kind, id, at: Date.now() });
				},
				(error: unknown) => {
					if (mayHaveCreated(error)) {
						remember(ctx, key, { kind, at: Date.now() });
						settle({ uncertain: itemIndex });
						return;
					}
					this.inFlight.delete(key);
					settle({ refused: true });
				},
			);
		return { send: true, sending };
	}

	/** Forgets `key`'s record (its task or job is gone at the service, or failed): it is sent anew. */
	forget(key: string) {
		submittedStore(this.ctx).delete(key);
	}
}
