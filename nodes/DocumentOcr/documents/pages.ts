/**
 * The page count of a document, read from its bytes before anything is sent (issue 31): the
 * service bills per page, so a workflow can see the cost before paying it. Pure, no dependencies
 * (compressed PDF streams are inflated by pages/flate.ts); synchronous inside, a promise outside.
 *
 * - PDF (pages/pdf.ts): the page tree's /Count under the catalog's /Pages, found through the
 *   cross-reference (pages/xref.ts: classic tables, cross-reference and object streams stored
 *   without a filter or FlateDecode-compressed with or without a PNG predictor, pages/inflate.ts
 *   and pages/flate.ts; incremental updates and linearized files through the last startxref and
 *   /Prev), checked
 *   against a walk of the /Kids tree. Where the cross-reference cannot be read, a scan for
 *   `N G obj` headers stands in only when it is unambiguous (every object needed defined once,
 *   no object streams in the file).
 * - TIFF (pages/tiff.ts): the chain of image file directories (classic and BigTIFF, either byte
 *   order).
 * - PNG, JPEG, WEBP, GIF: one page.
 *
 * Where the count is not certain it is null with a reason, never a guess. The work is bounded
 * (objects read, bytes parsed and inflated, streams inflated, tree depth: PAGE_LIMITS), so a
 * hostile file answers null quickly, and so is the memory held (inflated object streams kept
 * within a share of the file's size, one stream's inflated size, object locations no more than
 * the file can hold); the promise never rejects.
 */
import type { DocumentKind } from './check';
import { attempt, strip, type PageCount } from './pages/limits';
import { countPdfPages } from './pages/pdf';
import { countTiffPages } from './pages/tiff';

export { PAGE_LIMITS, type PageCount } from './pages/limits';

export async function countPages(bytes: Buffer, kind: DocumentKind): Promise<PageCount> {
	try {
		if (kind === 'pdf') return countPdfPages(bytes);
		if (kind === 'tiff') return strip(attempt(() => countTiffPages(bytes)));
		return { pages: 1 };
	} catch (error) {
		return {
			pages: null,
			reason: `the file could not be read (${(error as Error)?.message ?? String(error)})`,
		};
	}
}
