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
