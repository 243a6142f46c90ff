import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { DocumentInput } from '../documents/document';
import type { Accepted, RecordKind } from '../service/client';
import type { StreamedBlob } from '../shared/blob';
import { classifyStatus, pagesBilled } from '../shared/records';
import { httpStatus, mayHaveCreated } from '../transport/errors';
import type { WaitSettings } from '../waiting/wait';
import { waitForRecord } from '../waiting/wait';
import { pageFields, spentOnlyIfCreated } from './budget';
import type { Execution } from './execution';
import { submissionKey } from './key';
import type { Claim, SubmittedBy } from './submitted';
import type { Tried } from './tried';

/** A part of a split document as its submission carries it: its place and its pages ("21-40"). */
type PartSent = NonNullable<DocumentInput['part']> & { pages?: string };

/**
 * What an operation says of its submissions: a task to a path of the Base URL, or a /v1 job;
 * what the node remembers the document by besides its bytes; Skip Submitted and Wait.
 */
export type SubmitSettings = ({ kind: 'task'; path: string[] } | { kind: 'job' }) & {
	/** The operation and its settings, as the key of ./key.ts names them. */
	operation: string;
	settings: (fileName: string) => IDataObject;
	/**
	 * With Skip Already Submitted Documents: whether a document whose answer was lost in an
	 * earlier run is sent again (Resend Unconfirmed Documents).
	 */
	skip?: { resendUnconfirmed: boolean };
	/** With Wait for Completion: the Wait Timeout, and when the record is expected to be done. */
	wait?: { timeoutMs: number; expectedAfterMs?: (accepted?: Accepted) => number | undefined };
	/** The item's output from the submission's answer and, when waited for, the finished record. */
	output?: (accepted: Accepted, record?: IDataObject) => IDataObject;
};

/**
 * One submission: the document (or a part of it) and the body that carries it, with its pages
 * as counted in the check phase (set against the Page Budget as it goes out).
 */
type Submission = SubmitSettings & {
	document: DocumentInput;
	body: StreamedBlob;
	/**
	 * Called once the document is submitted (or found submitted before), before any wait: the
	 * next part of a split document may go (./send.ts).
	 */
	onSubmitted?: () => void;
};

/**
 * The submit-and-wait path of Task → Submit, Task → Submit (v2) and Job → Create: check once that
 * the key can read tasks (when a task will be waited for), submit — or reuse what the node
 * remembers of this document — then wait until the record is done. Each wait's deadline runs from
 * the moment the service accepted the submission. The output says the pages counted before
 * sending and, when the service says it (the answer, else the finished record), the pages billed.
 */
export async function submitAndWait(
	run: Execution,
	itemIndex: number,
	submission: Submission,
): Promise<IDataObject> {
	const { kind, wait } = submission;
	const waitSettings = (accepted?: Accepted): WaitSettings => ({
		expectedAfterMs: wait?.expectedAfterMs?.(accepted),
		deadline: Date.now() + wait!.timeoutMs,
	});
	if (wait && kind === 'task') await ensureCanReadTasks(run, itemIndex);
	const { document, operation } = submission;
	const { part: place, selection } = document;
	const part: PartSent | undefined = place && { ...place, pages: selection?.pagesSent };
	const settings = submission.settings(document.fileName);
	const key = async () => await submissionKey(run.client, itemIndex, operation, settings, document);
	// Retry On Fail: a try before this one may have billed this document already (./tried.ts).
	const tried = run.tried.active ? await key() : undefined;
	const earlier = tried === undefined ? undefined : run.tried.earlier(itemIndex, tried);
	const found =
		!earlier && submission.skip
			? await remembered(run, itemIndex, submission, await key(), waitSettings)
			: undefined;
	// A reused record was billed by another submission, not this one: it carries no page fields.
	if (found && 'reused' in found) {
		submission.onSubmitted?.();
		const { reused, by } = found;
		return { ...reused, previouslySubmitted: true, previouslySubmittedBy: { ...by } };
	}
	let accepted: Accepted;
	if (earlier) accepted = reuseTried(run, itemIndex, earlier);
	else {
		const posting = submitBilled(run, itemIndex, submission, tried, part);
		found?.claim.sending(posting);
		accepted = await posting;
	}
	submission.onSubmitted?.();
	const counted = document.pageCount;
	const output = submission.output ?? ((a: Accepted, record?: IDataObject) => record ?? a.answer);
	if (!wait)
		return { ...output(accepted), ...pageFields(counted, accepted.pagesBilled, selection) };
	const record = await waitFor(run, itemIndex, kind, accepted.id, waitSettings(accepted));
	// The answer to a task submission shows no bill: the finished record's page count is the bill.
	const billed = accepted.pagesBilled ?? pagesBilled(record);
	run.budget.billed(itemIndex, billed, part?.index);
	return { ...output(accepted, record), ...pageFields(counted, billed, selection) };
}

/**
 * POSTs the document in the item's turn (the execution's hooks: the order, the Page Budget);
 * what it created is billed. A submission that certainly created nothing spent no pages. With
 * Retry On Fail (`tried`: the document's key), what it created, or a lost answer, is kept for
 * the next try (./tried.ts).
 */
