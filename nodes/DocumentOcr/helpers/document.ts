import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { safeFileName } from './text';

/**
 * Turns an item's document (an n8n binary property, or a Base64 string / data URI) into checked
 * bytes BEFORE any request is sent, so a document the service would refuse costs nothing:
 * empty, over 10 MB, unknown file type (magic bytes), a file name that contradicts the content,
 * broken Base64, a missing binary property — each is a NodeOperationError naming the item.
 */

export type DocumentKind = 'pdf' | 'png' | 'jpeg' | 'webp' | 'tiff' | 'gif';

/** Types the task API accepts ("images and PDFs"). */
export const TASK_API_KINDS: DocumentKind[] = ['pdf', 'png', 'jpeg', 'webp', 'tiff', 'gif'];
/** Types the /v1 API accepts (spec §8). */
export const V1_KINDS: DocumentKind[] = ['pdf', 'png', 'jpeg', 'webp'];

/** 10 MB, applied to the decoded file (see README: assumptions). */
/**
 * The service's limit on a submission's request body: "10 MB", read as 10,000,000 bytes (the
 * smaller of 10 MB and 10 MiB). A file can be no larger than the body that carries it, so the same
 * number refuses a too-large file early; the exact body is checked with checkBodySize.
 */
export const MAX_BODY_BYTES = 10_000_000;

const KIND_INFO: Record<
	DocumentKind,
	{ mime: string; ext: string; extensions: string[]; label: string }
> = {
	pdf: { mime: 'application/pdf', ext: 'pdf', extensions: ['pdf'], label: 'a PDF' },
	png: { mime: 'image/png', ext: 'png', extensions: ['png'], label: 'a PNG image' },
	jpeg: {
		mime: 'image/jpeg',
		ext: 'jpg',
		extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
		label: 'a JPEG image',
	},
	webp: { mime: 'image/webp', ext: 'webp', extensions: ['webp'], label: 'a WEBP image' },
	tiff: { mime: 'image/tiff', ext: 'tiff', extensions: ['tif', 'tiff'], label: 'a TIFF image' },
	gif: { mime: 'image/gif', ext: 'gif', extensions: ['gif'], label: 'a GIF image' },
};

/**
 * A checked document. Its bytes are either in memory (Base64 input, or binary data n8n keeps in
 * memory) or in n8n's binary store (on disk), in which case they are streamed when sent and
 * never held whole: see `openDocument`.
 */
export interface DocumentInput {
	kind: DocumentKind;
	mimeType: string;
	fileName: string;
	/** Size in bytes (decoded). */
	size: number;
	bytes?: Buffer;
	binaryId?: string;
	/**
	 * A large stored document as read in the check phase, kept (within a per-execution budget)
	 * so that its submission does not read it a second time; let go once sent (see openDocument).
	 */
	chunks?: Buffer[];
	/** Gives the kept chunks' share of the budget back. */
	release?: () => void;
}

/** Bytes needed to recognise every accepted type (PDF: header within the first 1024 bytes). */
const HEAD_BYTES = 1024;

/**
 * How far from the end a complete file's end marker may sit (writers may append a little after
 * it), and the markers: a PDF ends with `%%EOF`, a PNG with its `IEND` chunk. Other types carry
 * no end marker that is reliable in practice (JPEG files often have data after their EOI).
 */
const TAIL_BYTES = 8 * 1024;
const END_MARKERS: Partial<Record<DocumentKind, string>> = { pdf: '%%EOF', png: 'IEND' };

/**
 * The document's bytes as chunks (from n8n's binary store when stored). Chunks kept from the
 * check phase are handed out once and then let go: a second reading (a retried submission)
 * streams from the binary store again.
 */
export async function openDocument(
	ctx: IExecuteFunctions,
	document: DocumentInput,
): Promise<AsyncIterable<Buffer | string> | Iterable<Buffer>> {
	if (document.bytes) return [document.bytes];
	const { chunks } = document;
	if (chunks) {
		document.chunks = undefined;
		document.release?.();
		// Each chunk is let go as soon as it is handed on, so the ones already sent can be collected.
		return (function* () {
			for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) yield chunk;
		})();
	}
	return await ctx.helpers.getBinaryStream(document.binaryId!);
}

/**
 * A stored document up to this size is kept in memory once read in the check phase, as one
 * Buffer: the send then needs no second read of n8n's binary store (a file open per item, most of
 * a small item's cost).
 */
const KEEP_BYTES = 64 * 1024;

/**
 * The most kept per node execution: small documents for the whole run (e.g. 5,000 one-page scans
 * of ~2 kB = 10 MB), large ones as the chunks read in the check phase until they are sent. A
 * large document not kept is read twice (check, send); each read leaves its size in garbage
 * until the next collection, which made a 7.4 MB submission grow the process by 26 MB.
 */
