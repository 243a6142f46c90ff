import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PageCount } from '../formats';
import type { DocumentKind, Problem } from './check';
import type { PagesSent } from './select';

/*
 * What a checked document is (./read.ts makes one): what it is, what it holds, and where its
 * bytes are — each place with its one way to be read (`openDocument`).
 */

/** Where a document's bytes are. */
export type Bytes =
	/** In memory: Base64 input, binary data n8n keeps in memory, a file or selection kept. */
	| { in: 'memory'; bytes: Buffer }
	/**
	 * In n8n's binary store (on disk, in the database, in S3), streamed when sent; the chunks the
	 * check phase read are handed out first, once, when they were kept (the document's `release`
	 * gives their share of the kept bytes back).
	 */
	| { in: 'store'; binaryId: string; kept?: Buffer[] }
	/** At a URL: fetched again when sent, and it must still be the same file (./url.ts). */
	| { in: 'url'; fetch: () => AsyncIterable<Buffer> }
	/**
	 * Pages of a document at one of the places above (a selection, a part of a split document),
	 * written again from it when sent, and they must come out as checked (./select.ts).
	 */
	| { in: 'pages'; write: () => AsyncIterable<Buffer> };

/** A document's bytes as the request body reads them: chunks, in order. */
export type Chunks = AsyncIterable<Buffer | string> | Iterable<Buffer>;

/** A checked document. */
export interface DocumentInput {
	kind: DocumentKind;
	mimeType: string;
	fileName: string;
	/** Size in bytes (decoded). */
	size: number;
	/** SHA-256 (hex) of the bytes, learnt while the check read them. */
	digest: string;
	/** Its pages, counted while the check held the whole file (formats/), or why unknown. */
	pageCount: PageCount;
	/** Where its bytes are; a split document's are its parts'. */
	bytes: Bytes;
	/**
	 * Gives back the kept bytes the document holds (its kept chunks, or the reading kept for a
	 * split document's parts): called once it is sent, or refused.
	 */
	release?: () => void;
	/**
	 * With the Pages option: the pages sent and the document's total (./select.ts). The fields
	 * above then describe the selection as sent (its size, digest, pages), not the original.
	 */
	selection?: PagesSent;
	/**
	 * Split Large Documents (./split.ts): the parts sent in the document's place, in page order,
	 * each a document of its own (its pages' file, written again from the source when it is
	 * sent). The fields above describe the document (or its selection) as a whole.
	 */
	parts?: DocumentInput[];
	/**
	 * A part of a split document: its place among the parts (0-based), how many there are, and
	 * the pages of the parts from it on (itself first: what the Page Budget admits all or none).
	 */
	part?: { index: number; of: number; rest: number[] };
	/**
	 * Count Pages (ReadOptions.plans): the parts the document needs for each body size asked, or
	 * why it cannot be split.
	 */
	partsPlanned?: Array<number | { problem: string }>;
}

/** What names a document in its request (a multipart part's header, a JSON body's filename). */
export type Named = Pick<DocumentInput, 'fileName' | 'mimeType'>;

/** A problem with an item's document as the item's error. */
export function itemError(ctx: IExecuteFunctions, itemIndex: number, problem: Problem) {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: ${problem.problem}`, {
		description: problem.description,
		itemIndex,
	});
}

/**
 * Reads bytes from where they are, every time anew (kept chunks aside). The reader holds only
 * what it reads from — never the kept chunks, which a split document's parts and a selection
 * written again would otherwise hold, uncounted, until the item is over.
 */
export function readerOf(ctx: IExecuteFunctions, bytes: Bytes): () => Promise<Chunks> {
	switch (bytes.in) {
		case 'memory': {
			const buffer = bytes.bytes;
			return async () => [buffer];
		}
		case 'store': {
			const { binaryId } = bytes;
			return async () => await ctx.helpers.getBinaryStream(binaryId);
		}
		case 'url': {
			const { fetch } = bytes;
			return async () => fetch();
		}
		case 'pages': {
			const { write } = bytes;
			return async () => write();
		}
	}
}

/**
 * The document's bytes as chunks. Chunks of a stored file kept from the check phase are handed
 * out once and then let go, each as soon as it is handed on (so the ones already sent can be
 * collected): a second reading (a retried submission) streams from the binary store again.
 */
export async function openDocument(
	ctx: IExecuteFunctions,
	document: DocumentInput,
): Promise<Chunks> {
	const { bytes } = document;
	if (bytes.in === 'store' && bytes.kept) {
		const chunks = bytes.kept;
		bytes.kept = undefined;
		document.release?.();
		return (function* () {
			for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) yield chunk;
		})();
	}
	return await readerOf(ctx, bytes)();
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
