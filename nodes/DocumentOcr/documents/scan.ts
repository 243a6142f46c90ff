import { createHash } from 'crypto';
import { sleep } from 'n8n-workflow';

import { HEAD_BYTES, MAX_BODY_BYTES, TAIL_BYTES } from './check';

/**
 * What one pass over a document's bytes learns, whatever the source (n8n's binary store, a
 * user's file server): the size, the first HEAD_BYTES (its type), the last TAIL_BYTES (its end
 * marker) and the SHA-256 (what the Skip memory keys on, and what a second fetch of a URL must
 * match). The chunks are kept only while `keep` allows, so a large file streams past holding
 * only its head and tail.
 */
export class DocumentScan {
	size = 0;

	head: Buffer = Buffer.alloc(0);

	private tailBytes: Buffer = Buffer.alloc(0);

	private readonly hash = createHash('sha256');

	private chunks: Buffer[] | undefined = [];

	/**
	 * The file's bytes copied into one buffer as they come, when its size was known beforehand
	 * (`expected`): the count reads it as it is, with no second copy of the chunks.
	 */
	private whole?: Buffer;

	/**
	 * @param keep whether a file of this many bytes (so far) may be kept in memory.
	 * @param maxBytes the most bytes read: past them the file is refused (MAX_BODY_BYTES, or what
	 *   Split Large Documents reads).
	 */
	constructor(
		private readonly keep: (size: number) => boolean,
		private readonly maxBytes = MAX_BODY_BYTES,
		expected?: number,
	) {
		if (expected !== undefined && expected > 0 && expected <= maxBytes && keep(expected))
			this.whole = Buffer.allocUnsafe(expected);
	}

	/** Takes the next chunk; false once the file is past `maxBytes` (stop reading). */
	add(chunk: Buffer | string): boolean {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		if (this.head.length < HEAD_BYTES)
			this.head = Buffer.concat([this.head, buffer.subarray(0, HEAD_BYTES - this.head.length)]);
		this.tailBytes =
			buffer.length >= TAIL_BYTES
				? buffer.subarray(buffer.length - TAIL_BYTES)
				: Buffer.concat([this.tailBytes, buffer]).subarray(-TAIL_BYTES);
		this.size += buffer.length;
		if (this.size > this.maxBytes) {
			this.chunks = undefined;
			return false;
		}
		this.hash.update(buffer);
		if (this.whole && this.size <= this.whole.length) {
			buffer.copy(this.whole, this.size - buffer.length);
			return true;
		}
		// Longer than expected: the bytes so far become the first chunk, and chunks are kept.
		if (this.whole) {
			const before = this.size - buffer.length;
			this.chunks = this.keep(this.size) ? [this.whole.subarray(0, before)] : undefined;
			this.whole = undefined;
		}
		if (this.chunks && this.keep(this.size)) this.chunks.push(buffer);
		else this.chunks = undefined;
		return true;
	}

	/** The last bytes, copied so that the chunk they came from can be collected. */
	get tail(): Buffer {
		return Buffer.from(this.tailBytes);
	}

	/** SHA-256 (hex) of the whole file; call once, after the last chunk. */
	digest(): string {
		return this.hash.digest('hex');
	}

	/**
	 * The chunks read, when the whole file was kept (undefined otherwise): one buffer when its
	 * size was known beforehand.
	 */
	kept(): Buffer[] | undefined {
		if (this.size === 0 || this.size > this.maxBytes) return undefined;
		if (this.whole) return [this.whole.subarray(0, this.size)];
		return this.chunks;
	}
}

/** SHA-256 (hex) of bytes already in memory. */
export function digestOf(bytes: Buffer): string {
	return createHash('sha256').update(bytes).digest('hex');
}

/** Bytes hashed between two pauses of a digest (a few ms of SHA-256). */
const HASH_SLICE = 1_048_576;

/**
 * The SHA-256 (hex) of bytes written as chunks, as digestOf gives it for one buffer,
 * letting the event loop run after each HASH_SLICE bytes.
 */
export async function digestOfChunks(chunks: Buffer[]): Promise<string> {
	const hash = createHash('sha256');
	let since = 0;
	for (const chunk of chunks) {
		for (let at = 0; at < chunk.length; at += HASH_SLICE) {
			const slice = chunk.subarray(at, at + HASH_SLICE);
			hash.update(slice);
			since += slice.length;
			if (since >= HASH_SLICE) {
				since = 0;
				await sleep(0);
			}
		}
	}
	return hash.digest('hex');
}
