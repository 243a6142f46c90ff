import type {
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { StreamedBlob } from '../shared/blob';
import { header, systemErrorCode } from '../shared/network';
import type { Endpoints, Surface, TransportContext } from './endpoints';
import { cancelSignal, CREDENTIAL_TYPE, encodeSegment } from './endpoints';
import type { RequestKind, RetrySettings, Tried } from './retry';
import { decide } from './retry';
import type { RequestSlots } from './slots';
import {
	networkError,
	parseServiceError,
	quoteAnswer,
	refundedCreationFailure,
	serviceError,
} from './errors';
import { redact, scrubAnswer } from './secrets';

/**
 * Sends one logical request to the OCR service — the one call of `httpRequestWithAuthentication`
 * (the credential adds the Bearer header) — with the retries the pure table in ./retry.ts allows,
 * waiting with n8n's `sleep` and the execution's cancel signal, and maps every failure to a
 * NodeApiError with `itemIndex` (./errors.ts). Paths are built from segments, each
 * percent-encoded, so an ID can never change the path.
 */

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path segments after the surface's root, e.g. ['api', 'tasks', taskId]; each is encoded. */
	path: string[];
	surface?: Surface;
	kind: RequestKind;
	qs?: IDataObject;
	/** JSON fields, or a streamed body carrying a document (shared/blob.ts, built by documents/body.ts). */
	body?: IDataObject | StreamedBlob;
	/** Expect a binary answer (exports): the body is returned as a Buffer. */
	binary?: boolean;
	/** Scope the endpoint needs, named in an insufficient_scope error. */
	scope?: string;
	/** What the request is about, e.g. `Task "tsk_1"`, for not-found errors. */
	subject?: string;
	/** No retry waits past this time (epoch ms): the item's own deadline. */
	deadline?: number;
	timeoutMs?: number;
	/** For a submission: what its sender is told before and after it is sent (see BillableHooks). */
	billable?: BillableHooks;
	/**
	 * The endpoint's check of a 2xx answer: an error when the answer is not what it promises (a
	 * refusal such as `success: false`, no ID, not an object). The request then fails, judged with
	 * its slot in hand like any other failure.
	 */
	accept?: (body: unknown) => Error | undefined;
}

export interface ApiResponse<T = unknown> {
	body: T;
	statusCode: number;
	headers: Record<string, unknown>;
	/** Delay the service asked for (Retry-After on a successful answer), in ms. */
	retryAfterMs?: number;
}

/** What one request needs of the client that sends it. */
export interface Connection {
	ctx: TransportContext;
	endpoints: Endpoints;
	slots: RequestSlots;
	retry: RetrySettings;
}

/**
 * What the sender of a billable request (a submission: it may create and charge something) is
 * told at the moments that matter for money. The transport calls these and knows nothing of who
 * answers them (the action node's batch keeps its submission order and halt behind them).
 */
export interface BillableHooks {
	/** Before a request slot is taken, each attempt: resolves once the request may start. */
	beforeSlot(): Promise<void>;
	/**
	 * With the slot in hand and the rate-limit gate open, the last moment before money is spent:
	 * throws to send nothing, or returns and the request goes out.
	 */
	beforeBillableSend(): void;
	/**
	 * The billable request failed, which fails its item (an error answer, a lost connection, or a
	 * 2xx its endpoint does not accept): called with the slot still in hand, so whatever it stops
	 * is stopped before the freed slot is taken by the next billable request.
	 */
	onBillableFailure(): void;
}

/** Retry-After as milliseconds: delta-seconds (fractions allowed) or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined) return undefined;
	const trimmed = value.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(parseFloat(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (!Number.isNaN(date)) return Math.max(0, date - now);
	return undefined;
}

interface RawResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

/**
 * The one call of n8n's authenticated HTTP helper: every request to the service goes through it
 * (documents/url.ts downloads URL documents with the plain `httpRequest` helper, without the
 * credential). Failures come back as values, not exceptions. The credential read once for the
 * execution is passed along (`credentialsDecrypted`): otherwise n8n loads it from its database
 * and decrypts it again for every request — most of a request's cost in a batch of thousands.
 */
