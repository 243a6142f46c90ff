import { StoppedError } from '../transport/errors';
import type { BillableHooks } from '../transport/api';

/**
 * The order in which one execution's items submit, and its halt — the money rules of a batch:
 *  - submissions start in item order (`turn` / `passTurn`): item i's billable request starts no
 *    later than item i+1's, so which items are billed never depends on timing;
 *  - `failed()`: once an item has failed the node (Continue on Fail off), no billable request
 *    starts any more — checked right before sending (`billable`) — and every wait ends (`halted`,
 *    and `onHalt`, which interrupts the execution's poller).
 */
export class SubmissionOrder {
	halted = false;

	/** Items (by index) that have passed their submission turn: started it, or will send none. */
	private passed = new Set<number>();

	private nextTurn = 0;

	private turnWaiters = new Map<number, () => void>();

	/** Items waiting to come within `ahead` of the submission front (see `nearTurn`). */
	private frontWaiters = new Map<number, () => void>();

	/** Items holding their turn across several submissions (the parts of a split document). */
	private held = new Set<number>();

	/** Waiting for the halt (./submitted.ts: an item waiting on another execution). */
	private haltWaiters: Array<() => void> = [];

	/**
	 * @param stopOnFailure Continue on Fail is off: the first failing item fails the node.
	 * @param onHalt called once, when the batch halts, before the waiting items are woken.
	 */
	constructor(
		private readonly stopOnFailure: boolean,
		private readonly onHalt: () => void = () => {},
	) {}

	/**
	 * An item failed (or a submission did, which will fail its item): without Continue on Fail
	 * that fails the node, so start no more billable requests and end every wait.
	 */
	failed() {
		if (!this.stopOnFailure || this.halted) return;
		this.halted = true;
		this.onHalt();
		for (const wake of this.turnWaiters.values()) wake();
		this.turnWaiters.clear();
		for (const wake of this.frontWaiters.values()) wake();
		this.frontWaiters.clear();
		for (const wake of this.haltWaiters) wake();
		this.haltWaiters = [];
	}

	/** Resolves when the batch halts (at once if it has; never without a halt). */
	async whenHalted(): Promise<void> {
		if (this.halted) return;
		await new Promise<void>((resolve) => this.haltWaiters.push(resolve));
	}

	/**
	 * Waits until `itemIndex` is at most `ahead` items past the submission front (every item
	 * before `itemIndex - ahead` has passed its turn). An item starts its work only then: an item
	 * that has started and waits for its turn holds its request and the frames under it, while an
	 * item waiting here holds almost nothing.
	 */
	async nearTurn(itemIndex: number, ahead: number): Promise<void> {
		if (this.nextTurn >= itemIndex - ahead || this.halted) return;
		await new Promise<void>((resolve) => this.frontWaiters.set(itemIndex - ahead, resolve));
	}

	/** Waits until every item before `itemIndex` has started its submission (or sends none). */
	async turn(itemIndex: number): Promise<void> {
		while (this.nextTurn < itemIndex && !this.halted) {
			await new Promise<void>((resolve) => this.turnWaiters.set(itemIndex, resolve));
		}
	}

	/**
	 * `itemIndex` holds its turn until `release`: its submissions (a split document's parts, one
	 * after the other) do not pass it on as they go out, so no later item is sent before the
	 * item's last part — a part that fails stops the batch before any later item is billed.
	 */
	hold(itemIndex: number) {
		this.held.add(itemIndex);
	}

	/** `itemIndex`'s next submission passes the turn on again as it goes out (its last part). */
	release(itemIndex: number) {
		this.held.delete(itemIndex);
	}

	/**
	 * `itemIndex` started its submission, or will not send one: the next item may go. While the
	 * item holds its turn (`hold`), only `force` (the item is over) passes it.
	 */
	passTurn(itemIndex: number, force = false) {
		if (this.held.has(itemIndex) && !force) return;
		this.held.delete(itemIndex);
		if (itemIndex < this.nextTurn || this.passed.has(itemIndex)) return;
		this.passed.add(itemIndex);
		while (this.passed.has(this.nextTurn)) {
			this.passed.delete(this.nextTurn);
			this.nextTurn++;
			const near = this.frontWaiters.get(this.nextTurn);
			if (near) {
				this.frontWaiters.delete(this.nextTurn);
				near();
			}
		}
		const wake = this.turnWaiters.get(this.nextTurn);
		if (wake) {
			this.turnWaiters.delete(this.nextTurn);
			wake();
		}
	}

	/**
	 * How item `itemIndex`'s submission keeps its place (the transport calls these around each
	 * attempt): it waits for its turn before taking a request slot; with the slot in hand, once
	 * the rate-limit gate is open, it is stopped if the batch has halted, or else passes the turn
	 * on as it goes out; a failed submission halts the batch before its slot goes to the next one.
	 * `admit`, called in the turn right before the send, may still refuse it by throwing (the Page
	 * Budget: ./budget.ts).
	 */
	billable(itemIndex: number, admit: () => void = () => {}): BillableHooks {
		return {
			beforeSlot: () => this.turn(itemIndex),
			beforeBillableSend: () => {
				if (this.halted) throw new StoppedError(itemIndex);
				admit();
				this.passTurn(itemIndex);
			},
			onBillableFailure: () => this.failed(),
		};
	}
}
