import type { IExecuteFunctions } from 'n8n-workflow';
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

/** Reads an integer parameter and checks its range before any request. */
export function requireInteger(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	label: string,
	min: number,
	max: number,
): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex}: ${label} must be a whole number from ${min} to ${max}`,
			{
				description: `Got "${String(value)}".`,
				itemIndex,
			},
		);
	}
	return n;
}
