import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import { v1Upload } from '../../documents/upload';
import {
	documentFields,
	optionsCollection,
	submitOptions,
	submitOptionsOf,
	waitForCompletionField,
} from '../shared.description';
import type { Prepare } from '../types';
export const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName: 'Job Fields',
		name: 'jobFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		description:
			'Extra form fields sent with the file. The service does not publish the job fields, so give them as name/value pairs as its documentation names them.',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	waitForCompletionField(
		'Whether to wait until the job is finished and output it, or output the job ID right away',
	),
	optionsCollection(...submitOptions),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/**
 * A split document's parts (a job's record is not shown in the spec: the text fields seen, at the
 * top or in its `result`, joined).
 */
export const join: Join = {
	text: ['resultText', 'markdown', 'text', 'result.text', 'result.markdown', 'result.resultText'],
	lists: ['result.blocks'],
	id: 'id',
};

/** POST /v1/jobs (multipart: file + the given fields); optionally waits via GET /v1/jobs/{id}. */
export const prepare: Prepare = async function (itemIndex, run) {
	const node = this.getNode();
	const pairs = ((this.getNodeParameter('jobFields', itemIndex, {}) as IDataObject).field ??
		[]) as IDataObject[];
	const fields: Array<[string, string]> = [];
	for (const pair of pairs) {
		const name = String(pair.name ?? '').trim();
		if (!name) {
			throw new NodeOperationError(node, `Item ${itemIndex}: a job field has no name`, {
				description: 'Give every job field a name, or remove it.',
				itemIndex,
			});
		}
		if (name === 'file') {
			throw new NodeOperationError(
				node,
				`Item ${itemIndex}: the job field name "file" is reserved for the document`,
				{
					itemIndex,
				},
			);
		}
		fields.push([name, String(pair.value ?? '')]);
	}
	// The options are checked before the document is read: a wrong one costs no read.
	const { skip, wait } = submitOptionsOf(this, itemIndex);
	const upload = await v1Upload(this, itemIndex, run.reads, 'jobs', fields);
	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: {
			kind: 'job',
			operation: 'job',
			settings: () => ({ fields }),
			skip,
			// The Wait Timeout runs from the moment the service accepted the job.
			wait,
		},
		items: (json) => [{ json }],
	});
};
