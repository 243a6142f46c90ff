import type { IDataObject } from 'n8n-workflow';
import { createHash } from 'crypto';

import type { DocumentInput } from '../documents/document';
import type { ServiceClient } from '../service/client';

/**
 * The key a node remembers a document by (./submitted.ts, ./held.ts): the account (Base URL, API
 * URL and a digest of the key: another account's task is never returned), what was sent
 * (operation and settings) and the document's SHA-256 — the `digest` the check phase computed
 * while reading the document, so the document is not read again for it.
 */
export async function submissionKey(
	client: Pick<ServiceClient, 'account'>,
	itemIndex: number,
	operation: string,
	settings: IDataObject,
	document: DocumentInput,
): Promise<string> {
	const { digest } = document;
	const account = await client.account(itemIndex);
	const what = createHash('sha256')
		.update(JSON.stringify([account, operation, settings]))
		.digest('hex')
		.slice(0, 16);
	return `${operation}:${what}:${digest}`;
}
