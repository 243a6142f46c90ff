import { createHash } from 'crypto';

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

	/** @param keep whether a file of this many bytes (so far) may be kept in memory. */
	constructor(private readonly keep: (size: number) => boolean) {}

	/** Takes the next chunk; false once the file is past the body limit (stop reading). */
	add(chunk: Buffer | string): boolean {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		if (this.head.length < HEAD_BYTES)
			this.head = Buffer.concat([this.head, buffer.subarray(0, HEAD_BYTES - this.head.length)]);
		this.tailBytes =
			buffer.length >= TAIL_BYTES
				? buffer.subarray(buffer.length - TAIL_BYTES)
				: Buffer.concat([this.tailBytes, buffer]).subarray(-TAIL_BYTES);
		this.size += buffer.length;
		if (this.size > MAX_BODY_BYTES) {
			this.chunks = undefined;
			return false;
		}
		this.hash.update(buffer);
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

	/** The chunks read, when the whole file was kept (undefined otherwise). */
	kept(): Buffer[] | undefined {
		return this.size > 0 && this.size <= MAX_BODY_BYTES ? this.chunks : undefined;
	}
}

/** SHA-256 (hex) of bytes already in memory. */
export function digestOf(bytes: Buffer): string {
	return createHash('sha256').update(bytes).digest('hex');
}
