import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ClaimQueue } from './claims';
import { emptyStore } from './store';

/**
 * What the executions of one n8n process share of a workflow node's memories (issue 43): the
 * documents being submitted right now, and the stores (./submitted.ts, ./held.ts) as this process
 * knows them. n8n runs executions of one workflow side by side (a schedule fires while the last
 * run still waits, a webhook is called twice, a queue-mode worker runs several at once), and each
 * gets its own copy of the workflow's static data, read when it is created and written back whole
 * when it ends (n8n 2.41: `WorkflowRunner`, `saveStaticDataById`): two overlapping executions
 * would each send a document the other is sending, and the one that ends last would overwrite
 * what the other remembered.
 *
 * Here the executions of a process see one memory: a document one of them is submitting is
 * waited for by the others (`submitting`); a record one of them learns (a task created, an answer
 * lost, a result held) is seen by the others at once; and an execution that uses the memory hands
 * n8n the shared stores as its static data (`MemoryView.hand`), so whichever of them n8n saves
 * last saves everything the process knows, in any order they end. (An execution in which this
 * node does not run, saved last because another node changed the static data, still saves the
 * copy it loaded: n8n's rule; the process's memory keeps the records, and the next execution
 * that uses it saves them again.) The stores are adopted from the static data of the first
 * execution of the process that uses them; a queue-mode worker, which in n8n 2.41 starts every
 * execution with empty static data, keeps them for its later executions. Other processes (other
 * workers, a restarted n8n) are not seen here.
 *
 * Manual runs (a test from the editor) keep their own memory, as n8n does not save it: what they
 * send is not remembered for production executions, nor they for them. The memories of
 * MOST_NODES workflow nodes are kept, and past them those in use or used within
 * KEPT_AFTER_USE_MS; the least recently used of the others goes first (its stores are in the
 * static data n8n saved).
 */

/**
 * What the items waiting for another's submission of the same document learn: the ID created,
 * that the service refused it (one of them sends it then), that its answer was lost (the
 * service may have created it: none of them sends it), or that another n8n process had claimed
 * it (./claims.ts: none of them sends it).
 */
export type FirstOutcome =
	| { id: string; at: number }
	| { refused: true }
	| { uncertain: true }
	| { elsewhere: true };

/** A document being submitted: by which execution and item, and what it will learn. */
export interface Submitting {
	execution: string;
	itemIndex: number;
	outcome: Promise<FirstOutcome>;
}

/** The names of the stores a node's memory holds (its static data keys). */
const STORES = ['submitted', 'unconfirmed', 'held'];

/** Most workflow nodes whose memory a process keeps, past those in use or used recently. */
const MOST_NODES = 64;

/**
 * How long a memory is kept after its last use, whatever MOST_NODES says: the node's run ends
 * before its execution does, and until n8n has saved that execution's static data, the records
 * it wrote live here only (an execution may wait long after the node, e.g. on another node's
 * Wait for Completion).
 */
const KEPT_AFTER_USE_MS = 24 * 60 * 60 * 1000;

/** A workflow node's memory as the executions of this process share it. */
export class SharedMemory {
	/** The documents an execution of this process is submitting, by key. */
	readonly submitting = new Map<string, Submitting>();
	/** Executions using it now: it is not let go while one is. */
	users = 0;

	/** When an execution last stopped using it (ms since the epoch). */
	lastUsed = Date.now();

	/** This process's calls to n8n's deduplication table for the node (./claims.ts). */
	readonly table = new ClaimQueue();

	/** The stores, plain objects every execution of this process reads and writes. */
	private adopted: IDataObject | undefined;

	/**
	 * The stores; the first use adopts those of the using execution's static data, as they are
	 * (n8n's Proxies over the loaded objects: no walk, however much they hold; writes through them
	 * mark that execution's static data changed, which is harmless once it has ended); a store it
	 * lacks starts empty, so that every store exists before any execution hands the stores to
	 * n8n (`MemoryView.hand`).
	 */
	stores(nodeData: () => IDataObject): IDataObject {
		if (this.adopted) return this.adopted;
		const loaded = nodeData();
		const stores: IDataObject = {};
		for (const name of STORES) {
			const store = loaded[name];
			stores[name] =
				store !== undefined && store !== null ? store : (emptyStore() as unknown as IDataObject);
		}
		this.adopted = stores;
		return stores;
	}
}

