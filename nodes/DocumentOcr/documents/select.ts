import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { PageCount } from '../formats';
import { FormatError, parsePageSelection, SELECTION_SYNTAX, selectPages } from '../formats';
import type { DocumentKind } from './check';
import { formatBytes, MAX_BODY_BYTES } from './check';

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

/** Bytes hashed between two pauses of a digest (a few ms of SHA-256). */
const HASH_SLICE = 1_048_576;

/**
 * The SHA-256 (hex) of bytes written as chunks, as scan.ts's digestOf gives it for one buffer,
 * letting the event loop run after each HASH_SLICE bytes.
 */
export async function digestOfChunks(chunks: Buffer[]): Promise<string> {
	const hash = createHash('sha256');
	let since = 0;
	for (const chunk of chunks) {
		for (let at = 0; at < chunk.length; at += HASH_SLICE) {
			const slice = chunk.subarray(at, at + HASH_SLICE);
			hash.update(slice);
			since += slice.length;
			if (since >= HASH_SLICE) {
				since = 0;
				await PAUSE();
			}
		}
	}
	return hash.digest('hex');
}

/**
 * Reads a source of chunks whole; with its `expected` size, into one buffer as the chunks come
 * (no second copy), else as chunks joined at the end.
 */
export async function readWhole(
	source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
	expected?: number,
): Promise<Buffer> {
	let chunks: Buffer[] = [];
	let whole: Buffer | undefined =
		expected !== undefined && expected > 0 ? Buffer.allocUnsafe(expected) : undefined;
	let size = 0;
	for await (const chunk of source) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		// A source that is one buffer already (a document in memory) is not copied.
		if (whole && size === 0 && bytes.length >= whole.length) whole = undefined;
		if (whole && size + bytes.length <= whole.length) bytes.copy(whole, size);
		else {
			// Longer than expected: what was copied becomes the first chunk.
			if (whole) chunks = [whole.subarray(0, size)];
			whole = undefined;
			chunks.push(bytes);
		}
		size += bytes.length;
	}
	if (whole) return size === whole.length ? whole : whole.subarray(0, size);
	return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}
