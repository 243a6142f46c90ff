import type {
	ICredentialsDecrypted,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { createHash } from 'crypto';

export const CREDENTIAL_TYPE = 'documentOcrApi';

/**
 * The node contexts that send requests: the action node, the webhook trigger, the poll trigger,
 * and the editor's list of tasks (a resource locator's search).
 */
export type TransportContext =
	| IExecuteFunctions
	| IWebhookFunctions
	| IPollFunctions
	| ILoadOptionsFunctions;

/** The execution's cancel signal (a webhook request has none). */
export function cancelSignal(ctx: TransportContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** Where the service's two surfaces live: the task API on the Base URL, `/v1` on the API URL. */
export type Surface = 'base' | 'api';

/** The credential as read once per client: both roots, the key to redact, the decrypted data. */
export interface Endpoints {
	base: string;
	api: string;
	secrets: string[];
	credential: ICredentialsDecrypted;
}

/** Reads the credential once and checks both URLs (an empty API URL means the Base URL). */
export async function resolveEndpoints(
	ctx: TransportContext,
	itemIndex: number,
): Promise<Endpoints> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE, itemIndex);
	const node = ctx.getNode();
	const base = normaliseRoot(node, String(credentials.baseUrl ?? ''), 'Base URL', itemIndex);
	const apiRaw = String(credentials.apiUrl ?? '').trim();
	const api = apiRaw ? normaliseRoot(node, apiRaw, 'API URL', itemIndex) : base;
	const secrets = [String(credentials.apiKey ?? '')].filter((s) => s.length > 0);
	const reference = node.credentials?.[CREDENTIAL_TYPE];
	const credential = {
		id: String(reference?.id ?? ''),
		name: reference?.name ?? '',
		type: CREDENTIAL_TYPE,
		data: credentials,
	};
	return { base, api, secrets, credential };
}

/**
 * Which account the credential reaches: a digest of the Base URL, the API URL and the key (never
 * the key itself), for memory that must not cross accounts.
 */
export function accountDigest({ base, api, credential }: Endpoints): string {
	return createHash('sha256')
		.update([base, api, String(credential.data?.apiKey ?? '')].join('\n'))
		.digest('hex')
		.slice(0, 16);
}

function normaliseRoot(node: INode, raw: string, field: string, itemIndex: number): string {
	let trimmed = raw.trim();
	// Trailing slashes, cut one by one (a pattern anchored at the end would retry from each one).
	while (trimmed.endsWith('/')) trimmed = trimmed.slice(0, -1);
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		throw new NodeOperationError(node, `The credential's ${field} is not a valid URL`, {
			description: `Enter the service address with its scheme, e.g. https://ocr.example.com (got "${trimmed}").`,
			itemIndex,
		});
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new NodeOperationError(
			node,
			`The credential's ${field} must start with http:// or https://`,
			{ itemIndex },
		);
	}
	return trimmed;
}

/** Percent-encodes one path segment. Dot segments are refused: URL parsers resolve them. */
export function encodeSegment(segment: string): string {
	if (segment === '' || segment === '.' || segment === '..') {
		throw new Error(`Invalid path segment "${segment}"`);
	}
	return encodeURIComponent(segment);
}
