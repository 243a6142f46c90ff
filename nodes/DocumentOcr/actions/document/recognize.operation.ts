import type { INodeProperties } from 'n8n-workflow';

import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import { v1Upload } from '../../documents/upload';
import type { Prepare } from '../types';
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

/** Recognize's parts: `text` joined, blocks listed in page order. */
export const join: Join = { text: ['text'], lists: ['blocks'], id: 'id' };

export const properties: INodeProperties[] = [
	...documentFields,
	{
		...simplifyField,
		description:
			"Whether to return only the recognized text ('text') instead of the raw answer with its text blocks",
	},
	optionsCollection(concurrencyOption),
];

/** POST /v1/ocr: the text and blocks as the service returns them, or (Simplify) the text alone. */
export const prepare: Prepare = async function (itemIndex, run) {
	const upload = await v1Upload(this, itemIndex, run.reads, 'ocr', []);
	const simplify = simplified(this, itemIndex);
	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: {
			kind: 'document',
			endpoint: 'ocr',
			settings: {},
		},
		items: (json) => [{ json: simplify ? simplifyRecognition(json) : json }],
	});
};