async function submitBilled(
	run: Execution,
	itemIndex: number,
	post: Submission,
	tried?: string,
	part?: PartSent,
): Promise<Accepted> {
	const billable = run.billable(itemIndex, post.document.pageCount, part);
	const posting =
		post.kind === 'task'
			? run.client.submitTask(itemIndex, post.path, post.body, billable)
			: run.client.createJob(itemIndex, post.body, billable);
	spentOnlyIfCreated(run, itemIndex, posting, part?.index);
	if (tried !== undefined)
		posting.then(
			({ id, answer }) => run.tried.keep(itemIndex, tried, { kind: post.kind, id, answer }),
			(error: unknown) => {
				if (mayHaveCreated(error))
					run.tried.keep(itemIndex, tried, { kind: post.kind, lost: true });
			},
		);
	const accepted = await posting;
	const { id, pagesBilled: billed } = accepted;
	run.ledger.record({ itemIndex, kind: post.kind, id, pagesBilled: billed, pages: part?.pages });
	run.budget.billed(itemIndex, billed, part?.index);
	return accepted;
}

/** Waits for a task or job until it is done (returns it) or failed / past the deadline (throws). */
async function waitFor(
	run: Execution,
	itemIndex: number,
	kind: RecordKind,
	id: string,
	settings: WaitSettings,
): Promise<IDataObject> {
	return await waitForRecord(run.ctx, run.poller, run.client, itemIndex, { kind, id }, settings);
}

/**
 * What the node remembers of the document (./submitted.ts): nothing — the claim to send it with
 * — or the task or job created when it was submitted before: with `wait`, once finished;
 * without, its ID alone (no read, as when it was sent). With `wait`, a remembered record of an
 * earlier run that the service no longer has (404: deleted) or that failed is forgotten and the
 * document claimed again, once.
 */
async function remembered(
	run: Execution,
	itemIndex: number,
	submission: Submission,
	key: string,
	waitSettings: () => WaitSettings,
): Promise<{ claim: Extract<Claim, { send: true }> } | { reused: IDataObject; by: SubmittedBy }> {
	const { kind, wait } = submission;
	const resend = submission.skip?.resendUnconfirmed === true;
	const idField = kind === 'task' ? 'taskId' : 'id';
	for (let round = 0; ; round++) {
		const claim = await run.submitted.claim(itemIndex, key, kind, resend);
		if ('send' in claim) return { claim };
		const { earlierId: id, by } = claim;
		// Without waiting, the ID is the answer, as it was when the document was sent: no read.
		if (!wait) return { reused: { [idField]: id }, by };
		// A record of this run is what it is; one of an earlier run is read once first, and sent
		// anew if the service lost it (404) or could not process it (failed). Only once it is
		// known to be reused is it "submitted" (the next part of a split document may go): one
		// sent anew goes before the parts after it, as the first time.
		if (claim.fromEarlierRun && round === 0) {
			const current = await run.client.findRecord(itemIndex, kind, id);
			if (current === undefined || classifyStatus(current.status) === 'failed') {
				run.submitted.forget(key);
				continue;
			}
			if (classifyStatus(current.status) === 'done') return { reused: current, by };
		}
		submission.onSubmitted?.();
		return { reused: await waitFor(run, itemIndex, kind, id, waitSettings()), by };
	}
}

/**
 * A try before this one of the same run (Retry On Fail) billed this document: what the service
 * answered then stands for this try's submission — its task or job is output (and waited for) as
 * the first try would have, and nothing is sent. A document whose answer that try lost is not
 * sent again (it may have been charged).
 */
function reuseTried(run: Execution, itemIndex: number, earlier: Tried): Accepted {
	run.order.passTurn(itemIndex);
	if (!('id' in earlier)) throw run.tried.lostError(itemIndex);
	const answer = earlier.answer ?? {};
	return { answer, id: earlier.id, pagesBilled: pagesBilled(answer) };
}

/**
 * With Wait for Completion on, the key must be able to read tasks, or every document would be
 * charged and then never read. Checked once per execution, before the first submission, with a
 * request that costs nothing (the first list entry); only an answer about the key (401 / 403)
 * stops the submissions — anything else is left to the submission itself.
 */
async function ensureCanReadTasks(run: Execution, itemIndex: number): Promise<void> {
	await run.once('can-read-tasks', async () => {
		try {
			await run.client.listTasks(itemIndex, { page: 1, pageSize: 1 });
		} catch (error) {
			const status = httpStatus(error);
			if (!(error instanceof NodeApiError) || (status !== 401 && status !== 403)) return;
			// A retry of a run whose earlier try billed documents has them in its ledger already.
			const sent =
				run.ledger.created.length > 0 ? 'Nothing more was sent.' : 'Nothing was sent or charged.';
			const description =
				`${error.description ?? ''}\n\nWith "Wait for Completion" on, the node checks before submitting anything that the key can read tasks. ${sent} Give the key the "read" scope, or turn "Wait for Completion" off.`.trim();
			throw new NodeApiError(
				run.ctx.getNode(),
				{ message: error.message, description },
				{ message: error.message, description, httpCode: error.httpCode ?? undefined, itemIndex },
			);
		}
	});
}
