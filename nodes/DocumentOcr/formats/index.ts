/**
 * The page count of a document, read from its bytes before anything is sent (issue 31): the
 * service bills per page, so a workflow can see the cost before paying it. Pure, no dependencies
 * (compressed PDF streams are inflated by streams.ts).
 *
 * - PDF (pdf.ts): the page tree's /Count under the catalog's /Pages, found through the
 *   cross-reference (xref.ts: classic tables, cross-reference and object streams stored
 *   without a filter or FlateDecode-compressed with or without a PNG predictor, streams.ts;
 *   incremental updates and linearized files through the last startxref and /Prev), checked
 *   against a walk of the /Kids tree. Where the cross-reference cannot be read, a scan for
 *   `N G obj` headers stands in only when it is unambiguous (every object needed defined once,
 *   no object streams in the file).
 * - TIFF (tiff.ts): the chain of image file directories (classic and BigTIFF, either byte
 *   order).
 * - GIF, PNG, WEBP (images.ts): the frames of an animated image; a still image is one page.
 * - JPEG: one page.
 *
 * Where the count is not certain it is null with a reason, never a guess. The service's spec does
 * not say how the frames of an animated image or a TIFF's directories are billed: more than one
 * is counted as one page each, and the count says so (`assumed`); for a Page Budget that is the
 * safe side, an upper bound. The work is bounded
 * (objects read, bytes parsed and inflated, streams inflated, tree depth: PAGE_LIMITS) and
 * linear in the file's size, metered (Work, limits.ts), so a hostile file answers null
 * quickly; the count lets the event loop run about every 10 ms through the pause its caller
 * gives (documents/ gives n8n's `sleep`). The memory held is bounded too
 * (inflated object streams kept within a share of the file's size, one stream's inflated size,
 * object locations no more than the file can hold); the promise never rejects.
 */
import { gifFrames, pngFrames, webpFrames } from './images';
import { FormatError, readCount, strip, Work, type PageCount, type Pause } from './limits';
import { countPdfPages } from './pdf';
import {
	pdfParts,
	selectPdfPages,
	type SplitOptions,
	type WriteOptions,
	type Written,
	type WrittenPart,
} from './pdf-write';
import { countTiffPages } from './tiff';
import { selectTiffPages, tiffParts } from './tiff-write';

export { FormatError, PAGE_LIMITS, type PageCount, type Pause } from './limits';
export { parsePageSelection, SELECTION_SYNTAX } from './ranges';
export type { SplitOptions, WriteOptions, Written, WrittenPart };
export { selectPdfPages, splitPdf } from './pdf-write';
export { selectTiffPages, splitTiff } from './tiff-write';
// (splitPdf and splitTiff gather their parts: tests and benchmarks read them whole)

/** The kinds of file the room reads (documents/check.ts's DocumentKind, the ones sent, is among them). */
export type FileKind = 'pdf' | 'png' | 'jpeg' | 'webp' | 'tiff' | 'gif' | 'bmp';

/**
 * The pages of `bytes`, a document of `kind`; `signal` cancels the count (null, with why), `pause`
 * lets the event loop run about every 10 ms (without one the count runs through).
 */
export async function countPages(
	bytes: Buffer,
	kind: FileKind,
	signal?: AbortSignal,
	pause?: Pause,
): Promise<PageCount> {
	return (await countWithWork(bytes, kind, signal, pause)).count;
}

/** The count and the work it took (the meter's reading: the same file always costs the same). */
export async function countWithWork(
	bytes: Buffer,
	kind: FileKind,
	signal?: AbortSignal,
	pause?: Pause,
): Promise<{ count: PageCount; work: number }> {
	const work = new Work(bytes.length, signal, pause);
	return { count: await count(bytes, kind, work), work: work.done };
}

/** The images of a kind that can hold several, and what a count of more than one assumes. */
const IMAGES: Partial<
	Record<FileKind, { read: (bytes: Buffer, work: Work) => Promise<number>; assumed: string }>
> = {
	tiff: {
		read: countTiffPages,
		assumed:
			"the service's spec does not say how the directories (pages) of a multi-page TIFF are billed; counted as one page per directory",
	},
	gif: {
		read: gifFrames,
		assumed:
			"the service's spec does not say how the frames of an animated GIF are billed; counted as one page per frame",
	},
	png: {
		read: pngFrames,
		assumed:
			"the service's spec does not say how the frames of an animated PNG are billed; counted as one page per frame",
	},
	webp: {
		read: webpFrames,
		assumed:
			"the service's spec does not say how the frames of an animated WEBP are billed; counted as one page per frame",
	},
};

async function count(bytes: Buffer, kind: FileKind, work: Work): Promise<PageCount> {
	try {
		if (kind === 'pdf') return await countPdfPages(bytes, work);
		const images = IMAGES[kind];
		if (!images) return { pages: 1 };
		const read = await readCount(async () => await images.read(bytes, work));
		if (read.pages === null || read.pages === 1) return strip(read);
		return { pages: read.pages, assumed: images.assumed };
	} catch (error) {
		return {
			pages: null,
			reason: `the file could not be read (${(error as Error)?.message ?? String(error)})`,
		};
	}
}

/**
 * The pages `pages` names (1-based, ascending, each once: parsePageSelection gives them so) of a
 * document of `kind`, as a new file: a PDF's or a TIFF's copied (pdf-write.ts, tiff-write.ts); an
 * image is one page, page 1, returned as it is. Throws a FormatError.
 */
export async function selectPages(
	bytes: Buffer,
	kind: FileKind,
	pages: number[],
	options: WriteOptions = {},
): Promise<Written> {
	if (kind === 'pdf') return await selectPdfPages(bytes, pages, options);
	if (kind === 'tiff') return await selectTiffPages(bytes, pages, options);
	if (pages.length !== 1 || pages[0] !== 1)
		throw new FormatError(`a ${kind.toUpperCase()} image is one page: only page 1 can be selected`);
	return { chunks: [bytes], length: bytes.length };
}

/**
 * A document of `kind` cut in page order into as few parts as `fits` (the size of each part's
 * file, in bytes), given one at a time (the caller lets a part go before the next is written); a
 * PDF's or a TIFF's pages copied into each part, an image one part as it is. `options.pages` cuts
 * only those pages (a selection). Each part is the file selectPages writes for the part's pages,
 * byte for byte, so a part can be written again from its pages alone. A page (or an image) that
 * does not fit alone is a FormatError.
 */
export async function* partsOf(
	bytes: Buffer,
	kind: FileKind,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): AsyncGenerator<WrittenPart> {
	if (kind === 'pdf') return yield* pdfParts(bytes, fits, options);
	if (kind === 'tiff') return yield* tiffParts(bytes, fits, options);
	if (!fits(bytes.length))
		throw new FormatError(
			`the ${kind.toUpperCase()} image (${bytes.length} bytes) is one page, more than the limit allows: it cannot be split`,
		);
	yield { chunks: [bytes], length: bytes.length, first: 1, last: 1, pages: [1] };
}

/** Every part of partsOf, gathered. */
export async function splitPages(
	bytes: Buffer,
	kind: FileKind,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): Promise<WrittenPart[]> {
	const parts: WrittenPart[] = [];
	for await (const part of partsOf(bytes, kind, fits, options)) parts.push(part);
	return parts;
}
