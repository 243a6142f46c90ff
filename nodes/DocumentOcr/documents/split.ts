import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { PageCount } from '../formats';
import { FormatError, partsOf } from '../formats';
import { booleanField, itemFields } from '../shared/validate';
import type { DocumentKind } from './check';
import { formatBytes, KIND_INFO, MAX_BODY_BYTES, SPLIT_OPTION } from './check';
import type { Chunks, DocumentInput } from './document';
import { readerOf, readWhole } from './document';
import type { DocumentReads } from './kept';
import { digestOfChunks } from './scan';
import { pagesWriter, rangesOf, refusedBeforeSending } from './select';
import type { Read } from './sources';
import { wholeOf } from './sources';

/*
 * Split Large Documents (issue 37): a PDF or TIFF whose request body would pass the service's
 * limit is cut, in page order, into as few parts as fit (formats/: splitPages), each sent as a
 * submission of its own. The check phase plans the parts — their pages, each file's size and
 * SHA-256 — and lets the bytes go; each part's file is written again from the document when it is
 * sent (./select.ts: pagesWriter), and must come out the same.
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

/** The parts a document needs for one body size, or why it cannot be split. */
type Planned = number | { problem: string };

/**
 * Count Pages: the parts a read document needs for each body size, planned as splitOf plans them
 * (in a whole-read turn, from the file as read for its count, else read again), or why it
 * cannot be split (the refusal Split Large Documents would give, without "Item N: ").
 */
export async function partsNeeded(
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
				const bodySize = sizes[i];
				planned.push(
					(await planParts(ctx, itemIndex, { whole, kind, pages, count, bodySize })).length,
				);
			} catch (error) {
				planned.push(refusal(error));
			}
		}
		return planned;
	});
}

/**
 * A document whose body would pass the limit, as the parts it is sent in: planned now from the
 * whole file (the bytes read already, else read again in a whole-read turn) and let go; each
 * part's file is written again from the source when it is sent (./select.ts: pagesWriter) and
 * must come out as planned. One part (a selection that fits) is the document itself.
 */
export async function splitOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: Read,
	what: { kind: DocumentKind; fileName: string; pages: number[]; bodySize: BodySize },
	reads: DocumentReads,
): Promise<
	Pick<DocumentInput, 'size' | 'digest' | 'pageCount' | 'bytes' | 'selection' | 'parts' | 'release'>
> {
	const { kind, fileName, pages, bodySize } = what;
	const { bytes: at, pageCount: count } = read;
	const from = readerOf(ctx, at);
	// Planned in a whole-read turn; the kept bytes of the check are let go.
	const { plans, whole } = await reads.whole.run(async () => {
		try {
			const file = await wholeOf(ctx, read);
			const plan = { whole: file, kind, pages, count, bodySize };
			return { plans: await planParts(ctx, itemIndex, plan), whole: file };
		} finally {
			read.release?.();
		}
	});
	// The parts are written from one reading of the document when they are sent (see sharedRead):
	// a stored binary's, this one, kept until its last part is written where the kept bytes have
	// room (a URL document is fetched again when sent, as ever: the send reads what is there then).
	const keep = at.in === 'store' && reads.kept.fits(read.size);
	if (keep) reads.kept.take(read.size);
	const release = keep ? reads.kept.releaser(read.size) : undefined;
	const source =
		at.in === 'memory'
			? from
			: sharedRead(from, read.size, plans.length, release && { whole, release });
	const parts = plans.map((plan, index) =>
		partOf(plan, index, plans, { kind, fileName, count, sourceSize: read.size }, (what) =>
			pagesWriter(ctx, itemIndex, source, what, reads),
		),
	);
	if (parts.length === 1) {
		const [{ size, digest, pageCount, bytes, selection }] = parts;
		return { size, digest, pageCount, bytes, selection };
	}
	const assumed = pages.length > 1 && count.pages !== null ? count.assumed : undefined;
	const { encryptionRemoved } = plans[0];
	return {
		size: read.size,
		digest: read.digest,
		pageCount: assumed ? { pages: pages.length, assumed } : { pages: pages.length },
		// Its parts are sent; the document itself is where it was read (its kept chunks let go).
		bytes: at.in === 'store' ? { in: 'store', binaryId: at.binaryId } : at,
		selection: {
			pagesSent: rangesOf(pages),
			pagesCounted: count.pages!,
			...(encryptionRemoved ? { encryptionRemoved } : {}),
		},
		parts,
		// The reading kept for the parts, given back when the item is over (batch/send.ts) if its
		// last part did not take it (a part failed, the budget refused the document).
		release,
	};
}

/** What a part is written again from when sent: the document's kind, count and size. */
interface PartSource {
	kind: DocumentKind;
	fileName: string;
	count: PageCount;
	sourceSize: number;
}

/** A planned part as the document it is sent as: its pages written again from the source. */
function partOf(
	plan: PartPlan,
	index: number,
	plans: PartPlan[],
	source: PartSource,
	writer: (what: Parameters<typeof pagesWriter>[3]) => () => AsyncIterable<Buffer>,
): DocumentInput {
	const { kind, fileName, count, sourceSize } = source;
	return {
		kind,
		mimeType: KIND_INFO[kind].mime,
		fileName,
		size: plan.size,
		digest: plan.digest,
		pageCount: plan.pageCount,
		bytes: {
			in: 'pages',
			write: writer({ kind, pages: plan.pages, count, digest: plan.digest, sourceSize }),
		},
		selection: {
			pagesSent: rangesOf(plan.pages),
			pagesCounted: count.pages!,
			...(plan.encryptionRemoved ? { encryptionRemoved: plan.encryptionRemoved } : {}),
		},
		part: { index, of: plans.length, rest: plans.slice(index).map((p) => p.pages.length) },
	};
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
	from: () => Promise<Chunks>,
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
