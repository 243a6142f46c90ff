import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { taskDetails } from '../DocumentOcr/transport/client';
import { recordDelivery } from './replay';
import type { Headers } from './signature';
import { verify } from './signature';

const EVENTS = ['ocr.done', 'ocr.failed'];
const MIN_SECRET_LENGTH = 8;
/** How long an event or task key is remembered in the process (a nonce: twice the tolerance). */
const EVENT_MEMORY_MS = 24 * 3600_000;
/** Include Task Details: one attempt, answered within this, after the delivery was acknowledged. */
const DETAILS_TIMEOUT_MS = 5_000;

/** Why a signing secret cannot protect the endpoint, or undefined when it can. */
function weakSecret(secret: unknown): string | undefined {
	const value = typeof secret === 'string' ? secret : '';
	if (value === '') return 'The signing secret is empty';
	if (value.trim() !== value) return 'The signing secret starts or ends with a space';
	if (value.length < MIN_SECRET_LENGTH)
		return `The signing secret is shorter than ${MIN_SECRET_LENGTH} characters`;
	return undefined;
}
function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class DocumentOcrTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document OCR Trigger',
		name: 'documentOcrTrigger',
		icon: {
			light: 'file:../DocumentOcr/documentOcr.svg',
			dark: 'file:../DocumentOcr/documentOcr.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
		description:
			// n8n's nodes panel merges this trigger with the Document OCR node into one entry and shows
			// THIS text above both nodes' actions and triggers, so it describes the whole integration.
			'Read the text of PDFs and images (OCR) with the Document OCR service, and start workflows when a task finishes or fails (signed webhook deliveries)',
		defaults: { name: 'Document OCR Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'documentOcrWebhookApi', required: true, testedBy: 'documentOcrWebhookSecretTest' },
			{
				name: 'documentOcrApi',
				required: true,
				displayOptions: { show: { includeTaskDetails: [true] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so n8n answers with the node's `webhookResponse` ({"received": true}); n8n 2.41
				// otherwise sends its default response-data setting, the literal text "firstEntryJson".
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Copy this workflow\'s Production URL (above, under "Webhook URLs") into the webhook settings of your OCR account, and the endpoint\'s signing secret into the credential. Then activate the workflow.',
				name: 'setupNotice',
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
						description:
							'Event ocr.done: a task has finished; its recognised text can now be fetched',
					},
					{
						name: 'Task Failed',
						value: 'ocr.failed',
						description: 'Event ocr.failed: a task could not be processed',
					},
				],
				default: ['ocr.done', 'ocr.failed'],
				required: true,
				description:
					'Which events start the workflow. Other events are acknowledged and start nothing.',
			},
			{
				displayName: 'Include Task Details',
				name: 'includeTaskDetails',
				type: 'boolean',
				default: false,
				description:
					'Whether to also fetch the task (its recognised text and metadata) with the Document OCR API credential, so the workflow needs no extra Get step. A failed fetch is reported in the output (taskDetailsError).',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Timestamp Tolerance (Seconds)',
						name: 'toleranceSeconds',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 300,
						description:
							'Deliveries whose timestamp is further than this from now are refused (protects against replayed requests)',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			/** A signing secret proves nothing by itself to the service: check it is usable. */
			async documentOcrWebhookSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const weak = weakSecret(credential.data?.secret);
				if (weak) {
					return {
						status: 'Error',
						message: `${weak}: copy the whole signing secret of the endpoint, without spaces around it.`,
					};
				}
				return {
					status: 'OK',
					message: 'The secret is set. Deliveries will be checked against it.',
				};
			},
		},
	};

	/**
	 * The service has no API for webhook endpoints (they are configured in the account settings),
	 * so there is nothing to register remotely. Activation fails closed: a workflow whose signing
	 * secret is empty or too short is not activated (the editor shows why). The replay memory is
	 * kept across deactivation and activation.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await refuseWeakSecret(this);
				const data = this.getWorkflowStaticData('node');
				return data.webhookUrl === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				await refuseWeakSecret(this);
				const data = this.getWorkflowStaticData('node');
				data.webhookUrl = this.getNodeWebhookUrl('default');
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				delete data.webhookUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			response.status(status).json(body);
			return { noWebhookResponse: true };
		};

		const { secret } = await this.getCredentials('documentOcrWebhookApi');
		// Fail closed: with an empty or short secret anyone could sign a delivery.
		const weak = weakSecret(secret);
		if (weak) {
			this.logger.warn(`Document OCR Trigger: delivery refused — ${weak}`);
			return answer(401, { error: 'unauthorized' });
		}
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const toleranceSeconds = Number(options.toleranceSeconds ?? 300);
		const toleranceMs =
			(Number.isFinite(toleranceSeconds) && toleranceSeconds > 0 ? toleranceSeconds : 300) * 1000;
		// n8n's body parser keeps the body exactly as received; the signature covers those bytes.
		const rawBody = (request as unknown as { rawBody?: Buffer }).rawBody;

		const checked = verify({
			secret: String(secret ?? ''),
			headers: request.headers as Headers,
			rawBody: Buffer.isBuffer(rawBody) ? rawBody : Buffer.alloc(0),
			toleranceMs,
		});
		if (!checked.ok) {
			this.logger.debug('Document OCR Trigger: delivery refused', { reason: checked.reason });
			return answer(401, { error: 'unauthorized' });
		}

		let payload: unknown;
		try {
			payload = JSON.parse((rawBody as Buffer).toString('utf8'));
		} catch {
			payload = undefined;
		}
		if (!isObject(payload)) return answer(400, { error: 'the body is not a JSON object' });

		const { nonce, timestampMs } = checked.value;
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
		// One event, one run: the same bytes again (nonce), the same event id, or the same task
		// finishing again (a service retry may carry a fresh nonce and no event id).
		const dedupeKey = eventId
			? `event:${eventId}`
			: event && taskId
				? `task:${event}:${taskId}`
				: `nonce:${nonce}`;
		const now = Date.now();
		const keys: Array<[string, number]> = [[`nonce:${nonce}`, now + 2 * toleranceMs]];
		if (eventId) keys.push([`event:${eventId}`, now + EVENT_MEMORY_MS]);
		if (event && taskId) keys.push([`task:${event}:${taskId}`, now + EVENT_MEMORY_MS]);
		const fresh = recordDelivery(
			`${this.getWorkflow().id}:${this.getNode().id}`,
			keys,
			this.getWorkflowStaticData('node'),
			now,
		);
		// A delivery seen before is acknowledged so the sender stops retrying, and starts nothing.
		if (!fresh) return answer(200, { received: true, duplicate: true });

		const selected = this.getNodeParameter('events', EVENTS) as string[];
		if (!event || !selected.includes(event)) return answer(200, { received: true, ignored: true });

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

		if (!(this.getNodeParameter('includeTaskDetails', false) as boolean)) {
			return {
				webhookResponse: { received: true },
				workflowData: [this.helpers.returnJsonArray([output])],
			};
		}
		// Answer first: the sender is not held while the task is fetched (it might time out and
		// deliver again). Then one bounded attempt; a failure is reported on the item.
		response.status(200).json({ received: true });
		if (taskId === '') {
			output.taskDetailsError = 'The delivery names no task ID, so no task was fetched.';
		} else {
			// Reported, not swallowed: the workflow runs and can branch on taskDetailsError.
			Object.assign(output, await taskDetails.call(this, taskId, DETAILS_TIMEOUT_MS));
		}
		return {
			noWebhookResponse: true,
			workflowData: [this.helpers.returnJsonArray([output])],
		};
	}
}

/** Activation fails closed: a trigger whose secret cannot protect it is not activated. */
async function refuseWeakSecret(ctx: IHookFunctions) {
	const { secret } = await ctx.getCredentials('documentOcrWebhookApi');
	const weak = weakSecret(secret);
	if (weak) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${weak}: the trigger is not activated, as anyone could sign deliveries`,
			{
				description: `Copy the whole signing secret of the webhook endpoint (your OCR account's webhook settings) into the "Document OCR Webhook API" credential — at least ${MIN_SECRET_LENGTH} characters — then activate the workflow again.`,
			},
		);
	}
}