async function callHelper(
	ctx: TransportContext,
	options: IHttpRequestOptions,
	credential: ICredentialsDecrypted,
): Promise<{ response: RawResponse } | { error: Error }> {
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_TYPE,
			options,
			{ credentialsDecrypted: { ...credential, data: { ...credential.data } } },
		)) as RawResponse;
		return { response };
	} catch (error) {
		return { error: error as Error };
	}
}

/** One debug line per retry (method, path, cause, wait): what a user sees at N8N_LOG_LEVEL=debug. */
function logRetry(
	ctx: TransportContext,
	request: ApiRequest,
	itemIndex: number,
	cause: string,
	waitMs: number,
) {
	const route = `${request.method} /${request.path.slice(0, 2).join('/')}`;
	ctx.logger.debug(`Document OCR: ${route} got ${cause}; retrying in ${waitMs} ms`, {
		itemIndex,
		retry: true,
	});
}

/** Waits `ms` (n8n's sleep, tied to the execution's cancel signal); a cancel ends it at once. */
async function pause(ctx: TransportContext, ms: number, itemIndex: number) {
	if (ms <= 0) return;
	const signal = cancelSignal(ctx);
	try {
		await sleep(ms, signal);
	} catch {
		// Only a cancel rejects n8n's sleep: reported below as the cancel it is.
	}
	if (signal?.aborted) {
		throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });
	}
}

/** The request options of every attempt (a small document body is built once, reused by a retry). */
function requestOptions(url: string, request: ApiRequest): IHttpRequestOptions {
	const streamed = request.body instanceof StreamedBlob ? request.body : undefined;
	const whole = streamed?.whole?.();
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		qs: request.qs,
		body: whole ?? request.body,
		json: !request.binary && !streamed,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
		timeout: request.timeoutMs ?? (request.kind === 'submit' ? 120_000 : 60_000),
		// n8n's helper carries the Authorization header across a redirect to another origin unless
		// told not to; the service has no reason to send its API elsewhere, so the key stays with
		// the origin of the credential's URL.
		sendCredentialsOnCrossOriginRedirect: false,
	};
	if (request.binary) options.encoding = 'arraybuffer';
	if (streamed) {
		// A streamed body sets its own Content-Type and Content-Length (documents/body.ts); a whole
		// one is given them here.
		options.headers = whole
			? { Accept: 'application/json', 'Content-Type': streamed.type }
			: { Accept: 'application/json' };
		// Following redirects makes the HTTP client keep a copy of the whole body (to resend it);
		// a document upload is never redirected, so it streams straight through instead.
		options.disableFollowRedirect = true;
	}
	return options;
}

/**
 * One attempt: a submission's `beforeSlot`, a slot, the rate-limit gate, the submission's
 * `beforeBillableSend`, the send, and `judge`'s verdict on what came back — all with the slot in
 * hand. The gate is checked with the slot in hand: a request that queued for a slot while another
 * one was being throttled must not go out before the gate opens. A verdict that fails a
 * submission calls its `onBillableFailure` before the slot is freed, so the submission next in
 * line for the slot sees the halt before it can be sent.
 */
async function attempt(
	conn: Connection,
	itemIndex: number,
	options: IHttpRequestOptions,
	billable: BillableHooks | undefined,
	judge: (sent: Attempted) => Verdict,
): Promise<Verdict> {
	if (billable) await billable.beforeSlot();
	await conn.slots.acquire();
	try {
		for (let wait = conn.slots.gateUntil - Date.now(); wait > 0; ) {
			await pause(conn.ctx, wait, itemIndex);
			wait = conn.slots.gateUntil - Date.now();
		}
		// The last moment before money is spent: the sender may still stop it.
		billable?.beforeBillableSend();
		// A copy per attempt: the HTTP helper adds the credential's headers to what it is given.
		const copy = { ...options, headers: options.headers && { ...options.headers } };
		const sent = await callHelper(conn.ctx, copy, conn.endpoints.credential);
		let verdict: Verdict;
		try {
			verdict = judge(sent);
		} catch (error) {
			verdict = { action: 'fail', error: unreadable(conn, itemIndex, billable, sent, error) };
		}
		if (verdict.action === 'fail') billable?.onBillableFailure();
		return verdict;
	} finally {
		conn.slots.release();
	}
}

