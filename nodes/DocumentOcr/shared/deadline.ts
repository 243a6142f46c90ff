import { sleep } from 'n8n-workflow';

/**
 * A deadline for one read that is not the OCR service's (a user's file server), measured in the
 * time the reader waits on that server: `signal` aborts once the waiting adds up to `ms`, or when
 * the execution is cancelled, and `expired` tells which.
 *
 * The clock runs from the start (the request, its headers) and whenever the reader waits for the
 * server's next bytes; `pause()` stops it while the reader holds what arrived, `resume()` starts
 * it again when the reader asks for more. So a reader that passes the bytes on slowly (into an
 * upload behind a slow link, read only as fast as it goes) is not taken for a slow server, while
 * a server that stalls or drips still reaches the deadline. The clock is n8n's `sleep`, one at a
 * time (a sleep that ends early for a pause is not re-armed until the clock runs again), stopped
 * by `end()` once the read is over.
 */
export class ReadDeadline {
	expired = false;

	private readonly controller = new AbortController();

	private readonly onCancel = () => this.controller.abort();

	/** Waiting time (ms) of the stretches that are over. */
	private spent = 0;

	/** When the current stretch of waiting started (epoch ms); undefined while paused. */
	private since: number | undefined;

	/** Whether a `sleep` is under way. */
	private armed = false;

	constructor(
		readonly ms: number,
		private readonly cancel?: AbortSignal,
	) {
		cancel?.addEventListener('abort', this.onCancel, { once: true });
		if (cancel?.aborted) this.controller.abort();
		this.resume();
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** Time spent waiting on the server so far (ms). */
	get waited(): number {
		return this.spent + (this.since === undefined ? 0 : Date.now() - this.since);
	}

	/** The reader holds what arrived: the clock stops. */
	pause() {
		if (this.since === undefined) return;
		this.spent += Date.now() - this.since;
		this.since = undefined;
	}

	/** The reader waits on the server again: the clock runs. */
	resume() {
		if (this.since !== undefined || this.controller.signal.aborted) return;
		this.since = Date.now();
		this.arm();
	}

	/** The read is over: stop the clock. */
	end() {
		this.cancel?.removeEventListener('abort', this.onCancel);
		if (!this.controller.signal.aborted) this.controller.abort();
	}

	/** Sleeps until the time left would be used up if the clock ran throughout, then looks again. */
	private arm() {
		if (this.armed || this.controller.signal.aborted) return;
		const left = this.ms - this.waited;
		if (left <= 0) {
			this.expired = true;
			this.controller.abort();
			return;
		}
		this.armed = true;
		sleep(left, this.controller.signal).then(
			() => {
				this.armed = false;
				// Paused meanwhile: resume() arms again for what is left.
				if (this.since !== undefined) this.arm();
			},
			() => {
				// Ended early: the read is over, or the execution was cancelled.
			},
		);
	}
}
