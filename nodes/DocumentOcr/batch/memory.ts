import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { createHash } from 'crypto';

import type { DocumentInput } from '../documents/read';
import type { RecordKind } from '../service/client';
import type { StreamedBlob } from '../shared/blob';
import { classifyStatus } from '../shared/records';
import { mayHaveCreated } from '../transport/errors';
import type { WaitSettings } from '../waiting/wait';
import type { Execution } from './execution';
import { BoundedStore } from './store';

/**
 * What a workflow node remembers of the documents it sent, so that a re-run does not pay twice.
 * Kept in the workflow's static data (node scope), which n8n saves after every production
 * execution — schedule, trigger, webhook, `n8n execute` — also when it fails; n8n does not save
 * it after manual test runs from the editor (`saveStaticData` in n8n's execution lifecycle hooks
 * skips manual mode), so there it lasts one execution.
 *
 *  - "Skip Already Submitted Documents" (`submitted`): each document submitted and the task or
 *    job the service created for it. A document seen again is not sent: its task is returned.
 *    A submission whose answer was lost after the document was sent (a reset, a 502 from a
 *    gateway: the service may have created and charged a task whose ID the node never learnt) is
 *    remembered too, with the time the answer was lost: a later run does not send that document
 *    again (its item fails, saying how to look for the task) unless "Resend Unconfirmed
 *    Documents" is on. Such a record does not expire: the time passed says nothing about whether
 *    the service created the task, and an expiry would turn "may be charged twice" into silent
 *    spending later. It goes when a resend is accepted (the new task is remembered), or with the
 *    oldest entries. The task the lost send created is not looked for in the task list: the
 *    service does not show which task came from which send (a task's filename and creation time
 *    are "not shown"; where a service shows them, another submission of the same file name in
 *    the same seconds — a team member, another workflow, another item — cannot be ruled out, and
 *    reusing the wrong task would output another document's text as this one's).
 *  - Billed results held for the next run (`held`): a `/v1` document result (Markdown, text,
 *    extracted data) that the service billed in a run that then failed, so never reached the
 *    user. The next run of the node outputs it instead of sending the document again; a run that
 *    succeeds lets it go.
 *
 * A key is the document's SHA-256, what was asked of it (operation and settings) and the account
 * (Base URL, API URL and a digest of the key: another account's task is never returned).
 *
 * Both are kept in a BoundedStore (./store.ts): n8n observes static data through a Proxy, and a
 * store costs a few accesses through it per document however much it remembers. A remembered
 * submission is kept as a short JSON string (`[kind, id or null, time]`) rather than an object:
 * n8n wraps every object of the static data in its own Proxy each time it loads a workflow.
 *
 * Why not n8n's other stores: the deduplication helpers (`checkProcessedAndRecord`, behind the
 * Remove Duplicates node) record seen / not seen only, so the task or result the user paid for
 * could not be returned; data tables are reachable only from n8n's own Data Table and Evaluation
 * nodes (their proxy refuses other node types, checked in n8n 2.41).
 */

/**
 * Most documents remembered per node; the oldest are forgotten first, a tenth of them at a time
 * (see ./store.ts).
 */
export const MEMORY_LIMIT = 10_000;

/** Most JSON held for the next run per node (static data lives in n8n's database row). */
export const HELD_LIMIT_BYTES = 4 * 1024 * 1024;

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

interface Held {
	json: IDataObject;
	at: number;
}

/**
 * The memory key: the account, what was sent (operation and settings) and the document's SHA-256
 * — the `digest` the check phase computed while reading the document, so the document is not
 * read again for it.
 */
export async function submissionKey(
	run: Execution,
	itemIndex: number,
	operation: string,
	settings: IDataObject,
	document: DocumentInput,
): Promise<string> {
	const { digest } = document;
	const account = await run.client.account(itemIndex);
	const what = createHash('sha256')
		.update(JSON.stringify([account, operation, settings]))
		.digest('hex')
		.slice(0, 16);
	return `${operation}:${what}:${digest}`;
}

