import { sleep } from 'n8n-workflow';

/**
 * A deadline for one read that is not the OCR service's (a user's file server): `signal` aborts
 * when the time is up or when the execution is cancelled, and `expired` tells which. The clock is
 * n8n's `sleep`, stopped by `end()` once the read is over.
 */
export class ReadDeadline {
	expired = false;

	private readonly controller = new AbortController();

	private readonly onCancel = () => this.controller.abort();

	constructor(
		readonly ms: number,
		private readonly cancel?: AbortSignal,
	) {
		cancel?.addEventListener('abort', this.onCancel, { once: true });
		if (cancel?.aborted) this.controller.abort();
		sleep(ms, this.controller.signal).then(
			() => {
				if (this.controller.signal.aborted) return;
				this.expired = true;
				this.controller.abort();
			},
			() => {
				// Ended early: the read is over, or the execution was cancelled.
			},
		);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** The read is over: stop the clock. */
	end() {
		this.cancel?.removeEventListener('abort', this.onCancel);
		if (!this.controller.signal.aborted) this.controller.abort();
	}
}
