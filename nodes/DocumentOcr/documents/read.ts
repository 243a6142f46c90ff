import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { safeFileName } from '../shared/text';
import type { DocumentReads, KeptBytes } from './kept';
import { KEEP_BYTES } from './kept';
import type { PageCount } from '../formats';
import { countPages } from '../formats';
import { digestOf, DocumentScan } from './scan';
import type { PagesSent } from './select';
import { allPages, buildSelection, readWhole, selectedPages } from './select';
import { fetchDocument, refetchDocument } from './url';
import type { Accepts, DocumentKind, Problem } from './check';
import {
	checkDocument,
	detectKind,
	HEAD_BYTES,
	KIND_INFO,
	MAX_BODY_BYTES,
	TAIL_BYTES,
	tooLarge,
} from './check';

/**
 * Reads an item's document — an n8n binary property (in memory, or in n8n's binary store on disk
 * or in the database), or a Base64 string / data URI — and checks it (./check.ts) BEFORE any
 * request is sent; each problem is a NodeOperationError naming the item.
 */

/**
 * A checked document. Its bytes are either in memory (Base64 input, or binary data n8n keeps in
 * memory) or in n8n's binary store, in which case they are streamed when sent and never held
 * whole: see `openDocument`.
 */
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
	bytes?: Buffer;
	binaryId?: string;
	/** Reads the bytes again from where they came from (a URL), when they were not kept. */
	reopen?: () => AsyncIterable<Buffer>;
	/**
	 * A large stored document as read in the check phase, kept (within the execution's limit of kept bytes)
	 * so that its submission does not read it a second time; let go once sent (see openDocument).
	 */
	chunks?: Buffer[];
	/** Gives the kept chunks' share of the kept bytes back. */
	release?: () => void;
	/**
	 * With the Pages option: the pages sent and the document's total (./select.ts). The fields
	 * above then describe the selection as sent (its size, digest, pages), not the original.
	 */
	selection?: PagesSent;
}

