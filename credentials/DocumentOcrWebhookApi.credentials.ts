import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * The signing secret of one webhook endpoint configured in the OCR account's settings. It stays in
 * n8n's encrypted credential store, never in the workflow JSON. Its test (the trigger node's
 * `documentOcrWebhookSecretTest`) checks the secret locally: a secret only signs deliveries, so
 * there is no request that could prove it.
 */
export class DocumentOcrWebhookApi implements ICredentialType {
	name = 'documentOcrWebhookApi';

	displayName = 'Document OCR Webhook API';

	icon: Icon = {
		light: 'file:../nodes/DocumentOcr/documentOcr.svg',
		dark: 'file:../nodes/DocumentOcr/documentOcr.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-document-ocr/n8n-nodes-document-ocr/blob/main/docs/webhook-trigger.md';

	properties: INodeProperties[] = [
		{
			displayName:
				"n8n can only check that the secret is usable (set, at least 8 characters, no spaces around it). Whether it is the endpoint's secret shows when the first delivery arrives: a delivery signed with another secret is refused.",
			name: 'checkNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'The signing secret shown for this webhook endpoint in the OCR account settings. Every delivery is checked against it.',
		},
	];
}
