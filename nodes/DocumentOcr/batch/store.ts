import type { IDataObject } from 'n8n-workflow';

/**
 * A bounded, insertion-ordered map kept in a node's memory (./shared.ts: the shared stores, or the
 * node's static data), whose every operation costs a few accesses to it whatever it holds.
 *
 * Why: n8n hands a node its static data wrapped in n8n-workflow's ObservableObject, a Proxy over
 * every object in it, and V8 runs every access through a Proxy on its slow path. Listing the keys
 * of one object (`Object.keys`, `for...in`) goes through the Proxy once per key, so a flat object
 * of ten thousand entries costs a walk of ten thousand accesses each time its oldest entry is
 * looked for. Here nothing is ever listed:
 *
 *  - the entries are split into GENERATIONS objects ("generations"), oldest first; new entries go
 *    into the newest one, and `sizes` counts each generation's entries;
 *  - when the newest is full a new one starts, and past GENERATIONS the oldest is dropped whole:
 *    the oldest tenth of the entries are forgotten at once, so between 90 % and 100 % of `limit`
 *    are remembered once it has been reached;
 *  - a look-up asks each generation for the key: at most GENERATIONS reads.
 *
 * Stored shape: `{ gens: Array<Record<string, V>>, sizes: number[] }`. The shape before it, one
 * flat object of entries in insertion order (workflows saved before issue 29 have it), is read
 * once and converted, keeping its newest `limit` entries in their order.
 */

/**
 * Most documents a node remembers, in each of its two memories (./submitted.ts, ./held.ts); the
 * oldest are forgotten first, a tenth of them at a time.
 */
export const MEMORY_LIMIT = 10_000;

/** Generations a store is split into: the cost of a look-up, and the share forgotten at once. */
export const GENERATIONS = 10;

interface Shape<V> {
	gens: Array<Record<string, V>>;
	sizes: number[];
}

function isShape(value: unknown): value is Shape<unknown> {
	return (
		typeof value === 'object' &&
		value !== null &&
		Array.isArray((value as Shape<unknown>).gens) &&
		Array.isArray((value as Shape<unknown>).sizes)
	);
}

/** How a store reads its flat shape, and whom it tells of its writes. */
export interface StoreOptions<V> {
	/** A value of the flat shape as the store keeps it (undefined: dropped). */
	convert?: (value: unknown) => V | undefined;
	/** Called after each write (./shared.ts hands the stores to n8n). */
	wrote?: () => void;
}

/** A store that holds nothing, in the stored shape. */
export function emptyStore(): Shape<never> {
	return { gens: [], sizes: [] };
}

export class BoundedStore<V> {
	private readonly perGeneration: number;

	private readonly convert: (value: unknown) => V | undefined;

	/**
	 * @param place where the store lives: the node's memory (./shared.ts), read when first used
	 *   (a run that never uses it leaves the workflow's static data as it was)
	 * @param name where in it the store is kept
	 * @param limit the most entries kept
	 */
	constructor(
		private readonly place: () => IDataObject,
		private readonly name: string,
		limit: number,
		private readonly options: StoreOptions<V> = {},
	) {
		this.perGeneration = Math.max(1, Math.ceil(limit / GENERATIONS));
		this.convert = options.convert ?? ((value) => value as V);
	}

	/** The stored shape; undefined when nothing was ever stored (and `create` is false). */
	private shape(create: boolean): Shape<V> | undefined {
		const data = this.place();
		const current = data[this.name];
		if (isShape(current)) return current as unknown as Shape<V>;
		if ((current === undefined || current === null) && !create) return undefined;
		const converted = this.fromFlat(current);
		data[this.name] = converted as unknown as IDataObject;
		this.options.wrote?.();
		// Read back: n8n's static data hands out what it stores.
		return data[this.name] as unknown as Shape<V>;
	}

	/** The flat shape (one object of entries, oldest first) as generations; once per store. */
	private fromFlat(flat: unknown): Shape<V> {
		const shape: Shape<V> = { gens: [], sizes: [] };
		if (typeof flat !== 'object' || flat === null || Array.isArray(flat)) return shape;
		const entries = Object.entries(flat as Record<string, unknown>).slice(
			-this.perGeneration * GENERATIONS,
		);
		for (const [key, value] of entries) {
			const converted = this.convert(value);
			if (converted === undefined) continue;
			const last = shape.gens.length - 1;
			if (last < 0 || shape.sizes[last] >= this.perGeneration) {
				shape.gens.push({ [key]: converted });
				shape.sizes.push(1);
			} else {
				shape.gens[last][key] = converted;
				shape.sizes[last]++;
			}
		}
		return shape;
	}

	/** The generation holding `key`, newest first; -1 when none does. */
	private find(shape: Shape<V>, key: string): number {
		const { gens } = shape;
		for (let g = gens.length - 1; g >= 0; g--) if (gens[g][key] !== undefined) return g;
		return -1;
	}

	get(key: string): V | undefined {
		const shape = this.shape(false);
		if (!shape) return undefined;
		const g = this.find(shape, key);
		return g < 0 ? undefined : shape.gens[g][key];
	}

	/** Sets `key` as the newest entry; the oldest generation goes when there are too many. */
	set(key: string, value: V) {
		const shape = this.shape(true)!;
		this.remove(shape, key);
		const { gens, sizes } = shape;
		const last = gens.length - 1;
		if (last >= 0 && sizes[last] < this.perGeneration) {
			gens[last][key] = value;
			sizes[last] = sizes[last] + 1;
		} else {
			// A new generation, and the oldest dropped past GENERATIONS: new arrays of GENERATIONS
			// elements rather than moving the stored ones in place (a move is several accesses each).
			const keep = Math.max(0, gens.length - GENERATIONS + 1);
			shape.gens = [...gens.slice(keep), { [key]: value }];
			shape.sizes = [...sizes.slice(keep), 1];
		}
		this.options.wrote?.();
	}

	delete(key: string) {
		const shape = this.shape(false);
		if (shape && this.remove(shape, key)) this.options.wrote?.();
	}

	/** Removes `key`; whether it was there. */
	private remove(shape: Shape<V>, key: string): boolean {
		const g = this.find(shape, key);
		if (g < 0) return false;
		delete shape.gens[g][key];
		shape.sizes[g] = shape.sizes[g] - 1;
		return true;
	}

	/** Entries held (a sum over the generations: no walk). */
	get size(): number {
		const shape = this.shape(false);
		if (!shape) return 0;
		let size = 0;
		for (let g = 0; g < shape.sizes.length; g++) size += Number(shape.sizes[g]) || 0;
		return size;
	}

	/** The stored entries as JSON text (walks them all: for a size in bytes, once per run). */
	json(): string {
		return JSON.stringify(this.shape(false) ?? {});
	}
}
