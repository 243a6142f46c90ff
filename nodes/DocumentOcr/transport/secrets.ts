import { isObject } from '../shared/object';

/**
 * Secrets (the API key) out of everything the service answers and every message the node makes:
 * `scrubAnswer` on each answer before anything reads it (./verdict.ts), `redact` on each error
 * text (./errors.ts, and an answer quoted by ./answers.ts), which also hides any Bearer token.
 */

/** Whether `secret` is long enough to be one (shorter values are never treated as secrets). */
const isSecret = (secret: string) => secret.length >= 4;

/** The secrets themselves replaced by `[redacted]` (secrets shorter than 4 characters are not secrets). */
function withoutSecrets(text: string, secrets: string[] | undefined): string {
	let out = text;
	for (const secret of secrets ?? []) {
		if (secret && isSecret(secret) && out.includes(secret))
			out = out.split(secret).join('[redacted]');
	}
	return out;
}

/** Text for an error message: the secrets, and any Bearer token, replaced by `[redacted]`. */
export function redact(text: string, secrets: string[] | undefined): string {
	return withoutSecrets(text, secrets).replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]');
}

/** `bytes` with every secret in them replaced by `[redacted]`; the same Buffer when none is in it. */
function scrubBytes(bytes: Buffer, secrets: string[]): Buffer {
	let out = bytes;
	for (const secret of secrets.filter(isSecret)) {
		const needle = Buffer.from(secret, 'utf8');
		if (out.indexOf(needle) === -1) continue;
		const parts: Buffer[] = [];
		let from = 0;
		for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, from)) {
			parts.push(out.subarray(from, at), Buffer.from('[redacted]'));
			from = at + needle.length;
		}
		parts.push(out.subarray(from));
		out = Buffer.concat(parts);
	}
	return out;
}

/**
 * An answer's body with every secret in it (the API key, echoed back by a proxy or a debugging
 * endpoint) redacted — the one place answers pass before anything reads them, so the key reaches
 * no output, no file and no error. Strings and the bytes of a binary answer (an export read as an
 * ArrayBuffer or Buffer, which becomes a Buffer) are scrubbed; the body's shape is left as it is.
 */
export function scrubAnswer<T>(body: T, secrets: string[] | undefined): T {
	if (!secrets?.length) return body;
	if (Buffer.isBuffer(body)) return scrubBytes(body, secrets) as T;
	if (body instanceof ArrayBuffer) {
		const bytes = Buffer.from(body);
		const scrubbed = scrubBytes(bytes, secrets);
		return (scrubbed === bytes ? body : scrubbed) as T;
	}
	return holds(body, secrets) ? (scrubbed(body, secrets) as T) : body;
}

/**
 * Whether a secret is in any string of `body`, its object keys included. Walked with a stack of its
 * own rather than by recursion — an answer nested a million levels deep (JSON.parse makes one from
 * 6 MB) must not overflow the call stack inside the transport, where the error would hide what
 * was billed — and filled one element at a time: spreading a wide array into push() overflows it
 * too.
 */
function holds(body: unknown, secrets: string[]): boolean {
	const found = (text: string) => secrets.some((s) => isSecret(s) && text.includes(s));
	const stack = [body];
	while (stack.length > 0) {
		const value = stack.pop();
		if (typeof value === 'string') {
			if (found(value)) return true;
		} else if (Array.isArray(value)) {
			for (const inner of value) stack.push(inner);
		} else if (isObject(value)) {
			for (const [key, inner] of Object.entries(value)) {
				if (found(key)) return true;
				stack.push(inner);
			}
		}
	}
	return false;
}

/** A copy of `body` with every string and key scrubbed; its shape and order kept (walked as `holds`). */
function scrubbed(body: unknown, secrets: string[]): unknown {
	const copy = (value: unknown): unknown =>
		typeof value === 'string'
			? withoutSecrets(value, secrets)
			: Array.isArray(value)
				? new Array<unknown>(value.length)
				: isObject(value)
					? {}
					: value;
	const root = copy(body);
	const stack: Array<[unknown, Record<string | number, unknown>]> = [];
	if (root !== body && typeof root === 'object')
		stack.push([body, root as Record<string, unknown>]);
	while (stack.length > 0) {
		const [from, to] = stack.pop()!;
		const entries: Array<[string | number, unknown]> = Array.isArray(from)
			? from.map((value, i) => [i, value])
			: Object.entries(from as Record<string, unknown>);
		for (const [key, value] of entries) {
			const made = copy(value);
			to[typeof key === 'string' ? withoutSecrets(key, secrets) : key] = made;
			if (made !== value && typeof made === 'object' && made !== null)
				stack.push([value, made as Record<string, unknown>]);
		}
	}
	return root;
}
