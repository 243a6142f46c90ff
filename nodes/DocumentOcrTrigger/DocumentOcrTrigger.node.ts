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
import { NodeConnectionTypes } from 'n8n-workflow';

import { getRecord } from '../DocumentOcr/transport/client';
import { TransportState } from '../DocumentOcr/transport';
import { forgetScope, recordDelivery } from './replay';
import type { Headers } from './signature';
import { verify } from './signature';

const EVENTS = ['ocr.done', 'ocr.failed'];
const MIN_SECRET_LENGTH = 8;

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
				const secret = String(credential.data?.secret ?? '');
				if (secret.trim() !== secret) {
					return {
						status: 'Error',
						message: 'The secret starts or ends with a space: copy it again without it.',
					};
				}
				if (secret.length < MIN_SECRET_LENGTH) {
					return {
						status: 'Error',
						message: `The secret is shorter than ${MIN_SECRET_LENGTH} characters: copy the whole signing secret of the endpoint.`,
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
	 * so there is nothing to register remotely: activation starts a fresh replay memory for this
	 * workflow, deactivation forgets it.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				return data.webhookUrl === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				forgetScope(`${this.getWorkflow().id}:${this.getNode().id}`, data);
				data.webhookUrl = this.getNodeWebhookUrl('default');
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				forgetScope(`${this.getWorkflow().id}:${this.getNode().id}`, data);
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
		const scope = `${this.getWorkflow().id}:${this.getNode().id}`;
		const fresh = recordDelivery(
			scope,
			eventId ? [`nonce:${nonce}`, `event:${eventId}`] : [`nonce:${nonce}`],
			Date.now() + 2 * toleranceMs,
			this.getWorkflowStaticData('node'),
		);
		// A delivery seen before is acknowledged so the sender stops retrying, and starts nothing.
		if (!fresh) return answer(200, { received: true, duplicate: true });

		const data = isObject(payload.data) ? payload.data : {};
		const event = [payload.event, payload.type].find((v) => typeof v === 'string') as
			| string
			| undefined;
		const selected = this.getNodeParameter('events', EVENTS) as string[];
		if (!event || !selected.includes(event)) return answer(200, { received: true, ignored: true });

		const taskId = data.taskId ?? payload.taskId;
		const output: IDataObject = {
			event,
			taskId,
			status: data.status ?? payload.status,
			payload,
			verified: true,
			timestamp: new Date(timestampMs).toISOString(),
			nonce,
		};
		if (eventId) output.eventId = eventId;

		if (this.getNodeParameter('includeTaskDetails', false) as boolean) {
			if (typeof taskId !== 'string' || taskId === '') {
				output.taskDetailsError = 'The delivery names no task ID, so no task was fetched.';
			} else {
				try {
					const { record } = await getRecord.call(this, 0, new TransportState(), 'task', taskId);
					output.task = record;
				} catch (error) {
					// Reported, not swallowed: the workflow runs and can branch on it.
					output.taskDetailsError = (error as Error).message;
				}
			}
		}
		return {
			webhookResponse: { received: true },
			workflowData: [this.helpers.returnJsonArray([output])],
		};
	}
}
