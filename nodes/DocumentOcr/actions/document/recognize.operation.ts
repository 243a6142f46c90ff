import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { sendDocumentOnce } from '../../batch/memory';
import { v1Upload } from '../../documents/upload';
import type { Send } from '../types';
import { concurrencyOption, documentFields, optionsCollection } from '../shared.description';

export const description = updateDisplayOptions(
	{ show: { resource: ['document'], operation: ['recognize'] } },
	[...documentFields, optionsCollection(concurrencyOption)] as INodeProperties[],
);

/** POST /v1/ocr: text and blocks, output as the service returns them. */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<Send> {
	const { document, body } = await v1Upload(this, itemIndex, run.kept, 'ocr');
	return async () => {
		const { result, previouslyBilled } = await sendDocumentOnce(run, itemIndex, {
			endpoint: 'ocr',
			settings: {},
			document,
			body,
		});
		const json: IDataObject = { ...result, fileName: document.fileName };
		if (previouslyBilled) json.previouslyBilled = true;
		return [{ json }];
	};
}