const KEEP_BUDGET_BYTES = 32 * 1024 * 1024;

/** Bytes kept so far, per node execution (its context). */
const kept = new WeakMap<object, number>();

interface Scanned {
	/** Bytes read; above MAX_BODY_BYTES the read stops early. */
	size: number;
	head: Buffer;
	tail: Buffer;
	/** The whole file, when small enough to keep. */
	bytes?: Buffer;
	/** A large file's chunks, kept within the budget. */
	chunks?: Buffer[];
	release?: () => void;
}

/**
 * Reads a stored binary once, from n8n's binary store: its size, first HEAD_BYTES (the type) and
 * last TAIL_BYTES (the end marker), and the whole file when it is small enough to keep. Only
 * the head and the tail are held while a large file streams past.
 */
async function scanStored(ctx: IExecuteFunctions, binaryId: string): Promise<Scanned> {
	const stream = await ctx.helpers.getBinaryStream(binaryId);
	let chunks: Buffer[] | undefined = [];
	let size = 0;
	let head: Buffer = Buffer.alloc(0);
	let tail: Buffer = Buffer.alloc(0);
	try {
		for await (const chunk of stream) {
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			if (head.length < HEAD_BYTES)
				head = Buffer.concat([head, buffer.subarray(0, HEAD_BYTES - head.length)]);
			tail =
				buffer.length >= TAIL_BYTES
					? buffer.subarray(buffer.length - TAIL_BYTES)
					: Buffer.concat([tail, buffer]).subarray(-TAIL_BYTES);
			size += buffer.length;
			if (size > MAX_BODY_BYTES) break;
			if (chunks && (kept.get(ctx) ?? 0) + size <= KEEP_BUDGET_BYTES) chunks.push(buffer);
			else chunks = undefined;
		}
	} finally {
		stream.destroy();
	}
	if (!chunks || size === 0 || size > MAX_BODY_BYTES)
		return { size, head, tail: Buffer.from(tail) };
	kept.set(ctx, (kept.get(ctx) ?? 0) + size);
	if (size <= KEEP_BYTES)
		return { size, head, tail: Buffer.from(tail), bytes: Buffer.concat(chunks, size) };
	const release = () => kept.set(ctx, (kept.get(ctx) ?? size) - size);
	return { size, head, tail: Buffer.from(tail), chunks, release };
}

/**
 * Whether a stored document is read whole in one call rather than scanned as a stream: n8n
 * recorded its size (`bytes`, which n8n sets when it stores binary data), it is small enough to
 * keep, and the budget has room. One call costs a fraction of a stream per file. The size read is
 * what counts afterwards, not the recorded one.
 */
function readsWhole(ctx: IExecuteFunctions, recorded: unknown): boolean {
	return (
		typeof recorded === 'number' &&
		Number.isInteger(recorded) &&
		recorded > 0 &&
		recorded <= KEEP_BYTES &&
		(kept.get(ctx) ?? 0) + recorded <= KEEP_BUDGET_BYTES
	);
}

/** Detects the file type from its first bytes; null when it is none of the accepted kinds. */
export function detectKind(head: Buffer): DocumentKind | null {
	if (
		head.length >= 8 &&
		head.readUInt32BE(0) === 0x89504e47 &&
		head.readUInt32BE(4) === 0x0d0a1a0a
	)
		return 'png';
	if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
	if (
		head.length >= 12 &&
		head.toString('latin1', 0, 4) === 'RIFF' &&
		head.toString('latin1', 8, 12) === 'WEBP'
	)
		return 'webp';
	if (head.length >= 4) {
		const sig = head.toString('latin1', 0, 4);
		if (sig === 'II*\u0000' || sig === 'MM\u0000*') return 'tiff';
	}
	if (head.length >= 6 && /^GIF8[79]a$/.test(head.toString('latin1', 0, 6))) return 'gif';
	// PDF readers accept the header anywhere in the first 1024 bytes.
	if (head.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1') !== -1) return 'pdf';
	return null;
}

function kindList(kinds: DocumentKind[]): string {
	return kinds.map((k) => KIND_INFO[k].ext.toUpperCase()).join(', ');
}

function extensionOf(fileName: string): string | undefined {
	const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName);
	return match ? match[1].toLowerCase() : undefined;
}

function kindOfExtension(ext: string | undefined): DocumentKind | undefined {
	if (!ext) return undefined;
	return (Object.keys(KIND_INFO) as DocumentKind[]).find((k) =>
		KIND_INFO[k].extensions.includes(ext),
	);
}

