import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { RecordKind, ServiceClient } from '../service/client';
import { recordLabel } from '../service/client';
import { isKnownStatus } from '../shared/records';
import { cancelSignal } from '../transport/endpoints';
import { quoteAnswer } from '../transport/answers';
import { StoppedError } from '../transport/errors';
import type { PollFetch } from './poller';
import { DEFAULT_POLLER, Poller } from './poller';

/**
 * The one place that waits for tasks and jobs to finish. Each execution has one Poller (which
 * decides when to ask; see poller.ts), shared by all its waiting items; this module makes it with
 * n8n's sleep and turns a wait's outcome into the record or a per-item error — failed (naming the
 * record and its status), past the item's deadline (naming the last status), cancelled, or
 * stopped because another item failed the node. Deadlines run from the moment the service
 * accepted the item.
 */

export interface WaitTarget {
	/** e.g. `Task "tsk_1"`; used in messages. */
	label: string;
	/** Reads the record once; `retryAfterMs` is the service's hint for the next look. */
	fetch: PollFetch;
}

export interface WaitSettings {
	/** Give up at this time (epoch ms). */
	deadline: number;
	/**
	 * When the service said how long the record needs (ms from now; 0 for a synchronous
	 * provider). Without it, the record is looked at with the others of the batch.
	 */
	expectedAfterMs?: number;
}

/**
 * A poller that sleeps with n8n's `sleep` and the execution's cancel signal, and ends every wait
 * once `halted()` (another item failed the node; the caller also calls `interrupt()` then).
 */
export function newPoller(ctx: IExecuteFunctions, halted: () => boolean): Poller {
	return new Poller({
		...DEFAULT_POLLER,
		sleep: async (ms, signal) => {
			const cancel = cancelSignal(ctx);
			await sleep(ms, cancel ? AbortSignal.any([cancel, signal]) : signal);
		},
		cancelled: () => cancelSignal(ctx)?.aborted === true,
		halted,
	});
}

function describeDuration(ms: number): string {
	const minutes = ms / 60_000;
	return minutes >= 1
		? `${Math.round(minutes * 10) / 10} minute(s)`
		: `${Math.round(ms / 1000)} second(s)`;
}

/** The failed record's own reason, quoted as every answer is (redacted, shortened). */
function reasonOf(record: IDataObject): string | undefined {
	const reason = [record.error, record.errorMessage, record.message, record.reason].find(
		(v) => typeof v === 'string' && v.trim() !== '',
	);
	return reason === undefined ? undefined : quoteAnswer(reason, [], 300);
}

/**
 * Waits with `poller` until the task or job `record` is done (returns it), reading it with
 * `client`; failed, late or stopped: throws.
 */
export async function waitForRecord(
	ctx: IExecuteFunctions,
	poller: Poller,
	client: Pick<ServiceClient, 'getRecord'>,
	itemIndex: number,
	{ kind, id }: { kind: RecordKind; id: string },
	settings: WaitSettings,
): Promise<IDataObject> {
	const fetch = async (deadline: number) =>
		await client.getRecord(itemIndex, kind, id, { deadline });
	const target = { label: recordLabel(kind, id), fetch };
	return await waitUntilFinished(ctx, poller, itemIndex, target, settings);
}

/** Waits with `poller` until the record is done (returns it); failed, late or stopped: throws. */
async function waitUntilFinished(
	ctx: IExecuteFunctions,
	poller: Poller,
	itemIndex: number,
	target: WaitTarget,
	settings: WaitSettings,
): Promise<IDataObject> {
	const node = ctx.getNode();
	const started = Date.now();
	const outcome = await poller.wait(target.fetch, settings);
	switch (outcome.state) {
		case 'done':
			return outcome.record;
		case 'failed': {
			const reason = reasonOf(outcome.record);
			throw new NodeOperationError(
				node,
				`${target.label} failed (status "${quoteAnswer(outcome.record.status, [], 60)}")${reason ? `: ${reason}` : ''}`,
				{
					description:
						'The service could not process the document. Check that the file is a readable scan or PDF; submit it again once fixed.',
					itemIndex,
				},
			);
		}
		case 'timeout': {
			const lastStatus = outcome.record?.status ?? 'unknown';
			const unknown = isKnownStatus(lastStatus)
				? ''
				: ' — a status this node does not know, treated as still running';
			throw new NodeOperationError(
				node,
				`${target.label} did not finish within ${describeDuration(settings.deadline - started)} (last status "${quoteAnswer(lastStatus, [], 60)}"${unknown})`,
				{
					description:
						'The task goes on at the service. Fetch it later with Task → Get (or Job → Get) using its ID, or raise "Wait Timeout (Minutes)".',
					itemIndex,
				},
			);
		}
		case 'cancelled':
			throw new NodeOperationError(node, 'The execution was cancelled', { itemIndex });
		case 'halted':
			throw new StoppedError(itemIndex);
		default:
			throw outcome.error;
	}
}
