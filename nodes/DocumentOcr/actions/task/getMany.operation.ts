import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ServiceClient } from '../../service/client';
import { idsOf, ListWalk } from '../../service/list';
import { booleanField, itemFields, numberField } from '../../shared/validate';
import { simplifyTask } from '../../shared/records';
import { optionsCollection, simplified, simplifyField } from '../shared.description';
import type { Prepare } from '../types';

const MAX_PAGES = 10_000;
const MAX_PAGE_SIZE = 1_000;

const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

const pageSizeOption: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE, numberPrecision: 0 },
	default: 20,
	description: 'How many tasks to request per page (the service default is 20)',
};

const startPageOption: INodeProperties = {
	displayName: 'Start Page',
	name: 'page',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 1,
	description: 'The page to start from (1 is the newest tasks)',
};

export const properties: INodeProperties[] = [
	returnAllField,
	limitField,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: [
					{ name: 'Done', value: 'done' },
					{ name: 'Failed', value: 'failed' },
					{ name: 'Processing', value: 'processing' },
					{ name: 'Queued', value: 'queued' },
				],
				default: 'done',
				description:
					'Only tasks with this status. Other values the service supports can be given as an expression.',
			},
		],
	},
	optionsCollection(pageSizeOption, startPageOption),
	simplifyField,
];

/** GET /api/tasks, page by page: Return All walks pages until the last; Limit stops early. */
export const prepare: Prepare = async function (itemIndex, run) {
	const fields = itemFields(this, itemIndex);
	const returnAll = booleanField(fields, returnAllField);
	const limit = returnAll ? Infinity : numberField(fields, limitField);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const pageSize = numberField(fields, pageSizeOption, { path: 'options.pageSize' });
	const page = numberField(fields, startPageOption, { path: 'options.page' });
	const status =
		typeof filters.status === 'string' && filters.status.trim() ? filters.status.trim() : undefined;

	const simplify = simplified(this, itemIndex);
	return async () => {
		const tasks = await listTasks(run.client, itemIndex, { limit, pageSize, page, status });
		return simplify ? tasks.map(({ json }) => ({ json: simplifyTask(json) })) : tasks;
	};
};

/**
 * Walks the list by what each answer says — `hasMore`, `totalPages`, `total` with the page size
 * the service used — and only without any of those by the page's length (service/list.ts). The
 * list may move while it is walked (tasks submitted meanwhile push every task down a place): a
 * task met again is output once, and a page made only of tasks met before ends the walk only when
 * the first page, read again, shows that the service ignores `page`.
 */
async function listTasks(
	client: ServiceClient,
	itemIndex: number,
	query: { limit: number; pageSize: number; page: number; status?: string },
): Promise<INodeExecutionData[]> {
	const { limit, pageSize, page: startPage, status } = query;
	const walk = new ListWalk(
		async (page) => await client.listTasks(itemIndex, { page, pageSize, status }),
	);
	const tasks: IDataObject[] = [];
	const met = new Set<string>();
	for (let page = startPage; page < startPage + MAX_PAGES && tasks.length < limit; page++) {
		const list = (await walk.page(page))!;
		let fresh = 0;
		for (const record of list.records) {
			const id = idsOf({ records: [record] })[0];
			if (id !== undefined) {
				if (met.has(id)) continue;
				met.add(id);
			}
			fresh++;
			tasks.push(record);
		}
		if (walk.isLast(list, page)) break;
		// Every task of this page was met before: the list moved, or `page` is ignored.
		if (fresh === 0 && page > startPage && (await walk.ignoresPage(startPage, idsOf(list)))) break;
	}
	return tasks.slice(0, limit).map((json) => ({ json }));
}
