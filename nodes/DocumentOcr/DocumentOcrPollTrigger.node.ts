import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { ServiceClient } from './service/client';
import { booleanField, nodeFields, numberField } from './shared/validate';
import { EVENTS, eventsField, isTaskEvent, taskEventKey } from './trigger/events';
import type { Finished, PageReader, PollSettings, TaskReader } from './trigger/poll-state';
import { DEFAULT_SETTINGS, readState } from './trigger/poll-state';
import { newestFinished } from './trigger/sample';
import { pollOnce } from './trigger/walk';

/** Where the trigger's memory lives in the node's static data (n8n saves it with the workflow). */
const STATE_KEY = 'taskPoll';
/** A poll never takes longer than this, whatever time n8n grants it. */
const MAX_POLL_MS = 4 * 60_000;
const DETAILS_TIMEOUT_MS = 10_000;

/**
 * Requests of one poll: 5xx and network errors are retried a little, and a 429 is waited out as
 * its Retry-After asks — within the poll's time (each request carries the poll's deadline, and
 * no wait goes past it). What does not fit is left to the next poll, which goes on from there.
 */
function pollClient(ctx: IPollFunctions): ServiceClient {
	return new ServiceClient(ctx, { retry: { maxReadRetries: 2, backoffMaxMs: 4_000 } });
}

/** A request started this close to the poll's deadline would not end in time: none is started. */
const DEADLINE_MARGIN_MS = 5_000;

/**
 * Marks on the poll context itself: n8n creates one context per activation and polls with it on
 * every tick (n8n-core's ActiveWorkflowTriggers.activatePollTrigger), so they last as long as the
 * activation, are shared by overlapping ticks, and are gone after a restart or a new activation.
 * (n8n 2.41's scheduler with durable cursors, when enabled, makes a context per tick with the
 * activation mode 'update' and serialises polls itself.)
 */
const POLL_UNDER_WAY = Symbol('documentOcrPollUnderWay');
const ACTIVATION_SEEN = Symbol('documentOcrActivationSeen');

type Marked = { [POLL_UNDER_WAY]?: number; [ACTIVATION_SEEN]?: boolean };

function mark<K extends keyof Marked>(ctx: IPollFunctions, key: K, value: Marked[K]) {
	Object.defineProperty(ctx, key, { value, configurable: true, writable: true });
}

const includeTaskDetailsField: INodeProperties = {
	displayName: 'Include Task Details',
	name: 'includeTaskDetails',
	type: 'boolean',
	default: false,
	description:
		"Whether to also fetch each task (its recognized text and 'metadata'), so the workflow needs no extra Get step. A failed fetch, or a task the poll's time does not reach, is reported in the output ('taskDetailsError').",
};

const maxPagesOption: INodeProperties = {
	displayName: 'Max Pages per Poll',
	name: 'maxPages',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 1000, numberPrecision: 0 },
	default: 50,
	description:
		'Most pages of the task list one poll reads. Usually one or two are read; more only after many tasks were created between two polls.',
};

const pageSizeOption: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 1000, numberPrecision: 0 },
	default: 20,
	description:
		'How many tasks to ask for per page (the service default is 20; a service may send fewer)',
};

export class DocumentOcrPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'OCR Document Poll Trigger',
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
					'Checks the task list at the poll times above and starts the workflow once per task that finished since the previous check. Tasks that finished before the workflow was activated are not reported. Needs a key with the "read" scope.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			eventsField('Which finished tasks start the workflow'),
			includeTaskDetailsField,
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
					maxPagesOption,
					pageSizeOption,
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = pollSettings(this);
		const items = await findFinished(this, settings);
		if (items === null || items.length === 0) return null;
		return [this.helpers.returnJsonArray(items)];
	}
}

/** What a task finished without details says when the poll's time ran out before it was read. */
const DETAILS_NOT_FETCHED =
	"Not fetched: the poll's time ran out before this task could be read (read it with the Document OCR node's Task → Get, by its taskId)";

/**
 * The items of the finished tasks. With Include Task Details, each task is read here — inside the
 * one-poll-at-a-time mark and the poll's time, so a tick meanwhile starts nothing and the poll ends
 * within its time; a task the time does not reach is emitted without its details and says so
 * (`taskDetailsError`), as a failed read does: the event is reported once, and not held back.
 */
async function itemsOf(
	ctx: IPollFunctions,
	found: Finished[],
	settings: ReturnType<typeof pollSettings>,
): Promise<IDataObject[]> {
	const includeDetails = booleanField(nodeFields(ctx), includeTaskDetailsField);
	const items: IDataObject[] = [];
	for (const finished of found) {
		const output: IDataObject = {
			event: finished.event,
			taskId: finished.taskId,
			status: finished.status,
			dedupeKey: taskEventKey(finished.event, finished.taskId),
		};
		if (includeDetails) {
			const left = settings.deadline - DEADLINE_MARGIN_MS - Date.now();
			const details =
				left > 0
					? await ServiceClient.taskDetails(
							ctx,
							finished.taskId,
							Math.min(DETAILS_TIMEOUT_MS, left),
						)
					: { taskDetailsError: DETAILS_NOT_FETCHED };
			Object.assign(output, details);
		}
		items.push(output);
	}
	return items;
}

