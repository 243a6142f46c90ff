import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { ServiceClient } from '../../service/client';
import { idsOf, ListWalk, taskIdOf } from '../../service/list';

/** Tasks asked for per page of the editor's list (the service may send fewer). */
const PAGE_SIZE = 50;

/** How a task reads in the list: its file name, status and creation time, as far as listed. */
function label(task: IDataObject, id: string): string {
	const name = [task.filename, task.fileName, task.name].find((v) => typeof v === 'string' && v);
	const created =
		typeof task.createdAt === 'string' ? task.createdAt.replace('T', ' ').slice(0, 16) : '';
	return [name ?? id, typeof task.status === 'string' ? task.status : '', created]
		.filter((part) => part !== '')
		.join(' · ');
}

/**
 * The Task field's *From list* mode: the newest tasks with their status, a page at a time
 * (`paginationToken` is the next page). A search keeps the tasks whose ID or file name contains
 * it; a whole task ID not on the page is looked up directly.
 */
export async function searchTasks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = new ServiceClient(this);
	const page = Math.max(1, Number(paginationToken) || 1);
	const walk = new ListWalk(
		async (n) => await client.listTasks(0, { page: n, pageSize: PAGE_SIZE }),
	);
	const list = (await walk.page(page))!;
	const wanted = filter?.trim().toLowerCase() ?? '';
	const results = list.records.flatMap((task) => {
		const id = taskIdOf(task);
		if (id === undefined) return [];
		const name = label(task, id);
		const matches =
			!wanted || id.toLowerCase().includes(wanted) || name.toLowerCase().includes(wanted);
		return matches ? [{ name, value: id }] : [];
	});
	if (wanted && results.length === 0 && page === 1 && !/\s/.test(wanted)) {
		const task = await client.findRecord(0, 'task', filter!.trim()).catch(() => undefined);
		const id = task && taskIdOf(task);
		if (task && id) results.push({ name: label(task, id), value: id });
	}
	const more = idsOf(list).length > 0 && !walk.isLast(list, page);
	return { results, paginationToken: more ? String(page + 1) : undefined };
}
