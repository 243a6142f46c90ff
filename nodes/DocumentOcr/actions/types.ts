import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { TransportState } from '../transport';

/** The send phase of one item: the requests, and the item's output (pairedItem is the router's). */
export type Send = (state: TransportState) => Promise<INodeExecutionData[]>;

/**
 * One operation: its fields, and for one input item a check phase that reads and checks
 * everything the item needs — document, parameters, JSON Schema, wait settings, the exact
 * request body against the size limit — WITHOUT sending anything, and returns the send phase.
 * The router checks every item before any item sends (so a bad item costs nothing).
 */
export interface Operation {
	description: INodeProperties[];
	prepare(this: IExecuteFunctions, itemIndex: number): Promise<Send>;
}
