/**
 * Where each object of a PDF is, by number, kept in typed arrays rather than an object per entry:
 * a large file lists tens of thousands of objects, and a Map of small objects that lives through
 * the whole count is copied by every young-generation collection. An entry takes 9 bytes (a kind
 * and two 32-bit numbers); the arrays never reach past the numbers a file of its size can hold.
 * Numbers beyond that, or far beyond those already listed (a sparse or hostile cross-reference),
 * and values too large for 32 bits go to a Map instead, so the arrays stay proportional to the
 * entries read and to the file. The arrays grow at least twofold, so however many sections list
 * the numbers, the elements copied stay within twice the last size (each copy is charged to the
 * count's work). NumberSet does the same for the page tree walk's visited set.
 */

import { Unknown, type Work } from './limits';

/** At an offset in the file (-1: free), or the i-th object of an object stream. */
export type Location = { offset: number } | { stream: number; index: number };

const UNKNOWN = 0;
const AT_OFFSET = 1;
const IN_STREAM = 2;
const FREE = 3;
/** The entry is in the Map (a value past 32 bits). */
const ELSEWHERE = 4;
const U32 = 0xffffffff;

/** An object takes 10 bytes at least (`1 0 obj 0`): no file holds more numbers than this. */
export const maxObjectsIn = (size: number) => Math.floor(size / 10) + 64;

export class Locations {
	private kind = new Uint8Array(0);
	private first = new Uint32Array(0);
	private second = new Uint32Array(0);
	private entries = 0;
	private readonly sparse = new Map<number, Location>();

	/** `limit`: the most numbers kept in the arrays (maxObjectsIn the file's size). */
	constructor(
		private readonly limit: number,
		private readonly work: Work,
	) {}

	has(num: number): boolean {
		return num < this.kind.length ? this.kind[num] !== UNKNOWN : this.sparse.has(num);
	}

	get(num: number): Location | undefined {
		if (num >= this.kind.length) return this.sparse.get(num);
		const kind = this.kind[num];
		if (kind === AT_OFFSET) return { offset: this.first[num] };
		if (kind === IN_STREAM) return { stream: this.first[num], index: this.second[num] };
		if (kind === FREE) return { offset: -1 };
		if (kind === ELSEWHERE) return this.sparse.get(num);
		return undefined;
	}

	set(num: number, where: Location): void {
		if (num >= this.kind.length && !this.grow(num, 0)) {
			this.keepApart(num, where);
			return;
		}
		if (this.kind[num] === UNKNOWN) this.entries++;
		else if (this.kind[num] === ELSEWHERE) this.sparse.delete(num);
		if ('offset' in where) {
			if (where.offset > U32) {
				this.kind[num] = ELSEWHERE;
				this.keepApart(num, where);
			} else if (where.offset < 0) this.kind[num] = FREE;
			else {
				this.kind[num] = AT_OFFSET;
				this.first[num] = where.offset;
			}
		} else if (where.stream > U32 || where.index > U32) {
			this.kind[num] = ELSEWHERE;
			this.keepApart(num, where);
		} else {
			this.kind[num] = IN_STREAM;
			this.first[num] = where.stream;
			this.second[num] = where.index;
		}
	}

	/**
	 * An entry in the Map, which costs many times an entry of the arrays: past an eighth of the
	 * numbers the file can hold (and a thousand), the count is unknown rather than the memory
	 * held growing with what a cross-reference claims.
	 */
	private keepApart(num: number, where: Location): void {
		if (!this.sparse.has(num) && this.sparse.size >= (this.limit >> 3) + 1024)
			throw new Unknown('the file lists more objects than a file of its size can hold');
		this.sparse.set(num, where);
	}

	/**
	 * The offsets of the objects in the file (not free, not in an object stream), ascending: where
	 * each object's bytes must end at the latest (formats/pdf-write.ts bounds a stream's data).
	 */
	fileOffsets(): Float64Array {
		const out: number[] = [];
		for (let num = 0; num < this.kind.length; num++) {
			this.work.charge(1);
			if (this.kind[num] === AT_OFFSET) out.push(this.first[num]);
		}
		for (const where of this.sparse.values()) {
			this.work.charge(1);
			if ('offset' in where && where.offset >= 0) out.push(where.offset);
		}
		this.work.charge(out.length * Math.ceil(Math.log2(out.length + 2)));
		return Float64Array.from(out).sort();
	}

	delete(num: number): void {
		if (num >= this.kind.length) this.sparse.delete(num);
		else if (this.kind[num] !== UNKNOWN) {
			if (this.kind[num] === ELSEWHERE) this.sparse.delete(num);
			this.kind[num] = UNKNOWN;
			this.entries--;
		}
	}

	/**
	 * Room for `count` numbers from `first`, which a section about to be read lists (its length
	 * checked against the file): the arrays grow once for the whole section.
	 */
	reserve(first: number, count: number): void {
		const last = first + count - 1;
		if (count > 0 && last >= this.kind.length) this.grow(last, count);
	}

	/**
	 * Makes the arrays reach `num` when it is within the file's limit and near the numbers listed
	 * so far (or `coming` more are about to be); false if not. They grow to twice their size at
	 * least (within the limit), so a file listing its numbers one section at a time copies each
	 * element a few times, not once per section.
	 */
	private grow(num: number, coming: number): boolean {
		if (!Number.isInteger(num) || num < 0 || num >= this.limit) return false;
		if (num > 4 * (this.entries + coming) + 4096) return false;
		const size = Math.min(this.limit, Math.max(num + 1, this.kind.length * 2, 64));
		this.work.charge(size + this.sparse.size);
		const kind = new Uint8Array(size);
		const first = new Uint32Array(size);
		const second = new Uint32Array(size);
		kind.set(this.kind);
		first.set(this.first);
		second.set(this.second);
		this.kind = kind;
		this.first = first;
		this.second = second;
		// Entries kept in the Map while the arrays did not reach them move into the arrays.
		const moved = [...this.sparse].filter(([n]) => n >= 0 && n < size);
		for (const [n, where] of moved) {
			this.sparse.delete(n);
			this.set(n, where);
		}
		return true;
	}
}

/** A set of object numbers: a byte per number near those added so far, a Set beyond. */
export class NumberSet {
	private dense = new Uint8Array(64);
	private size = 0;
	private readonly sparse = new Set<number>();

	constructor(private readonly work: Work) {}

	has(num: number): boolean {
		return num < this.dense.length ? this.dense[num] === 1 : this.sparse.has(num);
	}

	add(num: number): void {
		if (num >= this.dense.length) {
			if (!Number.isInteger(num) || num < 0 || num > 4 * this.size + 4096) {
				this.sparse.add(num);
				return;
			}
			const grown = new Uint8Array(Math.max(num + 1, this.dense.length * 2));
			this.work.charge(grown.length + this.sparse.size);
			grown.set(this.dense);
			this.dense = grown;
			// Numbers kept in the Set while the bytes did not reach them move into the bytes.
			for (const n of [...this.sparse])
				if (Number.isInteger(n) && n >= 0 && n < grown.length) {
					this.sparse.delete(n);
					grown[n] = 1;
				}
		}
		this.dense[num] = 1;
		this.size++;
	}
}
