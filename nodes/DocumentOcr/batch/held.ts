import type { IDataObject } from 'n8n-workflow';

import type { DocumentInput } from '../documents/document';
import type { ServiceClient } from '../service/client';
import type { StreamedBlob } from '../shared/blob';
import { pagesBilled as billedIn } from '../shared/records';
import { mayHaveCreated } from '../transport/errors';
import { pageFields, spentOnlyIfCreated } from './budget';
import type { Execution } from './execution';
import { submissionKey } from './key';
import type { BillingLedger } from './ledger';
import type { MemoryView } from './shared';
import { BoundedStore, MEMORY_LIMIT } from './store';
import type { TriedDocuments } from './tried';

/**
 * Billed results held for the next run: a `/v1` document result (Markdown, text, extracted data)
 * that the service billed in a run that then failed, so never reached the user. The next run of
 * the node outputs it instead of sending the document again; a run that succeeds lets it go.
 * Kept by key (./key.ts) in the node's memory (./shared.ts) in a BoundedStore (./store.ts), as
 * the remembered submissions are (./submitted.ts, which says when n8n saves it).
 */

/** Most JSON held for the next run per node (static data lives in n8n's database row). */
export const HELD_LIMIT_BYTES = 4 * 1024 * 1024;

interface Held {
	json: IDataObject;
	at: number;
}

/** The node's held `/v1` results. */
function heldStore(memory: MemoryView) {
	const wrote = () => memory.wrote();
	return new BoundedStore<Held>(() => memory.data, 'held', MEMORY_LIMIT, { wrote });
}

/** A `/v1` document result held for this node from a run that failed, if any, for `key`. */
function heldResult(memory: MemoryView, key: string): IDataObject | undefined {
	return heldStore(memory).get(key)?.json;
}

/**
 * Whether anything is held at all (a run with nothing held computes no keys for it). Reads only:
 * a node that never held anything leaves its static data untouched.
 */
function anythingHeld(memory: MemoryView): boolean {
	return heldStore(memory).size > 0;
}

/** A result's size as JSON; one too deep to write out cannot be kept (Infinity). */
function sizeOf(json: IDataObject): number {
	try {
		return JSON.stringify(json).length;
	} catch {
		return Infinity;
	}
}

/**
 * Keeps billed results that never reached the user (the run failed) for the next run; returns
 * the keys kept. What does not fit in HELD_LIMIT_BYTES is not kept (the node's error says so).
 */
export function holdResults(
	memory: MemoryView,
	results: Array<{ key: string; json: IDataObject }>,
): Set<string> {
	if (results.length === 0) return new Set();
	const held = heldStore(memory);
	let bytes = held.json().length;
	const kept = new Set<string>();
	for (const { key, json } of results) {
		const size = sizeOf(json) + key.length;
		if (bytes + size > HELD_LIMIT_BYTES) continue;
		held.set(key, { json, at: Date.now() });
		bytes += size;
		kept.add(key);
	}
	return kept;
}

/** Lets go of held results delivered by a run that succeeded. */
export function releaseHeld(memory: MemoryView, keys: Set<string>) {
	if (keys.size === 0) return;
	const held = heldStore(memory);
	for (const key of keys) held.delete(key);
}

/**
 * What a `/v1` document sent gave: the service's answer, whether it was held from an earlier run,
 * and what the output says of its pages.
 */
export interface Sent {
	result: IDataObject;
	previouslyBilled: boolean;
	pages: IDataObject;
}

/** What sending a `/v1` document needs of the execution. */
export interface HeldRun {
	memory: MemoryView;
	client: Pick<ServiceClient, 'account' | 'postDocument'>;
	billable: Execution['billable'];
	budget: Pick<Execution['budget'], 'billed' | 'notSent'>;
	ledger: BillingLedger;
	order: Pick<Execution['order'], 'passTurn'>;
	tried: TriedDocuments;
}

