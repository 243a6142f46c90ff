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

/** What a system error code means, in words (the one table; unknown codes: 'connection failed'). */
const CONNECTION_FAILURES: Record<string, string> = {
	ECONNRESET: 'connection reset',
	EPIPE: 'connection broken',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ESOCKETTIMEDOUT: 'timed out',
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'name lookup failed',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'host unreachable',
};

/**
 * A system error code in words. A code itself must not appear in an error's message: n8n replaces
 * a message that contains one (ECONNRESET, ETIMEDOUT, ...) by a generic sentence of its own,
 * losing what failed.
 */
export function inWords(code: string | undefined): string {
	return (code && CONNECTION_FAILURES[code]) || 'connection failed';
}
