import type { IDataObject } from 'n8n-workflow';

/** Something the service created — and billed — for an item of this execution. */
export interface Created {
	itemIndex: number;
	kind: 'task' | 'job' | 'document';
	/** The ID the answer carried (a `/v1/ocr` or `/v1/extract` answer may carry none). */
	id?: string;
	/** Pages the answer says were billed, when it says so. */
	pagesBilled?: number;
	/** The document's file name, to name a billed document that has no ID. */
	fileName?: string;
	/** A part of a split document: the pages it carried ("21-40"). */
	pages?: string;
}

/** One billed record as the node's messages name it: its item, what it is, its ID and pages. */
export function billedLine(c: Created): string {
	const pages = c.pagesBilled === undefined ? '' : ` (${c.pagesBilled} page(s))`;
	const item = `item ${c.itemIndex}${c.pages === undefined ? '' : `, pages ${c.pages}`}`;
	if (c.kind !== 'document') return `${item}: ${c.kind} ${c.id}${pages}`;
	const what = [c.fileName, c.id].filter((v) => v !== undefined).join(', ');
	return `${item}: document${what ? ` ${what}` : ''}${pages}`;
}

/** A `/v1` document result the service billed, and how to find the document's memory key. */
export interface BilledResult {
	result: IDataObject;
	key: () => Promise<string>;
}

/**
 * What one execution was billed for, so that no billed ID or result is lost when an item or the
 * node fails (./report.ts reads it): every task, job or document the service accepted, with its
 * item; the `/v1` results billed, to keep for the next run if this one fails before they reach
 * the user; and the held results of an earlier run this one outputs instead (./held.ts).
 */
export class BillingLedger {
	readonly created: Created[] = [];

	/**
	 * `/v1` results billed, by what was billed (an item's document, or a part of it): kept for the
	 * next run if this one fails before they reach the user.
	 */
	readonly billedResults = new Map<Created, BilledResult>();

	/** Memory keys of held results this run outputs instead of sending their documents. */
	readonly deliveredHeld = new Set<string>();

	/** The service accepted (and billed) `created`. */
	record(created: Created) {
		this.created.push(created);
	}

	createdBy(itemIndex: number): Created[] {
		return this.created.filter((c) => c.itemIndex === itemIndex);
	}
}
