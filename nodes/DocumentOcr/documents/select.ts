import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { PageCount } from '../formats';
import { FormatError, parsePageSelection, SELECTION_SYNTAX, selectPages } from '../formats';
import type { DocumentKind } from './check';
import { formatBytes, MAX_BODY_BYTES } from './check';
import type { Chunks, DocumentInput } from './document';
import { readerOf, readWhole } from './document';
import type { DocumentReads } from './kept';
import { KEEP_BYTES } from './kept';
import { digestOfChunks } from './scan';
import type { Read } from './sources';
import { wholeOf } from './sources';

export { SELECTION_SYNTAX };

/*
 * The Pages option (issue 37): only the pages a selection names are sent, as a new file built
 * from the document (formats/: selectPages) in the check phase, before anything is sent. The
 * selection is then what the item's document is: its bytes, size, SHA-256 (so Skip Submitted
 * Documents and the held results tell one selection of a file from another) and page count (what
 * the Page Budget admits). The original is let go once the selection is built.
 */

/**
 * What an item sent of its document: the pages, as ranges ("2-3, 5"), and the document's total;
 * the encryption the pages were copied out of (a PDF that opens without a password is sent as an
 * unencrypted file), if any.
 */
export interface PagesSent {
	pagesSent: string;
	pagesCounted: number;
	encryptionRemoved?: string;
}

/** The document as it will be sent after a selection: its bytes, as the chunks written. */
export interface Selected {
	chunks: Buffer[];
	size: number;
	digest: string;
	pageCount: PageCount;
	sent: PagesSent;
}

/** Pages (ascending, each once) as ranges: [1, 2, 3, 5] -> "1-3, 5". */
export function rangesOf(pages: number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < pages.length; ) {
		let j = i;
		while (j + 1 < pages.length && pages[j + 1] === pages[j] + 1) j++;
		parts.push(i === j ? `${pages[i]}` : `${pages[i]}-${pages[j]}`);
		i = j + 1;
	}
	return parts.join(', ');
}

/** Every page of a document of `total` pages, as rangesOf gives it: "1-7", "1". */
export function allPages(total: number): string {
	return total === 1 ? '1' : `1-${total}`;
}

/** A refusal's words (the format room's FormatError says what is wrong). */
const messageOf = (error: unknown) =>
	error instanceof FormatError ? error.message : String((error as Error)?.message ?? error);

/**
 * An item's document refused in the check phase (a selection, a split): the item's error, which
 * says that nothing was sent.
 */
export function refusedBeforeSending(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: ${message}`, {
		description: `${description} Nothing was sent or charged.`,
		itemIndex,
	});
}

/**
 * The Pages option's value as the item gives it: undefined for all pages (not set, or an
 * expression that gives undefined, null or only white space), else the selection's text. A number
 * is taken as a page; any other value is an item error naming the field.
 */
export function pageSelectionOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = ctx.getNodeParameter('options.pages', itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string')
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the "Pages" option is not text (it is ${Array.isArray(value) ? 'a list' : typeof value})`,
			`Set "Pages" to a selection such as "1-3, 5, 8-", or leave it empty for all pages. ${SELECTION_SYNTAX}`,
		);
	return value.trim() === '' ? undefined : value;
}

/**
 * The pages `selection` names of a document of `count` pages: an item error when the count is
 * unknown or the selection is not one (bad syntax, a page past the document's last).
 */
