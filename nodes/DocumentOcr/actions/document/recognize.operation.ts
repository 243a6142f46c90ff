import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { documentOutput, sendDocumentOnce } from '../../batch/held';
import { RECOGNIZE_JOIN, sendUpload } from '../../batch/parts';
import { documentChoiceOf, v1Upload } from '../../documents/upload';
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
	const upload = await v1Upload(
		this,
		itemIndex,
		run.reads,
		'ocr',
		[],
		documentChoiceOf(this, itemIndex),
	);
	const simplify = simplified(this, itemIndex);
	return async () => {
		const json = await sendUpload(
			run,
			itemIndex,
			upload,
			RECOGNIZE_JOIN,
			async ({ document, body }) => {
				const sent = await sendDocumentOnce(run, itemIndex, {
					endpoint: 'ocr',
					settings: {},
					document,
					body,
				});
				return documentOutput(sent, upload.document.fileName);
			},
		);
		return [{ json: simplify ? simplifyRecognition(json) : json }];
	};
}
