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

/** What a try did with a document: created (`id`), billed a `/v1` result (`json`), or lost the answer. */
export type Tried =
	| { kind: RecordKind; id: string }
	| { kind: 'document'; json: IDataObject; fileName?: string }
	| { kind: RecordKind | 'document'; lost: true };

export class TriedDocuments {
	private readonly kept?: Record<string, Tried>;

	constructor(private readonly ctx: IExecuteFunctions) {
		if (ctx.getNode().retryOnFail !== true) return;
		const memory = ctx.getContext('node');
		memory.tried ??= {};
		this.kept = memory.tried as Record<string, Tried>;
	}

	/**
	 * What the earlier tries of this run billed, by item, with the document's key: this try's
	 * ledger starts with it, so that its errors name everything the run billed.
	 */
	*billed(): Generator<{ itemIndex: number; key: string; tried: Tried }> {
		for (const [at, tried] of Object.entries(this.kept ?? {})) {
			const colon = at.indexOf(':');
			yield { itemIndex: Number(at.slice(0, colon)), key: at.slice(colon + 1), tried };
		}
	}

	/** Whether tries are kept at all (Retry On Fail is on): only then is a key worth computing. */
	get active(): boolean {
		return this.kept !== undefined;
	}

	/** What an earlier try of this run did with item `itemIndex`'s document `key`. */
	earlier(itemIndex: number, key: string): Tried | undefined {
		return this.kept?.[`${itemIndex}:${key}`];
	}

	/** Keeps what this try did with the document, at once: the try may fail next. */
	keep(itemIndex: number, key: string, tried: Tried) {
		if (this.kept) this.kept[`${itemIndex}:${key}`] = tried;
	}

	/**
	 * The run is over with `output` (undefined: it failed). Unless n8n will try it again, what was
	 * kept is let go.
	 */
	settle(output: INodeExecutionData[] | undefined) {
		if (!this.kept) return;
		const retried = output === undefined || Boolean(output[0]?.json?.error);
		if (!retried) delete this.ctx.getContext('node').tried;
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
