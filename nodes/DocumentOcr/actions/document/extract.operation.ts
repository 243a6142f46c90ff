import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isObject } from '../../shared/object';
import type { Sent } from '../../batch/held';
import type { Join } from '../../batch/join';
import { sendPhase } from '../../batch/send';
import { v1Upload } from '../../documents/upload';
import type { Prepare } from '../types';
import { concurrencyOption, documentFields, optionsCollection } from '../shared.description';

const EXAMPLE_SCHEMA = JSON.stringify(
	{
		type: 'object',
		properties: {
			invoiceNumber: { type: 'string' },
			invoiceDate: { type: 'string' },
			total: { type: 'number' },
			currency: { type: 'string' },
		},
		required: ['invoiceNumber', 'total'],
	},
	null,
	2,
);

export const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName: 'JSON Schema',
		name: 'schema',
		type: 'json',
		default: EXAMPLE_SCHEMA,
		required: true,
		typeOptions: { rows: 10 },
		description:
			'Describes the values to read from the document: a JSON Schema of type "object" whose properties name each value and its type (string, number, ...), as in the example',
	},
	optionsCollection(concurrencyOption),
];

/** Each document this operation sends is billed by its pages: the Page Budget applies. */
export const bills = true;

/** A split document's parts: one JSON for the document (`data` merged), each part's in `parts`. */
export const join: Join = { text: [], id: 'id', merge: 'data' };

/**
 * Extract's output: the extracted object — under data / result / extracted / output (the
 * answer's shape is not published), else the answer itself — with the file name and pages.
 */
function extracted({ result, previouslyBilled, pages }: Sent, fileName: string): IDataObject {
	const data =
		[result.data, result.result, result.extracted, result.output].find(isObject) ?? result;
	const json: IDataObject = { data, fileName };
	for (const key of ['id', 'pages']) if (result[key] !== undefined) json[key] = result[key];
	Object.assign(json, pages);
	if (previouslyBilled) json.previouslyBilled = true;
	return json;
}

/** Parses and checks the schema before anything is sent: JSON, an object schema with properties. */
function readSchema(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = ctx.getNode();
	const raw = ctx.getNodeParameter('schema', itemIndex) as unknown;
	let schema: unknown = raw;
	if (typeof raw === 'string') {
		try {
			schema = JSON.parse(raw);
		} catch (error) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the JSON Schema is not valid JSON`, {
				description: `${(error as Error).message}. Nothing was sent or charged.`,
				itemIndex,
			});
		}
	}
	const problem = !isObject(schema)
		? 'it is not a JSON object'
		: schema.type !== undefined && schema.type !== 'object'
			? `its type is "${String(schema.type)}", not "object"`
			: !isObject(schema.properties) || Object.keys(schema.properties).length === 0
				? 'it has no "properties" naming the values to extract'
				: undefined;
	if (problem) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: the JSON Schema is not an object schema: ${problem}`,
			{
				description:
					'Use a schema like {"type": "object", "properties": {"total": {"type": "number"}}}. Nothing was sent or charged.',
				itemIndex,
			},
		);
	}
	return schema as IDataObject;
}

/** POST /v1/extract: the document plus a JSON Schema; outputs the validated JSON the service returns. */
export const prepare: Prepare = async function (itemIndex, run) {
	const schema = readSchema(this, itemIndex);
	const upload = await v1Upload(this, itemIndex, run.reads, 'extract', [
		['schema', JSON.stringify(schema)],
	]);
	return sendPhase(run, itemIndex, {
		upload,
		join,
		sending: {
			kind: 'document',
			endpoint: 'extract',
			settings: { schema },
			output: extracted,
		},
		items: (json) => [{ json }],
	});
};
