import type {
	IAuthenticate,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Bearer API key for the Document OCR service, plus the two base URLs its surfaces live on:
 * the task API (`/api/...`, `/api/v2/ocr`) on the Base URL and the `/v1/...` API on the API URL.
 */
export class DocumentOcrApi implements ICredentialType {
	name = 'documentOcrApi';

	displayName = 'Document OCR API';

	icon: Icon = {
		light: 'file:../nodes/DocumentOcr/documentOcr.svg',
		dark: 'file:../nodes/DocumentOcr/documentOcr.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-document-ocr/n8n-nodes-document-ocr?tab=readme-ov-file#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'Create a key in the account settings of the OCR service. It is shown only once. Scopes: "submit" (always included) to send documents, "read" to get, list and export tasks, "export" to delete tasks.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://ocr.example.com',
			description:
				'Web address of the OCR service, without any path after it, e.g. https://ocr.example.com. Used to submit documents and to get, list, export and delete tasks.',
		},
		{
			displayName: 'API URL',
			name: 'apiUrl',
			type: 'string',
			default: '',
			placeholder: 'Same as Base URL',
			description:
				'Web address of the /v1 API of the service, used by the Document and Job operations (Markdown, text, structured data, jobs). Leave empty when it is the same as the Base URL.',
		},
	];

	/**
	 * `Authorization: Bearer <key>` on every request. A function rather than the generic
	 * `=Bearer {{$credentials.apiKey}}` form: n8n evaluates that expression on every request, most
	 * of a request's cost in a large batch against a fast service (bench/README.md has the
	 * profile). An own property, not a class method: n8n copies credential
	 * types with a spread (prototype methods are lost) and offers "Custom API Call" only when
	 * `authenticate` survives that copy.
	 */
	authenticate: IAuthenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => ({
		...requestOptions,
		headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
	});

	/**
	 * Proves the key with the cheapest authenticated read (one task of the list; nothing is billed).
	 * 403 is let through on purpose: a key that authenticates but lacks the `read` scope
	 * (insufficient_scope) is a valid key — Submit works with it; Get, Get Many and Export will name
	 * the missing scope when used. A banned account (also 403) is told apart by its error code.
	 * A wrong key (401), a Base URL that is not the service (404) and server errors fail the test;
	 * an unreachable host fails before any rule, with n8n's connection error.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/tasks',
			qs: { page: 1, pageSize: 1 },
			ignoreHttpStatusErrors: { ignore: true, except: [400, 401, 404, 405, 500, 502, 503, 504] },
			// As every request of the nodes: a redirect to another origin does not carry the key.
			sendCredentialsOnCrossOriginRedirect: false,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was refused (401): it is wrong, revoked or empty. Copy it again from the account settings; a key is shown only once, so create a new one if it is lost.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'The Base URL answered 404 for /api/tasks: it does not point at the OCR service. Enter the address without a path.',
				},
			},
			{
				type: 'responseCode',
				properties: { value: 500, message: 'The OCR service failed (500). Try again later.' },
			},
			{
				type: 'responseCode',
				properties: {
					value: 502,
					message: 'The OCR service is unreachable behind its gateway (502). Try again later.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 503,
					message: 'The OCR service is unavailable (503). Try again later.',
				},
			},
		],
	};
}