/** The memories of this process, by workflow and node, the least recently used first. */
const MEMORIES = new Map<string, SharedMemory>();

/**
 * A node's memory as one execution uses it: the process's shared memory (manual runs, and
 * workflows without an ID: the execution's own static data), and what it hands n8n to save.
 */
export class MemoryView {
	/** The store objects this execution's static data holds, by name (none before a write). */
	private readonly handed = new Map<string, unknown>();

	/** The documents being submitted, by key: the process's, or this execution's own. */
	readonly submitting: Map<string, Submitting>;

	private closed = false;

	/** The execution's static data of the node, once read. */
	private own: IDataObject | undefined;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly shared: SharedMemory | undefined,
		/** The execution, as other executions name it. */
		readonly execution: string,
	) {
		this.submitting = shared?.submitting ?? new Map<string, Submitting>();
	}

	/**
	 * The process's calls to n8n's deduplication table for the node (./claims.ts); undefined for
	 * a memory of the execution's own (manual runs, unsaved workflows), which claims nothing there.
	 */
	get table(): ClaimQueue | undefined {
		return this.shared?.table;
	}

	/**
	 * The execution's static data of the node, read when a store is first used: n8n adds the
	 * node's key to the static data when it is read, and saves it then.
	 */
	private nodeData(): IDataObject {
		return (this.own ??= this.ctx.getWorkflowStaticData('node'));
	}

	/**
	 * Where the stores live: the shared stores, or the execution's own static data. From the
	 * first use on, the execution's static data holds every shared store (`hand`).
	 */
	get data(): IDataObject {
		if (!this.shared) return this.nodeData();
		const stores = this.shared.stores(() => this.nodeData());
		this.hand(stores);
		return stores;
	}

	/**
	 * Puts the shared stores into the execution's static data (those not there yet, or replaced),
	 * so that n8n saves all this process knows when it saves this execution's: the first marks the
	 * static data changed; later writes change the same objects. Done on first use, not on first
	 * write: an execution that only reads the memory is saved too when another node of the
	 * workflow changes the static data, and the copy it loaded must not overwrite what the
	 * executions beside it added (n8n saves an execution's copy whole, the last to end winning).
	 */
	private hand(stores: IDataObject): void {
		let nodeData: IDataObject | undefined;
		for (const store of STORES) {
			if (this.handed.get(store) === stores[store]) continue;
			this.handed.set(store, stores[store]);
			nodeData ??= this.nodeData();
			nodeData[store] = stores[store];
		}
	}

	/** A store was written (or replaced, converted from its flat shape: ./store.ts): handed again. */
	wrote(): void {
		if (this.shared) this.hand(this.shared.stores(() => this.nodeData()));
	}

	/** The execution's run of the node is over: the memory may go once no execution uses it. */
	close(): void {
		if (this.closed || !this.shared) return;
		this.closed = true;
		this.shared.users--;
		this.shared.lastUsed = Date.now();
	}
}

/**
 * The node's memory for the execution `ctx` belongs to: shared with the process's other
 * executions of the same workflow and node, except in manual runs and workflows without an ID.
 */
export function openMemory(ctx: IExecuteFunctions): MemoryView {
	const execution = ctx.getExecutionId?.() ?? '';
	const workflowId = ctx.getWorkflow().id;
	if (!workflowId || ctx.getMode() === 'manual') return new MemoryView(ctx, undefined, execution);
	const key = `${workflowId}\n${ctx.getNode().name}`;
	let memory = MEMORIES.get(key);
	if (memory) MEMORIES.delete(key);
	else memory = new SharedMemory();
	MEMORIES.set(key, memory);
	memory.users++;
	const now = Date.now();
	for (const [old, kept] of MEMORIES) {
		if (MEMORIES.size <= MOST_NODES) break;
		if (kept.users === 0 && now - kept.lastUsed > KEPT_AFTER_USE_MS) MEMORIES.delete(old);
	}
	return new MemoryView(ctx, memory, execution);
}
