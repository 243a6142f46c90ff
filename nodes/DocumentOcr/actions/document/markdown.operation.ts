import type { INodeProperties } from 'n8n-workflow';

import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import { v1Upload } from '../../documents/upload';
import { booleanField, itemFields, textField } from '../../shared/validate';
import type { Prepare } from '../types';
import { concurrencyOption, documentFields, optionsCollection } from '../shared.description';

const outputFileField: INodeProperties = {
	displayName: 'Also Output as File',
	name: 'outputFile',
	type: 'boolean',
	default: false,
	description:
		'Whether to also put the Markdown out as a .md file (binary data), e.g. to save or upload it',
};

const outputPropertyField: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'outputBinaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	displayOptions: { show: { outputFile: [true] } },
	hint: 'The name of the output binary field to put the .md file in',
	description:
		'Name of the binary field the .md file is put in, for the next steps (e.g. Write Files to Disk)',
};

export const properties: INodeProperties[] = [
	...documentFields,
	outputFileField,
	outputPropertyField,
	optionsCollection(concurrencyOption),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/** Convert to Markdown's parts: `markdown` joined. */
export const join: Join = { text: ['markdown'], id: 'id' };

/** POST /v1/markdown: the document as Markdown (id, pages, markdown), optionally also as a .md file. */
export const prepare: Prepare = async function (itemIndex, run) {
	// The fields are checked before the document is read: a wrong one costs no read.
	const fields = itemFields(this, itemIndex);
	const outputFile = booleanField(fields, outputFileField);
	// An empty text is the default field; an expression that gives nothing fails the item.
	const property = (outputFile && textField(fields, outputPropertyField)) || 'data';
	const upload = await v1Upload(this, itemIndex, run.reads, 'markdown', []);
	const { fileName } = upload.document;

	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: {
			kind: 'document',
			endpoint: 'markdown',
			settings: {},
		},
		items: async (json) => {
			if (!outputFile) return [{ json }];
			const markdown = typeof json.markdown === 'string' ? json.markdown : '';
			const name = `${fileName.replace(/\.[A-Za-z0-9]{1,8}$/, '')}.md`;
			const binary = await this.helpers.prepareBinaryData(
				Buffer.from(markdown, 'utf8'),
				name,
				'text/markdown',
			);
			return [{ json, binary: { [property]: binary } }];
		},
	});
};