/**
 * Sends a `/v1` document (Convert to Markdown, Recognize, Extract) in the item's turn — or, when
 * a failed earlier run of this node was billed for the same document and kept its result, returns
 * that result without sending anything (`previouslyBilled`). The document is recorded as billed
 * in the ledger, and a result billed now is kept there too, to be held if the run fails before it
 * reaches the user (see the router). `pages` is what the output says of the document's pages
 * (counted before sending, and billed when the answer says).
 */
export async function sendDocumentOnce(
	run: HeldRun,
	itemIndex: number,
	request: { endpoint: string; settings: IDataObject; document: DocumentInput; body: StreamedBlob },
): Promise<Sent> {
	const { client, ledger } = run;
	const { endpoint, settings, document, body } = request;
	const key = async () =>
		await submissionKey(client, itemIndex, `v1-${endpoint}`, settings, document);
	// Retry On Fail: a try before this one of the same run may have billed this document already.
	const tried = run.tried.active ? await key() : undefined;
	const reused = await reusedResult(run, itemIndex, document, tried, key);
	if (reused) return reused;
	const { part } = document;
	const posting = client.postDocument(
		itemIndex,
		endpoint,
		body,
		run.billable(itemIndex, document.pageCount, part),
	);
	spentOnlyIfCreated(run, itemIndex, posting, part?.index);
	if (tried !== undefined)
		posting.then(
			({ answer }) => {
				const { fileName } = document;
				run.tried.keep(itemIndex, tried, { kind: 'document', json: answer, fileName });
			},
			(error: unknown) => {
				if (mayHaveCreated(error))
					run.tried.keep(itemIndex, tried, { kind: 'document', lost: true });
			},
		);
	const { answer: result, id, pagesBilled } = await posting;
	const { fileName, selection } = document;
	const pages = part ? selection?.pagesSent : undefined;
	const created = { itemIndex, kind: 'document' as const, id, pagesBilled, fileName, pages };
	ledger.record(created);
	ledger.billedResults.set(created, { result, key });
	run.budget.billed(itemIndex, pagesBilled, part?.index);
	const said = pageFields(document.pageCount, pagesBilled, selection);
	return { result, previouslyBilled: false, pages: said };
}

/**
 * What stands for sending the document again, if anything: with Retry On Fail, what a try before
 * this one of the same run billed for it (./tried.ts: output as the first try would have, and a
 * result the failed try held for the next run is let go with the run); else a result a failed
 * earlier run was billed for and held (`previouslyBilled`).
 */
async function reusedResult(
	run: HeldRun,
	itemIndex: number,
	document: DocumentInput,
	tried: string | undefined,
	key: () => Promise<string>,
): Promise<Sent | undefined> {
	const { memory, ledger } = run;
	const earlier = tried === undefined ? undefined : run.tried.earlier(itemIndex, tried);
	if (earlier && tried !== undefined) {
		run.order.passTurn(itemIndex);
		if (!('json' in earlier)) throw run.tried.lostError(itemIndex);
		if (anythingHeld(memory) && heldResult(memory, tried)) ledger.deliveredHeld.add(tried);
		const pages = pageFields(document.pageCount, billedIn(earlier.json), document.selection);
		return { result: earlier.json, previouslyBilled: false, pages };
	}
	if (!anythingHeld(memory)) return undefined;
	const held = await key();
	const result = heldResult(memory, held);
	if (!result) return undefined;
	ledger.deliveredHeld.add(held);
	return { result, previouslyBilled: true, pages: {} };
}

/**
 * A `/v1` document's output as Convert to Markdown and Recognize give it: the service's answer,
 * the file name, what it says of its pages, and `previouslyBilled` for a result held from an
 * earlier run.
 */
export function documentOutput(sent: Sent, fileName: string): IDataObject {
	const json: IDataObject = { ...sent.result, fileName, ...sent.pages };
	if (sent.previouslyBilled) json.previouslyBilled = true;
	return json;
}
