import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { unwrapList } from '../DocumentOcr/helpers/task';
import { getRecord, taskDetails } from '../DocumentOcr/transport/client';
import { httpStatus } from '../DocumentOcr/transport/errors';
import {
	apiRequest,
	DEFAULT_RETRY,
	TransportState,
	unexpectedBody,
} from '../DocumentOcr/transport';
import type { Finished, ListOrder, PageReader, PollSettings, TaskReader } from './walk';
import { DEFAULT_SETTINGS, newestFinished, pollOnce, readState } from './walk';

const EVENTS = ['ocr.done', 'ocr.failed'];
/** Where the trigger's memory lives in the node's static data (n8n saves it with the workflow). */
const STATE_KEY = 'taskPoll';
/** A poll never takes longer than this, whatever budget n8n grants. */
const MAX_POLL_MS = 4 * 60_000;
const DETAILS_TIMEOUT_MS = 10_000;

/**
 * Requests of one poll: 5xx and network errors are retried a little within the poll; a 429 is
 * not waited out — the poll fails with the service's error and the next poll is the retry.
 */
function pollTransport(): TransportState {
	return new TransportState(1, {
		...DEFAULT_RETRY,
		maxReadRetries: 2,
		maxRateLimitRetries: 0,
		backoffMaxMs: 4_000,
	});
}

