/**
 * What the readers and writers of formats/ share: the answer's type, the limits on the work done
 * for one file, the meter of that work, and the errors that say why a count is unknown. The room
 * imports nothing of n8n: the caller hands in how a long read pauses (documents/ passes n8n's
 * `sleep`).
 */

/**
 * Lets the event loop run (a timer of 0 ms, say); without one, a read runs through (a script, a
 * test).
 */
export type Pause = () => Promise<void>;
const RUN_THROUGH: Pause = async () => await Promise.resolve();

/**
 * A document's pages, or why they are unknown. `assumed` says what the number rests on where the
 * service's spec does not say how it bills (the frames of an animated image, a TIFF's directories).
 */
export type PageCount = { pages: number; assumed?: string } | { pages: null; reason: string };

/** Limits on the work done for one file. */
export const PAGE_LIMITS = {
	/** Objects read from the file (the page tree and what leads to it). */
	maxObjects: 200_000,
	/** Bytes the object parser may read, as a multiple of the file's size (plus 64 kB). */
	parseFactor: 4,
	/** Levels of the page tree (real files use a handful). */
	maxTreeDepth: 64,
	/** Nesting of arrays and dictionaries inside one object. */
	maxNesting: 32,
	/**
	 * Bytes one object may take: an object is read in one go, without letting the event loop run
	 * (page tree objects take a few kB; a /Kids of maxObjects references, 1.8 MB at most).
	 */
	maxObjectBytes: 2_000_000,
	/** Cross-reference sections followed through /Prev. */
	maxXrefSections: 256,
	/** Images in one file: a TIFF's directories, the frames of an animated GIF, PNG or WEBP. */
	maxImages: 100_000,
	/**
	 * Inflated object streams kept for later reads, as a multiple of the file's size (the stream
	 * being read is always kept; one let go is inflated again when needed, within the limits below).
	 */
	streamCacheFactor: 0.25,
	/** Compressed streams (cross-reference and object streams) inflated for one file, again included. */
	maxInflatedStreams: 4096,
	/** Bytes one stream may inflate to. */
	maxInflatedStream: 8_000_000,
	/**
	 * ...and no more than this multiple of the file's size, plus 128 kB: the stream is held in
	 * memory whole.
	 */
	inflatedStreamFactor: 0.5,
	/** Bytes all streams of a file may inflate to: this multiple of the file's size, plus 1 MB... */
	inflateFactor: 16,
	/** ...and never more than this. */
	maxInflatedTotal: 64_000_000,
	/**
	 * Bytes the content streams a copy reads (what its pages draw, content.ts) may decode to, as a
	 * multiple of the file's size, plus 8 MB, and never more than maxContent: they are read chunk
	 * by chunk, never held whole, so this bounds the time a copy spends, not its memory.
	 */
	contentFactor: 32,
	maxContent: 512_000_000,
};

/** How long a count holds the event loop before it lets other work run, in ms. */
const PAUSE_AFTER_MS = 10;
/**
 * Units of work between two looks at the clock: a unit is about a byte read or an element
 * handled, so even code not yet optimised by V8 looks every few ms.
 */
const CLOCK_EVERY = 4096;

/**
 * The work of one count: what it may still do (the limits above, for the file's size) and the
 * meter of what it did. The readers charge the meter for everything they do (bytes parsed,
 * scanned, inflated and decoded; entries read and elements copied; objects, directories, frames
 * and chunks), so the same file always costs the same, whatever the machine. Their loops ask
 * `due()` and await `pause()`, which lets the event loop run about every 10 ms.
 */
export class Work {
	/** The meter: units of work done so far. */
	done = 0;
	/** Bytes the parser may still read. */
	parse: number;
	/** Bytes all compressed streams may still inflate to. */
	inflated: number;
	/** Compressed streams that may still be inflated. */
	streams: number;
	/** Bytes the content streams a copy reads may still decode to. */
	content: number;
	/** The bytes one stream may inflate to (its share of memory). */
	readonly stream: number;
	/** The meter's reading at which the clock is read next. */
	private look = CLOCK_EVERY;
	/** When the event loop last ran. */
	private since = Date.now();

	constructor(
		size: number,
		private readonly signal?: AbortSignal,
		private readonly pauser: Pause = RUN_THROUGH,
	) {
		this.parse = size * PAGE_LIMITS.parseFactor + 65_536;
		this.inflated = Math.min(
			size * PAGE_LIMITS.inflateFactor + 1_000_000,
			PAGE_LIMITS.maxInflatedTotal,
		);
		this.streams = PAGE_LIMITS.maxInflatedStreams;
		this.content = Math.min(size * PAGE_LIMITS.contentFactor + 8_000_000, PAGE_LIMITS.maxContent);
		this.stream = Math.min(
			PAGE_LIMITS.maxInflatedStream,
			Math.floor(size * PAGE_LIMITS.inflatedStreamFactor) + 131_072,
		);
	}

	charge(units: number): void {
		this.done += units;
	}

	/** Whether the count has held the event loop long enough (the clock is read now and then). */
	due(): boolean {
		if (this.done < this.look) return false;
		this.look = this.done + CLOCK_EVERY;
		return Date.now() - this.since >= PAUSE_AFTER_MS;
	}

	/** Lets the event loop run; the count is unknown once its execution is cancelled. */
	async pause(): Promise<void> {
		await this.pauser();
		this.ran();
	}

	/** The event loop ran (a pause, or a stream's chunk awaited). */
	ran(): void {
		this.since = Date.now();
		if (this.signal?.aborted) throw new Unknown('the count was cancelled');
	}
}

/** Why a count is unknown; thrown inside the readers, caught by countPages. */
export class Unknown extends Error {}
/** The cross-reference cannot be read or does not match the file: a scan may stand in for it. */
export class BrokenXref extends Unknown {}

/** A count, or why it is unknown (a read past the end included); `broken` for BrokenXref. */
export type CountOutcome = { pages: number } | { pages: null; reason: string; broken: boolean };

/** Runs a counter: its count, or why it is unknown; never rejects. */
export async function readCount(count: () => Promise<number>): Promise<CountOutcome> {
	try {
		return { pages: await count() };
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

export function strip(result: CountOutcome): PageCount {
	return result.pages === null ? { pages: null, reason: result.reason } : { pages: result.pages };
}

/**
 * Why a page selection, a subset or a split is refused: what is wrong, in words a user can act on
 * (the reader's own reason included).
 */
export class FormatError extends Error {}
