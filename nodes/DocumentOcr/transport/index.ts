import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { createHash } from 'crypto';

import { StreamedBlob } from '../helpers/body';
import type { RequestKind, RetrySettings, Tried } from './retry';
import { decide, DEFAULT_RETRY } from './retry';
import {
	networkError,
	parseServiceError,
	redact,
	refundedCreationFailure,
	scrubAnswer,
	serviceError,
} from './errors';

/**
 * The one place that talks HTTP to the OCR service. Every request goes through
 * `httpRequestWithAuthentication` (the credential adds the Bearer header), and this module owns:
 *  - which base URL a surface lives on (task API on the Base URL, `/v1` on the API URL);
 *  - path building (each segment percent-encoded, so an ID can never change the path);
 *  - the retry policy (below) and the mapping of every failure to a NodeApiError.
 *
 * Retry policy: transport/retry.ts decides (a pure table); this module carries the decision out
 * (waits with n8n's sleep and the execution's cancel signal, closes the shared 429 gate).
 */

export const CREDENTIAL_TYPE = 'documentOcrApi';

/** The node contexts that send requests: the action node, the webhook trigger (Include Task Details), the poll trigger. */
export type TransportContext = IExecuteFunctions | IWebhookFunctions | IPollFunctions;

/** The execution's cancel signal (a webhook request has none). */
export function cancelSignal(ctx: TransportContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

export type Surface = 'base' | 'api';

export type { RequestKind, RetrySettings } from './retry';
export { DEFAULT_RETRY } from './retry';

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path segments after the surface's root, e.g. ['api', 'tasks', taskId]; each is encoded. */
	path: string[];
	surface?: Surface;
	kind: RequestKind;
	qs?: IDataObject;
	/** JSON fields, or a streamed body carrying a document (helpers/body.ts). */
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
}

export interface ApiResponse<T = unknown> {
	body: T;
	statusCode: number;
	headers: Record<string, unknown>;
	/** Delay the service asked for (Retry-After on a successful answer), in ms. */
	retryAfterMs?: number;
}

/** Something the service created — and billed — for an item of this execution. */
export interface Created {
	itemIndex: number;
	kind: 'task' | 'job' | 'document';
	/** The ID the answer carried (a `/v1/ocr` or `/v1/extract` answer may carry none). */
	id?: string;
	/** Pages the answer says were billed, when it says so. */
	pagesBilled?: number;
	/** The document's file name, to name a billed document that has no ID. */
	fileName?: string;
}

/** A `/v1` document result the service billed, and how to find the document's memory key. */
export interface BilledResult {
	result: IDataObject;
	key: () => Promise<string>;
}

/** Requests in flight at the start of an execution; more open while the service keeps up. */
export const START_SLOTS = 4;

/**
 * An item stopped because another item had already failed the node: its billable request was
 * not sent, or its wait was ended. Never the node's error; what it had billed is listed there.
 */
export class StoppedError extends Error {
	constructor(readonly itemIndex: number) {
		super(`Item ${itemIndex} was stopped: another item failed the node`);
	}
}

/**
 * State shared by all items of one node execution: the resolved endpoints, the rate-limit gate
 * (a 429 slows down every concurrent item, not only the one that received it), and the money
 * rules of a batch:
 *  - `failed()`: once an item has failed the node (Continue on Fail off), no billable request
 *    starts any more — checked right before sending — and every wait ends;
 *  - submissions start in item order (`turn` / `passTurn`): item i's billable request starts no
 *    later than item i+1's, so which items are billed never depends on timing;
 *  - `created`: every task, job or document the service accepted in this execution, with its
 *    item, so that no billed ID is lost when an item or the node fails.
 */
export class TransportState {
	private endpoints?: {
		base: string;
		api: string;
		secrets: string[];
		/** The credential as read once for this execution, handed to every request. */
		credential: ICredentialsDecrypted;
	};

	private haltListeners: Array<() => void> = [];

	halted = false;

	readonly created: Created[] = [];

	/** Items (by index) that have passed their submission turn: started it, or will send none. */
	private passed = new Set<number>();

	private nextTurn = 0;

	private turnWaiters = new Map<number, () => void>();

	/** Items waiting to come within `ahead` of the submission front (see `nearTurn`). */
	private frontWaiters = new Map<number, () => void>();

	private onceResults = new Map<string, Promise<unknown>>();

	/** Documents being submitted in this execution, by memory key (see helpers/memory.ts). */
	readonly inFlightSubmissions = new Map<string, Promise<unknown>>();

	/**
	 * `/v1` document results billed in this execution, by item: kept for the next run if this one
	 * fails before they reach the user (see helpers/memory.ts, held results).
	 */
	readonly billedResults = new Map<number, BilledResult>();

