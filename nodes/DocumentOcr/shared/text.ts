/** True for C0 control characters and DEL, which never belong in IDs or file names. */
function isControl(code: number): boolean {
	return code < 0x20 || code === 0x7f;
}

export function hasControlChars(text: string): boolean {
	for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) return true;
	return false;
}

/** A file name safe to hand on: the last path component, without control characters. */
export function safeFileName(name: string): string {
	let out = '';
	for (let i = 0; i < name.length; i++) if (!isControl(name.charCodeAt(i))) out += name[i];
	return (out.split(/[\\/]/).pop() ?? '').trim();
}

/** Text to quote in a message: control characters shown as \uXXXX, cut at `max` characters. */
export function printable(text: string, max = 40): string {
	let out = '';
	for (let i = 0; i < text.length && i < max; i++) {
		const code = text.charCodeAt(i);
		out += isControl(code) ? `\\u${code.toString(16).padStart(4, '0')}` : text[i];
	}
	return text.length > max ? `${out}…` : out;
}

/** `attachment; filename*=UTF-8''a%20b.docx` / `filename="a.docx"` → the file name. */
export function fileNameFromDisposition(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)?''([^;]+)/.exec(value);
	if (extended) {
		try {
			return decodeURIComponent(extended[1].trim().replace(/^"|"$/g, ''));
		} catch {
			// Not valid percent-encoding: fall back to the plain filename parameter below.
		}
	}
	const plain = /filename\s*=\s*"?([^";]+)"?/.exec(value);
	return plain ? plain[1].trim() : undefined;
}
