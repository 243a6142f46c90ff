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
export const KEEP_BUDGET_BYTES = 32 * 1024 * 1024;

/** The bytes of documents one execution keeps in memory between its check and send phases. */
export class KeepBudget {
	used = 0;

	constructor(readonly limit = KEEP_BUDGET_BYTES) {}

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
