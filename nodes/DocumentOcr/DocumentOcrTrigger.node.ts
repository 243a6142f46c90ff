import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { ServiceClient } from './service/client';
import { booleanField, nodeFields, numberField } from './shared/validate';
import { MIN_SECRET_LENGTH, parseDelivery, weakSecret } from './trigger/delivery';
import { EVENTS, eventsField } from './trigger/events';
import { recordDelivery } from './trigger/replay';
import type { Headers } from './trigger/signature';
import { verify } from './trigger/signature';

/** Include Task Details: one attempt, answered within this, after the delivery was acknowledged. */
const DETAILS_TIMEOUT_MS = 5_000;

const includeTaskDetailsField: INodeProperties = {
	displayName: 'Include Task Details',
	name: 'includeTaskDetails',
	type: 'boolean',
	default: false,
	description:
		"Whether to also fetch the task (its recognized text and 'metadata') with the Document OCR API credential, so the workflow needs no extra Get step. A failed fetch is reported in the output ('taskDetailsError').",
};

const toleranceOption: INodeProperties = {
	displayName: 'Timestamp Tolerance (Seconds)',
	name: 'toleranceSeconds',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 300,
	description:
		'Deliveries whose timestamp is further than this from now are refused (protects against replayed requests)',
};

/**
 * The trigger's settings, checked: a field set to what it cannot be (an expression that gives
 * nothing, text, a number out of bounds) throws, and the delivery is refused (see `webhook`).
 */
function webhookSettings(ctx: IWebhookFunctions) {
	const fields = nodeFields(ctx);
	return {
		includeTaskDetails: booleanField(fields, includeTaskDetailsField),
		toleranceMs: numberField(fields, toleranceOption, { path: 'options.toleranceSeconds' }) * 1000,
	};
}

export class DocumentOcrTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'OCR Document Trigger',
		name: 'documentOcrTrigger',
		icon: {
			light: 'file:documentOcr.svg',
			dark: 'file:documentOcr.dark.svg',
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
					'Copy this workflow\'s Production URL (above, under "Webhook URLs") into the webhook settings of your OCR account, and the endpoint\'s signing secret into the credential. Then publish the workflow.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			eventsField(
				'Which events start the workflow. Other events are acknowledged and start nothing.',
			),
			includeTaskDetailsField,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [toleranceOption],
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

	/**
	 * One delivery: refused (401) unless the secret is strong and the signature verifies; 400 when
	 * the body is not a JSON object; acknowledged without a run when seen before or not selected;
	 * otherwise a run — with Include Task Details, answered first and the task fetched after.
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			response.status(status).json(body);
			return { noWebhookResponse: true };
		};
		let settings: ReturnType<typeof webhookSettings>;
		try {
			settings = webhookSettings(this);
		} catch (error) {
			// Fail closed: a setting the trigger cannot read starts nothing; the sender retries.
			this.logger.warn(`Document OCR Trigger: delivery refused — ${(error as Error).message}`);
			return answer(500, { error: 'the trigger is misconfigured' });
		}
		const verified = await verifiedDelivery(this, settings.toleranceMs);
		if ('refused' in verified) return answer(verified.refused.status, verified.refused.body);
		const { delivery } = verified;
		const selected = this.getNodeParameter('events', EVENTS) as string[];
		if (!delivery.event || !selected.includes(delivery.event))
			return answer(200, { received: true, ignored: true });

		const { output, taskId } = delivery;
		if (!settings.includeTaskDetails) {
			return {
				webhookResponse: { received: true },
				workflowData: [this.helpers.returnJsonArray([output])],
			};
		}
		// Answer first: the sender is not held while the task is fetched (it might time out and
		// deliver again). Then one bounded attempt; a failure is reported on the item, so the
		// workflow runs and can branch on taskDetailsError.
		response.status(200).json({ received: true });
		if (taskId === '') {
			output.taskDetailsError = 'The delivery names no task ID, so no task was fetched.';
		} else {
			Object.assign(output, await ServiceClient.taskDetails(this, taskId, DETAILS_TIMEOUT_MS));
		}
		return {
			noWebhookResponse: true,
			workflowData: [this.helpers.returnJsonArray([output])],
		};
	}
}

type Refusal = { refused: { status: number; body: IDataObject } };

/**
 * The delivery of this request, verified and seen for the first time — or the answer that
 * refuses it: 401 for a weak secret (fail closed: anyone could sign) or a bad signature, 400 for
 * a body that is not a JSON object, 200 `duplicate` for a delivery seen before (acknowledged so
 * the sender stops retrying).
 */
async function verifiedDelivery(
	ctx: IWebhookFunctions,
	toleranceMs: number,
): Promise<{ delivery: ReturnType<typeof parseDelivery> & object } | Refusal> {
	const { secret } = await ctx.getCredentials('documentOcrWebhookApi');
	const weak = weakSecret(secret);
	if (weak) {
		ctx.logger.warn(`Document OCR Trigger: delivery refused — ${weak}`);
		return { refused: { status: 401, body: { error: 'unauthorized' } } };
	}
	// n8n's body parser keeps the body exactly as received; the signature covers those bytes.
	const received = (ctx.getRequestObject() as unknown as { rawBody?: Buffer }).rawBody;
	const rawBody = Buffer.isBuffer(received) ? received : Buffer.alloc(0);
	const headers = ctx.getRequestObject().headers as Headers;
	const checked = verify({ secret: String(secret ?? ''), headers, rawBody, toleranceMs });
	if (!checked.ok) {
		ctx.logger.debug('Document OCR Trigger: delivery refused', { reason: checked.reason });
		return { refused: { status: 401, body: { error: 'unauthorized' } } };
	}
	const now = Date.now();
	const delivery = parseDelivery(rawBody, checked.value, toleranceMs, now);
	if (!delivery)
		return { refused: { status: 400, body: { error: 'the body is not a JSON object' } } };
	const scope = `${ctx.getWorkflow().id}:${ctx.getNode().id}`;
	if (!recordDelivery(scope, delivery.keys, ctx.getWorkflowStaticData('node'), now))
		return { refused: { status: 200, body: { received: true, duplicate: true } } };
	return { delivery };
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
				description: `Copy the whole signing secret of the webhook endpoint (your OCR account's webhook settings) into the "Document OCR Webhook API" credential — at least ${MIN_SECRET_LENGTH} characters — then publish the workflow again.`,
			},
		);
	}
}
