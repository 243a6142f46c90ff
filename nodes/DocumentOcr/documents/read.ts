import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { safeFileName } from '../shared/text';
import type { DocumentReads, KeptBytes } from './kept';
import { KEEP_BYTES } from './kept';
import type { PageCount } from '../formats';
import { countPages } from '../formats';
import { digestOf, DocumentScan } from './scan';
import type { PagesSent } from './select';
import { allPages, buildSelection, rangesOf, readWhole, selectedPages } from './select';
import type { BodySize } from './split';
import { needsParts, planParts } from './split';
import { fetchDocument, refetchDocument } from './url';
import type { Accepts, DocumentKind, Problem } from './check';
import {
	checkDocument,
	detectKind,
	HEAD_BYTES,
	KIND_INFO,
	MAX_BODY_BYTES,
	SPLIT_READ_BYTES,
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
	/**
	 * A file past the body limit (Split Large Documents reads it) as read for its count, one
	 * buffer, within the kept bytes (`release` gives them back): its parts are planned from it
	 * right after the check, and it is let go then.
	 */
	whole?: Buffer;
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
	maxBytes: number,
	recorded?: number,
): Promise<Scanned> {
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
	if (!chunks) return { size, head, tail, digest, pageCount: NOT_READ };
	// The chunks, not the copy the count reads, are what is kept for the send (each let go as soon
	// as it is sent), within the limit of kept bytes.
	const pageCount = await pagesOf(ctx, head, () =>
		chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
	);
	// A file past the body limit (Split Large Documents reads it): held for its parts' planning
	// within the kept bytes (the items checked at once must not each hold one), else read again.
	if (size > MAX_BODY_BYTES) {
		if (chunks.length !== 1 || !kept.fits(size)) return { size, head, tail, digest, pageCount };
		kept.take(size);
		const release = kept.releaser(size);
		return { size, head, tail, digest, pageCount, whole: chunks[0], release };
	}
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
	whole?: Buffer;
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
		const recorded = binary.bytes as unknown as number | undefined;
		const scanned = await reads.whole.run(
			async () => await scanStored(ctx, id, kept, maxBytes, recorded),
		);
		const size =
			scanned.size > maxBytes
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
	maxBytes: number,
): Promise<Read> {
	const raw = ctx.getNodeParameter('documentUrl', itemIndex, '');
	return await reads.whole.run(async () => {
		const fetched = await fetchDocument(ctx, itemIndex, raw, () => true, maxBytes);
		const { size, head, tail, digest, fileName, bytes } = fetched;
		const pageCount = bytes ? await pagesOf(ctx, head, bytes) : NOT_READ;
		if (bytes && size <= KEEP_BYTES && reads.kept.fits(size)) {
			reads.kept.take(size);
			return { size, head, tail, digest, pageCount, bytes, fileName };
		}
		const reopen = reopener(ctx, itemIndex, fetched.url.href, size, digest);
		// A file past the body limit (Split Large Documents): its parts are planned from it next.
		if (!bytes || size <= MAX_BODY_BYTES || !reads.kept.fits(size))
			return { size, head, tail, digest, pageCount, reopen, fileName };
		reads.kept.take(size);
		const release = reads.kept.releaser(size);
		return { size, head, tail, digest, pageCount, reopen, fileName, whole: bytes, release };
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
	(
		ctx: IExecuteFunctions,
		itemIndex: number,
		reads: DocumentReads,
		maxBytes: number,
	) => Promise<Read>
> = {
	binary: readBinary,
	base64: async (ctx, itemIndex, _reads, maxBytes) => await readBase64(ctx, itemIndex, maxBytes),
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

/** What names a document in its request (a multipart part's header, a JSON body's filename). */
export type Named = Pick<DocumentInput, 'fileName' | 'mimeType'>;

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
	const { pages, split, plans } = options;
	const limits: Accepts = split || plans ? { ...accepts, maxBytes: SPLIT_READ_BYTES } : accepts;
	const source = ctx.getNodeParameter('documentSource', itemIndex, 'binary') as string;
	const given = safeFileName(String(ctx.getNodeParameter('fileName', itemIndex, '') ?? ''));
	const read = await (SOURCES[source] ?? readBinary)(
		ctx,
		itemIndex,
		reads,
		limits.maxBytes ?? MAX_BODY_BYTES,
	);
	const checked = checkDocument({ ...read, fileName: given || read.fileName }, limits);
	if ('problem' in checked) {
		read.release?.();
		throw itemError(ctx, itemIndex, checked);
	}
	const { kind, fileName } = checked;
	const mimeType = KIND_INFO[kind].mime;
	const bodySize = split?.({ fileName, mimeType });
	let selected: number[] | undefined;
	let splitting = false;
	let refused = true;
	try {
		if (pages !== undefined) selected = selectedPages(ctx, itemIndex, pages, read.pageCount);
		splitting =
			bodySize !== undefined &&
			needsParts(ctx, itemIndex, { kind, size: read.size, count: read.pageCount }, bodySize);
		refused = false;
	} finally {
		if (refused) read.release?.();
	}
	if (splitting) {
		const all = selected ?? Array.from({ length: read.pageCount.pages! }, (_, i) => i + 1);
		return {
			kind,
			mimeType,
			fileName,
			...(await splitOf(
				ctx,
				itemIndex,
				read,
				{ kind, fileName, pages: all, bodySize: bodySize! },
				reads,
			)),
		};
	}
	// Every page selected: the document is sent as it is.
	if (selected !== undefined && selected.length !== read.pageCount.pages)
		return {
			kind,
			mimeType,
			fileName,
			...(await selectionOf(ctx, itemIndex, read, kind, selected, reads)),
		};
	const named = { fileName, mimeType };
	let partsPlanned: Planned[] | undefined;
	let planned = !plans;
	try {
		if (plans)
			partsPlanned = await partsNeeded(
				ctx,
				itemIndex,
				read,
				kind,
				plans.map((plan) => plan(named)),
				reads,
			);
		planned = true;
	} finally {
		if (!planned) read.release?.();
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
		partsPlanned,
	};
}

/** Where a read document's bytes come from again: memory, n8n's binary store, or its URL. */
function sourceOf(
	ctx: IExecuteFunctions,
	read: Read,
): () => Promise<AsyncIterable<Buffer | string> | Iterable<Buffer>> {
	const { bytes, binaryId, reopen } = read;
	if (bytes) return async () => [bytes];
	if (reopen) return async () => reopen();
	return async () => await ctx.helpers.getBinaryStream(binaryId!);
}

/**
 * A read document whole, in the caller's whole-read turn: the bytes in memory, the reading of
 * its count (`whole`, then let go of here), the kept chunks joined, else read again from its
 * source.
 */
async function wholeOf(ctx: IExecuteFunctions, read: Read): Promise<Buffer> {
	const whole = read.bytes ?? read.whole;
	read.whole = undefined;
	if (whole) return whole;
	if (read.chunks) return Buffer.concat(read.chunks, read.size);
	return await readWhole(await sourceOf(ctx, read)(), read.size);
}

type Planned = number | { problem: string };

/**
 * Count Pages: the parts a read document needs for each body size, planned as splitOf plans them
 * (in a whole-read turn, from the file as read for its count, else read again), or why it
 * cannot be split (the refusal Split Large Documents would give, without "Item N: ").
 */
async function partsNeeded(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	kind: DocumentKind,
	sizes: BodySize[],
	reads: DocumentReads,
): Promise<Planned[]> {
	const count = read.pageCount;
	const refusal = (error: unknown): Planned => ({
		problem: String((error as Error)?.message ?? error).replace(/^Item \d+: /, ''),
	});
	const needed = sizes.map((bodySize): boolean | Planned => {
		try {
			return needsParts(ctx, itemIndex, { kind, size: read.size, count }, bodySize);
		} catch (error) {
			return refusal(error);
		}
	});
	const settled = (need: boolean | Planned): Planned => (need === false ? 1 : (need as Planned));
	if (!needed.includes(true)) return needed.map(settled);
	const pages = Array.from({ length: count.pages! }, (_, i) => i + 1);
	return await reads.whole.run(async () => {
		const whole = await wholeOf(ctx, read);
		const planned: Planned[] = [];
		for (const [i, need] of needed.entries()) {
			if (need !== true) {
				planned.push(settled(need));
				continue;
			}
			try {
				const parts = await planParts(ctx, itemIndex, {
					whole,
					kind,
					pages,
					count,
					bodySize: sizes[i],
				});
				planned.push(parts.length);
			} catch (error) {
				planned.push(refusal(error));
			}
		}
		return planned;
	});
}

/**
 * A document whose body would pass the limit, as the parts it is sent in (./split.ts): planned
 * now from the whole file (the bytes read already, else read again in a whole-read turn) and let
 * go; each part's file is written again from the source when it is sent (`rebuilder`) and must
 * come out as planned. One part (a selection that fits) is the document itself.
 */
async function splitOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	what: { kind: DocumentKind; fileName: string; pages: number[]; bodySize: BodySize },
	reads: DocumentReads,
): Promise<
	Pick<
		DocumentInput,
		'size' | 'digest' | 'pageCount' | 'reopen' | 'selection' | 'parts' | 'release'
	>
> {
	const { kind, fileName, pages, bodySize } = what;
	const { bytes, binaryId, pageCount: count } = read;
	const from = sourceOf(ctx, read);
	const { plans, whole } = await reads.whole.run(async () => {
		try {
			const file = await wholeOf(ctx, read);
			const planned = await planParts(ctx, itemIndex, {
				whole: file,
				kind,
				pages,
				count,
				bodySize,
			});
			return { plans: planned, whole: file };
		} finally {
			read.release?.();
		}
	});
	const total = count.pages!;
	// The parts are written from one reading of the document when they are sent (see sharedRead):
	// a stored binary's, this one, kept until its last part is written where the kept bytes have
	// room (a URL document is fetched again when sent, as ever: the send reads what is there then).
	const keep = !bytes && binaryId !== undefined && reads.kept.fits(read.size);
	if (keep) reads.kept.take(read.size);
	const release = keep ? reads.kept.releaser(read.size) : undefined;
	const source = bytes
		? from
		: sharedRead(from, read.size, plans.length, release && { whole, release });
	const parts: DocumentInput[] = plans.map((plan, index) => ({
		kind,
		mimeType: KIND_INFO[kind].mime,
		fileName,
		size: plan.size,
		digest: plan.digest,
		pageCount: plan.pageCount,
		reopen: rebuilder(
			ctx,
			itemIndex,
			source,
			{ kind, pages: plan.pages, count, digest: plan.digest, sourceSize: read.size },
			reads,
		),
		selection: {
			pagesSent: rangesOf(plan.pages),
			pagesCounted: total,
			...(plan.encryptionRemoved ? { encryptionRemoved: plan.encryptionRemoved } : {}),
		},
		part: { index, of: plans.length, rest: plans.slice(index).map((p) => p.pages.length) },
	}));
	if (parts.length === 1) {
		const [{ size, digest, pageCount, reopen, selection }] = parts;
		return { size, digest, pageCount, reopen, selection };
	}
	const assumed = pages.length > 1 && count.pages !== null ? count.assumed : undefined;
	return {
		size: read.size,
		digest: read.digest,
		pageCount: assumed ? { pages: pages.length, assumed } : { pages: pages.length },
		selection: {
			pagesSent: rangesOf(pages),
			pagesCounted: total,
			...(plans[0].encryptionRemoved ? { encryptionRemoved: plans[0].encryptionRemoved } : {}),
		},
		parts,
		// The reading kept for the parts, given back when the item is over (batch/parts.ts) if its
		// last part did not take it (a part failed, the budget refused the document).
		release,
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
	const { binaryId, pageCount: count } = read;
	const source = read.bytes ? undefined : sourceOf(ctx, read);
	const keeps = (size: number) =>
		source === undefined ||
		((binaryId !== undefined || size <= KEEP_BYTES) && reads.kept.fits(size));
	const built = await reads.whole.run(async () => {
		try {
			const whole = await wholeOf(ctx, read);
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
		reopen = rebuilder(
			ctx,
			itemIndex,
			source!,
			{ kind, pages, count, digest, sourceSize: read.size },
			reads,
		);
	}
	return { size, digest, pageCount, reopen, selection: sent };
}

/**
 * A document's source read once for the parts that are written from it in turn when they are
 * sent: the first part to be written reads it whole (one buffer, its size known) — or takes the
 * reading of the check phase, `kept` within the kept bytes — the next ones take that reading, and
 * it is let go once `uses` parts have taken it (a part written again later, for a retried
 * request, reads the source anew). So a split document is held whole once while its parts are
 * sent, not once per part.
 */
function sharedRead(
	from: () => Promise<AsyncIterable<Buffer | string> | Iterable<Buffer>>,
	size: number,
	uses: number,
	kept?: { whole: Buffer; release: () => void },
): () => Promise<Iterable<Buffer>> {
	let reading: Promise<Buffer> | undefined = kept && Promise.resolve(kept.whole);
	let left = uses;
	return async () => {
		if (left <= 0) return [await readWhole(await from(), size)];
		if (!reading) {
			const started = (async () => await readWhole(await from(), size))();
			// A failed reading is not handed to the next part: it reads again.
			started.catch(() => {
				if (reading === started) reading = undefined;
			});
			reading = started;
		}
		const current = reading;
		if (--left === 0) {
			reading = undefined;
			kept?.release();
		}
		return [await current];
	};
}

/**
 * Builds a selection again when it is sent, from its source read again (a URL fetched again must
 * still be the same file), in a whole-read turn; the same pages of the same file make the same
 * bytes, so one that differs from what was checked is refused.
 */
function rebuilder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	source: () => Promise<AsyncIterable<Buffer | string> | Iterable<Buffer>>,
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
