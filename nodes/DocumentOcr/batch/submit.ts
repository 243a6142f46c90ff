import type { IDataObject } from 'n8n-workflow';

import type { DocumentInput } from '../documents/read';
import type { Accepted, RecordKind } from '../service/client';
import type { Execution } from './execution';
import { submissionKey, submitRemembered } from './memory';

/** One submission of an item, as the three submitting operations describe it. */
export interface Submission {
	kind: RecordKind;
	/** Sends the document (in the item's turn) and returns what the service created. */
	send: () => Promise<Accepted>;
	/**
	 * With Skip Already Submitted Documents: what identifies the document and its settings, and
	 * whether a document whose answer was lost in an earlier run is sent again (Resend Unconfirmed
	 * Documents).
	 */
	remember?: {
		operation: string;
		settings: IDataObject;
		document: DocumentInput;
		resendUnconfirmed?: boolean;
	};
	/** With Wait for Completion: the Wait Timeout, and when the record is expected to be done. */
	wait?: { timeoutMs: number; expectedAfterMs?: (accepted?: Accepted) => number | undefined };
	/** The item's output from the submission's answer and, when waited for, the finished record. */
	output?: (accepted: Accepted, record?: IDataObject) => IDataObject;
}

/**
 * The submit-and-wait path of Task → Submit, Task → Submit (v2) and Job → Create: check once that
 * the key can read tasks (when a task will be waited for), submit — or reuse what the node
 * remembers of this document — then wait until the record is done. Each wait's deadline runs from
 * the moment the service accepted the submission.
 */
export async function submitAndWait(
	run: Execution,
	itemIndex: number,
	submission: Submission,
): Promise<IDataObject> {
	const { kind, wait, remember } = submission;
	const waitSettings = (accepted?: Accepted) => ({
		expectedAfterMs: wait?.expectedAfterMs?.(accepted),
		deadline: Date.now() + wait!.timeoutMs,
	});
	if (wait && kind === 'task') await run.ensureCanReadTasks(itemIndex);
	const outcome = await submitRemembered(run, itemIndex, {
		kind,
		key: remember
			? async () =>
					await submissionKey(
						run,
						itemIndex,
						remember.operation,
						remember.settings,
						remember.document,
					)
			: undefined,
		wait: wait ? () => waitSettings() : undefined,
		resendUnconfirmed: remember?.resendUnconfirmed,
		submit: async () => {
			const accepted = await submission.send();
			return { id: accepted.id, answer: accepted };
		},
	});
	if ('reused' in outcome) return { ...outcome.reused, previouslySubmitted: true };
	const accepted = outcome.submitted;
	const output = submission.output ?? ((a: Accepted, record?: IDataObject) => record ?? a.answer);
	if (!wait) return output(accepted);
	const record = await run.waitFor(itemIndex, kind, accepted.id, waitSettings(accepted));
	return output(accepted, record);
}
