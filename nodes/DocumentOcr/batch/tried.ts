import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RecordKind } from '../service/client';

/**
 * What the earlier tries of this run of the node billed, for n8n's Retry On Fail. n8n runs the
 * node again on the same items when it fails — or when its first output item is an error item
 * (Continue on Fail) — up to Max Tries times, within one workflow execution. Each try would send
 * and bill every document again; instead, while Retry On Fail is on, every document a try sends is
 * kept here by item and document (./key.ts) as soon as the service answers: the task or job it
 * created, the `/v1` result it billed, or that its answer was lost. A later try of the same run
 * reuses the task or result (`previouslySubmitted` / `previouslyBilled`) and does not send again a
 * document whose answer was lost (it may have been charged).
 *
 * Kept in the node's context, which n8n keeps for the whole execution and no longer. A run that
 * n8n keeps (it does not fail and its first item is no error item) lets it go, so the next run of
 * the node (a Loop Over Items' next batch) starts with nothing kept. Without Retry On Fail nothing
 * is kept.
 */

/**
 * What a try did with a document: created (`id`, with the submission's `answer`), billed a `/v1`
 * result (`json`), or lost the answer.
 */
export type Tried =
	| { kind: RecordKind; id: string; answer?: IDataObject }
	| { kind: 'document'; json: IDataObject; fileName?: string }
	| { kind: RecordKind | 'document'; lost: true };

/** The tries of one run as the node's context keeps them. */
interface Kept {
	/** Tries of this run so far, this one included. */
	tries: number;
	/** By `<itemIndex>:<key>`. */
	documents: Record<string, Tried>;
}

/** The tries n8n makes with Retry On Fail (its own rule: Max Tries, at least 2 and at most 5). */
function maxTries(ctx: IExecuteFunctions): number {
	return Math.min(5, Math.max(2, Number(ctx.getNode().maxTries) || 3));
}

/**
 * Whether n8n keeps a run that ended with `output` (undefined: the node threw): n8n tries it again
 * when it threw, or when its first item's `error` is anything but undefined, null or false (its
 * own test, `isErrorValue`), unless the try was its last.
 */
function retried(output: INodeExecutionData[] | undefined, tries: number, max: number): boolean {
	if (tries >= max) return false;
	if (output === undefined) return true;
	const error = output[0]?.json?.error;
	return error !== undefined && error !== null && error !== false;
}

export class TriedDocuments {
	private readonly kept?: Kept;

	constructor(private readonly ctx: IExecuteFunctions) {
		if (ctx.getNode().retryOnFail !== true) return;
		const memory = ctx.getContext('node');
		const kept = memory.tried as Kept | undefined;
		// A run's first try finds nothing kept: the run before it was kept by n8n, or was its last try.
		if (kept && typeof kept.tries === 'number' && kept.documents) kept.tries++;
		else memory.tried = { tries: 1, documents: {} } satisfies Kept;
		this.kept = memory.tried as Kept;
	}

	/**
	 * What the earlier tries of this run billed, by item, with the document's key: this try's
	 * ledger starts with it, so that its errors name everything the run billed.
	 */
	*billed(): Generator<{ itemIndex: number; key: string; tried: Tried }> {
		for (const [at, tried] of Object.entries(this.kept?.documents ?? {})) {
			const colon = at.indexOf(':');
			yield { itemIndex: Number(at.slice(0, colon)), key: at.slice(colon + 1), tried };
		}
	}

	/** Whether tries are kept at all (Retry On Fail is on): only then is a key worth computing. */
	get active(): boolean {
		return this.kept !== undefined;
	}

	/** Whether this is a retry: an earlier try of the same run came before it. */
	get retry(): boolean {
		return (this.kept?.tries ?? 1) > 1;
	}

	/** What an earlier try of this run did with item `itemIndex`'s document `key`. */
	earlier(itemIndex: number, key: string): Tried | undefined {
		return this.kept?.documents[`${itemIndex}:${key}`];
	}

	/** Keeps what this try did with the document, at once: the try may fail next. */
	keep(itemIndex: number, key: string, tried: Tried) {
		if (this.kept) this.kept.documents[`${itemIndex}:${key}`] = tried;
	}

	/**
	 * The try is over with `output` (undefined: it threw). Unless n8n will try the run again, what
	 * was kept is let go: the node's next run starts with nothing kept.
	 */
	settle(output: INodeExecutionData[] | undefined) {
		if (!this.kept || retried(output, this.kept.tries, maxTries(this.ctx))) return;
		delete this.ctx.getContext('node').tried;
	}

	/** The item's error when the try before sent its document and lost the answer. */
	lostError(itemIndex: number): NodeOperationError {
		const error = new NodeOperationError(
			this.ctx.getNode(),
			`Item ${itemIndex} was not sent again: an earlier try of this run (Retry On Fail) sent this document and its answer was lost, so it may have been charged already`,
			{
				description:
					"The answer was lost after the document reached the service (a reset connection or a gateway error), so the service may have created and charged it although the node never learnt its ID. A retry does not send it again: that could charge it twice. Check the task list (Task → Get Many) or the service's dashboard; run the workflow again to send it anew.",
				itemIndex,
			},
		);
		error.context.mayHaveCreated = true;
		return error;
	}
}
