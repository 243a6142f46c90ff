/**
 * A stored document up to this size is kept in memory once read in the check phase, as one
 * Buffer: the send then needs no second read of n8n's binary store (a file open per item, most of
 * a small item's cost).
 */
export const KEEP_BYTES = 64 * 1024;

/**
 * The most kept per node execution: small documents for the whole run (e.g. 5,000 one-page scans
 * of ~2 kB = 10 MB), large ones as the chunks read in the check phase until they are sent. A
 * large document that does not fit is read twice (check, then send) instead.
 */
export const KEPT_BYTES_MAX = 32 * 1024 * 1024;

/** The bytes of documents one execution keeps in memory between its check and send phases. */
export class KeptBytes {
	used = 0;

	constructor(readonly limit = KEPT_BYTES_MAX) {}

	/** Whether `bytes` more would fit. */
	fits(bytes: number): boolean {
		return this.used + bytes <= this.limit;
	}

	take(bytes: number) {
		this.used += bytes;
	}

	/** Gives `bytes` back, once; returns the function that does it. */
	releaser(bytes: number): () => void {
		let given = false;
		return () => {
			if (given) return;
			given = true;
			this.used -= bytes;
		};
	}
}

/**
 * Documents held whole at once to count their pages (./pages reads a PDF's cross-reference at
 * its end and its objects anywhere): a document that is not kept for the send is read whole only
 * in one of these turns, then let go, so the check phase holds at most this many such files
 * whatever the number of items checked at once — each at most 10 MB (MAX_BODY_BYTES), or 50 MB
 * (SPLIT_READ_BYTES, ./check.ts) with Split Large Documents and in Count Pages, which read
 * documents past the service's limit to cut them into parts or plan the parts.
 */
export const WHOLE_READS = 2;

/** Turns to hold a document whole, WHOLE_READS at a time, first come first served. */
export class WholeReads {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit = WHOLE_READS) {}

	/** Runs `work` in a turn; the turn passes on when it settles. */
	async run<T>(work: () => Promise<T>): Promise<T> {
		if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
		else this.active++;
		try {
			return await work();
		} finally {
			const next = this.waiting.shift();
			if (next) next();
			else this.active--;
		}
	}
}

/**
 * How one execution reads its documents: what it keeps between the check and send phases
 * (`kept`), the turns to hold a document whole for its page count (`whole`), and whether a
 * document whose pages cannot be counted is refused (`countRequired`: a Page Budget is set).
 */
export interface DocumentReads {
	kept: KeptBytes;
	whole: WholeReads;
	countRequired: boolean;
}

export function documentReads(countRequired = false): DocumentReads {
	return { kept: new KeptBytes(), whole: new WholeReads(), countRequired };
}
