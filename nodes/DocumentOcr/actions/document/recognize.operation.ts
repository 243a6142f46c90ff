import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { sendDocumentOnce } from '../../batch/held';
import { pageSelectionOf } from '../../documents/select';
import { v1Upload } from '../../documents/upload';
import type { SendPhase } from '../types';
import { simplifyRecognition } from '../../shared/records';
import {
	concurrencyOption,
	documentFields,
	optionsCollection,
	simplified,
	simplifyField,
} from '../shared.description';

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

export const description = updateDisplayOptions(
	{ show: { resource: ['document'], operation: ['recognize'] } },
	[
		...documentFields,
		{
			...simplifyField,
			description:
				"Whether to return only the recognized text ('text') instead of the raw answer with its text blocks",
		},
		optionsCollection(concurrencyOption),
	] as INodeProperties[],
);

/** POST /v1/ocr: the text and blocks as the service returns them, or (Simplify) the text alone. */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const { document, body } = await v1Upload(
		this,
		itemIndex,
		run.reads,
		'ocr',
		[],
		pageSelectionOf(this, itemIndex),
	);
	const simplify = simplified(this, itemIndex);
	return async () => {
		const { result, previouslyBilled, pages } = await sendDocumentOnce(run, itemIndex, {
			endpoint: 'ocr',
			settings: {},
			document,
			body,
		});
		const json: IDataObject = { ...result, fileName: document.fileName, ...pages };
		if (previouslyBilled) json.previouslyBilled = true;
		return [{ json: simplify ? simplifyRecognition(json) : json }];
	};
}
