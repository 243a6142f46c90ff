/**
 * Where each object of a PDF is, by number, kept in typed arrays rather than an object per entry:
 * a large file lists tens of thousands of objects, and a Map of small objects that lives through
 * the whole count is copied by every young-generation collection. Numbers far beyond those
 * already listed (a sparse or hostile cross-reference) go to a Map instead, so the arrays stay
 * proportional to the entries read. NumberSet does the same for the page tree walk's visited set.
 */

/** At an offset in the file (-1: free), or the i-th object of an object stream. */
export type Location = { offset: number } | { stream: number; index: number };

const UNKNOWN = 0;
const AT_OFFSET = 1;
const IN_STREAM = 2;

export class Locations {
	private kind = new Uint8Array(0);
	private first = new Float64Array(0);
	private second = new Float64Array(0);
	private entries = 0;
	private readonly sparse = new Map<number, Location>();

	has(num: number): boolean {
		return num < this.kind.length ? this.kind[num] !== UNKNOWN : this.sparse.has(num);
	}

	get(num: number): Location | undefined {
		if (num >= this.kind.length) return this.sparse.get(num);
		const kind = this.kind[num];
		if (kind === AT_OFFSET) return { offset: this.first[num] };
		if (kind === IN_STREAM) return { stream: this.first[num], index: this.second[num] };
		return undefined;
	}

	set(num: number, where: Location): void {
		if (num >= this.kind.length && !this.grow(num)) {
			this.sparse.set(num, where);
			return;
		}
		if (this.kind[num] === UNKNOWN) this.entries++;
		if ('offset' in where) {
			this.kind[num] = AT_OFFSET;
			this.first[num] = where.offset;
		} else {
			this.kind[num] = IN_STREAM;
			this.first[num] = where.stream;
			this.second[num] = where.index;
		}
	}

	delete(num: number): void {
		if (num >= this.kind.length) this.sparse.delete(num);
		else if (this.kind[num] !== UNKNOWN) {
			this.kind[num] = UNKNOWN;
			this.entries--;
		}
	}

	/** Makes the arrays reach `num` when it is near the numbers listed so far; false if not. */
	private grow(num: number): boolean {
		if (!Number.isInteger(num) || num < 0 || num > 4 * this.entries + 4096) return false;
		const size = Math.max(num + 1, this.kind.length * 2, 64);
		const kind = new Uint8Array(size);
		const first = new Float64Array(size);
		const second = new Float64Array(size);
		kind.set(this.kind);
		first.set(this.first);
		second.set(this.second);
		this.kind = kind;
		this.first = first;
		this.second = second;
		return true;
	}
}

/** A set of object numbers: a byte per number near those added so far, a Set beyond. */
export class NumberSet {
	private dense = new Uint8Array(64);
	private size = 0;
	private readonly sparse = new Set<number>();

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
			grown.set(this.dense);
			this.dense = grown;
		}
		this.dense[num] = 1;
		this.size++;
	}
}
