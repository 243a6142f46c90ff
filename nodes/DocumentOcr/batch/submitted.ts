import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RecordKind } from '../service/client';
import { booleanField, itemFields } from '../shared/validate';
import { mayHaveCreated, StoppedError } from '../transport/errors';
import type { DatabaseClaims } from './claims';
import type { SubmissionOrder } from './order';
import type { FirstOutcome, MemoryView, Submitting } from './shared';
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
 * Why not n8n's other stores alone: the deduplication helpers (`checkProcessedAndRecord`, behind
 * the Remove Duplicates node) record seen / not seen only, so the task or result the user paid for
 * could not be returned — they hold the claims other n8n processes read (./claims.ts); data tables
 * are reachable only from n8n's own Data Table and Evaluation nodes (their proxy refuses other
 * node types, checked in n8n 2.41).
 */

export const skipSubmittedOption: INodeProperties = {
	displayName: 'Skip Submitted Documents',
	name: 'skipSubmitted',
	type: 'boolean',
	default: false,
	description:
		"Whether to reuse the task of a document this node has already submitted (same file, same settings, same account) instead of sending and paying for it again. Remembered across production executions (schedule, trigger, webhook), not across manual test runs. Executions of the workflow running at the same time send a document once: the later waits for the first's task. A document another n8n process (a queue-mode worker) sent is not sent again: its item fails saying so, as that task's ID stays there. Two workers may both send a document only when one stalls while both claim it: run such a workflow on one worker to rule that out.",
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
 * answer was lost at `at` (the service may have created and charged it); `execution`: the
 * execution that sent it (records before issue 43 do not say).
 */
interface Stored {
	kind: RecordKind;
	id?: string;
	at: number;
	execution?: string;
}

function encodeStored({ kind, id, at, execution }: Stored): string {
	return JSON.stringify(
		execution === undefined ? [kind, id ?? null, at] : [kind, id ?? null, at, execution],
	);
}

function decodeStored(value: unknown): Stored | undefined {
	if (typeof value !== 'string') return undefined;
	try {
		const [kind, id, at, execution] = JSON.parse(value) as unknown[];
		if ((kind !== 'task' && kind !== 'job') || typeof at !== 'number') return undefined;
		const by = typeof execution === 'string' ? { execution } : {};
		if (typeof id === 'string') return { kind, id, at, ...by };
		return id === null ? { kind, at, ...by } : undefined;
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

/** The item's error when another n8n process of this workflow node claimed its document (./claims.ts). */
function claimedElsewhereError(
	node: INode,
	itemIndex: number,
	kind: RecordKind,
): NodeOperationError {
	const what = kind === 'task' ? 'task' : 'job';
	const lookUp =
		kind === 'task'
			? "Task → Get Many lists the tasks (or look in the service's dashboard); Task → Get gives its result"
			: "look in the service's dashboard for the job; Job → Get gives its result";
	return new NodeOperationError(
		node,
		`Item ${itemIndex} was not sent: this node submitted the same document before from another n8n process, so it may have been charged already`,
		{
			description: `n8n's database records that this workflow's node submitted this document (same file, settings and account) in another n8n process — another queue-mode worker, or this n8n before it restarted without its memory — whose ${what} ID is not known here. Sending it again could charge it twice, so the node did not; nothing was sent or charged now. To get that ${what}: ${lookUp}. To send this document again on purpose, turn on "Resend Unconfirmed Documents" for one run.`,
			itemIndex,
		},
	);
}

/** Who submitted a document the node reuses, as its output says (`previouslySubmittedBy`). */
export interface SubmittedBy {
	/** The execution that sent it (null: a record of before issue 43, which does not say). */
	executionId: string | null;
	/** Its item, when the submission is of this execution or one running beside it. */
	itemIndex?: number;
	/** When the service accepted it (ISO 8601). */
	submittedAt: string;
}

/** What an item learns when it claims its document (see `SubmittedDocuments.claim`). */
export type Claim =
	| {
			/** This item sends the document, and hands its submission over as it starts. */
			send: true;
			sending: (posting: Promise<{ id: string }>) => void;
	  }
	| {
			/** The document was submitted already: by an earlier run, or by another item. */
			earlierId: string;
			/** Whether it is a remembered record (read once before it is reused). */
			fromEarlierRun: boolean;
			by: SubmittedBy;
	  };

/**
 * The remembered submissions as one execution uses them, with the documents being submitted
 * right now — by this execution's items, and by the other executions of this workflow node in
 * this process (./shared.ts): of two items with the same document, the second waits for the
 * first's outcome.
 */
export class SubmittedDocuments {
	/** The node's remembered submissions: the tasks and jobs created. */
	private readonly submitted: BoundedStore<string>;

	/** The node's lost answers: kept apart, so that no number of documents sent later pushes one out. */
	private readonly unconfirmed: BoundedStore<string>;

	/** Keys whose record this run forgot (the task gone or failed): sent anew, not claimed again. */
	private readonly forgotten = new Set<string>();

	/** Claims being let go in n8n's table (refused or stopped submissions): see `letGo`. */
	private readonly lettingGo = new Set<Promise<void>>();

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly order: Pick<SubmissionOrder, 'turn' | 'passTurn' | 'whenHalted'>,
		private readonly memory: MemoryView,
		private readonly claims: DatabaseClaims,
	) {
		const wrote = () => memory.wrote();
		const data = () => memory.data;
		this.submitted = new BoundedStore(data, 'submitted', MEMORY_LIMIT, {
			convert: convertStored,
			wrote,
		});
		this.unconfirmed = new BoundedStore(data, 'unconfirmed', MEMORY_LIMIT, { wrote });
	}

	/** What the node remembers of `key`: its task or job, else a lost answer. */
	private remembered(key: string): Stored | undefined {
		return decodeStored(this.submitted.get(key) ?? this.unconfirmed.get(key));
	}

	private remember(key: string, stored: Stored) {
		if (stored.id === undefined) {
			this.submitted.delete(key);
			this.unconfirmed.set(key, encodeStored(stored));
			return;
		}
		this.unconfirmed.delete(key);
		this.submitted.set(key, encodeStored(stored));
	}

	/**
	 * In the item's turn: whether the item sends its document (`send`: it hands the submission to
	 * `sending` as it starts, and the memory keeps its outcome) or not — the document was
	 * submitted before, or is being submitted by another item of this execution or of another
	 * execution of this node in this process (then its task or job is returned). An item with a
	 * document being submitted sends it only when that submission was refused (of several such
	 * items, the first to learn it); when its answer was lost (a task may exist), it sends nothing
	 * and fails naming that item. A document whose answer was lost in an earlier run is not sent
	 * (the item fails, see `unconfirmedError`) unless `resendUnconfirmed`. What was created is
	 * remembered as soon as the service accepted it, a lost answer as soon as that is known: the
	 * node's memory must outlive this run even if it fails, and the executions beside it see it
	 * at once.
	 */
	async claim(
		itemIndex: number,
		key: string,
		kind: RecordKind,
		resendUnconfirmed: boolean,
	): Promise<Claim> {
		// In item order: of two items with the same document, the first one submits it. A document
		// unknown here is claimed in n8n's table before the turn, with other items' (./claims.ts).
		const { ctx, order, memory, claims } = this;
		const ask = claims.active && !this.forgotten.has(key) && !this.remembered(key);
		let verdict = ask ? claims.claim(key) : undefined;
		await order.turn(itemIndex);
		let earlier: Stored | undefined;
		for (;;) {
			earlier = this.remembered(key);
			if (earlier?.id !== undefined) {
				// This item sends nothing: the items after it need not wait for it.
				order.passTurn(itemIndex);
				const by = { executionId: earlier.execution ?? null, submittedAt: iso(earlier.at) };
				return { earlierId: earlier.id, fromEarlierRun: true, by };
			}
			const first = memory.submitting.get(key);
			if (!first) break;
			order.passTurn(itemIndex);
			const outcome = await this.outcomeOf(first, itemIndex);
			if ('id' in outcome) {
				const { execution, itemIndex: item } = first;
				const by = { executionId: execution, itemIndex: item, submittedAt: iso(outcome.at) };
				return { earlierId: outcome.id, fromEarlierRun: false, by };
			}
			if ('uncertain' in outcome) throw this.sameDocumentError(itemIndex, first);
			if ('elsewhere' in outcome && !resendUnconfirmed)
				throw claimedElsewhereError(ctx.getNode(), itemIndex, kind);
			// Refused: decided afresh, as a re-run would (another waiter may have claimed it since);
			// the refusal let the claim go, so it is made again.
			verdict = undefined;
		}
		if (earlier && !resendUnconfirmed) {
			order.passTurn(itemIndex);
			throw unconfirmedError(ctx.getNode(), itemIndex, earlier);
		}
		// What the items waiting on this one learn: the ID, a lost answer (they send nothing) or a
		// refusal (one of them sends it).
		let settle!: (outcome: FirstOutcome) => void;
		const outcome = new Promise<FirstOutcome>((resolve) => (settle = resolve));
		memory.submitting.set(key, { execution: memory.execution, itemIndex, outcome });
		// Claimed in n8n's database too, for its other processes; set as being submitted first, so
		// that this process's other executions wait for this one rather than meet its claim there.
		// Asked again when the early verdict was yes: a claim let go since (another execution's
		// refused submission) is then made anew, not taken from before the release.
		const claimed =
			this.forgotten.has(key) || ((await (verdict ?? true)) && (await claims.claim(key)));
		if (!claimed && !resendUnconfirmed) {
			memory.submitting.delete(key);
			settle({ elsewhere: true });
			order.passTurn(itemIndex);
			throw claimedElsewhereError(ctx.getNode(), itemIndex, kind);
		}
		return { send: true, sending: this.sendingOf(key, kind, settle) };
	}

	/**
	 * What an item that sends its document hands its submission to: what was created is
	 * remembered and told to the items waiting on it; a lost answer likewise (a task may exist); a
	 * refusal lets the claim go in n8n's table first (an execution waiting for it claims it there
	 * next), then tells them.
	 */
	private sendingOf(key: string, kind: RecordKind, settle: (outcome: FirstOutcome) => void) {
		const { memory } = this;
		const { execution } = memory;
		return (posting: Promise<{ id: string }>) =>
			void posting.then(
				({ id }) => {
					const at = Date.now();
					this.remember(key, { kind, id, at, execution });
					memory.submitting.delete(key);
					settle({ id, at });
				},
				(error: unknown) => {
					if (mayHaveCreated(error)) {
						this.remember(key, { kind, at: Date.now(), execution });
						memory.submitting.delete(key);
						settle({ uncertain: true });
						return;
					}
					const letting = this.claims.release(key).then(() => {
						memory.submitting.delete(key);
						settle({ refused: true });
					});
					this.lettingGo.add(letting);
					const done = () => void this.lettingGo.delete(letting);
					letting.then(done, done);
				},
			);
	}

	/**
	 * Resolves once every claim this run lets go is let go in n8n's table: the run ends after
	 * them, so that another process (a queue-mode worker, the next `n8n execute`) running the
	 * workflow next finds its documents free to send, not claimed by a process that is gone.
	 */
	async letGo(): Promise<void> {
		while (this.lettingGo.size > 0) await Promise.allSettled([...this.lettingGo]);
	}

	/**
	 * The outcome of another item's submission of the same document. One of another execution is
	 * waited for only while this one runs: its cancellation or halt ends the wait (the item stops).
	 */
	private async outcomeOf(first: Submitting, itemIndex: number): Promise<FirstOutcome> {
		if (first.execution === this.memory.execution) return await first.outcome;
		const signal = this.ctx.getExecutionCancelSignal();
		const outcome = await new Promise<FirstOutcome | undefined>((resolve) => {
			const stop = () => resolve(undefined);
			if (signal?.aborted) stop();
			signal?.addEventListener('abort', stop, { once: true });
			void this.order.whenHalted().then(stop);
			void first.outcome.then((settled) => {
				signal?.removeEventListener('abort', stop);
				resolve(settled);
			});
		});
		if (outcome === undefined) throw new StoppedError(itemIndex);
		return outcome;
	}

	/** The item's error when another item's submission of its document may have created a task. */
	private sameDocumentError(itemIndex: number, first: Submitting): NodeOperationError {
		const ours = first.execution === this.memory.execution;
		const other = ours
			? `item ${first.itemIndex}`
			: `item ${first.itemIndex} of execution ${first.execution} of this workflow, running beside this one`;
		const error = new NodeOperationError(
			this.ctx.getNode(),
			`Item ${itemIndex} was not sent: it is the same document as ${other}, whose submission may have created a task`,
			{
				description: `The answer to the submission of ${other} was lost, so the service may already have that document (and charged it). Sending it again could charge it twice. Check the task list (Get Many) for a task created just now.`,
				itemIndex,
			},
		);
		return error;
	}

	/** Forgets `key`'s record (its task or job is gone at the service, or failed): it is sent anew. */
	forget(key: string) {
		this.forgotten.add(key);
		this.submitted.delete(key);
	}
}

function iso(at: number): string {
	return new Date(at).toISOString();
}