/** The poll's settings from the node's parameters, with the page size and the poll's deadline. */
function pollSettings(ctx: IPollFunctions) {
	const events = (ctx.getNodeParameter('events', EVENTS) as string[]).filter(isTaskEvent);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const fields = nodeFields(ctx);
	const pollMs = Math.min(MAX_POLL_MS, Math.max(10_000, Number(ctx.getPollBudgetMs?.()) || 0));
	const deadline = Date.now() + pollMs;
	const settings: PollSettings & { pageSize: number; deadline: number } = {
		...DEFAULT_SETTINGS,
		events,
		order: options.listOrder === 'oldest' ? 'oldest' : 'newest',
		maxPages: numberField(fields, maxPagesOption, { path: 'options.maxPages' }),
		canRead: () => Date.now() < deadline - DEADLINE_MARGIN_MS,
		pageSize: numberField(fields, pageSizeOption, { path: 'options.pageSize' }),
		deadline,
	};
	return settings;
}

/**
 * The items of the tasks that finished since the previous poll (null: a poll is already under
 * way). A manual test run shows the latest finished task as a sample and changes no memory.
 */
async function findFinished(
	ctx: IPollFunctions,
	settings: ReturnType<typeof pollSettings>,
): Promise<IDataObject[] | null> {
	const { pageSize, deadline } = settings;
	const client = pollClient(ctx);
	const readPage: PageReader = async (page) =>
		await client.listTasks(0, { page, pageSize, deadline, what: `the task list (page ${page})` });
	// Deleted since it was seen unfinished (404: undefined): it will never finish, stop following it.
	const readTask: TaskReader = async (taskId) =>
		await client.findRecord(0, 'task', taskId, deadline);
	if (ctx.getMode() === 'manual') {
		try {
			const sampling = { ...settings, maxPages: Math.min(settings.maxPages, 5) };
			const sample = await newestFinished(sampling, readPage);
			return await itemsOf(ctx, sample ? [sample] : [], settings);
		} catch (error) {
			throw pollFailed(ctx, error, false);
		}
	}
	// One poll at a time: n8n starts a poll on every tick without waiting for the one before; a
	// tick that finds one under way (and not past its deadline) is skipped.
	const underWay = (ctx as Marked)[POLL_UNDER_WAY];
	if (underWay !== undefined && underWay > Date.now()) {
		ctx.logger.debug(
			'Document OCR Poll Trigger: the previous poll is still running; this tick is skipped',
		);
		return null;
	}
	mark(ctx, POLL_UNDER_WAY, deadline);
	try {
		const found = await pollAndKeep(ctx, settings, readPage, readTask);
		return await itemsOf(ctx, found, settings);
	} finally {
		mark(ctx, POLL_UNDER_WAY, undefined);
	}
}

/**
 * One poll against the memory in the node's static data: a user's activation (activate, as
 * opposed to n8n starting up or a saved change) starts from now; what the poll learnt is kept
 * whatever happens, and what it found is emitted. A poll that failed before finding anything
 * fails, saying that the next poll goes on where it stopped.
 */
async function pollAndKeep(
	ctx: IPollFunctions,
	settings: PollSettings,
	readPage: PageReader,
	readTask: TaskReader,
): Promise<Finished[]> {
	const data = ctx.getWorkflowStaticData('node');
	if (!(ctx as Marked)[ACTIVATION_SEEN]) {
		mark(ctx, ACTIVATION_SEEN, true);
		if (ctx.getActivationMode() === 'activate') delete data[STATE_KEY];
	}
	const previous = readState(data[STATE_KEY]);
	const result = await pollOnce(previous, settings, readPage, readTask);
	if (result.state) data[STATE_KEY] = result.state;
	for (const warning of result.warnings) ctx.logger.warn(`Document OCR Poll Trigger: ${warning}`);
	if (result.baseline)
		ctx.logger.debug(
			`Document OCR Poll Trigger: starting point recorded (${result.state?.seen.length ?? 0} tasks listed, ${result.state?.pending.length ?? 0} unfinished followed); tasks finished before now are not reported`,
		);
	if (result.failure !== undefined) {
		if (result.emit.length === 0) throw pollFailed(ctx, result.failure, true);
		ctx.logger.warn(
			`Document OCR Poll Trigger: ${(result.failure as Error)?.message ?? String(result.failure)} — the tasks found before it are emitted; the next poll goes on where this one stopped.`,
		);
	}
	return result.emit;
}

/** A failed poll: the service's own error, and what becomes of the tasks not read. */
function pollFailed(ctx: IPollFunctions, error: unknown, kept: boolean): Error {
	const note = kept
		? "Nothing was emitted. What this poll read before the failure is kept in the trigger's memory: the next poll goes on where it stopped, so no task is skipped or reported twice."
		: 'Nothing was changed.';
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
