import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readDocument, V1_KINDS } from '../../helpers/document';
import type { TransportState } from '../../transport';
import { postDocumentV1 } from '../records';
import { concurrencyOption, documentFields, optionsCollection } from '../shared.description';

export const description = updateDisplayOptions(
	{ show: { resource: ['document'], operation: ['recognize'] } },
	[...documentFields, optionsCollection(concurrencyOption)] as INodeProperties[],
);

/** POST /v1/ocr: text and blocks, output as the service returns them. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	state: TransportState,
): Promise<INodeExecutionData[]> {
	const document = await readDocument.call(this, itemIndex, {
		accept: V1_KINDS,
		target: 'the /v1 API',
	});
	const result = await postDocumentV1.call(this, itemIndex, state, 'ocr', document);
	return [{ json: { ...result, fileName: document.fileName } }];
}