	/** Memory keys of held results this execution output instead of sending their documents. */
	readonly deliveredHeld = new Set<string>();

	/** No request of this execution starts before this time (epoch ms). */
	gateUntil = 0;

	private active = 0;

	/** Requests waiting for a slot, in the order they asked. */
	private queued: Array<() => void> = [];

	/**
	 * @param concurrency the most requests of this execution in flight at once (uploads and status
	 *   checks alike): the user's cap. Items themselves may all be under way, most just waiting.
	 */
	constructor(
		readonly concurrency = 5,
		readonly retry: RetrySettings = DEFAULT_RETRY,
	) {
		this.limit = Math.min(concurrency, START_SLOTS);
	}

	/**
	 * Slots actually open, adapted to the service (like TCP's congestion window): it starts at
	 * START_SLOTS and opens one more slot per successful answer, up to `concurrency`; a 429 (or any
	 * answer that asks to wait with Retry-After) halves it, and from then on it grows by only one
	 * slot per `limit` successful answers. A service that keeps up gets the user's Concurrency; one
	 * that throttles gets what it can take.
	 */
	private limit: number;

	private throttledOnce = false;

	private successes = 0;

	/**
	 * Takes a request slot (waits for one to free up), first come first served. Status checks are
	 * not put behind submissions: a check may find a failed task, which (without Continue on Fail)
	 * must stop the submissions not yet sent as early as it can.
	 */
	async acquire(): Promise<void> {
		if (this.active < this.limit) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.queued.push(resolve));
	}

	/** Frees a slot, handing it straight to the next request in line while slots are open. */
	release() {
		if (this.active <= this.limit) {
			const next = this.queued.shift();
			if (next) return next();
		}
		this.active--;
	}

	/** The service asked to slow down (a 429, a Retry-After): halve the open slots. */
	throttled() {
		this.throttledOnce = true;
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.successes = 0;
	}

	/** A request succeeded: open one more slot (up to `concurrency`), see `limit`. */
	succeeded() {
		if (this.limit >= this.concurrency) return;
		if (this.throttledOnce && ++this.successes < this.limit) return;
		this.successes = 0;
		this.limit++;
		const next = this.queued.shift();
		if (next) {
			this.active++;
			next();
		}
	}

	/** `listener` runs when the batch halts (the waiting module ends every wait then). */
	onHalt(listener: () => void) {
		this.haltListeners.push(listener);
	}

	/** Without Continue on Fail, the first failing item fails the node (set by the router). */
	stopOnFailure = false;

	/**
	 * An item failed (or a submission did, which will fail its item): without Continue on Fail
	 * that fails the node, so start no more billable requests and end every wait.
	 */
	failed() {
		if (this.stopOnFailure) this.halt();
	}

	private halt() {
		this.halted = true;
		for (const listener of this.haltListeners) listener();
		for (const wake of this.turnWaiters.values()) wake();
		this.turnWaiters.clear();
		for (const wake of this.frontWaiters.values()) wake();
		this.frontWaiters.clear();
	}

	/**
	 * Waits until `itemIndex` is at most `ahead` items past the submission front (every item
	 * before `itemIndex - ahead` has passed its turn). An item starts its work only then: an item
	 * that has started waits for its turn holding its request and the frames under it, and 500 of
	 * them waiting for seconds is what the garbage collector moved to the old generation (about a
	 * tenth of what a large batch promotes). Items waiting here hold almost nothing.
	 */
	async nearTurn(itemIndex: number, ahead: number): Promise<void> {
		if (this.nextTurn >= itemIndex - ahead || this.halted) return;
		await new Promise<void>((resolve) => this.frontWaiters.set(itemIndex - ahead, resolve));
	}

	/** Waits until every item before `itemIndex` has started its submission (or sends none). */
	async turn(itemIndex: number): Promise<void> {
		while (this.nextTurn < itemIndex && !this.halted) {
			await new Promise<void>((resolve) => this.turnWaiters.set(itemIndex, resolve));
		}
	}

	/** `itemIndex` started its submission, or will not send one: the next item may go. */
	passTurn(itemIndex: number) {
		if (itemIndex < this.nextTurn || this.passed.has(itemIndex)) return;
		this.passed.add(itemIndex);
		while (this.passed.has(this.nextTurn)) {
			this.passed.delete(this.nextTurn);
			this.nextTurn++;
			const near = this.frontWaiters.get(this.nextTurn);
			if (near) {
				this.frontWaiters.delete(this.nextTurn);
				near();
			}
		}
		const wake = this.turnWaiters.get(this.nextTurn);
		if (wake) {
			this.turnWaiters.delete(this.nextTurn);
			wake();
		}
	}

	recordCreated(created: Created) {
		this.created.push(created);
	}

	createdBy(itemIndex: number): Created[] {
		return this.created.filter((c) => c.itemIndex === itemIndex);
	}

	/** Runs `work` once per execution under `key`; every caller gets the same result (or error). */
	async once<T>(key: string, work: () => Promise<T>): Promise<T> {
		if (!this.onceResults.has(key)) this.onceResults.set(key, work());
		return (await this.onceResults.get(key)) as T;
	}

	/**
	 * Which account the credential reaches: a digest of the Base URL, the API URL and the key (never
	 * the key itself), for memory that must not cross accounts.
	 */
	async accountDigest(ctx: TransportContext, itemIndex: number): Promise<string> {
		const { base, api, credential } = await this.resolve(ctx, itemIndex);
		return createHash('sha256')
			.update([base, api, String(credential.data?.apiKey ?? '')].join('\n'))
			.digest('hex')
			.slice(0, 16);
	}

	async resolve(ctx: TransportContext, itemIndex: number) {
		if (!this.endpoints) {
			const credentials = await ctx.getCredentials(CREDENTIAL_TYPE, itemIndex);
			const base = normaliseRoot(
				ctx.getNode(),
				String(credentials.baseUrl ?? ''),
				'Base URL',
				itemIndex,
			);
			const apiRaw = String(credentials.apiUrl ?? '').trim();
			const api = apiRaw ? normaliseRoot(ctx.getNode(), apiRaw, 'API URL', itemIndex) : base;
			const secrets = [String(credentials.apiKey ?? '')].filter((s) => s.length > 0);
			const reference = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
			const credential = {
				id: String(reference?.id ?? ''),
				name: reference?.name ?? '',
				type: CREDENTIAL_TYPE,
				data: credentials,
			};
			this.endpoints = { base, api, secrets, credential };
		}
		return this.endpoints;
	}
}

