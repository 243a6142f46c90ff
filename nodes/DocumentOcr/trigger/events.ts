import type { INodeProperties } from 'n8n-workflow';

import type { StatusClass } from '../shared/records';
import { classifyStatus } from '../shared/records';

/**
 * The task events the service announces (its spec, section 6), and both triggers start workflows
 * on: one row each, from which the list, the type, the Events field's options and the poll
 * trigger's reading of a status are all made. A new event is one row here.
 */
const EVENT_TABLE = {
	'ocr.done': {
		name: 'Task Done',
		description: 'Event ocr.done: a task has finished; its recognized text can now be fetched',
		status: 'done',
	},
	'ocr.failed': {
		name: 'Task Failed',
		description: 'Event ocr.failed: a task could not be processed',
		status: 'failed',
	},
} as const satisfies Record<string, { name: string; description: string; status: StatusClass }>;

export type TaskEvent = keyof typeof EVENT_TABLE;

export const EVENTS = Object.keys(EVENT_TABLE) as TaskEvent[];

export function isTaskEvent(value: unknown): value is TaskEvent {
	return typeof value === 'string' && Object.prototype.hasOwnProperty.call(EVENT_TABLE, value);
}

/** The Events field of both triggers; `description` says what the trigger does with the others. */
export function eventsField(description: string): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: EVENTS.map((value) => ({
			name: EVENT_TABLE[value].name,
			value,
			description: EVENT_TABLE[value].description,
		})),
		default: [...EVENTS],
		required: true,
		description,
	};
}

/** The event a task's status stands for (the poll trigger), or undefined while it is not finished. */
export function eventOf(status: unknown): TaskEvent | undefined {
	const cls = classifyStatus(status);
	return EVENTS.find((event) => EVENT_TABLE[event].status === cls);
}

/**
 * The key one task event carries in both triggers, so that one Remove Duplicates step on it
 * serves both (and a webhook retry with a fresh nonce is known again).
 */
export function taskEventKey(event: string, taskId: string): string {
	return `task:${event}:${taskId}`;
}
