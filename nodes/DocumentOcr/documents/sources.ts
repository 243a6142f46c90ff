import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { PageCount } from '../formats';
import { countPages } from '../formats';
import { safeFileName } from '../shared/text';
import { itemFields, textField } from '../shared/validate';
import { decodeBase64Input } from './base64';
import { detectKind, HEAD_BYTES, MAX_BODY_BYTES, TAIL_BYTES } from './check';
import type { Bytes } from './document';
import { itemError, readerOf, readWhole } from './document';
import type { DocumentReads, KeptBytes } from './kept';
import { KEEP_BYTES } from './kept';
import { digestOf, DocumentScan } from './scan';
import { fetchDocument, refetchDocument } from './url';

/*
 * The three places the document fields name — an n8n binary property (in memory, or in n8n's
 * binary store on disk or in the database), a Base64 string or data URI, a URL — each read once
 * in the check phase: what the check needs (size, first and last bytes, SHA-256, pages) and
 * where the bytes are for the send, kept in memory where the kept bytes have room.
 */

/** What the document fields name, read: where the bytes are, and what the check needs of them. */
export interface Read {
	size: number;
	head: Buffer;
	tail: Buffer;
	digest: string;
	pageCount: PageCount;
	bytes: Bytes;
	/** Gives back the kept bytes this reading holds (kept chunks, or `whole`). */
	release?: () => void;
	/**
	 * A file past the body limit (Split Large Documents reads it) as read for its count, one
	 * buffer, within the kept bytes: its parts are planned from it right after the check, and it
	 * is let go then.
	 */
	whole?: Buffer;
	fileName: string;
	declaredMime?: string;
}

/** What a source learns of a file before it is named. */
type Learnt = Omit<Read, 'fileName' | 'declaredMime'>;

/** How a long count lets n8n's event loop run: a timer of 0 ms (at least 1 ms). */
const PAUSE = async () => await sleep(0);

/** The count of a file that was not read whole (it is past the body limit: refused anyway). */
const NOT_READ: PageCount = { pages: null, reason: 'the file was not read whole' };

/**
 * Pages of a file, by the type its first bytes show: a JPEG is one page from them, any other type
 * is read as one buffer (`whole`: the file itself, or a function that makes a copy of its chunks,
 * let go once counted). The file is passed as a value where the caller's scope outlives the count:
 * a closure over it there would keep it alive as long as any closure of that scope. The count
 * ends, unknown, when the execution is cancelled.
 */
async function pagesOf(
	ctx: IExecuteFunctions,
	head: Buffer,
	whole: Buffer | (() => Buffer),
): Promise<PageCount> {
	const kind = detectKind(head.subarray(0, HEAD_BYTES));
	if (!kind) return { pages: null, reason: 'the file is not a type whose pages can be counted' };
	if (kind === 'jpeg') return await countPages(head, kind);
	const bytes = Buffer.isBuffer(whole) ? whole : whole();
	return await countPages(bytes, kind, ctx.getExecutionCancelSignal?.(), PAUSE);
}

/** A file in memory, learnt. */
async function inMemory(ctx: IExecuteFunctions, bytes: Buffer): Promise<Learnt> {
	return {
		size: bytes.length,
		digest: digestOf(bytes),
		head: bytes.subarray(0, HEAD_BYTES),
		tail: bytes.subarray(-TAIL_BYTES),
		pageCount: await pagesOf(ctx, bytes, bytes),
		bytes: { in: 'memory', bytes },
	};
}

/**
 * Reads a stored binary once, from n8n's binary store, as a stream, learns it (./scan.ts) and
 * counts its pages; called in a whole-read turn (documents/kept.ts), which bounds how many such
 * files are held at once. The file is then kept for the send when the kept bytes have room (whole
 * when small, as the chunks read when large), else let go: it is streamed from the store again
 * when sent.
 */
