/**
 * The router keeps what an item prepared in the check phase (its document, its request body)
 * only until the item is sent, not until the last item is: seen through WeakRefs to the request
 * bodies and V8's full collection.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { router } from '../../../../nodes/DocumentOcr/actions/router';
import { API_URL, BASE_URL, fileItem, LARGE_PDF } from '../../support/context';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { collector, nextTurn } = require('../../../support/gc.js') as {
	collector: () => () => void;
	nextTurn: () => Promise<void>;
};

test('a sent item lets go of its request body while later items are sent', async () => {
	const gc = collector();
	const items = Array.from({ length: 4 }, (_, i) => fileItem(LARGE_PDF, `scan-${i}.pdf`));
	const bodies: Array<WeakRef<object>> = [];
	const alive: boolean[][] = [];
	const node = {
		id: 'node-1',
		name: 'Document OCR',
		type: 'n8n-nodes-document-ocr.documentOcr',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const params: Record<string, unknown> = {
		resource: 'document',
		operation: 'markdown',
		'options.concurrency': 1,
	};
	const ctx = {
		getNode: () => node,
		getInputData: () => items,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			params[name] ?? fallback,
		getCredentials: async () => ({ baseUrl: BASE_URL, apiUrl: API_URL }),
		continueOnFail: () => false,
		getExecutionCancelSignal: () => new AbortController().signal,
		getWorkflowStaticData: () => ({}),
		getWorkflow: () => ({ active: false }),
		logger: { debug() {} },
		helpers: {
			// The request is not kept (only a WeakRef to its body): what the node holds is measured.
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				// Large enough to be streamed: the body sent is the one the item prepared.
				expect(options.body?.constructor.name).toBe('StreamedBlob');
				bodies.push(new WeakRef(options.body as object));
				// A turn of the event loop, so that nothing of the requests before is on the stack.
				await nextTurn();
				gc();
				alive.push(bodies.map((body) => body.deref() !== undefined));
				return { statusCode: 200, headers: {}, body: { id: `doc_${bodies.length}`, pages: 1 } };
			},
			getBinaryDataBuffer: async (itemIndex: number, property: string) =>
				Buffer.from(items[itemIndex].binary![property].data, 'base64'),
		},
	} as unknown as IExecuteFunctions;
	const [output] = await router.call(ctx);
	expect(output).toHaveLength(4);
	// When item 3 is sent (one at a time: 0, 1 and 2 are done), only its own body is held.
	expect(alive[3]).toEqual([false, false, false, true]);
});
