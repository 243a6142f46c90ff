import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { DocumentInput } from '../documents/document';
import type { Send } from '../documents/upload';
import { isObject } from '../shared/object';
import { StoppedError } from '../transport/errors';
import type { Execution } from './execution';

/*
 * A split document's parts (Split Large Documents, documents/split.ts), sent as one item: in
 * page order, one after the other, each submission starting once the one before it was
 * submitted (waits run side by side); the item holds its submission turn until its last part
 * goes out (./order.ts), so no later item is billed before it, and the Page Budget admits its
 * parts all or none (./budget.ts). The parts' outputs are joined into the item's one output.
 */

/** What one submission does: sends its body (and waits, if asked); calls `submitted` once sent. */
export type SendOne = (send: Send, submitted: () => void) => Promise<IDataObject>;

/**
 * Sends `document`'s parts with `send` and returns their outputs in page order. The first part
 * that fails fails the item: no part after it is sent, the pages the budget set aside for those
 * are given back, and the error names the part; what the parts before it billed is in the
 * execution's ledger, which the item's error and the node's error name.
 */
export async function sendParts(
	run: Execution,
	itemIndex: number,
	sends: Send[],
	send: SendOne,
): Promise<IDataObject[]> {
	const parts = sends.map((one) => one.document);
	const results: Array<Promise<IDataObject>> = [];
	let started = 0;
	// Any part that fails — the one being submitted, or one before it while it is waited for —
	// stops the parts not yet sent, and (without Continue on Fail) halts the run at once: the item
	// fails, as a one-at-a-time loop would stop there.
	let stopped = false;
	let onFailure!: () => void;
	const failure = new Promise<void>((resolve) => (onFailure = resolve));
	run.order.hold(itemIndex);
	try {
		for (const [index, one] of sends.entries()) {
			if (stopped) break;
			// The last part passes the turn on as it goes out, as a whole document does.
			if (index === sends.length - 1) run.order.release(itemIndex);
			let submitted!: () => void;
			const gone = new Promise<void>((resolve) => (submitted = resolve));
			const result = send(one, submitted);
			results.push(result);
			started++;
			result.catch((error: unknown) => {
				stopped = true;
				if (!(error instanceof StoppedError)) run.order.failed();
				onFailure();
			});
			// The next part goes once this one was submitted, unless a part has failed meanwhile.
			await Promise.race([gone, result, failure]);
		}
	} catch {
		// Its error is taken below, in page order with the others.
	} finally {
		run.order.release(itemIndex);
		// Parts never sent spent nothing of the Page Budget set aside for them.
		for (let index = started; index < parts.length; index++) run.budget.notSent(itemIndex, index);
	}
	const settled = await Promise.allSettled(results);
	const errors = settled.map((outcome) =>
		outcome.status === 'rejected' ? (outcome.reason as Error) : undefined,
	);
	if (errors.every((error) => error === undefined))
		return settled.map((outcome) => (outcome as PromiseFulfilledResult<IDataObject>).value);
	// The part that failed, not the parts whose waits its failure ended (StoppedError).
	const failed = errors.findIndex((error) => error && !(error instanceof StoppedError));
	const at = failed === -1 ? errors.findIndex((error) => error !== undefined) : failed;
	throw namePart(errors[at]!, parts[at], started);
}

/** "part 3", "parts 2 and 3", "parts 2 to 5": the parts `from` to `to` (1-based). */
function partsNamed(from: number, to: number): string {
	if (from === to) return `part ${from}`;
	return to === from + 1 ? `parts ${from} and ${to}` : `parts ${from} to ${to}`;
}

/**
 * The part's error, saying which part of the document it is (its pages), which parts after it
 * were sent all the same (they went out while it was waited for: their IDs are in the item's
 * error) and which were not.
 */
function namePart(error: Error, part: DocumentInput, started: number): Error {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	const { index, of } = part.part!;
	const pages = part.selection?.pagesSent ?? '';
	const capital = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;
	let later = '';
	if (started > index + 1)
		later += ` ${capital(partsNamed(index + 2, started))} ${started > index + 2 ? 'were' : 'was'} sent before it failed (see what was billed).`;
	if (started < of)
		later += ` ${capital(partsNamed(started + 1, of))} ${of > started + 1 ? 'were' : 'was'} not sent.`;
	const note = `This is part ${index + 1} of ${of} of the document (pages ${pages}), sent by "Split Large Documents".${later}`;
	error.description = error.description ? `${error.description}\n\n${note}` : note;
	error.context.part = index + 1;
	error.context.parts = of;
	error.context.partPages = pages;
	return error;
}

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
