'use strict';
/**
 * Work queue with `workers` concurrent async workers. `order`: 'fifo', or 'random' (a free
 * worker takes any queued item, seeded), so that tasks finish out of order.
 *   push(item)      item needs .pages (used for wait estimates)
 *   remove(item)    drop a queued item (e.g. deleted task)
 *   pause()/resume()
 *   estimateWaitMs(msPerPage)  rough wait before a new item would start
 * `run(item)` returns a promise; the worker slot is held until it settles.
 * An item is picked no earlier than `queueDelayMs` after it was pushed.
 */
class WorkQueue {
	constructor({ workers = 2, timers, queueDelayMs = 0, run, order = 'fifo', seed = 42 }) {
		// A function is read at each pick (a test may switch the order on a running emulator).
		this.order = typeof order === 'function' ? order : () => order;
		let state = seed >>> 0 || 1;
		this.random = () => {
			state ^= state << 13;
			state ^= state >>> 17;
			state ^= state << 5;
			return (state >>> 0) / 4294967296;
		};
		this.workers = Math.max(1, Number(workers) || 1);
		this.timers = timers;
		this.queueDelayMs = Math.max(0, Number(queueDelayMs) || 0);
		this.run = run;
		this.items = [];
		this.busy = 0;
		this.busyPages = 0;
		this.paused = false;
		this.closed = false;
		this.pumpTimer = null;
	}

	push(item) {
		item._enqueuedAt = Date.now();
		this.items.push(item);
		this.schedule(0);
	}

	remove(item) {
		const i = this.items.indexOf(item);
		if (i >= 0) this.items.splice(i, 1);
		return i >= 0;
	}

	clear() {
		this.items = [];
	}

	pause() {
		this.paused = true;
	}

	resume() {
		this.paused = false;
		this.schedule(0);
	}

	get length() {
		return this.items.length;
	}

	schedule(ms) {
		if (this.closed) return;
		if (this.pumpTimer) {
			if (ms > 0) return; // an earlier/equal wake-up is already pending
			this.timers.clearTimeout(this.pumpTimer);
		}
		this.pumpTimer = this.timers.setTimeout(() => {
			this.pumpTimer = null;
			this.pump();
		}, ms);
	}

	pump() {
		if (this.closed || this.paused) return;
		while (this.busy < this.workers && this.items.length) {
			// Items become ready `queueDelayMs` after they were pushed (so in push order).
			const ready = this.items.filter((i) => i._enqueuedAt + this.queueDelayMs <= Date.now());
			if (!ready.length) {
				this.schedule(this.items[0]._enqueuedAt + this.queueDelayMs - Date.now());
				return;
			}
			const head =
				this.order() === 'random' ? ready[Math.floor(this.random() * ready.length)] : ready[0];
			this.items.splice(this.items.indexOf(head), 1);
			this.busy++;
			const pages = head.pages || 1;
			this.busyPages += pages;
			Promise.resolve()
				.then(() => this.run(head))
				.catch(() => {})
				.finally(() => {
					this.busy--;
					this.busyPages -= pages;
					this.schedule(0);
				});
		}
	}

	estimateWaitMs(msPerPage) {
		const queuedPages = this.items.reduce((a, t) => a + (t.pages || 1), 0);
		const pending = queuedPages + (this.busy >= this.workers ? this.busyPages / this.busy : 0);
		return (pending * msPerPage) / this.workers + this.queueDelayMs;
	}

	close() {
		this.closed = true;
		this.items = [];
		if (this.pumpTimer) this.timers.clearTimeout(this.pumpTimer);
	}
}

module.exports = { WorkQueue };
