import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { DocumentInput } from '../helpers/document';
import { jsonWithDocument, multipartWithDocument } from '../helpers/body';
import { unwrapRecord } from '../helpers/task';
import type { WaitSettings } from '../helpers/wait';
import { waitUntilFinished } from '../helpers/wait';
import type { Surface, TransportContext, TransportState } from '../transport';
import { apiRequest, unexpectedBody } from '../transport';

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
		state.poller(this),
	);
}

/** POST a document as multipart (part `file`) to a /v1 endpoint; returns the JSON object answered. */
export async function postDocumentV1(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	endpoint: string,
	document: DocumentInput,
	fields: Array<[string, string]> = [],
): Promise<IDataObject> {
	const response = await apiRequest.call(
		this,
		itemIndex,
		{
			method: 'POST',
			surface: 'api',
			path: ['v1', endpoint],
			kind: 'submit',
			body: multipartWithDocument(this, fields, 'file', document),
		},
		state,
	);
	const body = response.body as unknown;
	if (typeof body !== 'object' || body === null || Array.isArray(body) || Buffer.isBuffer(body)) {
		throw unexpectedBody(this, itemIndex, `/v1/${endpoint} (pages may have been charged)`, body);
	}
	return body as IDataObject;
}

/**
 * POST a document as JSON (`imageBase64` streamed) to a task endpoint of the Base URL; returns
 * the answer and the task ID it must carry. A 2xx without an ID still may have created a task.
 */
export async function submitDocumentTask(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
	path: string[],
	fields: IDataObject,
	document: DocumentInput,
): Promise<{ accepted: IDataObject; taskId: string }> {
	const response = await apiRequest.call(
		this,
		itemIndex,
		{
			method: 'POST',
			path,
			kind: 'submit',
			scope: 'submit',
			body: jsonWithDocument(this, fields, 'imageBase64', document),
		},
		state,
	);
	const accepted = unwrapRecord(response.body);
	const taskId = accepted?.taskId;
	if (!accepted || (typeof taskId !== 'string' && typeof taskId !== 'number')) {
		throw unexpectedBody(
			this,
			itemIndex,
			'the submission (a task may have been created)',
			response.body,
		);
	}
	return { accepted: { ...accepted, taskId: String(taskId) }, taskId: String(taskId) };
}
