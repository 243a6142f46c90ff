import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { hasControlChars, printable } from './text';

const MAX_ID_LENGTH = 512;

/**
 * Checks an ID that goes into a URL path. Any character is allowed (the transport percent-encodes
 * it), but an empty ID, a dot segment ("." / ".." would be resolved away by URL parsers),
 * control characters and absurd lengths are refused before a request is sent.
 */
export function requireId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	label: string,
): string {
	const id =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	const node = ctx.getNode();
	if (!id) {
		throw new NodeOperationError(node, `Item ${itemIndex}: ${label} is empty`, {
			description: `Enter the ${label} returned by a submission, or map it from a previous node.`,
			itemIndex,
		});
	}
	if (id === '.' || id === '..' || hasControlChars(id) || id.length > MAX_ID_LENGTH) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: "${printable(id)}" is not a valid ${label}`,
			{
				description: `A ${label} is a short identifier returned by the service (at most ${MAX_ID_LENGTH} characters, no control characters). Nothing was sent.`,
				itemIndex,
			},
		);
	}
	return id;
}

/**
 * The ID in parameter `name` (a resource locator in any mode, or the plain string saved by older
 * workflows), checked by requireId.
 */
export function requireIdParameter(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
): string {
	const value = ctx.getNodeParameter(name, itemIndex, '', { extractValue: true });
	return requireId(ctx, itemIndex, value, label);
}

/**
 * Where a field's value is read from: the node, the item (for the action node; a trigger has
 * none) and n8n's parameter reader (`path`: the field's name, or e.g. `options.pageBudget`).
 */
export interface FieldSource {
	node: INode;
	itemIndex?: number;
	read(path: string, fallback: string): unknown;
}

/** The fields of item `itemIndex` of the action node. */
export function itemFields(ctx: IExecuteFunctions, itemIndex: number): FieldSource {
	return {
		node: ctx.getNode(),
		itemIndex,
		read: (path, fallback) => ctx.getNodeParameter(path, itemIndex, fallback),
	};
}

/** The fields of a trigger node (a webhook or a poll: no items). */
export function nodeFields(ctx: {
	getNode(): INode;
	getNodeParameter(path: string, fallback: string): unknown;
}): FieldSource {
	return { node: ctx.getNode(), read: (path, fallback) => ctx.getNodeParameter(path, fallback) };
}

/** What n8n's reader gives for a field that is not set at all (not added, or not shown). */
const ABSENT = '\u0000absent';

/** How a field is read: where (`path`, its name unless given) and its value when not set. */
export interface FieldRead<T> {
	path?: string;
	/** The value when the field is not set at all (its default unless given). */
	absent?: T;
}

/** The bounds of a number field: from its typeOptions unless given. */
export interface NumberLimits {
	min?: number;
	max?: number;
	/** Whole numbers only (a field with `numberPrecision: 0` is one). */
	integer?: boolean;
}

/** Whether the field is set at all (added to its collection, or shown): its value may still be nothing. */
export function isFieldSet(source: FieldSource, path: string): boolean {
	return source.read(path, ABSENT) !== ABSENT;
}

/** A value as a message quotes it. */
function given(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'string' && value.trim() === '') return 'an empty text';
	if (typeof value === 'object') return 'an object';
	return `"${printable(String(value))}"`;
}

function fieldError(source: FieldSource, field: INodeProperties, value: unknown, wanted: string) {
	const at = source.itemIndex === undefined ? '' : `Item ${source.itemIndex}: `;
	return new NodeOperationError(
		source.node,
		`${at}"${field.displayName}" must be ${wanted}, but it is ${given(value)}`,
		{
			description: `Set "${field.displayName}" to ${wanted}, or remove it to use its default${field.default === undefined ? '' : ` (${String(field.default)})`}. An expression that gives nothing (a missing field, null, an empty text) is not taken as "off" or as the default. Nothing was sent or charged.`,
			itemIndex: source.itemIndex,
		},
	);
}

/**
 * A number field's value: its default when the field is not set; a number or a numeric text
 * within the field's bounds; anything else — an expression that gives nothing, text, a value
 * out of bounds, a fraction where whole numbers are wanted — is the item's error, before any
 * request.
 */
export function numberField(
	source: FieldSource,
	field: INodeProperties,
	read: FieldRead<number> & NumberLimits = {},
): number {
	const raw = source.read(read.path ?? field.name, ABSENT);
	if (raw === ABSENT) return read.absent ?? (field.default as number);
	const limits = read;
	const min = limits.min ?? field.typeOptions?.minValue;
	const max = limits.max ?? field.typeOptions?.maxValue;
	const integer = limits.integer ?? field.typeOptions?.numberPrecision === 0;
	const wanted = [
		integer ? 'a whole number' : 'a number',
		min !== undefined && max !== undefined ? `from ${min} to ${max}` : '',
		min !== undefined && max === undefined ? `of at least ${min}` : '',
		min === undefined && max !== undefined ? `of at most ${max}` : '',
	]
		.filter(Boolean)
		.join(' ');
	const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	if (
		typeof value !== 'number' ||
		!Number.isFinite(value) ||
		(integer && !Number.isInteger(value)) ||
		(min !== undefined && value < min) ||
		(max !== undefined && value > max)
	)
		throw fieldError(source, field, raw, wanted);
	return value;
}

/**
 * A boolean field's value: its default when the field is not set; true or false, also as the
 * text "true" / "false"; anything else (an expression that gives nothing, other text, a number)
 * is the item's error, before any request.
 */
export function booleanField(
	source: FieldSource,
	field: INodeProperties,
	read: FieldRead<boolean> = {},
): boolean {
	const raw = source.read(read.path ?? field.name, ABSENT);
	if (raw === ABSENT) return read.absent ?? (field.default as boolean);
	if (typeof raw === 'boolean') return raw;
	const text = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw fieldError(source, field, raw, 'true or false');
}

/**
 * A text field's value, trimmed: its default when the field is not set; a text (a number, as its
 * digits); anything else — an expression that gives nothing (undefined, null), an object — is
 * the item's error, before any request.
 */
export function textField(
	source: FieldSource,
	field: INodeProperties,
	read: FieldRead<string> = {},
): string {
	const raw = source.read(read.path ?? field.name, ABSENT);
	if (raw === ABSENT) return read.absent ?? (field.default as string);
	if (typeof raw === 'string') return raw.trim();
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	throw fieldError(source, field, raw, 'a text');
}
