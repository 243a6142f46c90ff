import type { IDataObject } from 'n8n-workflow';

import type { DocumentInput } from '../documents/document';
import { isObject } from '../shared/object';

/*
 * A split document's parts' outputs joined into its item's one output (Split Large Documents):
 * each operation that sends documents declares its own Join beside its fields.
 */

/**
 * How a split document's part outputs become its item's one output: the fields whose text is
 * joined (in page order, a blank line between parts), the lists joined, the ID each part has,
 * and whether each part's whole output is kept in `parts` (Extract: the extracted data per part).
 * A field is a name, or a path into an object field (`result.text`: a job's result).
 */
export interface Join {
	text: string[];
	lists?: string[];
	id: string;
	/** Extract: `data` merged (the first value of each key in page order, lists joined). */
	merge?: string;
}

/** Counts of what a part cost or holds, summed over the parts (where every part says it). */
const SUMS = ['pages', 'creditsUsed', 'result.pages'];

/** The value at `path` ("a" or "a.b") of an output. */
function valueAt(output: IDataObject, path: string): unknown {
	const [head, tail] = path.split('.', 2);
	const value = output[head];
	return tail === undefined ? value : isObject(value) ? value[tail] : undefined;
}

/**
 * Sets `path` in `json` (undefined: removes it), copying the object on the way (never a part's
 * own).
 */
function setAt(json: IDataObject, path: string, value: unknown) {
	const [head, tail] = path.split('.', 2);
	if (tail === undefined) {
		if (value === undefined) delete json[head];
		else json[head] = value as IDataObject[string];
		return;
	}
	if (!isObject(json[head])) return;
	const inner: IDataObject = { ...(json[head] as IDataObject) };
	if (value === undefined) delete inner[tail];
	else inner[tail] = value as IDataObject[string];
	json[head] = inner;
}

/** Fields a part's output carries that the joined output says for the whole document. */
const PAGE_FIELDS = ['pagesCounted', 'pagesSent', 'pagesBilled', 'pageCountNote'];

/** What a part's entry in `parts` says besides its ID and pages sent. */
const PART_FIELDS = [
	'status',
	'pagesBilled',
	'previouslySubmitted',
	'previouslySubmittedBy',
	'previouslyBilled',
];

/** The first value of each key in page order; lists joined in page order. */
function merged(values: IDataObject[]): IDataObject {
	const out: IDataObject = {};
	for (const value of values) {
		for (const [key, field] of Object.entries(value)) {
			const have = out[key];
			if (Array.isArray(have) && Array.isArray(field)) out[key] = [...have, ...field];
			else if (have === undefined || have === null) out[key] = field;
		}
	}
	return out;
}

/**
 * The item's output for a split document: the first part's other fields, the text fields and
 * lists joined in page order, `parts` (each part's ID, pages and pages billed), and the document's
 * page fields: pages counted, sent, and billed (the parts' sum, when every part says it).
 */
export function joinParts(
	document: DocumentInput,
	outputs: IDataObject[],
	join: Join,
): IDataObject {
	const joined = new Set([join.id, ...PAGE_FIELDS]);
	if (join.merge) joined.add(join.merge);
	const json: IDataObject = {};
	for (const [key, value] of Object.entries(outputs[0]))
		if (!joined.has(key) && !key.startsWith('previously')) json[key] = value;
	// A field only some parts have is not the document's: it is left out, never one part's alone.
	for (const field of join.text) {
		const values = outputs.map((output) => valueAt(output, field));
		const all = values.every((value): value is string => typeof value === 'string');
		setAt(json, field, all ? values.join('\n\n') : undefined);
	}
	for (const field of join.lists ?? []) {
		const values = outputs.map((output) => valueAt(output, field));
		const all = values.every((value) => Array.isArray(value));
		setAt(json, field, all ? (values as IDataObject[][]).flat() : undefined);
	}
	for (const field of SUMS) {
		const values = outputs.map((output) => valueAt(output, field));
		const all = values.every((value): value is number => typeof value === 'number');
		setAt(json, field, all ? values.reduce((a, b) => a + b, 0) : undefined);
	}
	// When the document is ready: when its slowest part is.
	const estimated = outputs.map((output) => output.estimatedSeconds);
	if (estimated.every((value): value is number => typeof value === 'number'))
		json.estimatedSeconds = Math.max(...estimated);
	else delete json.estimatedSeconds;
	if (join.merge) {
		const values = outputs.map((output) => output[join.merge!]).filter(isObject);
		if (values.length > 0) json[join.merge] = merged(values as IDataObject[]);
	}
	const parts = document.parts!;
	json.parts = outputs.map((output, index) => {
		const part: IDataObject = { pagesSent: parts[index].selection?.pagesSent ?? null };
		if (output[join.id] !== undefined) part[join.id] = output[join.id];
		for (const key of PART_FIELDS) if (output[key] !== undefined) part[key] = output[key];
		if (join.merge && output[join.merge] !== undefined) part[join.merge] = output[join.merge];
		return part;
	});
	const { selection, pageCount } = document;
	json.pagesCounted = selection?.pagesCounted ?? pageCount.pages;
	json.pagesSent = selection?.pagesSent ?? null;
	const billed = outputs.map((output) => output.pagesBilled);
	if (billed.every((pages): pages is number => typeof pages === 'number')) {
		const sum = billed.reduce((a, b) => a + b, 0);
		json.pagesBilled = sum;
		if (pageCount.pages !== null && sum !== pageCount.pages)
			json.pageCountNote = `${pageCount.pages} pages sent; the service billed ${sum}`;
	}
	if (outputs.every((output) => output.previouslySubmitted === true))
		json.previouslySubmitted = true;
	if (outputs.every((output) => output.previouslyBilled === true)) json.previouslyBilled = true;
	return json;
}