/** Bytes in decimal units, as the service states its limit (10 MB = 10,000,000 bytes). */
export function formatBytes(bytes: number): string {
	return bytes >= 1_000_000
		? `${(bytes / 1_000_000).toFixed(2)} MB`
		: `${Math.ceil(bytes / 1000)} kB`;
}

const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

interface DecodedBase64 {
	bytes: Buffer;
	declaredMime?: string;
}

/** Decodes Base64 or a `data:<mime>;base64,<data>` URI, refusing anything malformed. */
export function decodeBase64Input(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: string,
	maxBytes = MAX_BODY_BYTES,
): DecodedBase64 {
	const node = ctx.getNode();
	let data = raw.trim();
	let declaredMime: string | undefined;
	if (/^data:/i.test(data)) {
		const match = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(data);
		if (!match) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the data URI is malformed`, {
				description: 'Expected the form data:<type>;base64,<data>.',
				itemIndex,
			});
		}
		if (!/;base64$/i.test(match[2]) && !/;base64;/i.test(`${match[2]};`)) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the data URI is not Base64-encoded`, {
				description: 'Only data URIs of the form data:<type>;base64,<data> are supported.',
				itemIndex,
			});
		}
		declaredMime = match[1].toLowerCase() || undefined;
		data = data.slice(match[0].length);
	}
	data = data.replace(/\s+/g, '');
	// Accept the URL-safe alphabet too; the service receives standard Base64.
	if (/[-_]/.test(data)) data = data.replace(/-/g, '+').replace(/_/g, '/');
	if (data.length === 0) {
		throw new NodeOperationError(node, `Item ${itemIndex}: the document is empty`, {
			description: 'The Base64 field holds no data.',
			itemIndex,
		});
	}
	if (!BASE64_BODY.test(data) || data.length % 4 === 1) {
		throw new NodeOperationError(node, `Item ${itemIndex}: the Base64 data is malformed`, {
			description:
				'It contains characters outside the Base64 alphabet or has a broken length. Pass the file as binary data, or check how the Base64 string was produced.',
			itemIndex,
		});
	}
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	const decodedSize = Math.floor((data.length * 3) / 4) - padding;
	if (decodedSize > maxBytes) throw tooLarge(ctx, itemIndex, decodedSize, maxBytes);
	return { bytes: Buffer.from(data, 'base64'), declaredMime };
}

function tooLarge(ctx: IExecuteFunctions, itemIndex: number, size: number, max: number) {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: the document is ${formatBytes(size)}, over the service's ${formatBytes(max)} limit`,
		{
			description:
				'Compress the file or split it into smaller documents. Nothing was sent or charged.',
			itemIndex,
		},
	);
}

export interface ReadDocumentOptions {
	/** Kinds the target endpoint accepts. */
	accept: DocumentKind[];
	/** Name of the endpoint, for messages (e.g. "the /v1 API"). */
	target: string;
	/** The endpoint needs the original file name: refuse to make one up. */
	requireFileName?: boolean;
}

/**
 * Reads the document of an item from the shared document fields (`documentSource`,
 * `binaryPropertyName`, `base64Data`, `fileName`) and checks it.
 */