function normaliseRoot(node: INode, raw: string, field: string, itemIndex: number): string {
	const trimmed = raw.trim().replace(/\/+$/, '');
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		throw new NodeOperationError(node, `The credential's ${field} is not a valid URL`, {
			description: `Enter the service address with its scheme, e.g. https://ocr.example.com (got "${trimmed}").`,
			itemIndex,
		});
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new NodeOperationError(
			node,
			`The credential's ${field} must start with http:// or https://`,
			{
				itemIndex,
			},
		);
	}
	return trimmed;
}

/** Percent-encodes one path segment. Dot segments are refused: URL parsers resolve them. */
export function encodeSegment(segment: string): string {
	if (segment === '' || segment === '.' || segment === '..') {
		throw new Error(`Invalid path segment "${segment}"`);
	}
	return encodeURIComponent(segment);
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
	return value === undefined || value === null ? undefined : String(value);
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

/** Finds the system error code (ECONNRESET, ...) in an error thrown by the HTTP helper. */
function systemErrorCode(error: unknown): string | undefined {
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

interface RawResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

/**
 * The single call into n8n's HTTP helper; failures come back as values, not exceptions. The
 * credential read once for the execution is passed along (`credentialsDecrypted`): otherwise n8n
 * loads it from its database and decrypts it again for every request — most of a request's cost
 * in a batch of thousands.
 */
async function send(
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

/**
 * Sends one logical request (with the retries the policy allows) and returns the 2xx answer.
 * Throws a NodeApiError with `itemIndex` for everything else.
 */
export async function apiRequest<T = IDataObject>(
	this: TransportContext,
	itemIndex: number,
	request: ApiRequest,
	state: TransportState,
): Promise<ApiResponse<T>> {
	const node = this.getNode();
	const { base, api, secrets, credential } = await state.resolve(this, itemIndex);
	const root = request.surface === 'api' ? api : base;
	const url = `${root}/${request.path.map(encodeSegment).join('/')}`;
	const submission = request.kind === 'submit';
	const tried: Tried = { read: 0, rate: 0, creation: 0 };

	// A failed submission stops the batch's spending at once — before the request slot it frees is
	// taken by the next submission — rather than once the error has reached the router.
	const failed = <E extends Error>(error: E): E => {
		if (submission) state.failed();
		return error;
	};
	const errorContext = () => ({
		itemIndex,
		scope: request.scope,
		subject: request.subject,
		submission,
		retries: tried.read + tried.rate,
		secrets,
	});

	const streamed = request.body instanceof StreamedBlob ? request.body : undefined;
	// A small document already in memory goes as one Buffer (built once, reused by a retry).
	const whole = streamed?.whole?.();
	for (;;) {
		const options: IHttpRequestOptions = {
			method: request.method,
			url,
			qs: request.qs,
			body: whole ?? request.body,
			json: !request.binary && !streamed,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			timeout: request.timeoutMs ?? (submission ? 120_000 : 60_000),
		};
		if (request.binary) options.encoding = 'arraybuffer';
		if (streamed) {
			// A streamed body sets its own Content-Type and Content-Length (see helpers/body.ts); a
			// whole one is given them here.
			options.headers = whole
				? { Accept: 'application/json', 'Content-Type': streamed.type }
				: { Accept: 'application/json' };
			// Following redirects makes the HTTP client keep a copy of the whole body (to resend it);
			// a document upload is never redirected, so it streams straight through instead.
			options.disableFollowRedirect = true;
		}

		if (submission) await state.turn(itemIndex);
		await state.acquire();
		let sent;
		try {
			// The rate-limit gate is checked with the slot in hand: a request that queued for a slot
			// while another one was being throttled must not go out before the gate opens.
			for (let wait = state.gateUntil - Date.now(); wait > 0; wait = state.gateUntil - Date.now()) {
				await pause(this, wait, itemIndex);
			}
			// The last moment before money is spent: has another item failed the node meanwhile?
			if (submission && state.halted) throw new StoppedError(itemIndex);
			if (submission) state.passTurn(itemIndex);
			sent = await send(this, options, credential);
		} finally {
			state.release();
		}

		let failure: () => NodeApiError;
		let outcome;
		if ('error' in sent) {
			if (cancelSignal(this)?.aborted) {
				throw new NodeOperationError(node, 'The execution was cancelled', { itemIndex });
			}
			const code = systemErrorCode(sent.error);
			if (!code) {
				// Not a network failure (e.g. a URL n8n refuses to call): keep the message, drop the
				// underlying request object so no header (the API key) can travel with the error.
				const message = redact(String(sent.error?.message ?? sent.error), secrets);
				throw failed(new NodeApiError(node, { message }, { message, itemIndex }));
			}
			outcome = { type: 'network' as const, code };
			failure = () => networkError(node, code, new URL(root).host, errorContext());
		} else {
			const { response } = sent;
			response.body = scrubAnswer(response.body, secrets);
			const { statusCode } = response;
			const headers = response.headers ?? {};
			const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'));
			if (statusCode >= 200 && statusCode < 300) {
				state.succeeded();
				return { body: response.body as T, statusCode, headers, retryAfterMs };
			}
			outcome = {
				type: 'status' as const,
				statusCode,
				errorCode: parseServiceError(response.body).code,
				refundedCreation: refundedCreationFailure(statusCode, response.body),
				retryAfterMs,
			};
			failure = () => serviceError(node, statusCode, response.body, errorContext());
		}

		const decision = decide(request, outcome, tried, state.retry, Date.now());
		if (decision.action === 'deleted') {
			// A retried delete whose first attempt went through: the task is gone, as asked.
			return { body: { alreadyDeleted: true } as T, statusCode: 404, headers: {} };
		}
		if (decision.action === 'fail') throw failed(failure());
		logRetry(this, request, itemIndex, decision.cause, decision.waitMs);
		tried[decision.spends]++;
		if (decision.gate) {
			// Close the gate for every item of this execution until the service is ready again,
			// and send fewer requests at once from then on.
			state.gateUntil = Math.max(state.gateUntil, Date.now() + decision.waitMs);
			state.throttled();
		} else {
			// A Retry-After on any other answer (a 503, say) is the service asking for less too.
			if (outcome.type === 'status' && outcome.retryAfterMs !== undefined) state.throttled();
			await pause(this, decision.waitMs, itemIndex);
		}
	}
}

/**
 * A 2xx answer whose body is not the JSON object the endpoint promises. `mayHaveCreated`: it
 * answered a submission, so a task, job or document may exist and be charged (see
 * `mayHaveCreated` in ./errors).
 */
export function unexpectedBody(
	ctx: TransportContext,
	itemIndex: number,
	what: string,
	body: unknown,
	mayHaveCreated = false,
): NodeApiError {
	// The body was scrubbed of the key by apiRequest; a Bearer token of some other credential is
	// redacted here too before any of it is quoted.
	const preview =
		typeof body === 'string'
			? redact(body.slice(0, 120), [])
			: Buffer.isBuffer(body)
				? `${body.length} bytes`
				: typeof body;
	const error = new NodeApiError(
		ctx.getNode(),
		{ message: `Unexpected answer from the OCR service for ${what}` },
		{
			message: `Unexpected answer from the OCR service for ${what}`,
			description: `Expected a JSON object but received: ${preview}. The service may be misconfigured, or a proxy answered instead of it.`,
			itemIndex,
		},
	);
	if (mayHaveCreated) error.context.mayHaveCreated = true;
	return error;
}
