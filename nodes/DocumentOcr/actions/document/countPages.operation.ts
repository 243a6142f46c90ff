import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Execution } from '../../batch/execution';
import { TASK_API_KINDS } from '../../documents/check';
import { readDocument } from '../../documents/read';
import { documentFields } from '../shared.description';
import type { SendPhase } from '../types';

export const description = updateDisplayOptions(
	{ show: { resource: ['document'], operation: ['countPages'] } },
	documentFields as INodeProperties[],
);

/**
 * Count Pages: the document's type, size and pages, counted here (formats/index.ts); nothing
 * is sent to the service and nothing is charged. `pages` is null when the count is not certain,
 * with the reason in `pagesUnknownReason`; where it rests on an assumption (the frames of an
 * animated image, a TIFF's directories, each counted as a page), `pageCountAssumption` says it.
 * The document is let go once counted.
 */
export async function prepare(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Execution,
): Promise<SendPhase> {
	const accepts = { accept: TASK_API_KINDS, target: 'Count Pages' };
	const document = await readDocument(this, itemIndex, accepts, run.reads);
	document.release?.();
	const { fileName, kind, mimeType, size, pageCount } = document;
	const json = {
		fileName,
		kind,
		mimeType,
		size,
		pages: pageCount.pages,
		...(pageCount.pages === null ? { pagesUnknownReason: pageCount.reason } : {}),
		...(pageCount.pages !== null && pageCount.assumed
			? { pageCountAssumption: pageCount.assumed }
			: {}),
	};
	return async () => [{ json }];
}