export async function readDocument(
	this: IExecuteFunctions,
	itemIndex: number,
	options: ReadDocumentOptions,
): Promise<DocumentInput> {
	const node = this.getNode();
	const source = this.getNodeParameter('documentSource', itemIndex, 'binary') as string;
	const fileNameParam = safeFileName(
		String(this.getNodeParameter('fileName', itemIndex, '') ?? ''),
	);

	let bytes: Buffer | undefined;
	let binaryId: string | undefined;
	let size: number;
	let head: Buffer;
	let tail: Buffer | undefined;
	let chunks: Buffer[] | undefined;
	let release: (() => void) | undefined;
	let fileName = fileNameParam;
	let declaredMime: string | undefined;

	if (source === 'base64') {
		const raw = this.getNodeParameter('base64Data', itemIndex, '') as string;
		if (typeof raw !== 'string' || raw.trim() === '') {
			throw new NodeOperationError(node, `Item ${itemIndex}: no document data`, {
				description:
					'The "Base64 or Data URI" field is empty. Map the field holding the file content.',
				itemIndex,
			});
		}
		({ bytes, declaredMime } = decodeBase64Input(this, itemIndex, raw));
		size = bytes.length;
		head = bytes.subarray(0, HEAD_BYTES);
	} else {
		const property = (
			this.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string
		).trim();
		const item = this.getInputData()[itemIndex];
		const binary = item?.binary?.[property];
		if (!binary) {
			const available = Object.keys(item?.binary ?? {});
			throw new NodeOperationError(node, `Item ${itemIndex} has no binary field "${property}"`, {
				description: available.length
					? `The item's binary fields are: ${available.join(', ')}. Set "Input Binary Field" to one of them.`
					: 'The item carries no binary data. Read the file first (e.g. with "Read/Write Files from Disk" or an HTTP Request set to return a file), or choose "Base64 or Data URI".',
				itemIndex,
			});
		}
		if (binary.id && readsWhole(this, binary.bytes)) {
			// Stored, small, and n8n recorded its size: one whole read (no stream), kept for the send.
			binaryId = binary.id;
			bytes = await this.helpers.getBinaryDataBuffer(itemIndex, property);
			size = bytes.length;
			kept.set(this, (kept.get(this) ?? 0) + size);
			head = bytes.subarray(0, HEAD_BYTES);
		} else if (binary.id) {
			// Stored by n8n (disk or database): read once; a large file is not held, only checked.
			binaryId = binary.id;
			const scanned = await scanStored(this, binary.id);
			size = scanned.size;
			if (size > MAX_BODY_BYTES) size = (await this.helpers.getBinaryMetadata(binary.id)).fileSize;
			({ head, tail, chunks, release } = scanned);
			bytes = scanned.bytes;
		} else {
			bytes = await this.helpers.getBinaryDataBuffer(itemIndex, property);
			size = bytes.length;
			head = bytes.subarray(0, HEAD_BYTES);
		}
		fileName = fileName || safeFileName(binary.fileName ?? '');
		declaredMime = binary.mimeType;
	}

	if (size === 0) {
		throw new NodeOperationError(node, `Item ${itemIndex}: the document is empty (0 bytes)`, {
			description: 'Nothing was sent or charged. Check the step that produced the file.',
			itemIndex,
		});
	}
	if (size > MAX_BODY_BYTES) throw tooLarge(this, itemIndex, size, MAX_BODY_BYTES);

	const kind = detectKind(head);
	if (!kind || !options.accept.includes(kind)) {
		const what = kind ? KIND_INFO[kind].label : 'not a file type the service reads';
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: ${fileName ? `"${fileName}" is` : 'the document is'} ${what}; ${options.target} accepts ${kindList(options.accept)}`,
			{
				description: kind
					? `Convert the file to one of: ${kindList(options.accept)}. Nothing was sent or charged.`
					: `The first bytes of the file match no PDF or image format (a renamed, encrypted or truncated file?). Nothing was sent or charged.`,
				itemIndex,
			},
		);
	}

	const endMarker = END_MARKERS[kind];
	if (endMarker) {
		const end = tail ?? bytes!.subarray(-TAIL_BYTES);
		if (end.indexOf(endMarker, 0, 'latin1') === -1) {
			throw new NodeOperationError(
				node,
				`Item ${itemIndex}: ${fileName ? `"${fileName}"` : 'the document'} is cut off: ${KIND_INFO[kind].label} ends with "${endMarker}", and this file does not`,
				{
					description:
						'The file was probably truncated while it was downloaded or copied. Fetch it again. Nothing was sent or charged.',
					itemIndex,
				},
			);
		}
	}

	const extKind = kindOfExtension(extensionOf(fileName));
	if (extKind && extKind !== kind) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: "${fileName}" is named as ${KIND_INFO[extKind].label} but its content is ${KIND_INFO[kind].label}`,
			{
				description: `The service detects the type from the file name, so it would fail on this file. Rename it to ".${KIND_INFO[kind].ext}" (File Name field). Nothing was sent or charged.`,
				itemIndex,
			},
		);
	}
	const mimeKind = declaredMime
		? (Object.keys(KIND_INFO) as DocumentKind[]).find((k) => KIND_INFO[k].mime === declaredMime)
		: undefined;
	if (source === 'base64' && mimeKind && mimeKind !== kind) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: the data URI says ${declaredMime} but the content is ${KIND_INFO[kind].label}`,
			{ description: 'Fix the type in the data URI. Nothing was sent or charged.', itemIndex },
		);
	}

	if (!fileName && options.requireFileName) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: ${options.target} needs the document's file name`,
			{
				description:
					'The input has no file name (Base64 data, or binary data without one). Enter it in "File Name", with its extension, e.g. scan-0042.pdf. Nothing was sent or charged.',
				itemIndex,
			},
		);
	}
	if (!fileName) fileName = `document.${KIND_INFO[kind].ext}`;
	else if (!extKind) fileName = `${fileName}.${KIND_INFO[kind].ext}`;

	return { kind, mimeType: KIND_INFO[kind].mime, fileName, size, bytes, binaryId, chunks, release };
}
