import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { createHash } from 'crypto';

import type { TransportState } from '../transport';
import type { StreamedBlob } from './body';
import { readRecord, submitDocumentTask } from '../transport/client';
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

export interface Remembered {
	kind: 'task' | 'job';
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
const inFlight = new WeakMap<TransportState, Map<string, Promise<Remembered | undefined>>>();

/**
 * Runs `submit` unless the document was submitted before, or is being submitted by another item
 * of this execution (then returns that record, `reused`). Remembers what `submit` created as soon
 * as the service accepted it.
 */
async function submitOnce(
	ctx: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	key: string,
	submit: () => Promise<Remembered>,
): Promise<{ record: Remembered; reused: boolean }> {
	// In item order: of two items with the same document, the first one submits it.
	await state.turn(itemIndex);
	const earlier = store(ctx)[key];
	let pending = inFlight.get(state);
	if (!pending) inFlight.set(state, (pending = new Map()));
	const first = pending.get(key);
	if (earlier || first) {
		// This item sends nothing (for now): the items after it need not wait for it.
		state.passTurn(itemIndex);
		if (earlier) return { record: { kind: earlier.kind, id: earlier.id }, reused: true };
		const record = await first;
		if (record) return { record, reused: true };
	}
	let settle!: (record: Remembered | undefined) => void;
	pending.set(key, new Promise((resolve) => (settle = resolve)));
	let record: Remembered | undefined;
	try {
		record = await submit();
		remember(ctx, key, record);
		return { record, reused: false };
	} finally {
		// Not accepted: an item waiting on this one submits the document itself.
		settle(record);
		if (!record) pending.delete(key);
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
 * Submits a document — or, when `key` is given and the document was submitted before, reads the
 * task or job created then (`read`: get it, or wait for it) and returns that instead. A
 * remembered record the service no longer has (404: deleted) is forgotten and the document sent.
 */
export async function submitRemembered<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	options: {
		key?: () => Promise<string>;
		submit: () => Promise<{ created: Remembered; answer: T }>;
		read: (record: Remembered) => Promise<IDataObject>;
	},
): Promise<{ submitted: T } | { reused: IDataObject }> {
	if (!options.key) return { submitted: (await options.submit()).answer };
	const key = await options.key();
	for (let attempt = 0; ; attempt++) {
		let answer: T | undefined;
		const { record, reused } = await submitOnce(ctx, itemIndex, state, key, async () => {
			const result = await options.submit();
			answer = result.answer;
			return result.created;
		});
		if (!reused) return { submitted: answer as T };
		const read = options.read(record);
		// Deleted at the service since (404): forget it and send the document again, once.
		const gone = await read.then(
			() => false,
			(error: { httpCode?: unknown }) => String(error?.httpCode) === '404' && attempt === 0,
		);
		if (!gone) return { reused: await read };
		forget(ctx, key);
	}
}

/**
 * Task → Submit and Submit (v2): the document to `path` (the task API), or — with `key` — the task
 * created for it before; `wait` says how such a task is read (waited for, or read as it is).
 */
export async function submitTaskRemembered(
	ctx: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	path: string[],
	body: StreamedBlob,
	options: { key?: () => Promise<string>; wait?: () => WaitSettings },
) {
	return await submitRemembered(ctx, itemIndex, state, {
		key: options.key,
		submit: async () => {
			const answer = await submitDocumentTask.call(ctx, itemIndex, state, path, body);
			return { created: { kind: 'task', id: answer.taskId }, answer };
		},
		read: async ({ id }) =>
			await readRecord.call(ctx, itemIndex, state, 'task', id, options.wait?.()),
	});
}
