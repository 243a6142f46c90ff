/**
 * A PDF opened for copying (pdf-write.ts opens it, the copier and usage.ts read it): opened as its
 * pages are counted (pdf.ts, the same cross-reference and the one walk of the tree, which here
 * also gives what each page inherits), decrypted where it opens without a password
 * (encryption.ts), and its objects read for copying: each located and laid out (objects.ts), a
 * dictionary's entries followed to the dictionaries they name, a stream's data found by the room's
 * one rule (lexer.ts streamExtent, bounded by the next object the cross-reference places) and
 * decoded chunk by chunk (filters.ts).
 */
import type { Decryption } from './crypt';
import { decodedChunks } from './filters';
import { blank, streamExtent } from './lexer';
import { FormatError, Unknown, Work, type Pause } from './limits';
import { nameValue, refValue, scanObject, type Entry, type ObjectLayout } from './objects';
import type { Inherited } from './page-tree';
import { Parser } from './parser';
import { isDict } from './values';
import { openPdf, type ObjectReader, type OpenPdf } from './pdf';

/** A dictionary (or any value) laid out in the bytes it was read from, and the object it is in. */
export interface Handle {
	bytes: Buffer;
	layout: ObjectLayout;
	/** The object the bytes are of (a direct value: the object it is inside). */
	num: number;
	gen: number;
	/** Whether the object is in the file (a stream may follow; its strings are encrypted). */
	inFile: boolean;
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

export class Source {
	/** The page objects in order (their numbers) and what each inherits. */
	readonly pageObjects: number[];
	readonly inherited: Inherited[];
	/** The catalog's and each tree object's role: a page's index, or a node. */
	readonly roles: Map<number, number>;
	/** The offsets of the objects in the file, ascending: no stream's data runs past the next. */
	private readonly offsets: Float64Array;
	readonly header: Buffer;
	readonly reader: ObjectReader;
	readonly decryption?: Decryption;

	private constructor(
		readonly work: Work,
		readonly pdf: OpenPdf,
	) {
		this.reader = pdf.reader;
		this.pageObjects = pdf.tree.pageObjects;
		this.inherited = pdf.tree.inherited!;
		this.roles = pdf.tree.roles!;
		this.offsets = pdf.xref.objects.fileOffsets();
		const version = /^%PDF-(\d\.\d)/.exec(pdf.view.toString('latin1', 0, 16))?.[1] ?? '1.7';
		this.header = latin1(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`);
		const decryption = pdf.decryption;
		if (decryption && !('refused' in decryption)) this.decryption = decryption;
	}

	/** Opens `bytes` for copying; a FormatError when its pages are not certain or it is locked. */
	static async open(
		bytes: Buffer,
		options: { signal?: AbortSignal; pause?: Pause },
	): Promise<Source> {
		const work = new Work(bytes.length, options.signal, options.pause);
		const pdf = await openPdf(bytes, work, true);
		if (pdf.pages === null)
			throw new FormatError(
				`the PDF's pages cannot be read (${pdf.reason}); nothing is written rather than a wrong page`,
			);
		if (pdf.decryption && 'refused' in pdf.decryption)
			throw new FormatError(
				`${pdf.decryption.refused}; its pages cannot be copied into a new file, so nothing is written`,
			);
		return new Source(work, pdf);
	}

	/** Object `num` laid out, its object stream loaded first; undefined when it is free. */
	async object(num: number): Promise<Handle | undefined> {
		const loading = this.reader.load(num);
		if (loading) await loading;
		const where = this.reader.locate(num);
		if (!where) return undefined;
		const strings = this.decryption !== undefined && where.inFile;
		const layout = scanObject(where.bytes, where.at, this.work, strings);
		return { bytes: where.bytes, layout, num, gen: where.gen, inFile: where.inFile };
	}

	/**
	 * The dictionary an entry of `handle`'s dictionary gives: direct (laid out on its own), or the
	 * object a reference names; undefined for anything else (absent, null, free, not a dictionary).
	 */
	async dict(handle: Handle, key: string): Promise<Handle | undefined> {
		return await this.dictAt(handle, handle.layout.entries?.get(key));
	}

	/** The dictionary the value at `entry` of `handle` is, as dict() reads it. */
	async dictAt(handle: Handle, entry: Entry | undefined): Promise<Handle | undefined> {
		if (!entry) return undefined;
		const { bytes } = handle;
		const ref = refValue(bytes, entry);
		if (ref !== undefined) {
			if (this.roles.has(ref)) return undefined;
			const target = await this.object(ref);
			return target?.layout.entries ? target : undefined;
		}
		if (bytes[entry.start] !== 0x3c || bytes[entry.start + 1] !== 0x3c) return undefined;
		// A dictionary the object's walk laid out already shares its references, cuts, strings.
		const walked = handle.layout.inner?.get(entry.start);
		if (walked)
			return {
				...handle,
				layout: {
					...handle.layout,
					...walked,
					start: entry.start,
					end: entry.end,
					inner: undefined,
				},
			};
		const strings = handle.layout.strings !== undefined;
		const layout = scanObject(bytes, entry.start, this.work, strings);
		return { ...handle, layout };
	}

