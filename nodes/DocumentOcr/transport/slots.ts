/** Requests in flight at the start; more open while the service keeps up. */
export const START_SLOTS = 4;

/**
 * The request slots of one service client, and its rate-limit gate. Slots open like TCP's
 * congestion window: START_SLOTS at first, one more per successful answer up to the user's
 * Concurrency; a 429 (or any answer that asks to wait with Retry-After) halves them, and from then
 * on they grow by only one per `limit` successful answers. A service that keeps up gets the
 * user's Concurrency; one that throttles gets what it can take. The gate pauses every request of
 * the client — a 429 slows down every concurrent item, not only the one that received it.
 */
export class RequestSlots {
	/** No request starts before this time (epoch ms). */
	gateUntil = 0;

	private limit: number;

	private active = 0;

	/** Requests waiting for a slot, in the order they asked. */
	private queued: Array<() => void> = [];

	private throttledOnce = false;

	private successes = 0;

	/** @param concurrency the most requests in flight at once (uploads and status checks alike). */
	constructor(readonly concurrency: number) {
		this.limit = Math.min(concurrency, START_SLOTS);
	}

	/**
	 * Takes a slot (waits for one to free up), first come first served. Status checks are not put
	 * behind submissions: a check may find a failed task, which (without Continue on Fail) must
	 * stop the submissions not yet sent as early as it can.
	 */
	async acquire(): Promise<void> {
		if (this.active < this.limit) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.queued.push(resolve));
	}

	/** Frees a slot, handing it straight to the next request in line while slots are open. */
	release() {
		if (this.active <= this.limit) {
			const next = this.queued.shift();
			if (next) return next();
		}
		this.active--;
	}

	/** The service asked to slow down (a 429, a Retry-After): halve the open slots. */
	throttled() {
		this.throttledOnce = true;
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.successes = 0;
	}

	/** A request succeeded: open one more slot (up to `concurrency`). */
	succeeded() {
		if (this.limit >= this.concurrency) return;
		if (this.throttledOnce && ++this.successes < this.limit) return;
		this.successes = 0;
		this.limit++;
		const next = this.queued.shift();
		if (next) {
			this.active++;
			next();
		}
	}

	/** Closes the gate until `until` (epoch ms) and sends fewer requests at once from then on. */
	closeGate(until: number) {
		this.gateUntil = Math.max(this.gateUntil, until);
		this.throttled();
	}
}
