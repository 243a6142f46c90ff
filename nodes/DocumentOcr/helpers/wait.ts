import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { classifyStatus, isKnownStatus } from './task';

/**
 * The one place that waits for a task or job to finish. It polls with a growing interval, takes
 * the service's hints (Retry-After on a poll, `estimatedSeconds` for the first poll), stops at the
 * user's deadline, and stops at once when the execution is cancelled (n8n's cancel signal).
 */

export interface WaitTarget {
	/** e.g. `Task "tsk_1"`; used in messages. */
	label: string;
	/** Reads the record once; `retryAfterMs` is the service's hint for the next poll. */
	fetch: (deadline: number) => Promise<{ record: IDataObject; retryAfterMs?: number }>;
}

export interface WaitSettings {
	/** Give up at this time (epoch ms). */
	deadline: number;
	/** Delay before the first poll (ms). */
	firstPollAfterMs: number;
	/** Growth of the interval between polls, and its bounds (ms). */
	growth: number;
	minIntervalMs: number;
	maxIntervalMs: number;
}

export const DEFAULT_WAIT: Omit<WaitSettings, 'deadline'> = {
	firstPollAfterMs: 1_000,
	growth: 1.5,
	minIntervalMs: 500,
	maxIntervalMs: 10_000,
};

/** Minutes → deadline. */
export function deadlineFromMinutes(minutes: number): number {
	const safe = Number.isFinite(minutes) && minutes > 0 ? minutes : 10;
	return Date.now() + safe * 60_000;
}

function describeMinutes(ms: number): string {
	const minutes = ms / 60_000;
	return minutes >= 1
		? `${Math.round(minutes * 10) / 10} minute(s)`
		: `${Math.round(ms / 1000)} second(s)`;
}

export async function waitUntilFinished(
	this: IExecuteFunctions,
	itemIndex: number,
	target: WaitTarget,
	settings: WaitSettings,
): Promise<IDataObject> {
	const node = this.getNode();
	const signal = this.getExecutionCancelSignal();
	const started = Date.now();
	let delay = Math.max(0, settings.firstPollAfterMs);
	let interval = settings.minIntervalMs;
	let lastStatus: unknown = 'unknown';

	for (;;) {
		const remaining = settings.deadline - Date.now();
		if (delay > 0) await sleep(Math.max(0, Math.min(delay, remaining)), signal);
		if (signal?.aborted)
			throw new NodeOperationError(node, 'The execution was cancelled', { itemIndex });

		const { record, retryAfterMs } = await target.fetch(settings.deadline);
		lastStatus = record.status;
		const state = classifyStatus(record.status);
		if (state === 'done') return record;
		if (state === 'failed') {
			const reason = [record.error, record.errorMessage, record.message, record.reason].find(
				(v) => typeof v === 'string' && v.trim() !== '',
			) as string | undefined;
			throw new NodeOperationError(
				node,
				`${target.label} failed (status "${String(record.status)}")${reason ? `: ${reason}` : ''}`,
				{
					description:
						'The service could not process the document. Check that the file is a readable scan or PDF; submit it again once fixed.',
					itemIndex,
				},
			);
		}

		if (Date.now() >= settings.deadline) {
			const unknown = isKnownStatus(lastStatus)
				? ''
				: ' — a status this node does not know, treated as still running';
			throw new NodeOperationError(
				node,
				`${target.label} did not finish within ${describeMinutes(settings.deadline - started)} (last status "${String(lastStatus)}"${unknown})`,
				{
					description:
						'The task goes on at the service. Fetch it later with Task → Get using its ID, or raise "Wait Timeout (Minutes)".',
					itemIndex,
				},
			);
		}

		// Never poll sooner than the service asked (Retry-After); the deadline still bounds the wait.
		delay = Math.max(retryAfterMs ?? 0, Math.min(settings.maxIntervalMs, interval));
		interval = Math.min(
			settings.maxIntervalMs,
			Math.max(settings.minIntervalMs, interval * settings.growth),
		);
	}
}
