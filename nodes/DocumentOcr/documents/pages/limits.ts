/**
 * What the page counter shares between its readers: the answer's type, the bounds on the work
 * done for one file, and the errors that say why a count is unknown.
 */

export type PageCount = { pages: number } | { pages: null; reason: string };

/** Bounds on the work done for one file. */
export const PAGE_LIMITS = {
	/** Objects read from the file (the page tree and what leads to it). */
	maxObjects: 200_000,
	/** Bytes the object parser may read, as a multiple of the file's size (plus 64 kB). */
	parseFactor: 4,
	/** Levels of the page tree (real files use a handful). */
	maxTreeDepth: 64,
	/** Nesting of arrays and dictionaries inside one object. */
	maxNesting: 32,
	/** Cross-reference sections followed through /Prev. */
	maxXrefSections: 256,
	/** Image directories of a TIFF. */
	maxTiffDirectories: 100_000,
	/**
	 * Inflated object streams kept for later reads, as a multiple of the file's size (the stream
	 * being read is always kept; one let go is inflated again when needed, from the budget below).
	 */
	streamCacheFactor: 0.25,
	/** Compressed streams (cross-reference and object streams) inflated for one file, again included. */
	maxInflatedStreams: 4096,
	/** Bytes one stream may inflate to. */
	maxInflatedStream: 8_000_000,
	/**
	 * ...and no more than this multiple of the file's size, plus 128 kB: the stream is held in
	 * memory whole, and while its output grows the old and the new buffer are held together.
	 */
	inflatedStreamFactor: 0.5,
	/** Bytes all streams of a file may inflate to: this multiple of the file's size, plus 1 MB... */
	inflateFactor: 16,
	/** ...and never more than this. */
	maxInflatedTotal: 64_000_000,
};

/** What one file may still spend: parsed bytes, inflated bytes, inflated streams. */
export interface Budget {
	bytes: number;
	inflated: number;
	streams: number;
	/** The bytes one stream may inflate to (its share of memory). */
	stream: number;
}

export function budgetFor(size: number): Budget {
	return {
		stream: Math.min(
			PAGE_LIMITS.maxInflatedStream,
			Math.floor(size * PAGE_LIMITS.inflatedStreamFactor) + 131_072,
		),
		bytes: size * PAGE_LIMITS.parseFactor + 65_536,
		inflated: Math.min(size * PAGE_LIMITS.inflateFactor + 1_000_000, PAGE_LIMITS.maxInflatedTotal),
		streams: PAGE_LIMITS.maxInflatedStreams,
	};
}

/** Why a count is unknown; thrown inside the readers, caught by countPages. */
export class Unknown extends Error {}
/** The cross-reference cannot be read or does not match the file: a scan may stand in for it. */
export class BrokenXref extends Unknown {}

/** A count, or why it is unknown (a read past the end included); `broken` for BrokenXref. */
export type Attempt = { pages: number } | { pages: null; reason: string; broken: boolean };

/** Runs a counter: its count, or why it is unknown; never throws. */
export function attempt(count: () => number): Attempt {
	try {
		return { pages: count() };
	} catch (error) {
		if (error instanceof Unknown)
			return { pages: null, reason: error.message, broken: error instanceof BrokenXref };
		return {
			pages: null,
			reason: `the file could not be read (${(error as Error)?.message ?? String(error)})`,
			broken: false,
		};
	}
}

export function strip(result: Attempt): PageCount {
	return result.pages === null ? { pages: null, reason: result.reason } : { pages: result.pages };
}
