import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { createHash } from 'crypto';

import type { TransportState } from '../transport';
import type { RecordKind } from '../transport/client';
import { readRecord } from '../transport/client';
import { httpStatus } from '../transport/errors';
import type { WaitSettings } from '../waiting';
import type { DocumentInput } from './document';
import { openDocument } from './document';

/**
 * "Skip Already Submitted Documents": the node remembers, per workflow node, which documents it
 * has submitted (SHA-256 of the bytes plus the settings that change the result) and the task or
 * job the service created for each. A document seen before is not sent again: its existing task
 * is read (and waited for) instead, at no charge.
 *
 * Where it is kept: the workflow's static data (node scope), which n8n saves after every
 * production execution — schedule, trigger, webhook, `n8n execute` — also when it fails. n8n
 * does not save static data after manual test runs from the editor, so there the memory lasts
 * one execution (it still sends a document that appears twice in one run only once).
 * Why not n8n's other stores: the deduplication helpers (`checkProcessedAndRecord`, behind the
 * Remove Duplicates node) record seen / not seen only, so the existing task ID — the result the
 * user paid for — could not be returned; data tables are reachable only from n8n's own Data
 * Table and Evaluation nodes (their proxy refuses other node types, checked in n8n 2.41).
 */

/** Most documents remembered per node; the oldest are forgotten first. */
export const MEMORY_LIMIT = 10_000;

export const skipSubmittedOption: INodeProperties = {
	displayName: 'Skip Already Submitted Documents',
	name: 'skipSubmitted',
	type: 'boolean',
	default: false,
	description:
		'Whether to reuse the task of a document this node has already submitted (same file, same settings) instead of sending and paying for it again. Remembered across production executions (schedule, trigger, webhook), not across manual test runs.',
};

interface Remembered {
	kind: RecordKind;
	id: string;
}

interface Stored extends Remembered {
	at: number;
}

/** The memory key: what was sent (operation and settings) and the document's SHA-256. */
export async function submissionKey(
	ctx: IExecuteFunctions,
	operation: string,
	settings: IDataObject,
	document: DocumentInput,
): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of await openDocument(ctx, document)) hash.update(chunk);
	const digest = hash.digest('hex');
	const what = createHash('sha256')
		.update(JSON.stringify([operation, settings]))
		.digest('hex')
		.slice(0, 16);
	return `${operation}:${what}:${digest}`;
}

function store(ctx: IExecuteFunctions): Record<string, Stored> {
	const data = ctx.getWorkflowStaticData('node');
	if (!data.submitted || typeof data.submitted !== 'object') data.submitted = {};
	return data.submitted as Record<string, Stored>;
}

/** Documents being submitted in this execution: a second item with the same key waits for the first. */
const inFlight = new WeakMap<TransportState, Map<string, Promise<string | undefined>>>();

/**
 * Runs `submit` unless the document was submitted before, or is being submitted by another item
 * of this execution (then returns the ID of that task or job). Remembers what `submit` created as
 * soon as the service accepted it.
 */
async function submitOnce<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	key: string,
	kind: RecordKind,
	submit: () => Promise<{ id: string; answer: T }>,
): Promise<{ answer: T } | { earlierId: string }> {
	// In item order: of two items with the same document, the first one submits it.
	await state.turn(itemIndex);
	const earlier = store(ctx)[key];
	let pending = inFlight.get(state);
	if (!pending) inFlight.set(state, (pending = new Map()));
	const first = pending.get(key);
	if (earlier || first) {
		// This item sends nothing (for now): the items after it need not wait for it.
		state.passTurn(itemIndex);
		const earlierId = earlier?.id ?? (await first);
		if (earlierId) return { earlierId };
	}
	let settle!: (id: string | undefined) => void;
	pending.set(key, new Promise((resolve) => (settle = resolve)));
	let id: string | undefined;
	try {
		const result = await submit();
		id = result.id;
		remember(ctx, key, { kind, id });
		return { answer: result.answer };
	} finally {
		// Not accepted: an item waiting on this one submits the document itself.
		settle(id);
		if (!id) pending.delete(key);
	}
}

function remember(ctx: IExecuteFunctions, key: string, record: Remembered) {
	const submitted = store(ctx);
	submitted[key] = { kind: record.kind, id: record.id, at: Date.now() };
	const keys = Object.keys(submitted);
	if (keys.length > MEMORY_LIMIT) {
		keys
			.sort((a, b) => submitted[a].at - submitted[b].at)
			.slice(0, keys.length - MEMORY_LIMIT)
			.forEach((old) => delete submitted[old]);
	}
}

function forget(ctx: IExecuteFunctions, key: string) {
	delete store(ctx)[key];
}

/**
 * Submits a document (`submit` returns the ID the service created and its answer) — or, when
 * `key` is given and the document was submitted before, reads the task or job created then
 * (waited for with `wait`, else as it is) and returns that instead. A remembered record the
 * service no longer has (404: deleted) is forgotten and the document sent.
 */
export async function submitRemembered<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	options: {
		kind: RecordKind;
		key?: () => Promise<string>;
		wait?: () => WaitSettings;
		submit: () => Promise<{ id: string; answer: T }>;
	},
): Promise<{ submitted: T } | { reused: IDataObject }> {
	if (!options.key) return { submitted: (await options.submit()).answer };
	const key = await options.key();
	for (let attempt = 0; ; attempt++) {
		const outcome = await submitOnce(ctx, itemIndex, state, key, options.kind, options.submit);
		if ('answer' in outcome) return { submitted: outcome.answer };
		const { kind, wait } = options;
		const read = readRecord.call(ctx, itemIndex, state, kind, outcome.earlierId, wait?.());
		// Deleted at the service since (404): forget it and send the document again, once.
		const gone = await read.then(
			() => false,
			(error) => httpStatus(error) === 404 && attempt === 0,
		);
		if (!gone) return { reused: await read };
		forget(ctx, key);
	}
}
