import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { PageCount } from '../formats';
import { FormatError, partsOf } from '../formats';
import type { DocumentKind } from './check';
import { formatBytes, MAX_BODY_BYTES, SPLIT_OPTION } from './check';
import { booleanField, itemFields } from '../shared/validate';
import { digestOfChunks, refusedBeforeSending } from './select';

/*
 * Split Large Documents (issue 37): a PDF or TIFF whose request body would pass the service's
 * limit is cut, in page order, into as few parts as fit (formats/: splitPages), each sent as a
 * submission of its own. The check phase plans the parts — their pages, each file's size and
 * SHA-256 — and lets the bytes go; each part's file is written again from the document when it is
 * sent (documents/read.ts: rebuilder), and must come out the same.
 */

/** The Split Large Documents option (Options of every operation that sends a document). */
export const splitLargeOption: INodeProperties = {
	displayName: 'Split Large Documents',
	name: 'splitLargeDocuments',
	type: 'boolean',
	default: false,
	description:
		"Whether to send a PDF or multi-page TIFF whose request would pass the service's 10 MB limit in parts that each fit, cut between pages in page order (documents up to 50 MB are read). The item still gives one output: the parts' text joined in page order, the pages billed summed, and each part's ID and pages.",
};

/** Whether the item's Split Large Documents option is on. */
export function splitsLarge(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return booleanField(itemFields(ctx, itemIndex), splitLargeOption, {
		path: `options.${splitLargeOption.name}`,
	});
}

/** The size of the request body that carries a file of `fileSize` bytes (JSON + Base64, multipart). */
export type BodySize = (fileSize: number) => number;

/**
 * One part as planned: its pages (1-based, in order), its file's size and SHA-256, its count; the
 * encryption its file was written without (a PDF that opens without a password), if any.
 */
export interface PartPlan {
	pages: number[];
	size: number;
	digest: string;
	pageCount: PageCount;
	encryptionRemoved?: string;
}

/** How a long split lets n8n's event loop run. */
const PAUSE = async () => await sleep(0);

/**
 * Whether a document of `kind` of `size` bytes needs parts: its body as sent (`bodySize`) passes
 * the limit. Only a PDF or TIFF can be split; a larger image is an item error.
 */
export function needsParts(
	ctx: IExecuteFunctions,
	itemIndex: number,
	document: { kind: DocumentKind; size: number; count: PageCount },
	bodySize: BodySize,
): boolean {
	const { kind, size, count } = document;
	const body = bodySize(size);
	if (body <= MAX_BODY_BYTES) return false;
	if (kind !== 'pdf' && kind !== 'tiff')
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the ${kind.toUpperCase()} image makes a request of ${formatBytes(body)}, over the service's ${formatBytes(MAX_BODY_BYTES)} limit, and an image cannot be split`,
			`${SPLIT_OPTION} cuts a PDF or multi-page TIFF between its pages; an image is one page. Compress the image, or convert it to a smaller format.`,
		);
	if (count.pages === null)
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the document makes a request of ${formatBytes(body)}, over the service's ${formatBytes(MAX_BODY_BYTES)} limit, and its pages could not be counted (${count.reason}), so it cannot be split`,
			'A document is split between the pages counted before sending. Re-save the PDF (e.g. "Print to PDF") so that its pages can be counted, or split it into smaller documents first.',
		);
	return true;
}

/**
 * Plans the parts of `whole` (the document's bytes, in a whole-read turn: the caller's) for the
 * pages `pages`: as few as fit, each file's size and SHA-256. A page that alone passes the limit,
 * or a file the format room cannot copy, is an item error.
 */
export async function planParts(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: {
		whole: Buffer;
		kind: DocumentKind;
		pages: number[];
		count: PageCount;
		bodySize: BodySize;
	},
): Promise<PartPlan[]> {
	const { whole, kind, pages, count, bodySize } = input;
	const plans: PartPlan[] = [];
	try {
		// One part at a time: each is hashed and let go before the next is written.
		const parts = partsOf(whole, kind, (size) => bodySize(size) <= MAX_BODY_BYTES, {
			pages,
			signal: ctx.getExecutionCancelSignal?.(),
			pause: PAUSE,
		});
		for await (const part of parts) {
			const assumed = count.pages !== null && part.pages.length > 1 ? count.assumed : undefined;
			plans.push({
				pages: part.pages,
				size: part.length,
				digest: await digestOfChunks(part.chunks),
				pageCount: assumed ? { pages: part.pages.length, assumed } : { pages: part.pages.length },
				...(part.decrypted ? { encryptionRemoved: part.decrypted } : {}),
			});
		}
	} catch (error) {
		const message = error instanceof FormatError ? error.message : String(error);
		const page = /^page (\d+) alone/.exec(message);
		if (page)
			throw refusedBeforeSending(
				ctx,
				itemIndex,
				`page ${page[1]} alone makes a request over the service's ${formatBytes(MAX_BODY_BYTES)} limit, so the document cannot be split to fit`,
				`${SPLIT_OPTION} cuts between pages; a single page this large cannot be sent. Send the other pages with "Pages", or compress the document (a lower image resolution).`,
			);
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the document could not be split into parts: ${message}`,
			'Save the document again without protection (e.g. "Print to PDF") and split it then, or split it into smaller documents first.',
		);
	}
	return plans;
}
