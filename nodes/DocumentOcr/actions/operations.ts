import * as document from './document/Document.resource';
import * as job from './job/Job.resource';
import * as task from './task/Task.resource';
import type { Operation } from './types';

/** Every operation of the action node, by resource and operation value (the router reads it). */
export const resources: Record<string, Record<string, Operation>> = {
	task: task.operations,
	document: document.operations,
	job: job.operations,
};

/** The operation values of the operations that bill (`bills`), for the node's billing hint. */
export function billingOperations(): string[] {
	return Object.values(resources).flatMap((operations) =>
		Object.entries(operations)
			.filter(([, operation]) => operation.bills === true)
			.map(([name]) => name),
	);
}
