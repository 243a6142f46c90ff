import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { StreamedBlob } from '../shared/blob';
import { isObject } from '../shared/object';
import type { ListPage } from '../shared/records';
import { isRecord, LIST_KEYS, pagesBilled, unwrapList, unwrapRecord } from '../shared/records';
import type { Endpoints, Surface, TransportContext } from '../transport/endpoints';
import { accountDigest, resolveEndpoints } from '../transport/endpoints';
import { quoteAnswer } from '../transport/answers';
import type { ApiRequest, ApiResponse, BillableHooks } from '../transport/api';
import { httpStatus, unexpectedBody } from '../transport/errors';
import { apiRequest } from '../transport/request';
import type { RetrySettings } from '../transport/retry';
import { DEFAULT_RETRY } from '../transport/retry';
import { RequestSlots } from '../transport/slots';

/** An ID as an answer may carry it: a string or a number. */
const hasId = (id: unknown): id is string | number =>
	typeof id === 'string' || typeof id === 'number';

/** The two kinds of long-running record the service has, and where each is read. */
const RECORDS = {
	task: {
		surface: 'base' as Surface,
		path: (id: string) => ['api', 'tasks', id],
		idField: 'taskId' as const,
		scope: 'read',
		label: 'Task',
		expected: 'a task (an object with its "taskId" or a "status", flat or wrapped)',
	},
	job: {
		surface: 'api' as Surface,
		path: (id: string) => ['v1', 'jobs', id],
		idField: 'id' as const,
		scope: undefined,
		label: 'Job',
		expected: 'a job (an object with its "id" or a "status", flat or wrapped)',
	},
};

export type RecordKind = keyof typeof RECORDS;

/** How a record is named in messages, e.g. `Task "tsk_1"`. */
export function recordLabel(kind: RecordKind, id: string): string {
	return `${RECORDS[kind].label} "${id}"`;
}

/** What a submission created: its answer, the ID it must carry, and the pages it says it billed. */
export interface Accepted {
	answer: IDataObject;
	id: string;
	pagesBilled?: number;
}

/**
 * The OCR service as one object: the credential and endpoints (read once), the request slots and
 * rate-limit gate, and the typed reads and writes of tasks, jobs, documents and the task list.
 * The action node's execution owns one; each trigger makes its own, with no batch. Submissions
 * take `billable` hooks (transport/api.ts), which the action node's batch answers with its
 * submission order and halt; each gives the transport its answer check (`accept`), so the
 * transport alone calls the hooks.
 */
export class ServiceClient {
	readonly slots: RequestSlots;

	readonly retry: RetrySettings;

	private endpoints?: Promise<Endpoints>;

	constructor(
		readonly ctx: TransportContext,
		options: { concurrency?: number; retry?: Partial<RetrySettings> } = {},
	) {
		this.slots = new RequestSlots(options.concurrency ?? 1);
		this.retry = { ...DEFAULT_RETRY, ...options.retry };
	}

	/** The credential, read and checked on the first request (a bad URL fails that item). */
	private async connect(itemIndex: number) {
		if (!this.endpoints) {
			const resolving = resolveEndpoints(this.ctx, itemIndex);
			this.endpoints = resolving;
			resolving.catch(() => {
				if (this.endpoints === resolving) this.endpoints = undefined;
			});
		}
		const endpoints = await this.endpoints;
		return { ctx: this.ctx, endpoints, slots: this.slots, retry: this.retry };
	}

	async request<T = IDataObject>(itemIndex: number, request: ApiRequest): Promise<ApiResponse<T>> {
		return await apiRequest<T>(await this.connect(itemIndex), itemIndex, request);
	}

	/** A digest of the account the credential reaches (see transport/endpoints.ts). */
	async account(itemIndex: number): Promise<string> {
		return accountDigest((await this.connect(itemIndex)).endpoints);
	}

