import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { Execution } from '../batch/execution';
import type { Join } from '../batch/join';

/** The send phase of one item: the requests, and the item's output (pairedItem is the router's). */
export type SendPhase = () => Promise<INodeExecutionData[]>;

/**
 * One operation: its fields, and for one input item a check phase that reads and checks
 * everything the item needs — document, parameters, JSON Schema, wait settings, the exact
 * request body against the size limit — WITHOUT sending anything, and returns the send phase.
 * The router checks every item before any item sends (so a bad item costs nothing); `run` is the
 * execution the item belongs to (its service client, its money rules).
 */
export interface Operation {
	/** Its fields (the resource shows them for the operation: fieldsOf). */
	properties: INodeProperties[];
	/**
	 * It sends documents the service bills by their pages: the one fact the billing hint, the
	 * Page Budget, Pages and Split Large Documents options (added to its Options: fieldsOf, shared.description.ts) and
	 * the tests derive from. Every operation that sends a document bills (Count Pages reads one
	 * and sends nothing).
	 */
	bills?: boolean;
	/** How a split document's parts' outputs join into the item's one output (every billing operation). */
	join?: Join;
	prepare(this: IExecuteFunctions, itemIndex: number, run: Execution): Promise<SendPhase>;
}

/** An operation's check phase (`Operation['prepare']`), as the operation files declare it. */
export type Prepare = Operation['prepare'];
