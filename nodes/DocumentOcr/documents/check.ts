/**
 * The pure checks of a document's bytes, made BEFORE any request is sent so a document the
 * service would refuse costs nothing: empty, over the body limit, an unknown file type (magic
 * bytes), a PDF or PNG cut off before its end marker, a file name or data URI type that
 * contradicts the content, a missing file name where the endpoint needs one. Each problem is
 * a message and what to do; documents/read.ts makes it the item's error.
 */

export type DocumentKind = 'pdf' | 'png' | 'jpeg' | 'webp' | 'tiff' | 'gif';

/** Types the task API accepts ("images and PDFs"). */
export const TASK_API_KINDS: DocumentKind[] = ['pdf', 'png', 'jpeg', 'webp', 'tiff', 'gif'];
/** Types the /v1 API accepts (the interface's `/v1` section: PDF, PNG, JPEG, WEBP). */
export const V1_KINDS: DocumentKind[] = ['pdf', 'png', 'jpeg', 'webp'];

/**
 * The service's limit on a submission's request body: "10 MB", read as 10,000,000 bytes (the
 * smaller of 10 MB and 10 MiB). A file can be no larger than the body that carries it, so the same
 * number refuses a too-large file early; the exact body is checked with checkBodySize.
 */
export const MAX_BODY_BYTES = 10_000_000;

/**
 * The largest document the Split Large Documents option reads: it is held whole while it is cut
 * into parts that each fit MAX_BODY_BYTES (and again while each part is written to be sent).
 */
export const SPLIT_READ_BYTES = 50_000_000;

/** The option that sends a PDF or TIFF past the limit in parts, as messages name it. */
export const SPLIT_OPTION = '"Split Large Documents"';

export const KIND_INFO: Record<
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

/** Bytes needed to recognise every accepted type (PDF: header within the first 1024 bytes). */
export const HEAD_BYTES = 1024;

/**
 * How far from the end a complete file's end marker may sit (writers may append a little after
 * it), and the markers: a PDF ends with `%%EOF`, a PNG with its `IEND` chunk. Other types carry
 * no end marker that is reliable in practice (JPEG files often have data after their EOI).
 */
export const TAIL_BYTES = 8 * 1024;
const END_MARKERS: Partial<Record<DocumentKind, string>> = { pdf: '%%EOF', png: 'IEND' };

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
		// Classic TIFF (version 42) and BigTIFF (43), in either byte order.
		if (sig === 'II*\u0000' || sig === 'MM\u0000*') return 'tiff';
		if (sig === 'II+\u0000' || sig === 'MM\u0000+') return 'tiff';
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

/** What is wrong with a document: the message (after "Item N: ") and what to do. */
export interface Problem {
	problem: string;
	description: string;
}

export function tooLarge(size: number, max = MAX_BODY_BYTES): Problem {
	if (max > MAX_BODY_BYTES)
		return {
			problem: `the document is ${formatBytes(size)}, over the ${formatBytes(max)} that ${SPLIT_OPTION} reads`,
			description:
				'A document is held whole while it is split, so larger ones are not read. Split it into smaller documents first, or compress it. Nothing was sent or charged.',
		};
	return {
		problem: `the document is ${formatBytes(size)}, over the service's ${formatBytes(max)} limit`,
		description: `Turn on ${SPLIT_OPTION} (in the node's options) to send a PDF or multi-page TIFF in parts that each fit, in page order as one item; or compress the file. Nothing was sent or charged.`,
	};
}

/** What was read of a document: its size, first and last bytes, and what it says of itself. */
export interface Scan {
	size: number;
	head: Buffer;
	tail: Buffer;
	/** The file name given or carried by the input ('' when none). */
	fileName: string;
	/** The type a data URI declares (Base64 input only). */
	declaredMime?: string;
}

export interface Accepts {
	/** Kinds the target endpoint accepts. */
	accept: DocumentKind[];
	/** Name of the endpoint, for messages (e.g. "the /v1 API"). */
	target: string;
	/** The endpoint needs the original file name: refuse to make one up. */
	requireFileName?: boolean;
	/**
	 * The most bytes read of a document: MAX_BODY_BYTES (the default), or SPLIT_READ_BYTES with
	 * Split Large Documents (the parts are then each checked against MAX_BODY_BYTES).
	 */
	maxBytes?: number;
}

/** The document's kind and the file name to send, or the first problem found. */
export function checkDocument(
	scan: Scan,
	accepts: Accepts,
): { kind: DocumentKind; fileName: string } | Problem {
	const { size, head, tail, fileName, declaredMime } = scan;
	if (size === 0) {
		return {
			problem: 'the document is empty (0 bytes)',
			description: 'Nothing was sent or charged. Check the step that produced the file.',
		};
	}
	const maxBytes = accepts.maxBytes ?? MAX_BODY_BYTES;
	if (size > maxBytes) return tooLarge(size, maxBytes);
	const kind = detectKind(head);
	if (!kind || !accepts.accept.includes(kind)) return wrongKind(kind, fileName, accepts);
	const named = fileName ? `"${fileName}"` : 'the document';
	const endMarker = END_MARKERS[kind];
	if (endMarker && tail.indexOf(endMarker, 0, 'latin1') === -1) {
		return {
			problem: `${named} is cut off: ${KIND_INFO[kind].label} ends with "${endMarker}", and this file does not`,
			description:
				'The file was probably truncated while it was downloaded or copied. Fetch it again. Nothing was sent or charged.',
		};
	}
	const extKind = kindOfExtension(extensionOf(fileName));
	if (extKind && extKind !== kind) {
		return {
			problem: `"${fileName}" is named as ${KIND_INFO[extKind].label} but its content is ${KIND_INFO[kind].label}`,
			description: `The service detects the type from the file name, so it would fail on this file. Rename it to ".${KIND_INFO[kind].ext}" (File Name field). Nothing was sent or charged.`,
		};
	}
	const mimeKind = declaredMime
		? (Object.keys(KIND_INFO) as DocumentKind[]).find((k) => KIND_INFO[k].mime === declaredMime)
		: undefined;
	if (mimeKind && mimeKind !== kind) {
		return {
			problem: `the data URI says ${declaredMime} but the content is ${KIND_INFO[kind].label}`,
			description: 'Fix the type in the data URI. Nothing was sent or charged.',
		};
	}
	if (!fileName && accepts.requireFileName) {
		return {
			problem: `${accepts.target} needs the document's file name`,
			description:
				'The input has no file name (Base64 data, or binary data without one). Enter it in "File Name", with its extension, e.g. scan-0042.pdf. Nothing was sent or charged.',
		};
	}
	const ext = KIND_INFO[kind].ext;
	return {
		kind,
		fileName: !fileName ? `document.${ext}` : extKind ? fileName : `${fileName}.${ext}`,
	};
}

function wrongKind(kind: DocumentKind | null, fileName: string, accepts: Accepts): Problem {
	const what = kind ? KIND_INFO[kind].label : 'not a file type the service reads';
	return {
		problem: `${fileName ? `"${fileName}" is` : 'the document is'} ${what}; ${accepts.target} accepts ${kindList(accepts.accept)}`,
		description: kind
			? `Convert the file to one of: ${kindList(accepts.accept)}. Nothing was sent or charged.`
			: `The first bytes of the file match no PDF or image format (a renamed, encrypted or truncated file?). Nothing was sent or charged.`,
	};
}