	/**
	 * GET a task (`/api/tasks/{id}`) or job (`/v1/jobs/{id}`), whatever wrapper the service puts
	 * around it. Every read of a record (Get, the waits, the poll trigger, the memory of submitted
	 * documents) comes here, so an answer that is not one is refused here, once: an error naming what
	 * was expected and what came, never an output that looks like a task.
	 */
	async getRecord(
		itemIndex: number,
		kind: RecordKind,
		id: string,
		limits: { deadline?: number; timeoutMs?: number } = {},
	): Promise<{ record: IDataObject; retryAfterMs?: number }> {
		const spec = RECORDS[kind];
		const response = await this.request(itemIndex, {
			method: 'GET',
			surface: spec.surface,
			path: spec.path(id),
			kind: 'read',
			scope: spec.scope,
			subject: recordLabel(kind, id),
			...limits,
		});
		const record = unwrapRecord(response.body, spec.idField);
		if (!record || !isRecord(record, spec.idField)) {
			const { expected } = spec;
			throw unexpectedBody(this.ctx, itemIndex, `${kind} "${id}"`, response.body, { expected });
		}
		return { record, retryAfterMs: response.retryAfterMs };
	}

	/** A task or job as it is now, or undefined when the service no longer has it (404). */
	async findRecord(itemIndex: number, kind: RecordKind, id: string, deadline?: number) {
		const outcome = await this.getRecord(itemIndex, kind, id, { deadline }).then(
			({ record }) => ({ record }),
			(error: unknown) => ({ error }),
		);
		if ('record' in outcome) return outcome.record;
		if (httpStatus(outcome.error) === 404) return undefined;
		throw outcome.error;
	}

	/** One page of `GET /api/tasks`, in whichever list shape the service answers. */
	async listTasks(
		itemIndex: number,
		query: { page: number; pageSize: number; status?: string; deadline?: number; what?: string },
	): Promise<ListPage> {
		const { page, pageSize, status, deadline, what = 'the task list' } = query;
		const response = await this.request(itemIndex, {
			method: 'GET',
			path: ['api', 'tasks'],
			kind: 'read',
			scope: 'read',
			qs: { page, pageSize, ...(status ? { status } : {}) },
			deadline,
		});
		const list = unwrapList(response.body);
		if (!list || !list.records.every((record) => isRecord(record))) {
			const expected = `a list of tasks (an array, bare or under ${LIST_KEYS.map((k) => `"${k}"`).join(', ')}; each task with its "taskId" or a "status")`;
			throw unexpectedBody(this.ctx, itemIndex, what, response.body, { expected });
		}
		return list;
	}

	/** DELETE a task (scope "export"); the answer's fields, if it has any. */
	async deleteTask(itemIndex: number, id: string): Promise<IDataObject> {
		const response = await this.request(itemIndex, {
			method: 'DELETE',
			path: ['api', 'tasks', id],
			kind: 'delete',
			scope: 'export',
			subject: recordLabel('task', id),
		});
		return isObject(response.body) ? response.body : {};
	}

	/** GET a task's export as bytes, with the answer's headers. */
	async exportTask(itemIndex: number, id: string, format: string) {
		return await this.request<Buffer | ArrayBuffer>(itemIndex, {
			method: 'GET',
			path: ['api', 'export', id, format],
			kind: 'read',
			scope: 'read',
			subject: recordLabel('task', id),
			binary: true,
		});
	}

	/**
	 * POST a document as JSON (`imageBase64` streamed) to a task endpoint of the Base URL. A 2xx
	 * without an ID still may have created a task; `success: false` says it did not. Both fail the
	 * request in the transport, judged with its slot in hand (transport/request.ts).
	 */
	async submitTask(
		itemIndex: number,
		path: string[],
		body: StreamedBlob,
		billable: BillableHooks,
	): Promise<Accepted> {
		const accept = (answer: unknown) => {
			const accepted = unwrapRecord(answer);
			if (accepted?.success === false) return this.refused(itemIndex, accepted);
			if (accepted && hasId(accepted.taskId)) return undefined;
			const what = 'the submission (a task may have been created)';
			return unexpectedBody(this.ctx, itemIndex, what, answer, { mayHaveCreated: true });
		};
		const request = { method: 'POST' as const, path, kind: 'submit' as const, scope: 'submit' };
		const response = await apiRequest(await this.connect(itemIndex), itemIndex, {
			...request,
			body,
			billable,
			accept,
		});
		const accepted = unwrapRecord(response.body) as IDataObject;
		const id = String(accepted.taskId);
		return { answer: { ...accepted, taskId: id }, id, pagesBilled: pagesBilled(accepted) };
	}