/** The node's remembered submissions (Skip Submitted Documents). */
function submittedStore(ctx: IExecuteFunctions) {
	return new BoundedStore<string>(
		ctx.getWorkflowStaticData('node'),
		'submitted',
		MEMORY_LIMIT,
		convertStored,
	);
}

function remembered(ctx: IExecuteFunctions, key: string): Stored | undefined {
	return decodeStored(submittedStore(ctx).get(key));
}

function remember(ctx: IExecuteFunctions, key: string, stored: Stored) {
	submittedStore(ctx).set(key, encodeStored(stored));
}

/** The node's held `/v1` results. */
function heldStore(ctx: IExecuteFunctions) {
	return new BoundedStore<Held>(ctx.getWorkflowStaticData('node'), 'held', MEMORY_LIMIT);
}

/**
 * The item's error when an earlier run sent its document and lost the answer: nothing is sent,
 * the user is told what may have been charged, how to look for it and how to send it anyway.
 * The time is when the answer was lost: the service created the task, if it did, shortly before.
 */
function unconfirmedError(run: Execution, itemIndex: number, earlier: Stored): NodeOperationError {
	const when = new Date(earlier.at).toISOString();
	const what = earlier.kind === 'task' ? 'task' : 'job';
	const check =
		earlier.kind === 'task'
			? `list the tasks with Task → Get Many (or look in the service's dashboard) for one created shortly before ${when}; if it is there, get its result with Task → Get and its task ID`
			: `look in the service's dashboard for a job created shortly before ${when}; if it is there, get its result with Job → Get and its job ID`;
	const error = new NodeOperationError(
		run.ctx.getNode(),
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

/**
 * Runs `submit` unless the document was submitted before, or is being submitted by another item
 * of this execution (then returns the ID of that task or job). Remembers what `submit` created as
 * soon as the service accepted it, and a send whose answer was lost as soon as that is known. A
 * second item with the same document sends it only when the first one's submission was refused;
 * when the first one's answer was lost (a task may exist), it sends nothing and fails naming that
 * item. A document whose answer was lost in an earlier run is not sent (the item fails, see
 * `unconfirmedError`) unless `resendUnconfirmed`.
 */
async function submitOnce<T>(
	run: Execution,
	itemIndex: number,
	key: string,
	kind: RecordKind,
	submit: () => Promise<{ id: string; answer: T }>,
	resendUnconfirmed: boolean,
): Promise<{ answer: T } | { earlierId: string; fromEarlierRun: boolean }> {
	// In item order: of two items with the same document, the first one submits it.
	const { ctx } = run;
	await run.turn(itemIndex);
	const earlier = remembered(ctx, key);
	const pending = run.inFlightSubmissions as Map<string, Promise<FirstOutcome>>;
	const first = pending.get(key);
	if (earlier?.id !== undefined || first) {
		// This item sends nothing (for now): the items after it need not wait for it.
		run.passTurn(itemIndex);
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
		run.passTurn(itemIndex);
		throw unconfirmedError(run, itemIndex, earlier);
	}
	const attempt = submit();
	// What the items waiting on this one learn: the ID, or whether the service may have the
	// document (then they must not send it) or refused it (then the next of them sends it). A
	// lost answer is remembered at once: the node's memory must outlive this run even if it fails.
	pending.set(
		key,
		attempt.then(
			(result): FirstOutcome => ({ id: result.id }),
			(error: unknown): FirstOutcome => {
				if (mayHaveCreated(error)) {
					remember(ctx, key, { kind, at: Date.now() });
					return { uncertain: itemIndex };
				}
				pending.delete(key);
				return { refused: true };
			},
		),
	);
	const result = await attempt;
	remember(ctx, key, { kind, id: result.id, at: Date.now() });
	return { answer: result.answer };
}

/**
 * Submits a document (`submit` returns the ID the service created and its answer) — or, when
 * `key` is given and the document was submitted before, returns the task or job created then:
 * with `wait`, once finished; without, its ID alone (no read, as when it was sent). With `wait`, a
 * remembered record of an earlier run that the service no longer has (404: deleted) or that
 * failed is forgotten and the document sent again, once.
 */
export async function submitRemembered<T>(
	run: Execution,
	itemIndex: number,
	options: {
		kind: RecordKind;
		key?: () => Promise<string>;
		wait?: () => WaitSettings;
		submit: () => Promise<{ id: string; answer: T }>;
		/** Send a document whose answer was lost in an earlier run (Resend Unconfirmed Documents). */
		resendUnconfirmed?: boolean;
	},
): Promise<{ submitted: T } | { reused: IDataObject }> {
	if (!options.key) return { submitted: (await options.submit()).answer };
	const key = await options.key();
	const { kind, wait } = options;
	const idField = kind === 'task' ? 'taskId' : 'id';
	for (let attempt = 0; ; attempt++) {
		const outcome = await submitOnce(
			run,
			itemIndex,
			key,
			kind,
			options.submit,
			options.resendUnconfirmed === true,
		);
		if ('answer' in outcome) return { submitted: outcome.answer };
		const id = outcome.earlierId;
		// Without waiting, the ID is the answer, as it was when the document was sent: no read.
		if (!wait) return { reused: { [idField]: id } };
		// A record of this run is what it is; one of an earlier run is read once first, and sent
		// anew if the service lost it (404) or could not process it (failed).
		if (outcome.fromEarlierRun && attempt === 0) {
			const current = await run.client.findRecord(itemIndex, kind, id);
			if (current === undefined || classifyStatus(current.status) === 'failed') {
				submittedStore(run.ctx).delete(key);
				continue;
			}
			if (classifyStatus(current.status) === 'done') return { reused: current };
		}
		return { reused: await run.waitFor(itemIndex, kind, id, wait()) };
	}
}

/** A `/v1` document result held for this node from a run that failed, if any, for `key`. */
function heldResult(ctx: IExecuteFunctions, key: string): IDataObject | undefined {
	return heldStore(ctx).get(key)?.json;
}

/**
 * Whether anything is held at all (a run with nothing held computes no keys for it). Reads only:
 * a node that never held anything leaves its static data untouched.
 */
function anythingHeld(ctx: IExecuteFunctions): boolean {
	return heldStore(ctx).size > 0;
}

/**
 * Keeps billed results that never reached the user (the run failed) for the next run; returns
 * the keys kept. What does not fit in HELD_LIMIT_BYTES is not kept (the node's error says so).
 */
export function holdResults(
	ctx: IExecuteFunctions,
	results: Array<{ key: string; json: IDataObject }>,
): Set<string> {
	if (results.length === 0) return new Set();
	const held = heldStore(ctx);
	let bytes = held.json().length;
	const kept = new Set<string>();
	for (const { key, json } of results) {
		const size = JSON.stringify(json).length + key.length;
		if (bytes + size > HELD_LIMIT_BYTES) continue;
		held.set(key, { json, at: Date.now() });
		bytes += size;
		kept.add(key);
	}
	return kept;
}

/** Lets go of held results delivered by a run that succeeded. */
export function releaseHeld(ctx: IExecuteFunctions, keys: Set<string>) {
	if (keys.size === 0) return;
	const held = heldStore(ctx);
	for (const key of keys) held.delete(key);
}

/**
 * Sends a `/v1` document (Convert to Markdown, Recognize, Extract) — or, when a failed earlier run
 * of this node was billed for the same document and kept its result, returns that result without
 * sending anything (`previouslyBilled`). A result billed now is registered with the execution, to
 * be kept if the run fails before it reaches the user (see the router).
 */
export async function sendDocumentOnce(
	run: Execution,
	itemIndex: number,
	request: { endpoint: string; settings: IDataObject; document: DocumentInput; body: StreamedBlob },
): Promise<{ result: IDataObject; previouslyBilled: boolean }> {
	const { endpoint, settings, document, body } = request;
	const key = async () => await submissionKey(run, itemIndex, `v1-${endpoint}`, settings, document);
	if (anythingHeld(run.ctx)) {
		const held = await key();
		const result = heldResult(run.ctx, held);
		if (result) {
			run.deliveredHeld.add(held);
			return { result, previouslyBilled: true };
		}
	}
	const result = await run.postDocument(itemIndex, endpoint, body, document.fileName);
	run.billedResults.set(itemIndex, { result, key });
	return { result, previouslyBilled: false };
}
