import type { IDataObject } from 'n8n-workflow';

/**
 * Remembers which deliveries were accepted, so a replayed or re-sent one starts no second run.
 *
 * Two layers:
 *  - in this process, a check-and-record with no await in between: two copies arriving at once
 *    cannot both pass;
 *  - the workflow's static data, which n8n saves when the delivery starts no run (n8n 2.41 does
 *    not save a webhook's static-data changes when it starts a run: test/reliability/queue.rel.js
 *    shows it), so in practice the memory is the process's own and ends with it. Across restarts
 *    and processes, n8n's database-backed deduplication does it (the Remove Duplicates node on
 *    `dedupeKey` after the trigger; webhook contexts have no deduplication helpers), as the README
 *    says.
 * It is kept when the workflow is deactivated and activated again. Each key expires on its own:
 * a nonce with the timestamp tolerance (an older delivery is refused by its timestamp anyway), an
 * event or task key later (a service may retry an event with a fresh nonce and timestamp).
 */

const MAX_ENTRIES = 5_000;
const memory = new Map<string, Map<string, number>>();

function prune(entries: Map<string, number>, now: number) {
	for (const [key, expiresAt] of entries) if (expiresAt <= now) entries.delete(key);
	while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
}

/**
 * Records `keys` (each with the time it expires) for `scope` (workflow + node). Returns false,
 * recording nothing, when any of them was seen before.
 */
export function recordDelivery(
	scope: string,
	keys: Array<[key: string, expiresAt: number]>,
	persisted: IDataObject,
	now = Date.now(),
): boolean {
	let entries = memory.get(scope);
	if (!entries) {
		entries = new Map();
		memory.set(scope, entries);
	}
	const stored = (persisted.seen ?? {}) as Record<string, number>;
	for (const key of Object.keys(stored))
		if (stored[key] > now && !entries.has(key)) entries.set(key, stored[key]);
	prune(entries, now);
	if (keys.some(([key]) => entries!.has(key))) return false;
	for (const [key, expiresAt] of keys) entries.set(key, expiresAt);
	persisted.seen = Object.fromEntries(entries);
	return true;
}
