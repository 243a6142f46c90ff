import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../shared/object';
import { taskEventKey } from './events';

/**
 * A verified webhook delivery read as an event, with no n8n and no I/O: the event, its task, the
 * key that tells it apart from a replay or a service retry, and the trigger's output item.
 */

export const MIN_SECRET_LENGTH = 8;

/** How long an event or task key is remembered (a nonce: twice the tolerance). */
export const EVENT_MEMORY_MS = 24 * 3600_000;

/** Why a signing secret cannot protect the endpoint, or undefined when it can. */
export function weakSecret(secret: unknown): string | undefined {
	const value = typeof secret === 'string' ? secret : '';
	if (value === '') return 'The signing secret is empty';
	if (value.trim() !== value) return 'The signing secret starts or ends with a space';
	if (value.length < MIN_SECRET_LENGTH)
		return `The signing secret is shorter than ${MIN_SECRET_LENGTH} characters`;
	return undefined;
}

export interface Delivery {
	/** `ocr.done`, `ocr.failed`, or another event the service may send. */
	event?: string;
	/** The task ID as text ('' when the delivery names none). */
	taskId: string;
	/** One event, one run: the same bytes again (nonce), the same event id, or the same task finishing again. */
	dedupeKey: string;
	/** The keys to remember, each with the time it expires. */
	keys: Array<[string, number]>;
	output: IDataObject;
}

/**
 * Reads a verified delivery's body. Undefined when it is not a JSON object. The event is `event`
 * (or `type`), the task `data.taskId` (or `taskId`), the event id `id` (or `eventId`): the
 * interface shows no payload, so the plausible shapes are read.
 */
export function parseDelivery(
	rawBody: Buffer,
	signed: { nonce: string; timestampMs: number },
	toleranceMs: number,
	now: number,
): Delivery | undefined {
	let payload: unknown;
	try {
		payload = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	if (!isObject(payload)) return undefined;
	const { nonce, timestampMs } = signed;
	const eventId = [payload.id, payload.eventId].find((v) => typeof v === 'string' && v !== '') as
		| string
		| undefined;
	const data = isObject(payload.data) ? payload.data : {};
	const event = [payload.event, payload.type].find((v) => typeof v === 'string') as
		| string
		| undefined;
	const rawTaskId = data.taskId ?? payload.taskId;
	const taskId =
		typeof rawTaskId === 'string' || typeof rawTaskId === 'number' ? String(rawTaskId) : '';
	const taskKey = event && taskId ? taskEventKey(event, taskId) : undefined;
	// A service retry may carry a fresh nonce and no event id: the task's event still tells it.
	const dedupeKey = eventId ? `event:${eventId}` : (taskKey ?? `nonce:${nonce}`);
	const keys: Array<[string, number]> = [[`nonce:${nonce}`, now + 2 * toleranceMs]];
	if (eventId) keys.push([`event:${eventId}`, now + EVENT_MEMORY_MS]);
	if (taskKey) keys.push([taskKey, now + EVENT_MEMORY_MS]);
	const output: IDataObject = {
		event,
		taskId: rawTaskId,
		status: data.status ?? payload.status,
		dedupeKey,
		payload,
		verified: true,
		timestamp: new Date(timestampMs).toISOString(),
		nonce,
	};
	if (eventId) output.eventId = eventId;
	return { event, taskId, dedupeKey, keys, output };
}