	/**
	 * The objects an entry's value names: itself when a reference to anything but an array, the
	 * references of a direct array, or of the array a reference names.
	 */
	async refsOf(handle: Handle, key: string): Promise<number[]> {
		const entry = handle.layout.entries?.get(key);
		if (!entry) return [];
		const ref = refValue(handle.bytes, entry);
		if (ref !== undefined) {
			const target = await this.object(ref);
			if (!target || target.bytes[target.layout.start] !== 0x5b) return [ref];
			return this.within(target, target.layout.start, target.layout.end);
		}
		return this.within(handle, entry.start, entry.end);
	}

	/** The numbers of the references between `start` and `end` in `handle`'s layout, in order. */
	private within(handle: Handle, start: number, end: number): number[] {
		const { refs } = handle.layout;
		const out: number[] = [];
		for (let i = 0; i < refs.length; i += 3) {
			this.work.charge(1);
			if (refs[i] >= start && refs[i + 1] <= end) out.push(refs[i + 2]);
		}
		return out;
	}

	/**
	 * Where the data of the stream whose dictionary `handle` is lies, if a stream follows: up to
	 * the next object the cross-reference places, by the room's one rule (lexer.ts).
	 */
	async streamOf(handle: Handle): Promise<{ start: number; end: number } | undefined> {
		const { bytes, layout, num } = handle;
		if (!handle.inFile || !layout.entries) return undefined;
		const length = await this.lengthOf(handle, layout.entries.get('Length'));
		const limit = Math.max(layout.end, this.nextObject(num, bytes.length));
		const extent = streamExtent(bytes, layout.end, length, limit, (n) => this.work.charge(n));
		if (extent === 'open')
			throw new Unknown(
				`the stream of object ${num} is not closed${limit < bytes.length ? ' before the next object begins' : ''}`,
			);
		return extent ?? undefined;
	}

	/** A stream's data as stored, decrypted where the file is encrypted. */
	storedData(handle: Handle, extent: { start: number; end: number }): Buffer {
		const raw = handle.bytes.subarray(extent.start, extent.end);
		const { decryption } = this;
		if (!decryption) return raw;
		this.work.charge(raw.length);
		const type = nameIn(handle, 'Type');
		if (type === 'Metadata' && !decryption.metadataEncrypted) return raw;
		const filter = type === 'EmbeddedFile' ? decryption.embeddedFilter : undefined;
		return decryption.stream(handle.num, handle.gen, raw, filter);
	}

	/** The decoded data of stream object `num` (a content stream), chunk by chunk. */
	async *content(num: number): AsyncGenerator<Uint8Array> {
		const handle = await this.object(num);
		const extent = handle && (await this.streamOf(handle));
		if (!handle || !extent) return;
		const dict = new Parser(handle.bytes, this.work).at(handle.layout.start).value();
		if (!isDict(dict)) return;
		yield* decodedChunks(
			this.storedData(handle, extent),
			dict.dict.Filter,
			dict.dict.DecodeParms,
			this.work,
		);
	}

	/** Where the next object after object `num` begins in the file (or the file's end). */
	private nextObject(num: number, size: number): number {
		const { offsets, work } = this;
		const where = this.pdf.xref.objects.get(num);
		const from = where && 'offset' in where ? where.offset : size;
		let low = 0;
		let high = offsets.length;
		while (low < high) {
			work.charge(1);
			const mid = (low + high) >> 1;
			if (offsets[mid] <= from) low = mid + 1;
			else high = mid;
		}
		return low < offsets.length ? Math.min(size, offsets[low]) : size;
	}

	/** A stream's /Length: a whole number, direct or in an object of its own (maybe in a stream). */
	private async lengthOf(handle: Handle, entry: Entry | undefined): Promise<number | undefined> {
		if (!entry) return undefined;
		const ref = refValue(handle.bytes, entry);
		let text = handle.bytes.toString('latin1', entry.start, entry.end);
		if (ref !== undefined) {
			// A /Length that names no object is no length: the data runs to `endstream`.
			if (!this.pdf.xref.objects.has(ref)) return undefined;
			const loading = this.reader.load(ref);
			if (loading) await loading;
			const where = this.reader.locate(ref);
			if (!where) return undefined;
			const at = blank(where.bytes, where.at);
			text = where.bytes.toString('latin1', at, at + 20).split(/[^0-9]/)[0];
		}
		return /^\d+$/.test(text) ? Number(text) : undefined;
	}
}

/** The name a dictionary's entry gives (`/Form` → 'Form'), if its value is one. */
export function nameIn(handle: Handle, key: string): string | undefined {
	return nameValue(handle.bytes, handle.layout.entries?.get(key));
}
