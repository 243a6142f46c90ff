import type { IDataObject } from 'n8n-workflow';

import type { Upload } from '../documents/upload';
import type { Execution } from './execution';
import type { Sent } from './held';
import { documentOutput, sendDocumentOnce } from './held';
import { joinParts, sendParts } from './parts';
import type { Join, SendOne } from './parts';
import type { SubmitSettings } from './submit';
import { submitAndWait } from './submit';

/*
 * The one path by which the operations that send a document send it: the operation says what
 * it sends (its Upload), how (Sending) and how its parts' outputs join (its Join); this sends the
 * document whole or in parts (./parts.ts), each as a submission (./submit.ts) or once (./held.ts).
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
export type Sending = SubmitSettings | SendingOnce;

/** Sends an item's document as `sending` says: whole, or its parts, their outputs joined. */
export async function sendDocument(
	run: Execution,
	itemIndex: number,
	upload: Upload,
	join: Join,
	sending: Sending,
): Promise<IDataObject> {
	const send: SendOne = async ({ document, body }, submitted) => {
		if (sending.kind !== 'document')
			return await submitAndWait(run, itemIndex, {
				...sending,
				document,
				body,
				onSubmitted: submitted,
			});
		const { endpoint, settings, output = documentOutput } = sending;
		const sent = await sendDocumentOnce(run, itemIndex, { endpoint, settings, document, body });
		return output(sent, upload.document.fileName);
	};
	const { document, sends } = upload;
	if (!document.parts) return await send(sends[0], () => {});
	try {
		return joinParts(document, await sendParts(run, itemIndex, sends, send), join);
	} finally {
		// The document's reading kept for its parts goes with the item, sent or not.
		document.release?.();
	}
}
