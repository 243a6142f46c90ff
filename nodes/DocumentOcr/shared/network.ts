/** One header of an HTTP answer as text (the first of several; names as n8n's helper gives them). */
export function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
	return value === undefined || value === null ? undefined : String(value);
}

/** Finds the system error code (ECONNRESET, ...) in an error thrown by the HTTP helper. */
export function systemErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const candidate = (current as { code?: unknown }).code;
		if (
			typeof candidate === 'string' &&
			/^(E[A-Z_]+|ERR_[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(candidate)
		) {
			return candidate;
		}
		current = (current as { cause?: unknown }).cause;
	}
	const message = (error as { message?: unknown })?.message;
	if (typeof message === 'string' && /socket hang up/i.test(message)) return 'ECONNRESET';
	if (typeof message === 'string' && /timeout/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

/**
 * A system error code in words. A code itself must not appear in an error's message: n8n replaces
 * a message that contains one (ECONNRESET, ETIMEDOUT, ...) by a generic sentence of its own,
 * losing what failed.
 */
export function inWords(code: string | undefined): string {
	switch (code) {
		case 'ECONNRESET':
		case 'EPIPE':
			return 'the connection was reset';
		case 'ECONNREFUSED':
			return 'the connection was refused';
		case 'ECONNABORTED':
			return 'the connection was aborted';
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return 'the host is unreachable';
		case 'ETIMEDOUT':
			return 'the connection timed out';
		default:
			return 'the connection broke';
	}
}
