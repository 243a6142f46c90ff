import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { inWords } from '../shared/network';
import type { Advice, ErrorContext } from './advice';
import { adviceFor, codeForStatus, processedThenFailed } from './advice';
import { parseServiceError, quoteAnswer, refundedCreationFailure } from './answers';
import type { TransportContext } from './endpoints';
import { neverSent } from './retry';
import { redact } from './secrets';

/**
 * The one place that turns what the service answered into an error a user can act on: an error
 * answer (its body read by ./answers.ts, its advice from ./advice.ts), a request that got no
 * answer, a 2xx that is not what its endpoint promises; and what such an error says of money
 * (`mayHaveCreated`). Secrets are taken out of every message by ./secrets.ts.
 */

/**
 * Whether a failed submission may have created (and charged) a task, job or document: its request
 * reached the service and the answer was lost or was a 5xx other than a refunded creation, or a
 * 2xx came without the ID it must carry. The errors of this module say so in `context`.
 */
export function mayHaveCreated(error: unknown): boolean {
	return (
		(error instanceof NodeApiError || error instanceof NodeOperationError) &&
		error.context?.mayHaveCreated === true
	);
}

/** The HTTP status a NodeApiError of this module carries (undefined for other errors). */
export function httpStatus(error: unknown): number | undefined {
	if (!(error instanceof NodeApiError)) return undefined;
	const status = Number(error.httpCode);
	return Number.isFinite(status) ? status : undefined;
}

/**
 * The message with what the request was about (`Task "tsk_1"`) in front, when the message does
 * not name it already: a read's error says which task or job failed.
 */
function about(ctx: ErrorContext, message: string): string {
	return ctx.subject && !message.includes(ctx.subject) ? `${ctx.subject}: ${message}` : message;
}

/** Builds the error for an HTTP error answer. */
export function serviceError(
	node: INode,
	status: number,
	body: unknown,
	ctx: ErrorContext,
): NodeApiError {
	const info = parseServiceError(body);
	const code =
		ctx.submission && refundedCreationFailure(status, body)
			? 'task_creation_failed'
			: (info.code ?? codeForStatus(status));
	const advice = adviceFor(code, status, ctx);
	const detail = info.serviceMessage ? ` Service said: ${info.serviceMessage}` : '';
	const message = redact(about(ctx, advice.message), ctx.secrets);
	const description = redact(`${advice.description}${detail}`, ctx.secrets);
	const errorBody: JsonObject = {
		httpCode: String(status),
		code: code ?? null,
		message,
		description,
	};
	const error = new NodeApiError(node, errorBody, {
		message,
		description,
		httpCode: String(status),
		itemIndex: ctx.itemIndex,
	});
	if (
		ctx.submission &&
		(status >= 500 || processedThenFailed(status)) &&
		code !== 'task_creation_failed'
	)
		error.context.mayHaveCreated = true;
	return error;
}

/** Builds the error for a request that got no HTTP answer (reset, refused, timeout, lost). */
export function networkError(
	node: INode,
	errorCode: string,
	host: string,
	ctx: ErrorContext,
): NodeApiError {
	// The system code stays out of the message: NodeApiError swaps any message containing one for
	// its generic text ("You can retry the request immediately"), exactly wrong for a submission.
	const what = inWords(errorCode);
	const reached = !neverSent(errorCode);
	const advice: Advice =
		ctx.submission && reached
			? {
					message: `The connection to the OCR service broke after the document was sent (${what}): a task may have been created`,
					description:
						'The node does not resend submissions, so that a document is never charged twice. Check the task list (Get Many) for a task created just now before submitting this document again.',
				}
			: {
					message: `Could not reach the OCR service at ${host} (${what})`,
					description: reached
						? `The node retried ${ctx.retries ?? 0} time(s). Check that the service is up and that the credential's URL is right.`
						: `Check the Base URL / API URL in the Document OCR API credential and that n8n can reach that host.${ctx.submission ? ' Nothing was sent, so nothing was charged.' : ''}`,
				};
	const message = redact(about(ctx, advice.message), ctx.secrets);
	const description = redact(`${advice.description} (Error code: ${errorCode}.)`, ctx.secrets);
	const error = new NodeApiError(
		node,
		{ connectionError: errorCode, message, description },
		{ message, description, itemIndex: ctx.itemIndex },
	);
	if (ctx.submission && reached) error.context.mayHaveCreated = true;
	return error;
}

/**
 * A 2xx answer whose body is not what the endpoint promises (`expected`, e.g. "a JSON object", "a
 * task"). `mayHaveCreated`: it answered a submission, so a task, job or document may exist and be
 * charged (see `mayHaveCreated` above).
 */
export function unexpectedBody(
	ctx: TransportContext,
	itemIndex: number,
	what: string,
	body: unknown,
	{ expected = 'a JSON object', mayHaveCreated = false } = {},
): NodeApiError {
	// The body was scrubbed of the key by apiRequest; quoteAnswer redacts any Bearer token too.
	const message = `Unexpected answer from the OCR service for ${what}`;
	const description = `Expected ${expected} but received: ${quoteAnswer(body)}. Check the Base URL (and API URL) in the Document OCR API credential: it must be the OCR service's address, not another API's; a proxy in between may have answered instead of the service.`;
	const error = new NodeApiError(ctx.getNode(), { message }, { message, description, itemIndex });
	if (mayHaveCreated) error.context.mayHaveCreated = true;
	return error;
}

/**
 * An item stopped because another item had already failed the node: its billable request was
 * not sent, or its wait was ended. Never the node's error; what it had billed is listed there.
 */
export class StoppedError extends Error {
	constructor(readonly itemIndex: number) {
		super(`Item ${itemIndex} was stopped: another item failed the node`);
	}
}