async function scanStored(
	ctx: IExecuteFunctions,
	binaryId: string,
	kept: KeptBytes,
	maxBytes: number,
	recorded?: number,
): Promise<Learnt> {
	const stream = await ctx.helpers.getBinaryStream(binaryId);
	// The size n8n recorded, when it did: the file is read into one buffer (see DocumentScan).
	const expected =
		typeof recorded === 'number' && Number.isInteger(recorded) ? recorded : undefined;
	const scan = new DocumentScan(() => true, maxBytes, expected);
	try {
		for await (const chunk of stream) if (!scan.add(chunk as Buffer | string)) break;
	} finally {
		stream.destroy();
	}
	const { size, head, tail } = scan;
	const digest = scan.digest();
	const chunks = scan.kept();
	const stored: Bytes = { in: 'store', binaryId };
	if (!chunks) return { size, head, tail, digest, pageCount: NOT_READ, bytes: stored };
	// The chunks, not the copy the count reads, are what is kept for the send (each let go as soon
	// as it is sent), within the limit of kept bytes.
	const pageCount = await pagesOf(ctx, head, () =>
		chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
	);
	const learnt = { size, head, tail, digest, pageCount };
	// A file past the body limit (Split Large Documents reads it): held for its parts' planning
	// within the kept bytes (the items checked at once must not each hold one), else read again.
	if (size > MAX_BODY_BYTES) {
		if (chunks.length !== 1 || !kept.fits(size)) return { ...learnt, bytes: stored };
		kept.take(size);
		return { ...learnt, bytes: stored, whole: chunks[0], release: kept.releaser(size) };
	}
	if (!kept.fits(size)) return { ...learnt, bytes: stored };
	kept.take(size);
	if (size <= KEEP_BYTES)
		return { ...learnt, bytes: { in: 'memory', bytes: Buffer.concat(chunks, size) } };
	return { ...learnt, bytes: { ...stored, kept: chunks }, release: kept.releaser(size) };
}

/**
 * Whether a stored document is read whole in one call rather than scanned as a stream: n8n
 * recorded its size (`bytes`, which n8n sets when it stores binary data), it is small enough to
 * keep, and the kept bytes have room. One call costs a fraction of a stream per file. The size
 * read is what counts afterwards, not the recorded one.
 */
function readsWhole(recorded: unknown, kept: KeptBytes): boolean {
	return (
		typeof recorded === 'number' &&
		Number.isInteger(recorded) &&
		recorded > 0 &&
		recorded <= KEEP_BYTES &&
		kept.fits(recorded)
	);
}

/** The "Base64 or Data URI" source. */
async function readBase64(
	ctx: IExecuteFunctions,
	itemIndex: number,
	maxBytes: number,
): Promise<Read> {
	const raw = ctx.getNodeParameter('base64Data', itemIndex, '') as string;
	if (typeof raw !== 'string' || raw.trim() === '') {
		throw itemError(ctx, itemIndex, {
			problem: 'no document data',
			description:
				'The "Base64 or Data URI" field is empty. Map the field holding the file content.',
		});
	}
	const { bytes, declaredMime } = decodeBase64Input(ctx, itemIndex, raw, maxBytes);
	return { ...(await inMemory(ctx, bytes)), fileName: '', declaredMime };
}

/** The Input Binary Field (its editor field: actions/shared.description.ts), as read here. */
const INPUT_FIELD = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string' as const,
	default: 'data',
};

/**
 * The "Binary File" source, by where n8n keeps it: stored and small with its size recorded (one
 * whole read, kept for the send), stored otherwise (scanned once as a stream; a large file is
 * checked, not held), or in memory.
 */
