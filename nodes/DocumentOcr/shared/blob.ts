/**
 * A request body produced on demand: the shape documents/body.ts builds a document's request body
 * in and transport/request.ts sends. It sits here, below both, because neither layer needs the
 * other for it: documents make bodies, the transport sends whatever body it is given.
 *
 * n8n's HTTP helper (axios underneath) streams a Blob's `stream()` and takes its `size` and `type`
 * as Content-Length and Content-Type. Community nodes may not import node:stream, and a real Blob
 * would need the whole file in memory, so this is a Blob whose bytes are produced on demand. Each
 * `stream()` call starts over, so a body can be sent again (e.g. after a 429).
 */
export class StreamedBlob {
	readonly [Symbol.toStringTag] = 'Blob';

	/**
	 * Why the last `stream()` stopped before its end (the document could not be read again, or
	 * changed): the request carrying it was cut off, so the service received no whole body.
	 */
	failure?: Error;

	/**
	 * @param whole the body as one Buffer, for a small document already in memory: sent as it is,
	 *   which spares a stream (and a read of n8n's binary store) per request.
	 */
	constructor(
		readonly size: number,
		readonly type: string,
		private readonly produce: () => AsyncGenerator<Buffer | string>,
		readonly whole?: () => Buffer,
	) {}

	stream(): AsyncGenerator<Buffer | string> {
		this.failure = undefined;
		const produce = this.produce;
		// The error goes on to the HTTP client as the stream's error, which ends the request.
		const record = (error: unknown) => (this.failure = error as Error);
		return (async function* () {
			try {
				yield* produce();
			} catch (error) {
				throw record(error);
			}
		})();
	}

	async arrayBuffer(): Promise<ArrayBuffer> {
		const chunks: Buffer[] = [];
		for await (const chunk of this.produce())
			chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'latin1'));
		const whole = Buffer.concat(chunks);
		return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
	}

	async text(): Promise<string> {
		return Buffer.from(await this.arrayBuffer()).toString('utf8');
	}
}
