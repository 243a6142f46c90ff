import type { INodeProperties } from 'n8n-workflow';

import { TASK_API_KINDS } from '../../documents/check';
import { countUpload } from '../../documents/upload';
import { documentFields } from '../shared.description';
import type { Prepare } from '../types';

export const properties: INodeProperties[] = documentFields;

/**
 * Count Pages: the document's type, size and pages, counted here (formats/index.ts); nothing
 * is sent to the service and nothing is charged. `pages` is null when the count is not certain,
 * with the reason in `pagesUnknownReason`; where it rests on an assumption (the frames of an
 * animated image, a TIFF's directories, each counted as a page), `pageCountAssumption` says it.
 * `partsNeeded` says how many parts Split Large Documents would send it in, on the task API (the
 * file as Base64 in JSON) and on /v1 (as it is; null for a TIFF or GIF, which /v1 does not take):
 * 1 for a document that fits; null where it cannot be split, with why in `partsNeededNote`.
 * Documents up to 50 MB are read. The document is let go once
 * counted.
 */
export const prepare: Prepare = async function (itemIndex, run) {
	const accepts = { accept: TASK_API_KINDS, target: 'Count Pages' };
	const { document, parts, notes } = await countUpload(this, itemIndex, run.reads, accepts);
	document.release?.();
	const { fileName, kind, mimeType, size, pageCount } = document;
	const json = {
		fileName,
		kind,
		mimeType,
		size,
		pages: pageCount.pages,
		partsNeeded: { ...parts },
		...(notes.length ? { partsNeededNote: notes.join(' ') } : {}),
		...(pageCount.pages === null ? { pagesUnknownReason: pageCount.reason } : {}),
		...(pageCount.pages !== null && pageCount.assumed
			? { pageCountAssumption: pageCount.assumed }
			: {}),
	};
	return async () => [{ json }];
};
