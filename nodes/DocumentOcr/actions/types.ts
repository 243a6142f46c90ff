import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { TransportState } from '../transport';

/** One operation: its fields, and what it does for one input item (pairedItem is added by the router). */
export interface Operation {
	description: INodeProperties[];
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		state: TransportState,
	): Promise<INodeExecutionData[]>;
}
