/**
 * What each service error code tells the user, and what to do (ADVICE, the one list of codes the
 * node knows), and the advice for an answer without a known code, by its HTTP status. ./errors.ts
 * builds the errors with it.
 */

export interface ErrorContext {
	itemIndex: number;
	/** Scope the failed endpoint needs, named in insufficient_scope errors. */
	scope?: string;
	/** What was addressed, e.g. `Task "tsk_1"`, used in not-found messages. */
	subject?: string;
	/** True for requests that create something billable (submissions). */
	submission?: boolean;
	/** Retries already made before giving up. */
	retries?: number;
	/** Secrets that must never appear in an error (the API key). */
	secrets?: string[];
}

export interface Advice {
	message: string;
	description: string;
}

/** The code the spec pairs with an HTTP status, for bodies that carry no code. */
export function codeForStatus(status: number): string | undefined {
	switch (status) {
		case 401:
			return 'invalid_api_key';
		case 402:
			return 'insufficient_pages';
		case 404:
			return 'not_found';
		case 413:
			return 'payload_too_large';
		case 415:
			return 'unsupported_media_type';
		case 429:
			return 'rate_limited';
		default:
			return undefined;
	}
}

/**
 * What each service error code means for the user, and what to do: the message, and the advice.
 * `notCharged` is said of a submission the service refused (nothing was charged for it).
 */
type Said = { ctx: ErrorContext; subject: string; notCharged: string };

/**
 * Every service error code the node knows, with what it tells the user. The one list of codes:
 * KNOWN_CODES (the codes a plain-text body is searched for) is read from it.
 */
const ADVICE = {
	missing_api_key: () => ({
		message: 'No API key was sent to the OCR service',
		description:
			'Open the Document OCR API credential and enter the API key from the account settings.',
	}),
	invalid_api_key: () => ({
		message: 'The OCR service refused the API key',
		description:
			'The key is wrong, revoked or expired. Create a new key in the account settings (a key is shown only once) and paste it into the Document OCR API credential.',
	}),
	user_banned: () => ({
		message: 'The OCR account is banned',
		description:
			'Every request of this account is refused. Contact the service to restore the account; retrying will not help.',
	}),
	insufficient_scope: ({ ctx }) => ({
		message: ctx.scope
			? `The API key lacks the "${ctx.scope}" scope this operation needs`
			: 'The API key lacks the scope this operation needs',
		description: `Create a key with the ${ctx.scope ? `"${ctx.scope}"` : 'needed'} scope in the account settings ("read" for Get, Get Many and Export; "export" for Delete) and update the credential.`,
	}),
	insufficient_pages: ({ notCharged }) => ({
		message: 'The account has no page balance left for this document',
		description: `Top up the page balance (team members share the plan owner's balance), then run the workflow again.${notCharged}`,
	}),
	not_found: ({ subject }) => ({
		message: `${subject} was not found`,
		description:
			'Check the ID. Deleted tasks, and tasks created with another account, cannot be read.',
	}),
	payload_too_large: ({ notCharged }) => ({
		message: 'The document is too large for the OCR service (limit 10 MB)',
		description: `Compress the file or split it into smaller documents.${notCharged}`,
	}),
	unsupported_media_type: ({ notCharged }) => ({
		message: 'The OCR service does not accept this file type',
		description: `Send a PDF or an image (PNG, JPEG, WEBP; TIFF and GIF on the task API) whose content matches its file name.${notCharged}`,
	}),
	rate_limited: ({ ctx, notCharged }) => ({
		message: 'The OCR service is throttling requests (rate limited)',
		description: `The node waited as the service asked and retried ${ctx.retries ?? 0} time(s). Lower the node's concurrency or spread the items over time.${notCharged}`,
	}),
	task_creation_failed: () => ({
		message: 'The OCR service could not create the task, and refunded its pages',
		description:
			'Nothing was charged for this document. The node sent it once more and the service failed again: try again later.',
	}),
	daily_quota_exceeded: ({ notCharged }) => ({
		message: "The account's daily quota of the OCR service is used up",
		description: `No more requests are accepted today; the node does not retry. Run the workflow again after the quota resets.${notCharged}`,
	}),
} satisfies Record<string, (said: Said) => Advice>;

export type KnownCode = keyof typeof ADVICE;

/** The codes ADVICE knows: a plain-text body that names one anywhere is read as that code. */
export const KNOWN_CODES = Object.keys(ADVICE) as KnownCode[];

function isKnownCode(code: string): code is KnownCode {
	return Object.prototype.hasOwnProperty.call(ADVICE, code);
}

export function adviceFor(code: string | undefined, status: number, ctx: ErrorContext): Advice {
	const subject = ctx.subject ?? 'The requested item';
	const notCharged = ctx.submission ? ' Nothing was charged for this document.' : '';
	if (code !== undefined && isKnownCode(code)) return ADVICE[code]({ ctx, subject, notCharged });
	if (status >= 500) {
		return ctx.submission
			? {
					message: `The OCR service failed (HTTP ${status}) after the document was sent: a task may have been created`,
					description:
						'The node does not resend submissions, so that a document is never charged twice. Check the task list (Get Many) for a task created just now before submitting this document again.',
				}
			: {
					message: `The OCR service failed (HTTP ${status})`,
					description: `The node retried ${ctx.retries ?? 0} time(s). Try again later; if it persists, contact the service.`,
				};
	}
	if (ctx.submission && processedThenFailed(status)) {
		return {
			message: `The OCR service could not process the document (HTTP ${status}${code ? `, ${code}` : ''}): its pages may have been charged`,
			description:
				'The service deducts pages before it processes a document, and refunds them only when it fails to create the task. Check the account balance or the task list before sending this document again.',
		};
	}
	return {
		message: `The OCR service rejected the request (HTTP ${status}${code ? `, ${code}` : ''})`,
		description: `Check the node parameters against the service documentation.${notCharged}`,
	};
}

/**
 * A submission answered 422: the document was taken and could not be processed (the `/v1`
 * surface's `ocr_failed`, say) — after the pages were deducted, since the service deducts before
 * processing. Other 4xx refuse the request before anything is processed.
 */
export function processedThenFailed(status: number): boolean {
	return status === 422;
}
