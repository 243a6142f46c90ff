/**
 * The words the PDF parser recognises by their bytes, with no string made: the dictionary keys
 * the counter reads and the names it compares against.
 */

/** The dictionary keys the counter (and a content stream's decoding) reads; others are passed over unbuilt. */
const READ_KEYS = [
	'Type',
	'Pages',
	'Kids',
	'Count',
	'Root',
	'Prev',
	'XRefStm',
	'Length',
	'Filter',
	'W',
	'Index',
	'Size',
	'Encrypt',
	'N',
	'First',
	'DecodeParms',
	'Predictor',
	'Columns',
	'Colors',
	'BitsPerComponent',
	'EarlyChange',
];
/** Names the counter compares against: read as one shared value each, no string made. */
const KNOWN_NAMES = ['Page', 'Pages', 'Catalog', 'ObjStm', 'XRef', 'FlateDecode'];

/** A word's hash: each byte in turn, hash * 31 + byte in 32 bits (the parser computes it inline). */
const hashOf = (text: string) => {
	let hash = 0;
	for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
	return hash;
};
/** Words found by their bytes: open addressing on the bytes' hash, then the bytes compared. */
export class WordTable<T> {
	private readonly hashes = new Int32Array(64);
	private readonly slots = new Int8Array(64).fill(-1);
	private readonly values: T[];
	constructor(
		private readonly words: string[],
		make: (word: string) => T,
	) {
		this.values = words.map(make);
		words.forEach((word, i) => {
			const hash = hashOf(word);
			let at = hash & 63;
			while (this.slots[at] !== -1) at = (at + 1) & 63;
			this.slots[at] = i;
			this.hashes[at] = hash;
		});
	}

	/** The value of `text`, if it is one of the words (a name decoded of its escapes). */
	get(text: string): T | undefined {
		const hash = hashOf(text);
		for (let at = hash & 63; ; at = (at + 1) & 63) {
			const i = this.slots[at];
			if (i === -1) return undefined;
			if (this.hashes[at] === hash && this.words[i] === text) return this.values[i];
		}
	}

	/** The value of the word `buf[start, end)` spells (its hash given), if it is one. */
	find(buf: Buffer, start: number, end: number, hash: number): T | undefined {
		for (let at = hash & 63; ; at = (at + 1) & 63) {
			const i = this.slots[at];
			if (i === -1) return undefined;
			const word = this.words[i];
			if (this.hashes[at] !== hash || word.length !== end - start) continue;
			let k = 0;
			while (k < word.length && word.charCodeAt(k) === buf[start + k]) k++;
			if (k === word.length) return this.values[i];
		}
	}
}
export const KEYS = new WordTable(READ_KEYS, (key) => key);
export const NAMES = new WordTable(KNOWN_NAMES, (name) => Object.freeze({ name }));
