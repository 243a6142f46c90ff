import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { DocumentInput } from '../documents/document';
import type { Upload } from '../documents/upload';
import { StoppedError } from '../transport/errors';
import type { Execution } from './execution';
import type { Sent } from './held';
import { documentOutput, sendDocumentOnce } from './held';
import type { Join } from './join';
import { joinParts } from './join';
import type { SubmitSettings } from './submit';
import { submitAndWait } from './submit';

/*
 * The one path by which the operations that send a document send it. The operation says what it
 * sends (its Upload), how (Sending), how its parts' outputs join (its Join) and what its items
 * are; this sends the document whole, or its parts (Split Large Documents, documents/split.ts)
 * in page order, each as a submission (./submit.ts) or once (./held.ts). A split document's
 * parts go one after the other, each submission starting once the one before it was submitted
 * (waits run side by side); the item holds its submission turn until its last part goes out
 * (./order.ts), so no later item is billed before it, and the Page Budget admits its parts all
 * or none (./budget.ts).
 */

/** A document sent once to a /v1 endpoint (Convert to Markdown, Recognize, Extract). */
interface SendingOnce {
	kind: 'document';
	endpoint: string;
	/** The settings the document's result is remembered by besides its bytes. */
	settings: IDataObject;
	/** The output of what was sent (a part of it, for a split document). */
	output?: (sent: Sent, fileName: string) => IDataObject;
}

/** How an operation sends its documents: submitted as a task or job, or sent once. */
type Sending = SubmitSettings | SendingOnce;

/** What an operation sends for an item, and how its output becomes the item's output. */
interface DocumentSend {
	upload: Upload;
	join: Join;
	sending: Sending;
	/** The item's output items from the document's output (its parts' joined, when split). */
	items: (json: IDataObject) => INodeExecutionData[] | Promise<INodeExecutionData[]>;
}

/**
 * The send phase of an item whose document is sent: whole, or its parts. The first part that
 * fails fails the item: no part after it is sent, the pages the budget set aside for those are
 * given back, and the error names the part; what the parts before it billed is in the
 * execution's ledger, which the item's error and the node's error name.
 */
export function sendPhase(
	run: Execution,
	itemIndex: number,
	{ upload, join, sending, items }: DocumentSend,
): () => Promise<INodeExecutionData[]> {
	return async () => {
		const { document, sends } = upload;
		const results: Array<Promise<IDataObject>> = [];
		// Any part that fails — the one being submitted, or one before it while it is waited for —
		// stops the parts not yet sent, and (without Continue on Fail) halts the run at once: the
		// item fails, as a one-at-a-time loop would stop there.
		let stopped = false;
		let onFailure!: () => void;
		const failure = new Promise<void>((resolve) => (onFailure = resolve));
		if (document.parts) run.order.hold(itemIndex);
		try {
			for (const [index, { document: part, body }] of sends.entries()) {
				if (stopped) break;
				// The last part passes the turn on as it goes out, as a whole document does.
				if (index === sends.length - 1) run.order.release(itemIndex);
				let submitted!: () => void;
				const gone = new Promise<void>((resolve) => (submitted = resolve));
				const result =
					sending.kind === 'document'
						? sendDocumentOnce(run, itemIndex, { ...sending, document: part, body }).then((sent) =>
								(sending.output ?? documentOutput)(sent, document.fileName),
							)
						: submitAndWait(run, itemIndex, {
								...sending,
								document: part,
								body,
								onSubmitted: submitted,
							});
				results.push(result);
				result.catch((error: unknown) => {
					stopped = true;
					if (!(error instanceof StoppedError)) run.order.failed();
					onFailure();
				});
				// The next part goes once this one was submitted, unless a part has failed meanwhile.
				if (index < sends.length - 1) await Promise.race([gone, result, failure]);
			}
		} catch {
			// Its error is taken below, in page order with the others.
		} finally {
			run.order.release(itemIndex);
			// Parts never sent spent nothing of the Page Budget set aside for them.
			for (let index = results.length; index < sends.length; index++)
				run.budget.notSent(itemIndex, index);
		}
		try {
			return await items(await joined(upload, results, join));
		} finally {
			// The document's reading kept for its parts goes with the item, sent or not.
			if (document.parts) document.release?.();
		}
	};
}

/**
 * The document's output: its parts' outputs joined in page order (a whole document's own), or
 * the error of the part that failed, naming it.
 */
async function joined(
	{ document, sends }: Upload,
	results: Array<Promise<IDataObject>>,
	join: Join,
): Promise<IDataObject> {
	const outcomes = await Promise.allSettled(results);
	const errors = outcomes.map((outcome) =>
		outcome.status === 'rejected' ? (outcome.reason as Error) : undefined,
	);
	if (errors.every((error) => error === undefined)) {
		const outputs = outcomes.map((o) => (o as PromiseFulfilledResult<IDataObject>).value);
		return document.parts ? joinParts(document, outputs, join) : outputs[0];
	}
	// The part that failed, not the parts whose waits its failure ended (StoppedError).
	const failed = errors.findIndex((error) => error && !(error instanceof StoppedError));
	const at = failed === -1 ? errors.findIndex((error) => error !== undefined) : failed;
	throw namePart(errors[at]!, sends[at].document, results.length);
}

/** "part 3", "parts 2 and 3", "parts 2 to 5": the parts `from` to `to` (1-based). */
function partsNamed(from: number, to: number): string {
	if (from === to) return `part ${from}`;
	return to === from + 1 ? `parts ${from} and ${to}` : `parts ${from} to ${to}`;
}

/**
 * A part's error, saying which part of the document it is (its pages), which parts after it
 * were sent all the same (they went out while it was waited for: their IDs are in the item's
 * error) and which were not. A whole document's error is its own.
 */
function namePart(error: Error, part: DocumentInput, started: number): Error {
	if (!part.part) return error;
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	const { index, of } = part.part;
	const pages = part.selection?.pagesSent ?? '';
	const capital = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;
	let later = '';
	if (started > index + 1)
		later += ` ${capital(partsNamed(index + 2, started))} ${started > index + 2 ? 'were' : 'was'} sent before it failed (see what was billed).`;
	if (started < of)
		later += ` ${capital(partsNamed(started + 1, of))} ${of > started + 1 ? 'were' : 'was'} not sent.`;
	const note = `This is part ${index + 1} of ${of} of the document (pages ${pages}), sent by "Split Large Documents".${later}`;
	error.description = error.description ? `${error.description}\n\n${note}` : note;
	error.context.part = index + 1;
	error.context.parts = of;
	error.context.partPages = pages;
	return error;
}
