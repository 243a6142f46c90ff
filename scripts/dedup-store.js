'use strict';
/**
 * n8n's deduplication table (the store behind Remove Duplicates and `checkProcessedAndRecord`)
 * for n8n-core's engine in the tests, in memory and written as n8n 2.41 writes it
 * (`DeduplicationHelper` in the n8n package): one row per workflow and context (`n:<node id>`
 * for node scope, '' for workflow scope); in `entries` mode the MD5 (base64) of each value,
 * the newest `maxEntries` kept; a read of the row, then — a database round trip later — the whole
 * row written back, with no transaction: two callers inside that moment both see a value new,
 * and the last write wins. Only a row's first write is atomic: a second insert of the same row
 * fails as the primary key makes it fail.
 */
const crypto = require('node:crypto');

/** A database round trip: the other callers run in between. */
const roundTrip = () => new Promise((resolve) => setImmediate(resolve));

const hash = (value) => crypto.createHash('md5').update(String(value)).digest('base64');

class ProcessedDataTable {
	constructor() {
		/** Rows by `${workflowId}\n${context}`: { mode, data }. */
		this.rows = new Map();
		/** Calls made, by method: what the tests read to see the store used. */
		this.calls = { checkProcessedAndRecord: 0, removeProcessed: 0 };
	}

	static rowKey(scope, contextData) {
		const context = scope === 'node' ? `n:${contextData.node.id}` : '';
		return `${contextData.workflow.id}\n${context}`;
	}

	/** The row as a read returns it: a copy, as a database hands out what it stores. */
	async read(key) {
		await roundTrip();
		const row = this.rows.get(key);
		return row && { mode: row.mode, data: Array.isArray(row.data) ? [...row.data] : row.data };
	}

	async checkProcessedAndRecord(items, scope, contextData, options) {
		this.calls.checkProcessedAndRecord++;
		if (options.mode !== 'entries') throw new Error(`mode ${options.mode} is not emulated here`);
		const key = ProcessedDataTable.rowKey(scope, contextData);
		const hashed = items.map(hash);
		const row = await this.read(key);
		if (!row) {
			const data = options.maxEntries ? hashed.slice(-options.maxEntries) : hashed;
			await roundTrip();
			if (this.rows.has(key))
				throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
			this.rows.set(key, { mode: options.mode, data });
			return { new: items, processed: [] };
		}
		if (row.mode !== options.mode) throw new Error('incompatible deduplication mode');
		const seen = new Set(row.data);
		const result = { new: [], processed: [] };
		hashed.forEach((h, i) => {
			if (seen.has(h)) result.processed.push(items[i]);
			else {
				result.new.push(items[i]);
				row.data.push(h);
			}
		});
		if (options.maxEntries) row.data.splice(0, row.data.length - options.maxEntries);
		await roundTrip();
		this.rows.set(key, row);
		return result;
	}

	async removeProcessed(items, scope, contextData, options) {
		this.calls.removeProcessed++;
		const key = ProcessedDataTable.rowKey(scope, contextData);
		const row = await this.read(key);
		if (!row || row.mode !== options.mode) return;
		const gone = new Set(items.map(hash));
		row.data = row.data.filter((h) => !gone.has(h));
		await roundTrip();
		this.rows.set(key, row);
	}

	async clearAllProcessedItems(scope, contextData) {
		await roundTrip();
		this.rows.delete(ProcessedDataTable.rowKey(scope, contextData));
	}

	async getProcessedDataCount(scope, contextData) {
		const row = await this.read(ProcessedDataTable.rowKey(scope, contextData));
		return Array.isArray(row?.data) ? row.data.length : 0;
	}

	/** Whether `value` is recorded for the node `nodeId` of workflow `workflowId`. */
	has(workflowId, nodeId, value) {
		return this.rows.get(`${workflowId}\nn:${nodeId}`)?.data.includes(hash(value)) ?? false;
	}
}

module.exports = { ProcessedDataTable };
