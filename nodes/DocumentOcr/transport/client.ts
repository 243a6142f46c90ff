/**
 * The service client: the calls the action node and the trigger make — read a task or job (any
 * wrapper), wait for one, submit a document (JSON or multipart), the free read-scope check — on
 * top of the one sender (`./index.ts`). Operations stay thin; the trigger reads tasks from here,
 * not from the action node's `actions/`.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { StreamedBlob } from '../helpers/body';
import { pagesBilled, unwrapRecord } from '../helpers/task';
import type { WaitSettings } from '../waiting';
import { waitUntilFinished } from '../waiting';
import type { Surface, TransportContext } from './index';
import { httpStatus } from './errors';
import { apiRequest, DEFAULT_RETRY, TransportState, unexpectedBody } from './index';

/** The two kinds of long-running record the service has, and where each is read. */
const RECORDS = {
	task: {
		surface: 'base' as Surface,
		path: (id: string) => ['api', 'tasks', id],
		idField: 'taskId' as const,
		scope: 'read',
		label: 'Task',
	},
	job: {
		surface: 'api' as Surface,
		path: (id: string) => ['v1', 'jobs', id],
		idField: 'id' as const,
		scope: undefined,
		label: 'Job',
	},
};

export type RecordKind = keyof typeof RECORDS;

/** GET a task (`/api/tasks/{id}`) or job (`/v1/jobs/{id}`), whatever wrapper the service puts around it. */
export async function getRecord(
	this: TransportContext,
	itemIndex: number,
	state: TransportState,
	kind: RecordKind,
	id: string,
	deadline?: number,
	timeoutMs?: number,
): Promise<{ record: IDataObject; retryAfterMs?: number }> {
	const spec = RECORDS[kind];
	const response = await apiRequest.call(
		this,
		itemIndex,
		{
			method: 'GET',
			surface: spec.surface,
			path: spec.path(id),
			kind: 'read',
			scope: spec.scope,
			subject: `${spec.label} "${id}"`,
			deadline,
			timeoutMs,
		},
		state,
	);
	const record = unwrapRecord(response.body, spec.idField);
	if (!record) throw unexpectedBody(this, itemIndex, `${kind} "${id}"`, response.body);
	return { record, retryAfterMs: response.retryAfterMs };
}

/** Polls a task or job until it is done (returns it) or failed / past the deadline (throws). */
export async function waitForRecord(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	kind: RecordKind,
	id: string,
	settings: WaitSettings,
): Promise<IDataObject> {
	return await waitUntilFinished.call(
		this,
		itemIndex,
		{
			label: `${RECORDS[kind].label} "${id}"`,
			fetch: async (deadline) => await getRecord.call(this, itemIndex, state, kind, id, deadline),
		},
		settings,
		state,
	);
}

/** A task or job as it is now (`wait` unset), or once finished (`wait`: see waitForRecord). */
export async function readRecord(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	kind: RecordKind,
	id: string,
	wait?: WaitSettings,
): Promise<IDataObject> {
	if (wait) return await waitForRecord.call(this, itemIndex, state, kind, id, wait);
	return (await getRecord.call(this, itemIndex, state, kind, id)).record;
}

/**
 * With Wait for Completion on, the key must be able to read tasks, or every document would be
 * charged and then never read. Checked once per execution, before the first submission, with a
 * request that costs nothing (the first list entry); only an answer about the key (401 / 403)
 * stops the submissions — anything else is left to the submission itself.
 */
