import type { IExecuteFunctions } from 'n8n-workflow';

import { safeFileName } from '../shared/text';
import type { Accepts, DocumentKind, Problem } from './check';
import { checkDocument, KIND_INFO, MAX_BODY_BYTES, SPLIT_READ_BYTES } from './check';
import type { DocumentInput, Named } from './document';
import { itemError } from './document';
import type { DocumentReads } from './kept';
import { allPages, selectedPages, selectionOf } from './select';
import type { Read } from './sources';
import { readSource } from './sources';
import type { BodySize } from './split';
import { needsParts, partsNeeded, splitOf } from './split';

/*
 * An item's document read (./sources.ts) and checked (./check.ts) BEFORE any request is sent —
 * each problem a NodeOperationError naming the item — and made what the item sends: the
 * document, the selection of its pages, or its parts.
 */

/**
 * The problem of a document whose pages cannot be counted while a Page Budget is set: the budget
 * could not be kept if it were sent.
 */
function uncounted(reason: string): Problem {
	return {
		problem: `the document's pages could not be counted (${reason}), and a Page Budget is set`,
		description:
			'With a Page Budget, the node sends only documents whose pages it can count before sending, so that no run bills past the budget. To send this document, remove the Page Budget from the node\'s options (or send it from a node without one); re-saving the PDF (e.g. "Print to PDF") usually makes its pages countable. Nothing was sent or charged.',
	};
}

/** What an operation asks of an item's document beyond reading it: its Pages, and splitting. */
export interface ReadOptions {
	/** The Pages option's selection, as the item gives it (./select.ts). */
	pages?: string;
	/**
	 * Split Large Documents: the size of the request body that carries a file of a given size,
	 * named as the document is. A PDF or TIFF whose body would pass the limit is sent in parts
	 * (./split.ts); documents up to SPLIT_READ_BYTES are read.
	 */
	split?: (named: Named) => BodySize;
	/**
	 * Count Pages: how many parts the document would be sent in, for each of these body sizes
	 * (`partsPlanned`), planned as Split Large Documents plans them — without refusing the
	 * document when it cannot be split. Documents up to SPLIT_READ_BYTES are read.
	 */
	plans?: Array<(named: Named) => BodySize>;
}

/**
 * Reads the document of an item from the shared document fields (`documentSource`,
 * `binaryPropertyName`, `base64Data`, `documentUrl`, `fileName`), checks it and counts its pages;
 * nothing is sent to the service. With `reads.countRequired` (a Page Budget), a document whose
 * pages cannot be counted is refused. With `pages` (the Pages option, ./select.ts), the document
 * becomes the selection of its pages, built now: what is returned describes what will be sent.
 * With `split` (Split Large Documents, ./split.ts), a document whose body would pass the limit
 * gets its parts.
 */
export async function readDocument(
	ctx: IExecuteFunctions,
	itemIndex: number,
	accepts: Accepts,
	reads: DocumentReads,
	options: ReadOptions = {},
): Promise<DocumentInput> {
	const { split, plans } = options;
	const limits: Accepts = split || plans ? { ...accepts, maxBytes: SPLIT_READ_BYTES } : accepts;
	const given = safeFileName(String(ctx.getNodeParameter('fileName', itemIndex, '') ?? ''));
	const read = await readSource(ctx, itemIndex, reads, limits.maxBytes ?? MAX_BODY_BYTES);
	const checked = checkDocument({ ...read, fileName: given || read.fileName }, limits);
	if ('problem' in checked) {
		read.release?.();
		throw itemError(ctx, itemIndex, checked);
	}
	const { kind, fileName } = checked;
	const mimeType = KIND_INFO[kind].mime;
	let made: Awaited<ReturnType<typeof sendable>> | undefined;
	try {
		made = await sendable(ctx, itemIndex, read, { kind, fileName, mimeType }, options, reads);
	} finally {
		// A refused document gives its kept bytes back (a second release does nothing).
		if (made === undefined) read.release?.();
	}
	return { kind, mimeType, fileName, ...made };
}

/**
 * What a checked document is sent as: its parts (Split Large Documents, when its body would pass
 * the limit), the selection of its pages (Pages), or itself — with Count Pages' plans; refused
 * when its pages are unknown and a Page Budget is set.
 */
async function sendable(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	named: Named & { kind: DocumentKind },
	options: ReadOptions,
	reads: DocumentReads,
): Promise<Omit<DocumentInput, 'kind' | 'mimeType' | 'fileName'>> {
	const { pages, split, plans } = options;
	const { kind, fileName } = named;
	const count = read.pageCount;
	const selected = pages === undefined ? undefined : selectedPages(ctx, itemIndex, pages, count);
	const bodySize = split?.(named);
	if (bodySize && needsParts(ctx, itemIndex, { kind, size: read.size, count }, bodySize)) {
		const all = selected ?? Array.from({ length: count.pages! }, (_, i) => i + 1);
		return await splitOf(ctx, itemIndex, read, { kind, fileName, pages: all, bodySize }, reads);
	}
	// Every page selected: the document is sent as it is.
	if (selected !== undefined && selected.length !== count.pages)
		return await selectionOf(ctx, itemIndex, read, kind, selected, reads);
	const sizes = plans?.map((plan) => plan(named));
	const partsPlanned = sizes && (await partsNeeded(ctx, itemIndex, read, kind, sizes, reads));
	if (count.pages === null && reads.countRequired)
		throw itemError(ctx, itemIndex, uncounted(count.reason));
	const selection =
		pages !== undefined && count.pages !== null
			? { pagesSent: allPages(count.pages), pagesCounted: count.pages }
			: undefined;
	const { size, digest, pageCount, bytes, release } = read;
	return { size, digest, pageCount, bytes, release, selection, partsPlanned };
}