type Attempted = Awaited<ReturnType<typeof callHelper>>;

/**
 * An answer the verdict could not even read (it threw): the request fails with an error that says
 * so and, for a submission the service answered, that it may have created and charged something,
 * so that it is named and never sent again unawares.
 */
function unreadable(
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

/** What one attempt comes to: the answer, the request's error, or a retry after a wait. */
type Verdict =
	| { action: 'return'; response: ApiResponse<unknown> }
	| { action: 'fail'; error: Error }
	| { action: 'retry'; waitMs: number; spends: keyof Tried; gate: boolean; cause: string };

/** What an attempt that got no 2xx amounts to, for the retry table, and the error it would be. */
function assess(
	conn: Connection,
	itemIndex: number,
	request: ApiRequest,
	sent: Attempted,
	tried: Tried,
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
 * The verdict on one attempt (pure but for the slots' congestion state): a 2xx the endpoint
 * accepts is returned; a cut-off document, a cancel, an answer the endpoint refuses and whatever
 * the retry table will not retry fail; the rest is retried after the table's wait.
 */
function judgement(
	conn: Connection,
	itemIndex: number,
	request: ApiRequest,
	sent: Attempted,
	tried: Tried,
): Verdict {
	const { ctx, endpoints } = conn;
	if ('error' in sent && cancelSignal(ctx)?.aborted) {
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
		return { action: 'fail', error };
	}
	const cutOff = request.body instanceof StreamedBlob ? request.body.failure : undefined;
	if ('error' in sent && cutOff) {
		// The document could not be read again while it was sent: the body stopped before its
		// end, so the service received no whole request. Its own error says why; no retry.
		const error =
			cutOff instanceof NodeOperationError
				? cutOff
				: new NodeOperationError(ctx.getNode(), cutOff, {
						itemIndex,
						description:
							'The document could not be read while it was sent. The request was cut off before its end, so it created and charged nothing.',
					});
		return { action: 'fail', error };
	}
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

/**
 * Sends one logical request (with the retries the policy allows) and returns the 2xx answer the
 * endpoint accepts. Throws a NodeApiError with `itemIndex` for everything else. A submission's
 * `billable` hooks are called around each attempt, and `onBillableFailure` as soon as it fails,
 * while the attempt still holds its slot (see `attempt`).
 */
export async function apiRequest<T = IDataObject>(
	conn: Connection,
	itemIndex: number,
	request: ApiRequest,
): Promise<ApiResponse<T>> {
	const { ctx, endpoints } = conn;
	const root = request.surface === 'api' ? endpoints.api : endpoints.base;
	const options = requestOptions(`${root}/${request.path.map(encodeSegment).join('/')}`, request);
	const tried: Tried = { read: 0, rate: 0, creation: 0 };
	const billable = request.kind === 'submit' ? request.billable : undefined;
	const judge = (sent: Attempted) => judgement(conn, itemIndex, request, sent, tried);
	for (;;) {
		const verdict = await attempt(conn, itemIndex, options, billable, judge);
		if (verdict.action === 'return') return verdict.response as ApiResponse<T>;
		if (verdict.action === 'fail') throw verdict.error;
		logRetry(ctx, request, itemIndex, verdict.cause, verdict.waitMs);
		tried[verdict.spends]++;
		if (!verdict.gate) await pause(ctx, verdict.waitMs, itemIndex);
	}
}

/**
 * A 2xx answer whose body is not what the endpoint promises (`expected`, e.g. "a JSON object", "a
 * task"). `mayHaveCreated`: it answered a submission, so a task, job or document may exist and be
 * charged (see `mayHaveCreated` in ./errors).
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
