import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemError } from './document';
import { MAX_BODY_BYTES, tooLarge } from './check';

/*
 * The "Base64 or Data URI" input decoded: the standard or URL-safe alphabet, white space
 * anywhere, a data URI's type taken as declared; anything malformed refused before its bytes
 * are made, and a body past the limit refused by its length alone.
 */

const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

interface DecodedBase64 {
	bytes: Buffer;
	declaredMime?: string;
}

/** Decodes Base64 or a `data:<mime>;base64,<data>` URI, refusing anything malformed. */
export function decodeBase64Input(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: string,
	maxBytes = MAX_BODY_BYTES,
): DecodedBase64 {
	const node = ctx.getNode();
	let data = raw.trim();
	let declaredMime: string | undefined;
	if (/^data:/i.test(data)) {
		const match = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(data);
		if (!match) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the data URI is malformed`, {
				description: 'Expected the form data:<type>;base64,<data>.',
				itemIndex,
			});
		}
		if (!/;base64$/i.test(match[2]) && !/;base64;/i.test(`${match[2]};`)) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the data URI is not Base64-encoded`, {
				description: 'Only data URIs of the form data:<type>;base64,<data> are supported.',
				itemIndex,
			});
		}
		declaredMime = match[1].toLowerCase() || undefined;
		data = data.slice(match[0].length);
	}
	data = data.replace(/\s+/g, '');
	// Accept the URL-safe alphabet too; the service receives standard Base64.
	if (/[-_]/.test(data)) data = data.replace(/-/g, '+').replace(/_/g, '/');
	if (data.length === 0) {
		throw new NodeOperationError(node, `Item ${itemIndex}: the document is empty`, {
			description: 'The Base64 field holds no data.',
			itemIndex,
		});
	}
	if (!BASE64_BODY.test(data) || data.length % 4 === 1) {
		throw new NodeOperationError(node, `Item ${itemIndex}: the Base64 data is malformed`, {
			description:
				'It contains characters outside the Base64 alphabet or has a broken length. Pass the file as binary data, or check how the Base64 string was produced.',
			itemIndex,
		});
	}
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	const decodedSize = Math.floor((data.length * 3) / 4) - padding;
	if (decodedSize > maxBytes) throw itemError(ctx, itemIndex, tooLarge(decodedSize, maxBytes));
	return { bytes: Buffer.from(data, 'base64'), declaredMime };
}
