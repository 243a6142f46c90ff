import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type { StreamedBlob } from '../shared/blob';
import type { Endpoints, Surface, TransportContext } from './endpoints';
import type { RequestKind, RetrySettings } from './retry';
import type { RequestSlots } from './slots';

/**
 * What a request to the OCR service is, as its callers hand it to the transport (./request.ts
 * sends it): the request, its answer, what it needs of the client that sends it, and the hooks
 * of a billable one, which the transport calls and the action node's batch answers.
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