export class DocumentOcrPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document OCR Poll Trigger',
		name: 'documentOcrPollTrigger',
		icon: {
			light: 'file:documentOcr.svg',
			dark: 'file:documentOcr.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
		description:
			'Starts the workflow when Document OCR tasks finish or fail, by polling the task list (no public webhook URL needed)',
		defaults: { name: 'Document OCR Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentOcrApi', required: true }],
		properties: [
			{
				displayName:
					'Checks the task list at the poll times below and starts the workflow once per task that finished since the previous check. Tasks that finished before the workflow was activated are not reported. Needs a key with the "read" scope.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: [
					{
						name: 'Task Done',
						value: 'ocr.done',
						description: 'A task has finished; its recognised text can now be fetched',
					},
					{
						name: 'Task Failed',
						value: 'ocr.failed',
						description: 'A task could not be processed',
					},
				],
				default: ['ocr.done', 'ocr.failed'],
				required: true,
				description: 'Which finished tasks start the workflow',
			},
			{
				displayName: 'Include Task Details',
				name: 'includeTaskDetails',
				type: 'boolean',
				default: false,
				description:
					'Whether to also fetch each task (its recognised text and metadata), so the workflow needs no extra Get step. A failed fetch is reported in the output (taskDetailsError).',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'List Order',
						name: 'listOrder',
						type: 'options',
						options: [
							{
								name: 'Newest First',
								value: 'newest',
								description: 'Page 1 holds the most recently created tasks',
							},
							{
								name: 'Oldest First',
								value: 'oldest',
								description:
									'Page 1 holds the oldest tasks; each poll resumes at the page where the previous one ended',
							},
						],
						default: 'newest',
						description:
							'In which order the service lists tasks (its reference does not say; newest first is usual)',
					},
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPages',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 1000 },
						default: 50,
						description:
							'Most pages of the task list one poll reads. Usually one or two are read; more only after many tasks were created between two polls.',
					},
					{
						displayName: 'Page Size',
						name: 'pageSize',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 1000 },
						default: 20,
						description:
							'How many tasks to ask for per page (the service default is 20; a service may send fewer)',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const events = (this.getNodeParameter('events', EVENTS) as string[]).filter((e) =>
			EVENTS.includes(e),
		);
		const includeDetails = this.getNodeParameter('includeTaskDetails', false) as boolean;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const order: ListOrder = options.listOrder === 'oldest' ? 'oldest' : 'newest';
		const bounded = (value: unknown, fallback: number, max: number) => {
			const n = Math.floor(Number(value ?? fallback));
			return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : fallback;
		};
		const settings: PollSettings = {
			...DEFAULT_SETTINGS,
			events,
			order,
			maxPages: bounded(options.maxPages, DEFAULT_SETTINGS.maxPages, 1000),
		};
		const pageSize = bounded(options.pageSize, 20, 1000);
		const budget = Math.min(MAX_POLL_MS, Math.max(10_000, Number(this.getPollBudgetMs?.()) || 0));
		const deadline = Date.now() + budget;
		const state = pollTransport();

		const readPage: PageReader = async (page) => {
			const response = await apiRequest.call(
				this,
				0,
				{
					method: 'GET',
					path: ['api', 'tasks'],
					qs: { page, pageSize },
					kind: 'read',
					scope: 'read',
					deadline,
				},
				state,
			);
			const list = unwrapList(response.body);
			if (!list) throw unexpectedBody(this, 0, `the task list (page ${page})`, response.body);
			return list;
		};
		const readTask: TaskReader = async (taskId) => {
			const outcome = await getRecord.call(this, 0, state, 'task', taskId, deadline).then(
				({ record }) => ({ record }),
				(error: unknown) => ({ error }),
			);
			if ('record' in outcome) return outcome.record;
			// Deleted since it was seen unfinished: it will never finish, stop following it.
			if (httpStatus(outcome.error) === 404) return undefined;
			throw outcome.error;
		};

		const manual = this.getMode() === 'manual';
		let found: Finished[];
		try {
			if (manual) {
				// A test run shows the latest finished task as a sample and changes no memory.
				const sample = await newestFinished(
					{ events, order, maxPages: Math.min(settings.maxPages, 5) },
					readPage,
				);
				found = sample ? [sample] : [];
			} else {
				const data = this.getWorkflowStaticData('node');
				const previous = readState(data[STATE_KEY]);
				const result = await pollOnce(previous, settings, readPage, readTask);
				for (const warning of result.warnings)
					this.logger.warn(`Document OCR Poll Trigger: ${warning}`);
				if (result.baseline)
					this.logger.debug(
						`Document OCR Poll Trigger: starting point recorded (${result.state.seen.length} tasks listed, ${result.state.pending.length} unfinished followed); tasks finished before now are not reported`,
					);
				// The memory changes only after the whole poll has succeeded.
				data[STATE_KEY] = result.state;
				found = result.emit;
			}
		} catch (error) {
			throw pollFailed(this, error);
		}
		if (found.length === 0) return null;

		const items: IDataObject[] = [];
		for (const finished of found) {
			const output: IDataObject = {
				event: finished.event,
				taskId: finished.taskId,
				status: finished.status,
				// The same key as the webhook trigger's for this task and event, so one Remove
				// Duplicates step serves both triggers.
				dedupeKey: `task:${finished.event}:${finished.taskId}`,
			};
			// Reported, not swallowed: the task was reported once and is not read again.
			if (includeDetails)
				Object.assign(output, await taskDetails.call(this, finished.taskId, DETAILS_TIMEOUT_MS));
			items.push(output);
		}
		return [this.helpers.returnJsonArray(items)];
	}
}

/** A failed poll: the service's own error, saying that nothing was lost and the next poll retries. */
function pollFailed(ctx: IPollFunctions, error: unknown): Error {
	const note =
		"Nothing was emitted and the trigger's memory was not changed: the next poll reads the same tasks again, so no task is skipped or reported twice.";
	let failure: NodeApiError;
	if (error instanceof NodeApiError) {
		const description = `${error.description ?? ''}\n\n${note}`.trim();
		failure = new NodeApiError(
			ctx.getNode(),
			{ message: error.message, description },
			{ message: error.message, description, httpCode: error.httpCode ?? undefined },
		);
	} else {
		const message = error instanceof Error ? error.message : String(error);
		failure = new NodeApiError(ctx.getNode(), { message }, { message, description: note });
	}
	return failure;
}
