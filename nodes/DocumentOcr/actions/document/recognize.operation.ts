import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkBodySize, multipartWithDocument } from '../../helpers/body';
import { readDocument, V1_KINDS } from '../../helpers/document';
import { postDocumentV1 } from '../../transport/client';
import type { Send } from '../types';
import { concurrencyOption, documentFields, optionsCollection } from '../shared.description';

export const description = updateDisplayOptions(
	{ show: { resource: ['document'], operation: ['recognize'] } },
	[...documentFields, optionsCollection(concurrencyOption)] as INodeProperties[],
);

/** POST /v1/ocr: text and blocks, output as the service returns them. */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send> {
	const document = await readDocument.call(this, itemIndex, {
		accept: V1_KINDS,
		target: 'the /v1 API',
	});
	const body = checkBodySize(
		this,
		itemIndex,
		multipartWithDocument(this, [], 'file', document),
		document,
		'/v1/ocr',
	);
	return async (state) => {
		const result = await postDocumentV1.call(this, itemIndex, state, 'ocr', body);
		return [{ json: { ...result, fileName: document.fileName } }];
	};
}