	private refused(itemIndex: number, accepted: IDataObject) {
		const said = [accepted.message, accepted.error].find((v) => typeof v === 'string');
		const message = `The OCR service did not accept the document (success: false)${said ? `: ${quoteAnswer(said, [], 300)}` : ''}`;
		const description =
			'No task was created. The service refunds the pages of a submission it could not turn into a task, so nothing should stay charged; check the file, then submit it again.';
		return new NodeApiError(this.ctx.getNode(), { message }, { message, description, itemIndex });
	}

	/**
	 * POST a document as multipart to a `/v1` endpoint; the JSON object answered. Its ID, when the
	 * answer carries one (the reference shows one for `/v1/markdown` and `/v1/jobs` only).
	 * `expect`: what the endpoint further requires of the answer (an error when it is missing).
	 */
	async postDocument(
		itemIndex: number,
		endpoint: string,
		body: StreamedBlob,
		billable: BillableHooks,
		expect?: (answer: IDataObject) => Error | undefined,
	): Promise<{ answer: IDataObject; id?: string; pagesBilled?: number }> {
		const accept = (answer: unknown) => {
			if (isObject(answer)) return expect?.(answer);
			const what = `/v1/${endpoint} (pages may have been charged)`;
			return unexpectedBody(this.ctx, itemIndex, what, answer, { mayHaveCreated: true });
		};
		const path = ['v1', endpoint];
		const request = {
			method: 'POST' as const,
			surface: 'api' as const,
			path,
			kind: 'submit' as const,
		};
		const response = await apiRequest(await this.connect(itemIndex), itemIndex, {
			...request,
			body,
			billable,
			accept,
		});
		const answer = response.body as IDataObject;
		const id = unwrapRecord(answer, 'id')?.id;
		return { answer, id: hasId(id) ? String(id) : undefined, pagesBilled: pagesBilled(answer) };
	}

	/** POST /v1/jobs: the created job, which must carry the ID to keep (a job may exist without one). */
	async createJob(
		itemIndex: number,
		body: StreamedBlob,
		billable: BillableHooks,
	): Promise<Accepted> {
		const expect = (answer: IDataObject) => {
			const job = unwrapRecord(answer, 'id');
			if (job && hasId(job.id)) return undefined;
			const what = 'the job creation (a job may have been created)';
			return unexpectedBody(this.ctx, itemIndex, what, job, { mayHaveCreated: true });
		};
		const posted = await this.postDocument(itemIndex, 'jobs', body, billable, expect);
		const id = posted.id as string;
		const job = unwrapRecord(posted.answer, 'id') as IDataObject;
		return { answer: { ...job, id }, id, pagesBilled: posted.pagesBilled };
	}

	/**
	 * A finished task's details for a trigger's item (Include Task Details): one attempt, no
	 * retries, at most `timeoutMs`. A failure is returned as its message, to be reported on the
	 * item — the task was already reported and will not be read again.
	 */
	static async taskDetails(
		ctx: TransportContext,
		taskId: string,
		timeoutMs: number,
	): Promise<{ task: IDataObject } | { taskDetailsError: string }> {
		const client = new ServiceClient(ctx, {
			retry: { maxReadRetries: 0, maxRateLimitRetries: 0 },
		});
		try {
			const deadline = Date.now() + timeoutMs;
			return { task: (await client.getRecord(0, 'task', taskId, { deadline, timeoutMs })).record };
		} catch (error) {
			return { taskDetailsError: (error as Error).message };
		}
	}
}