export async function ensureCanReadTasks(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<void> {
	await state.once('can-read-tasks', async () => {
		try {
			await apiRequest.call(
				this,
				itemIndex,
				{
					method: 'GET',
					path: ['api', 'tasks'],
					qs: { page: 1, pageSize: 1 },
					kind: 'read',
					scope: 'read',
				},
				state,
			);
		} catch (error) {
			const status = httpStatus(error);
			if (!(error instanceof NodeApiError) || (status !== 401 && status !== 403)) return;
			const description =
				`${error.description ?? ''}\n\nWith "Wait for Completion" on, the node checks before submitting anything that the key can read tasks. Nothing was sent or charged. Give the key the "read" scope, or turn "Wait for Completion" off.`.trim();
			throw new NodeApiError(
				this.getNode(),
				{ message: error.message, description },
				{ message: error.message, description, httpCode: error.httpCode ?? undefined, itemIndex },
			);
		}
	});
}

/**
 * POST a document as multipart (a body from multipartWithDocument) to a /v1 endpoint; returns the
 * JSON object answered. Every accepted document is recorded as billed, with its ID when the answer
 * carries one (the reference shows one for `/v1/markdown` and `/v1/jobs` only).
 */
export async function postDocumentV1(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	endpoint: string,
	body: StreamedBlob,
	fileName?: string,
): Promise<IDataObject> {
	const response = await apiRequest.call(
		this,
		itemIndex,
		{ method: 'POST', surface: 'api', path: ['v1', endpoint], kind: 'submit', body },
		state,
	);
	const answer = response.body as unknown;
	if (
		typeof answer !== 'object' ||
		answer === null ||
		Array.isArray(answer) ||
		Buffer.isBuffer(answer)
	) {
		throw unexpectedBody(
			this,
			itemIndex,
			`/v1/${endpoint} (pages may have been charged)`,
			answer,
			true,
		);
	}
	const result = answer as IDataObject;
	const id = unwrapRecord(result, 'id')?.id;
	const hasId = typeof id === 'string' || typeof id === 'number';
	// A job without an ID is refused by createJob (it may exist: that error says so).
	if (endpoint !== 'jobs' || hasId) {
		state.recordCreated({
			itemIndex,
			kind: endpoint === 'jobs' ? 'job' : 'document',
			id: hasId ? String(id) : undefined,
			pagesBilled: pagesBilled(result),
			fileName,
		});
	}
	return result;
}

/**
 * A finished task's details for a trigger's item (Include Task Details): one attempt, no retries,
 * at most `timeoutMs`. A failure is returned as its message, to be reported on the item — the
 * task was already reported and will not be read again.
 */
export async function taskDetails(
	this: TransportContext,
	taskId: string,
	timeoutMs: number,
): Promise<{ task: IDataObject } | { taskDetailsError: string }> {
	const once = new TransportState(1, {
		...DEFAULT_RETRY,
		maxReadRetries: 0,
		maxRateLimitRetries: 0,
	});
	try {
		const { record } = await getRecord.call(
			this,
			0,
			once,
			'task',
			taskId,
			Date.now() + timeoutMs,
			timeoutMs,
		);
		return { task: record };
	} catch (error) {
		return { taskDetailsError: (error as Error).message };
	}
}

/** POST /v1/jobs: the created job, which must carry the ID to keep (a job may exist without one). */
export async function createJob(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	body: StreamedBlob,
): Promise<{ job: IDataObject; jobId: string }> {
	const job = unwrapRecord(await postDocumentV1.call(this, itemIndex, state, 'jobs', body), 'id');
	const id = job?.id;
	if (!job || (typeof id !== 'string' && typeof id !== 'number')) {
		state.failed();
		throw unexpectedBody(
			this,
			itemIndex,
			'the job creation (a job may have been created)',
			job,
			true,
		);
	}
	return { job: { ...job, id: String(id) }, jobId: String(id) };
}

/**
 * POST a document as JSON (a body from jsonWithDocument, `imageBase64` streamed) to a task
 * endpoint of the Base URL; returns the answer and the task ID it must carry. A 2xx without an
 * ID still may have created a task; `success: false` says it did not.
 */
export async function submitDocumentTask(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	path: string[],
	body: StreamedBlob,
): Promise<{ accepted: IDataObject; taskId: string; pagesBilled?: number }> {
	const response = await apiRequest.call(
		this,
		itemIndex,
		{ method: 'POST', path, kind: 'submit', scope: 'submit', body },
		state,
	);
	const accepted = unwrapRecord(response.body);
	const taskId = accepted?.taskId;
	if (accepted?.success === false) {
		state.failed();
		const said = [accepted.message, accepted.error].find((v) => typeof v === 'string');
		const message = `The OCR service did not accept the document (success: false)${said ? `: ${String(said)}` : ''}`;
		throw new NodeApiError(
			this.getNode(),
			{ message },
			{
				message,
				description:
					'No task was created. The service refunds the pages of a submission it could not turn into a task, so nothing should stay charged; check the file, then submit it again.',
				itemIndex,
			},
		);
	}
	if (!accepted || (typeof taskId !== 'string' && typeof taskId !== 'number')) {
		state.failed();
		throw unexpectedBody(
			this,
			itemIndex,
			'the submission (a task may have been created)',
			response.body,
			true,
		);
	}
	const billed = pagesBilled(accepted);
	state.recordCreated({ itemIndex, kind: 'task', id: String(taskId), pagesBilled: billed });
	return {
		accepted: { ...accepted, taskId: String(taskId) },
		taskId: String(taskId),
		pagesBilled: billed,
	};
}