/** A problem with an item's document as the item's error. */
export function itemError(ctx: IExecuteFunctions, itemIndex: number, problem: Problem) {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: ${problem.problem}`, {
		description: problem.description,
		itemIndex,
	});
}

/**
 * The document's bytes as chunks (from n8n's binary store when stored). Chunks kept from the
 * check phase are handed out once and then let go: a second reading (a retried submission)
 * streams from the binary store again.
 */
export async function openDocument(
	ctx: IExecuteFunctions,
	document: DocumentInput,
): Promise<AsyncIterable<Buffer | string> | Iterable<Buffer>> {
	if (document.bytes) return [document.bytes];
	if (document.reopen) return document.reopen();
	const { chunks } = document;
	if (chunks) {
		document.chunks = undefined;
		document.release?.();
		// Each chunk is let go as soon as it is handed on, so the ones already sent can be collected.
		return (function* () {
			for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) yield chunk;
		})();
	}
	return await ctx.helpers.getBinaryStream(document.binaryId!);
}

interface Scanned {
	/** Bytes read; above MAX_BODY_BYTES the read stops early. */
	size: number;
	head: Buffer;
	tail: Buffer;
	digest: string;
	pageCount: PageCount;
	/** The whole file, when small enough to keep. */
	bytes?: Buffer;
	/** A large file's chunks, kept within the limit of kept bytes. */
	chunks?: Buffer[];
	release?: () => void;
}

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

/** How a long count lets n8n's event loop run: a timer of 0 ms (at least 1 ms). */
const PAUSE = async () => await sleep(0);

/** The count of a file that was not read whole (it is past the body limit: refused anyway). */
const NOT_READ: PageCount = { pages: null, reason: 'the file was not read whole' };

/**
 * Reads a stored binary once, from n8n's binary store, as a stream, learns it (./scan.ts) and
 * counts its pages; called in a whole-read turn (documents/kept.ts), which bounds how many such
 * files are held at once. The file is then kept for the send when the kept bytes have room (whole when
 * small, as the chunks read when large), else let go: it is streamed from the store again when
 * sent.
 */
async function scanStored(
	ctx: IExecuteFunctions,
	binaryId: string,
	kept: KeptBytes,
): Promise<Scanned> {
	const stream = await ctx.helpers.getBinaryStream(binaryId);
	const scan = new DocumentScan(() => true);
	try {
		for await (const chunk of stream) if (!scan.add(chunk as Buffer | string)) break;
	} finally {
		stream.destroy();
	}
	const { size, head, tail } = scan;
	const digest = scan.digest();
	const chunks = scan.kept();
	if (!chunks) return { size, head, tail, digest, pageCount: NOT_READ };
	// The chunks, not the copy the count reads, are what is kept for the send (each let go as soon
	// as it is sent), within the limit of kept bytes.
	const pageCount = await pagesOf(ctx, head, () =>
		chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
	);
	if (!kept.fits(size)) return { size, head, tail, digest, pageCount };
	kept.take(size);
	if (size <= KEEP_BYTES)
		return { size, head, tail, digest, pageCount, bytes: Buffer.concat(chunks, size) };
	const release = kept.releaser(size);
	return { size, head, tail, digest, pageCount, chunks, release };
}

/**
 * Whether a stored document is read whole in one call rather than scanned as a stream: n8n
 * recorded its size (`bytes`, which n8n sets when it stores binary data), it is small enough to
 * keep, and the kept bytes have room. One call costs a fraction of a stream per file. The size read is
 * what counts afterwards, not the recorded one.
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

/** What the document fields name, read: the bytes (or where they are) and what the input says. */
interface Read {
	size: number;
	head: Buffer;
	tail: Buffer;
	digest: string;
	pageCount: PageCount;
	bytes?: Buffer;
	reopen?: () => AsyncIterable<Buffer>;
	binaryId?: string;
	chunks?: Buffer[];
	release?: () => void;
	fileName: string;
	declaredMime?: string;
}

async function inMemory(
	ctx: IExecuteFunctions,
	bytes: Buffer,
): Promise<Pick<Read, 'size' | 'head' | 'tail' | 'bytes' | 'digest' | 'pageCount'>> {
	return {
		size: bytes.length,
		digest: digestOf(bytes),
		head: bytes.subarray(0, HEAD_BYTES),
		tail: bytes.subarray(-TAIL_BYTES),
		pageCount: await pagesOf(ctx, bytes, bytes),
		bytes,
	};
}

/** The "Base64 or Data URI" source. */
async function readBase64(ctx: IExecuteFunctions, itemIndex: number): Promise<Read> {
	const raw = ctx.getNodeParameter('base64Data', itemIndex, '') as string;
	if (typeof raw !== 'string' || raw.trim() === '') {
		throw itemError(ctx, itemIndex, {
			problem: 'no document data',
			description:
				'The "Base64 or Data URI" field is empty. Map the field holding the file content.',
		});
	}
	const { bytes, declaredMime } = decodeBase64Input(ctx, itemIndex, raw);
	return { ...(await inMemory(ctx, bytes)), fileName: '', declaredMime };
}

/**
 * The "Binary File" source, by where n8n keeps it: stored and small with its size recorded (one
 * whole read, kept for the send), stored otherwise (scanned once as a stream; a large file is
 * checked, not held), or in memory.
 */
async function readBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
): Promise<Read> {
	const { kept } = reads;
	const property = (ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string).trim();
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
	const named = { fileName: safeFileName(binary.fileName ?? ''), binaryId: binary.id };
	if (binary.id && readsWhole(binary.bytes, kept)) {
		const bytes = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		kept.take(bytes.length);
		return { ...(await inMemory(ctx, bytes)), ...named };
	}
	if (binary.id) {
		const id = binary.id;
		const scanned = await reads.whole.run(async () => await scanStored(ctx, id, kept));
		const size =
			scanned.size > MAX_BODY_BYTES
				? (await ctx.helpers.getBinaryMetadata(binary.id)).fileSize
				: scanned.size;
		return { ...scanned, size, ...named };
	}
	const bytes = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
	return { ...(await inMemory(ctx, bytes)), ...named };
}

/**
 * The "URL" source: fetched whole and learnt now, in a whole-read turn (documents/kept.ts), its
 * pages counted; a small file is kept (within the limit of kept bytes), any other is let go and fetched again
 * when it is sent, and must then be the same file (documents/url.ts).
 */
async function readUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reads: DocumentReads,
): Promise<Read> {
	const raw = ctx.getNodeParameter('documentUrl', itemIndex, '');
	return await reads.whole.run(async () => {
		const fetched = await fetchDocument(ctx, itemIndex, raw, () => true);
		const { size, head, tail, digest, fileName, bytes } = fetched;
		const pageCount = bytes ? await pagesOf(ctx, head, bytes) : NOT_READ;
		if (bytes && size <= KEEP_BYTES && reads.kept.fits(size)) {
			reads.kept.take(size);
			return { size, head, tail, digest, pageCount, bytes, fileName };
		}
		const reopen = reopener(ctx, itemIndex, fetched.url.href, size, digest);
		return { size, head, tail, digest, pageCount, reopen, fileName };
	});
}

/**
 * Fetches a URL's file again when it is sent. An item keeps this closure from its check until it
 * is sent, and every item of a run is checked first, so it holds only what the second fetch needs
 * — the address (as text, parsed again when used), the size and the SHA-256 it compares against —
 * and nothing else of the check (not the file's first and last bytes, 9 kB an item).
 */
function reopener(
	ctx: IExecuteFunctions,
	itemIndex: number,
	href: string,
	size: number,
	digest: string,
): () => AsyncIterable<Buffer> {
	return () => refetchDocument(ctx, itemIndex, { url: new URL(href), size, digest });
}

/** Where each value of the Input Type field reads the document from. */
const SOURCES: Record<
	string,
	(ctx: IExecuteFunctions, itemIndex: number, reads: DocumentReads) => Promise<Read>
> = {
	binary: readBinary,
	base64: async (ctx, itemIndex) => await readBase64(ctx, itemIndex),
	url: readUrl,
};

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

/**
 * Reads the document of an item from the shared document fields (`documentSource`,
 * `binaryPropertyName`, `base64Data`, `documentUrl`, `fileName`), checks it and counts its pages;
 * nothing is sent to the service. With `reads.countRequired` (a Page Budget), a document whose
 * pages cannot be counted is refused. With `pages` (the Pages option, ./select.ts), the document
 * becomes the selection of its pages, built now: what is returned describes what will be sent.
 */
export async function readDocument(
	ctx: IExecuteFunctions,
	itemIndex: number,
	accepts: Accepts,
	reads: DocumentReads,
	pages?: string,
): Promise<DocumentInput> {
	const source = ctx.getNodeParameter('documentSource', itemIndex, 'binary') as string;
	const given = safeFileName(String(ctx.getNodeParameter('fileName', itemIndex, '') ?? ''));
	const read = await (SOURCES[source] ?? readBinary)(ctx, itemIndex, reads);
	const checked = checkDocument({ ...read, fileName: given || read.fileName }, accepts);
	if ('problem' in checked) {
		read.release?.();
		throw itemError(ctx, itemIndex, checked);
	}
	const { kind, fileName } = checked;
	const mimeType = KIND_INFO[kind].mime;
	if (pages !== undefined) {
		let selected: number[] | undefined;
		try {
			selected = selectedPages(ctx, itemIndex, pages, read.pageCount);
		} finally {
			if (selected === undefined) read.release?.();
		}
		// Every page selected: the document is sent as it is.
		if (selected.length !== read.pageCount.pages)
			return {
				kind,
				mimeType,
				fileName,
				...(await selectionOf(ctx, itemIndex, read, kind, selected, reads)),
			};
	}
	const { size, digest, pageCount, bytes, binaryId, chunks, release, reopen } = read;
	if (pageCount.pages === null && reads.countRequired) {
		release?.();
		throw itemError(ctx, itemIndex, uncounted(pageCount.reason));
	}
	const selection =
		pages !== undefined && pageCount.pages !== null
			? { pagesSent: allPages(pageCount.pages), pagesCounted: pageCount.pages }
			: undefined;
	return {
		kind,
		mimeType,
		fileName,
		size,
		digest,
		pageCount,
		bytes,
		binaryId,
		chunks,
		release,
		reopen,
		selection,
	};
}

/**
 * The selection of `pages` from a read document, built in a whole-read turn from the whole file:
 * the bytes read already, else read again (a stored binary from n8n's binary store; a URL fetched
 * again, which must still be the same file). The original is let go. The selection is kept until
 * sent (and handed out again for a retried send) where the original was in memory or, as for the
 * original (KEEP_BYTES, the kept bytes), where they have room — copied into one buffer of its own
 * first, since the writers' chunks are views of the original's bytes (else a 1 kB selection kept
 * would hold its whole 2 MB file, uncounted); otherwise the selection is built again from its
 * source when sent, and must come out the same (its SHA-256).
 */
async function selectionOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	kind: DocumentKind,
	pages: number[],
	reads: DocumentReads,
): Promise<Pick<DocumentInput, 'size' | 'digest' | 'pageCount' | 'reopen' | 'selection'>> {
	const { binaryId, reopen: original, pageCount: count } = read;
	const source = read.bytes
		? undefined
		: original
			? async () => original()
			: async () => await ctx.helpers.getBinaryStream(binaryId!);
	const keeps = (size: number) =>
		source === undefined ||
		((binaryId !== undefined || size <= KEEP_BYTES) && reads.kept.fits(size));
	const built = await reads.whole.run(async () => {
		try {
			const whole = read.bytes
				? read.bytes
				: read.chunks
					? Buffer.concat(read.chunks, read.size)
					: await readWhole(await source!());
			return await buildSelection(ctx, itemIndex, { whole, kind, pages, count });
		} finally {
			read.release?.();
		}
	});
	const { size, digest, pageCount, sent } = built;
	let reopen: () => AsyncIterable<Buffer>;
	if (keeps(size)) {
		reads.kept.take(size);
		const chunks = [Buffer.concat(built.chunks, size)];
		// Handed out for every send (a retry too); the chunks go with the item once it is sent.
		reopen = async function* () {
			yield* chunks;
		};
	} else {
		reopen = rebuilder(ctx, itemIndex, source!, { kind, pages, count, digest }, reads);
	}
	return { size, digest, pageCount, reopen, selection: sent };
}

/**
 * Builds a selection again when it is sent, from its source read again (a URL fetched again must
 * still be the same file), in a whole-read turn; the same pages of the same file make the same
 * bytes, so one that differs from what was checked is refused.
 */
function rebuilder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	source: () => Promise<AsyncIterable<Buffer | string>>,
	what: { kind: DocumentKind; pages: number[]; count: PageCount; digest: string },
	reads: DocumentReads,
): () => AsyncIterable<Buffer> {
	const { kind, pages, count, digest } = what;
	return async function* () {
		const built = await reads.whole.run(
			async () =>
				await buildSelection(ctx, itemIndex, {
					whole: await readWhole(await source()),
					kind,
					pages,
					count,
				}),
		);
		if (built.digest !== digest)
			throw new NodeOperationError(
				ctx.getNode(),
				`Item ${itemIndex}: the pages selected came out different when built again to be sent`,
				{
					description:
						'The document changed between the check and the send. The request to the OCR service was cut off before its end, so it created and charged nothing. Run the node again once the file stays the same.',
					itemIndex,
				},
			);
		yield* built.chunks;
	};
}
