import type { IDataObject } from 'n8n-workflow';

/**
 * Remembers which deliveries were accepted, so a replayed or re-sent one starts no second run.
 *
 * Two layers:
 *  - in this process, a check-and-record with no await in between: two copies arriving at once
 *    cannot both pass;
 *  - the workflow's static data, which n8n saves when the delivery starts no run (n8n 2.41 does
 *    not save a webhook's static-data changes when it starts a run: measured in the queue-mode
 *    suite), so in practice the memory is the process's own and ends with it. The README says so.
 * Entries expire with the timestamp tolerance: an older delivery is refused by its timestamp anyway.
 */

const MAX_ENTRIES = 5_000;
const memory = new Map<string, Map<string, number>>();

function prune(entries: Map<string, number>, now: number) {
	for (const [key, expiresAt] of entries) if (expiresAt <= now) entries.delete(key);
	while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
}

/**
 * Records `keys` (the nonce, and the event ID when the payload has one) for `scope` (workflow +
 * node). Returns false, recording nothing, when any of them was seen before.
 */
export function recordDelivery(
	scope: string,
	keys: string[],
	expiresAt: number,
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
	if (keys.some((key) => entries!.has(key))) return false;
	for (const key of keys) entries.set(key, expiresAt);
	persisted.seen = Object.fromEntries(entries);
	return true;
}

/** Forgets a scope (the workflow was deactivated). */
export function forgetScope(scope: string, persisted: IDataObject) {
	memory.delete(scope);
	delete persisted.seen;
}
