import type { INodeProperties } from 'n8n-workflow';

/** The task events the service announces, and both triggers start workflows on. */
export const EVENTS = ['ocr.done', 'ocr.failed'];

export type TaskEvent = 'ocr.done' | 'ocr.failed';

/** The Events field of both triggers; `description` says what the trigger does with the others. */
export function eventsField(description: string): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: [
			{
				name: 'Task Done',
				value: 'ocr.done',
				description: 'Event ocr.done: a task has finished; its recognized text can now be fetched',
			},
			{
				name: 'Task Failed',
				value: 'ocr.failed',
				description: 'Event ocr.failed: a task could not be processed',
			},
		],
		default: [...EVENTS],
		required: true,
		description,
	};
}

/**
 * The key one task event carries in both triggers, so that one Remove Duplicates step on it
 * serves both (and a webhook retry with a fresh nonce is known again).
 */
export function taskEventKey(event: string, taskId: string): string {
	return `task:${event}:${taskId}`;
}