export function selectedPages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	selection: string,
	count: PageCount,
): number[] {
	if (count.pages === null)
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the document's pages could not be counted (${count.reason}), so the "Pages" selection cannot be made`,
			'A selection is made from the pages counted before sending. Remove "Pages" to send the whole document, or re-save the PDF (e.g. "Print to PDF") so that its pages can be counted.',
		);
	try {
		return parsePageSelection(selection, count.pages);
	} catch (error) {
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the "Pages" option: ${messageOf(error)}`,
			`Correct "Pages" (the document has ${count.pages} page${count.pages === 1 ? '' : 's'}), or leave it empty for all pages.`,
		);
	}
}

/** How a long copy lets n8n's event loop run. */
const PAUSE = async () => await sleep(0);

/**
 * Builds the selection of `pages` from `whole`, the document's bytes (in a whole-read turn, the
 * caller's): the new file's chunks, their SHA-256, and what the item will say it sent. A file the
 * format room cannot copy (an encrypted PDF, a page tree it cannot be certain of) is an item error.
 */
export async function buildSelection(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: { whole: Buffer; kind: DocumentKind; pages: number[]; count: PageCount },
): Promise<Selected> {
	const { kind, pages, count } = input;
	// An animated image's frames (each counted as a page) cannot be left out: the file is one image.
	if (kind !== 'pdf' && kind !== 'tiff' && count.pages !== pages.length)
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the "Pages" option selects ${pages.length} of the ${count.pages} frames of an animated ${kind.toUpperCase()}, which cannot be sent apart`,
			'Only the pages of a PDF or a multi-page TIFF can be selected. Leave "Pages" empty to send the whole image.',
		);
	let written;
	try {
		written = await selectPages(input.whole, kind, pages, {
			signal: ctx.getExecutionCancelSignal?.(),
			pause: PAUSE,
		});
	} catch (error) {
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the pages selected by "Pages" could not be copied into a new file: ${messageOf(error)}`,
			'Remove "Pages" to send the whole document, or save the document again without protection (e.g. "Print to PDF") and select its pages then.',
		);
	}
	const { chunks, length } = written;
	// A request carries the file at least whole: a selection past the limit is refused now, before
	// its bytes are hashed (a crafted file's selection can be many times the file).
	if (length > MAX_BODY_BYTES)
		throw refusedBeforeSending(
			ctx,
			itemIndex,
			`the pages selected by "Pages" make a document of ${formatBytes(length)}, over the service's ${formatBytes(MAX_BODY_BYTES)} limit`,
			'Select fewer pages, or split the document into smaller documents.',
		);
	const assumed = count.pages !== null && pages.length > 1 ? count.assumed : undefined;
	return {
		chunks,
		size: length,
		digest: await digestOfChunks(chunks),
		pageCount: assumed ? { pages: pages.length, assumed } : { pages: pages.length },
		sent: {
			pagesSent: rangesOf(pages),
			pagesCounted: count.pages!,
			...(written.decrypted ? { encryptionRemoved: written.decrypted } : {}),
		},
	};
}

/**
 * The selection of `pages` from a read document, built in a whole-read turn from the whole file:
 * the bytes read already, else read again (a stored binary from n8n's binary store; a URL fetched
 * again, which must still be the same file). The original is let go. The selection is kept in
 * memory until sent (and handed out again for a retried send) where the original was in memory
 * or, as for the original (KEEP_BYTES, the kept bytes), where they have room — copied into one
 * buffer of its own first, since the writers' chunks are views of the original's bytes (else a
 * 1 kB selection kept would hold its whole 2 MB file, uncounted); otherwise it is written again
 * from where the original is when sent, and must come out the same (its SHA-256).
 */
export async function selectionOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	kind: DocumentKind,
	pages: number[],
	reads: DocumentReads,
): Promise<Pick<DocumentInput, 'size' | 'digest' | 'pageCount' | 'bytes' | 'selection'>> {
	const { bytes: at, pageCount: count } = read;
	const keeps = (size: number) =>
		at.in === 'memory' || ((at.in === 'store' || size <= KEEP_BYTES) && reads.kept.fits(size));
	const built = await reads.whole.run(async () => {
		try {
			const whole = await wholeOf(ctx, read);
			return await buildSelection(ctx, itemIndex, { whole, kind, pages, count });
		} finally {
			read.release?.();
		}
	});
	const { size, digest, pageCount, sent } = built;
	if (keeps(size)) {
		reads.kept.take(size);
		const bytes = Buffer.concat(built.chunks, size);
		return { size, digest, pageCount, selection: sent, bytes: { in: 'memory', bytes } };
	}
	const write = pagesWriter(
		ctx,
		itemIndex,
		readerOf(ctx, at),
		{ kind, pages, count, digest, sourceSize: read.size },
		reads,
	);
	return { size, digest, pageCount, selection: sent, bytes: { in: 'pages', write } };
}

/**
 * Writes pages of a document again when they are sent, from where the document is (a URL
 * fetched again must still be the same file), in a whole-read turn; the same pages of the same
 * file make the same bytes, so pages that differ from what was checked are refused.
 */
export function pagesWriter(
	ctx: IExecuteFunctions,
	itemIndex: number,
	source: () => Promise<Chunks>,
	what: {
		kind: DocumentKind;
		pages: number[];
		count: PageCount;
		digest: string;
		sourceSize: number;
	},
	reads: DocumentReads,
): () => AsyncIterable<Buffer> {
	const { kind, pages, count, digest, sourceSize } = what;
	return async function* () {
		const built = await reads.whole.run(
			async () =>
				await buildSelection(ctx, itemIndex, {
					whole: await readWhole(await source(), sourceSize),
					kind,
					pages,
					count,
				}),
		);
		if (built.digest !== digest)
			throw new NodeOperationError(
				ctx.getNode(),
				`Item ${itemIndex}: the pages ${rangesOf(pages)} came out different when written again to be sent`,
				{
					description:
						'The document changed between the check and the send. The request to the OCR service was cut off before its end, so it created and charged nothing. Run the node again once the file stays the same.',
					itemIndex,
				},
			);
		yield* built.chunks;
	};
}
