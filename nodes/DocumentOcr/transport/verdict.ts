import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { StreamedBlob } from '../shared/blob';
import { header, systemErrorCode } from '../shared/network';
import { parseRetryAfter, parseServiceError, refundedCreationFailure } from './answers';
import type { ApiRequest, ApiResponse, BillableHooks, Connection } from './api';
import type { TransportContext } from './endpoints';
import { cancelSignal } from './endpoints';
import { networkError, serviceError } from './errors';
import type { Spent } from './retry';
import { decide } from './retry';
import { redact, scrubAnswer } from './secrets';

/**
 * What one attempt of a request comes to (./request.ts makes the attempts): the answer, the
 * request's error, or a retry after a wait. The answer is scrubbed of the key here, before
 * anything reads it; what the retry table (./retry.ts) is given is read from it here too.
 */

/** What an answer of n8n's HTTP helper holds (`returnFullResponse`). */
export interface RawResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

/** What one call of n8n's helper came back with: the answer, or the error it threw. */
export type Attempted = { response: RawResponse } | { error: Error };

/** What one attempt comes to: the answer, the request's error, or a retry after a wait. */
export type Verdict =
	| { action: 'return'; response: ApiResponse<unknown> }
	| { action: 'fail'; error: Error }
	| { action: 'retry'; waitMs: number; spends: keyof Spent; gate: boolean; cause: string };

/**
 * An answer the verdict could not even read (it threw): the request fails with an error that says
 * so and, for a submission the service answered, that it may have created and charged something,
 * so that it is named and never sent again unawares.
 */
export function unreadable(
	conn: Connection,
	itemIndex: number,
	billable: BillableHooks | undefined,
	sent: Attempted,
	error: unknown,
): NodeApiError {
	const why = redact(String((error as Error)?.message ?? error), conn.endpoints.secrets);
	const message = `The answer of the OCR service could not be read (${why})`;
	const answered = billable !== undefined && 'response' in sent;
	const description = answered
		? 'The service answered the submission, so it may have created and charged it although the node could not read the answer. Check the task list (Task → Get Many) before sending this document again.'
		: 'Nothing in the answer could be used. Try again; if it keeps happening, the service (or a proxy in front of it) sends answers the node cannot read.';
	const failure = new NodeApiError(
		conn.ctx.getNode(),
		{ message },
		{ message, description, itemIndex },
	);
	if (answered) failure.context.mayHaveCreated = true;
	return failure;
}

/** What an attempt that got no 2xx amounts to, for the retry table, and the error it would be. */
function assess(
	conn: Connection,
	itemIndex: number,
	request: ApiRequest,
	sent: Attempted,
	tried: Spent,
) {
	const node = conn.ctx.getNode();
	const errorContext = () => ({
		itemIndex,
		scope: request.scope,
		subject: request.subject,
		submission: request.kind === 'submit',
		retries: tried.read + tried.rate,
		secrets: conn.endpoints.secrets,
	});
	if ('error' in sent) {
		const code = systemErrorCode(sent.error);
		if (!code) return { code };
		const root = request.surface === 'api' ? conn.endpoints.api : conn.endpoints.base;
		return {
			outcome: { type: 'network' as const, code },
			failure: () => networkError(node, code, new URL(root).host, errorContext()),
		};
	}
	const { statusCode, body } = sent.response;
	return {
		outcome: {
			type: 'status' as const,
			statusCode,
			errorCode: parseServiceError(body).code,
			refundedCreation: refundedCreationFailure(statusCode, body),
			retryAfterMs: parseRetryAfter(header(sent.response.headers ?? {}, 'retry-after')),
		},
		failure: () => serviceError(node, statusCode, body, errorContext()),
	};
}

/**
 * An attempt that got no answer because of this side, not the service: the execution was
 * cancelled, or the document's body was cut off (it could not be read again while it was sent).
 * Its error, never retried; undefined for any other attempt.
 */
function endedHere(
	ctx: TransportContext,
	itemIndex: number,
	request: ApiRequest,
	sent: Attempted,
): Error | undefined {
	if (!('error' in sent)) return undefined;
	if (cancelSignal(ctx)?.aborted) {
		const error = new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
			itemIndex,
		});
		// A submission cancelled in flight may have reached the service, which may have created
		// and charged it: said so, so that the node's memory (and an execution waiting on this
		// one) does not send the document again (batch/submitted.ts).
		if (request.kind === 'submit') {
			error.context.mayHaveCreated = true;
			error.description =
				'The execution was cancelled while the document was being sent: the service may have created (and charged) a task. Check the task list (Task → Get Many) before sending this document again.';
		}
		return error;
	}
	const cutOff = request.body instanceof StreamedBlob ? request.body.failure : undefined;
	if (!cutOff) return undefined;
	// The document could not be read again while it was sent: the body stopped before its end,
	// so the service received no whole request. Its own error says why.
	return cutOff instanceof NodeOperationError
		? cutOff
		: new NodeOperationError(ctx.getNode(), cutOff, {
				itemIndex,
				description:
					'The document could not be read while it was sent. The request was cut off before its end, so it created and charged nothing.',
			});
}

/**
 * The verdict on one attempt (pure but for the slots' congestion state): a 2xx the endpoint
 * accepts is returned; a cut-off document, a cancel, an answer the endpoint refuses and whatever
 * the retry table will not retry fail; the rest is retried after the table's wait.
 */
export function judgement(
	conn: Connection,
	itemIndex: number,
	request: ApiRequest,
	sent: Attempted,
	tried: Spent,
): Verdict {
	const { ctx, endpoints } = conn;
	const ended = endedHere(ctx, itemIndex, request, sent);
	if (ended) return { action: 'fail', error: ended };
	if ('response' in sent) {
		sent.response.body = scrubAnswer(sent.response.body, endpoints.secrets);
		const { statusCode, headers = {}, body } = sent.response;
		if (statusCode >= 200 && statusCode < 300) {
			conn.slots.succeeded();
			const refused = request.accept?.(body);
			if (refused) return { action: 'fail', error: refused };
			const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'));
			return { action: 'return', response: { body, statusCode, headers, retryAfterMs } };
		}
	}
	const assessed = assess(conn, itemIndex, request, sent, tried);
	if (!assessed.outcome) {
		// Not a network failure (e.g. a URL n8n refuses to call): keep the message, drop the
		// underlying request object so no header (the API key) can travel with the error.
		const error = (sent as { error: Error }).error;
		const message = redact(String(error?.message ?? error), endpoints.secrets);
		return {
			action: 'fail',
			error: new NodeApiError(ctx.getNode(), { message }, { message, itemIndex }),
		};
	}
	const { outcome, failure } = assessed;
	const decision = decide(request, outcome, tried, conn.retry, Date.now());
	if (decision.action === 'deleted') {
		// A retried delete whose first attempt went through: the task is gone, as asked.
		const response = { body: { alreadyDeleted: true }, statusCode: 404, headers: {} };
		return { action: 'return', response };
	}
	if (decision.action === 'fail') return { action: 'fail', error: failure() };
	if (decision.gate) {
		// Every request of this client waits until the service is ready again.
		conn.slots.closeGate(Date.now() + decision.waitMs);
	} else if (outcome.type === 'status' && outcome.retryAfterMs !== undefined) {
		// A Retry-After on any other answer (a 503, say) is the service asking for less too.
		conn.slots.throttled();
	}
	return decision;
}