async function readBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	maxBytes: number,
): Promise<Read> {
	const { kept } = reads;
	// An expression that resolves to nothing fails the item naming the field (shared/validate.ts).
	const property = textField(itemFields(ctx, itemIndex), INPUT_FIELD) || 'data';
	const item = ctx.getInputData()[itemIndex];
	const binary = item?.binary?.[property];
	if (!binary) {
		const available = Object.keys(item?.binary ?? {});
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex} has no binary field "${property}"`,
			{
				description: available.length
					? `The item's binary fields are: ${available.join(', ')}. Set "Input Binary Field" to one of them.`
					: 'The item carries no binary data. Read the file first (e.g. with "Read/Write Files from Disk" or an HTTP Request set to return a file), or choose "URL" or "Base64 or Data URI".',
				itemIndex,
			},
		);
	}
	const fileName = safeFileName(binary.fileName ?? '');
	const id = binary.id;
	if (id && readsWhole(binary.bytes, kept)) {
		const bytes = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		kept.take(bytes.length);
		return { ...(await inMemory(ctx, bytes)), fileName };
	}
	if (id) {
		const recorded = binary.bytes as unknown as number | undefined;
		const scanned = await reads.whole.run(
			async () => await scanStored(ctx, id, kept, maxBytes, recorded),
		);
		const size =
			scanned.size > maxBytes ? (await ctx.helpers.getBinaryMetadata(id)).fileSize : scanned.size;
		return { ...scanned, size, fileName };
	}
	const bytes = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
	return { ...(await inMemory(ctx, bytes)), fileName };
}

/**
 * The "URL" source: fetched whole and learnt now, in a whole-read turn (documents/kept.ts), its
 * pages counted; a small file is kept (within the limit of kept bytes), any other is let go and
 * fetched again when it is sent, and must then be the same file (documents/url.ts).
 */
async function readUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	maxBytes: number,
): Promise<Read> {
	const raw = ctx.getNodeParameter('documentUrl', itemIndex, '');
	return await reads.whole.run(async () => {
		const fetched = await fetchDocument(ctx, itemIndex, raw, () => true, maxBytes);
		const { size, head, tail, digest, fileName, bytes } = fetched;
		const pageCount = bytes ? await pagesOf(ctx, head, bytes) : NOT_READ;
		const learnt = { size, head, tail, digest, pageCount, fileName };
		if (bytes && size <= KEEP_BYTES && reads.kept.fits(size)) {
			reads.kept.take(size);
			return { ...learnt, bytes: { in: 'memory', bytes } };
		}
		const at: Bytes = { in: 'url', fetch: fetcher(ctx, itemIndex, fetched.url.href, size, digest) };
		// A file past the body limit (Split Large Documents): its parts are planned from it next.
		if (!bytes || size <= MAX_BODY_BYTES || !reads.kept.fits(size)) return { ...learnt, bytes: at };
		reads.kept.take(size);
		return { ...learnt, bytes: at, whole: bytes, release: reads.kept.releaser(size) };
	});
}

/**
 * Fetches a URL's file again when it is sent. An item keeps this closure from its check until it
 * is sent, and every item of a run is checked first, so it holds only what the second fetch needs
 * — the address (as text, parsed again when used), the size and the SHA-256 it compares against —
 * and nothing else of the check (not the file's first and last bytes, 9 kB an item).
 */
function fetcher(
	ctx: IExecuteFunctions,
	itemIndex: number,
	href: string,
	size: number,
	digest: string,
): () => AsyncIterable<Buffer> {
	return () => refetchDocument(ctx, itemIndex, { url: new URL(href), size, digest });
}

/** Reads the document the item's Input Type field names (binary when unknown). */
export async function readSource(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
	maxBytes: number,
): Promise<Read> {
	const source = ctx.getNodeParameter('documentSource', itemIndex, 'binary') as string;
	if (source === 'base64') return await readBase64(ctx, itemIndex, maxBytes);
	if (source === 'url') return await readUrl(ctx, itemIndex, reads, maxBytes);
	return await readBinary(ctx, itemIndex, reads, maxBytes);
}

/**
 * A read document whole, in the caller's whole-read turn: the bytes in memory, the reading of
 * its count (`whole`, then let go of here), the kept chunks joined, else read again from where
 * they are.
 */
export async function wholeOf(ctx: IExecuteFunctions, read: Read): Promise<Buffer> {
	const { bytes } = read;
	if (bytes.in === 'memory') return bytes.bytes;
	const whole = read.whole;
	read.whole = undefined;
	if (whole) return whole;
	if (bytes.in === 'store' && bytes.kept) return Buffer.concat(bytes.kept, read.size);
	return await readWhole(await readerOf(ctx, bytes)(), read.size);
}
