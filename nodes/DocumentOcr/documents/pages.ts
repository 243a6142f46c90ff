/**
 * The page count of a document, read from its bytes before anything is sent (issue 31): the
 * service bills per page, so a workflow can see the cost before paying it. Pure, no dependencies
 * (compressed PDF streams are inflated by pages/inflate.ts).
 *
 * - PDF (pages/pdf.ts): the page tree's /Count under the catalog's /Pages, found through the
 *   cross-reference (pages/xref.ts: classic tables, cross-reference and object streams stored
 *   without a filter or FlateDecode-compressed with or without a PNG predictor, pages/inflate.ts;
 *   incremental updates and linearized files through the last startxref and /Prev), checked
 *   against a walk of the /Kids tree. Where the cross-reference cannot be read, a scan for
 *   `N G obj` headers stands in only when it is unambiguous (every object needed defined once,
 *   no object streams in the file).
 * - TIFF (pages/tiff.ts): the chain of image file directories (classic and BigTIFF, either byte
 *   order).
 * - PNG, JPEG, WEBP, GIF: one page.
 *
 * Where the count is not certain it is null with a reason, never a guess. The work is bounded
 * (objects read, bytes parsed and inflated, streams inflated, tree depth: PAGE_LIMITS) and
 * linear in the file's size, metered (Work, pages/limits.ts), so a hostile file answers null
 * quickly; the count lets the event loop run about every 10 ms. The memory held is bounded too
 * (inflated object streams kept within a share of the file's size, one stream's inflated size,
 * object locations no more than the file can hold); the promise never rejects.
 */
import type { DocumentKind } from './check';
import { attempt, strip, Work, type PageCount } from './pages/limits';
import { countPdfPages } from './pages/pdf';
import { countTiffPages } from './pages/tiff';

export { PAGE_LIMITS, type PageCount } from './pages/limits';

/** The pages of `bytes`, a document of `kind`; `signal` cancels the count (null, with why). */
export async function countPages(
	bytes: Buffer,
	kind: DocumentKind,
	signal?: AbortSignal,
): Promise<PageCount> {
	return (await countWithWork(bytes, kind, signal)).count;
}

/** The count and the work it took (the meter's reading: the same file always costs the same). */
export async function countWithWork(
	bytes: Buffer,
	kind: DocumentKind,
	signal?: AbortSignal,
): Promise<{ count: PageCount; work: number }> {
	const work = new Work(bytes.length, signal);
	return { count: await count(bytes, kind, work), work: work.done };
}

async function count(bytes: Buffer, kind: DocumentKind, work: Work): Promise<PageCount> {
	try {
		if (kind === 'pdf') return await countPdfPages(bytes, work);
		if (kind === 'tiff') return strip(await attempt(async () => await countTiffPages(bytes, work)));
		return { pages: 1 };
	} catch (error) {
		return {
			pages: null,
			reason: `the file could not be read (${(error as Error)?.message ?? String(error)})`,
		};
	}
}
