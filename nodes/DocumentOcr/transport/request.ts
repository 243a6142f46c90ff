import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { StreamedBlob } from '../shared/blob';
import type { ApiRequest, ApiResponse, BillableHooks, Connection } from './api';
import type { TransportContext } from './endpoints';
import { cancelSignal, CREDENTIAL_TYPE, encodeSegment } from './endpoints';
import type { Spent } from './retry';
import type { Attempted, RawResponse, Verdict } from './verdict';
import { judgement, unreadable } from './verdict';

/**
 * Sends one logical request to the OCR service (./api.ts says what a request is) — the one call
 * of `httpRequestWithAuthentication` (the credential adds the Bearer header) — with the retries
 * the pure table in ./retry.ts allows, waiting with n8n's `sleep` and the execution's cancel
 * signal; each attempt's verdict (./verdict.ts) maps every failure to an error with `itemIndex`
 * (./errors.ts). Paths are built from segments, each percent-encoded, so an ID can never change
 * the path.
 */

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
		// The one call of n8n's authenticated HTTP helper: every request to the service goes
		// through it (documents/url.ts downloads URL documents with the plain `httpRequest`
		// helper, without the credential). A copy of the options per attempt: the helper adds the
		// credential's headers to what it is given. The credential read once for the execution is
		// passed along (`credentialsDecrypted`): otherwise n8n loads it from its database and
		// decrypts it again for every request — most of a request's cost in a batch of thousands.
		const { ctx, endpoints } = conn;
		const copy = { ...options, headers: options.headers && { ...options.headers } };
		const credentialsDecrypted = {
			...endpoints.credential,
			data: { ...endpoints.credential.data },
		};
		let sent: Attempted;
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				copy,
				{ credentialsDecrypted },
			)) as RawResponse;
			sent = { response };
		} catch (error) {
			// Failures are judged as values, as answers are.
			sent = { error: error as Error };
		}
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
	const tried: Spent = { read: 0, rate: 0, creation: 0 };
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
