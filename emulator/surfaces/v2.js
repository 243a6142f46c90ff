'use strict';
/**
 * The versioned job endpoint (base URL): POST /api/v2/ocr. Its tasks are read with the task API.
 * Handlers are methods mixed into the Emulator (see ../emulator.js): `this` is the emulator.
 */
const docs = require('../documents.js');
const { API_TYPES, isPlainObject } = require('../common.js');

const routes = [
	{
		method: 'POST',
		pattern: ['api', 'v2', 'ocr'],
		name: 'POST /api/v2/ocr',
		scope: 'submit',
		handler: 'submitV2',
	},
];

class V2Api {
	async submitV2(ctx) {
		const json = this.readJson(ctx);
		this.validateSubmissionJson(ctx, json, { requireFilename: true });
		const options = json.options === undefined || json.options === null ? {} : json.options;
		if (!isPlainObject(options)) this.fail(ctx, 400, 'bad_request', 'options must be an object');
		if (options.format !== undefined && typeof options.format !== 'string')
			this.fail(ctx, 400, 'bad_request', 'options.format must be a string');
		for (const k of ['highFidelityTables', 'formulas']) {
			if (options[k] !== undefined && typeof options[k] !== 'boolean')
				this.fail(ctx, 400, 'bad_request', `options.${k} must be a boolean`);
		}
		const buf = this.decodeBase64(ctx, json.imageBase64);
		const type = this.checkFile(ctx, buf, API_TYPES);
		const pages = docs.countPages(buf);
		const id = this.charge(ctx, pages, 'tsk_', 'POST /api/v2/ocr', buf);
		const waitMs = this.queue.estimateWaitMs(this.options.msPerPage);
		const t = this.createRecord(ctx, id, 'v2', {
			provider: 'provider-async',
			documentType: json.documentType || 'general',
			filename: json.filename,
			pages,
			buf,
			type,
			options: { ...options },
		});
		this.queue.push(t);
		this.sendJson(ctx, 200, {
			taskId: id,
			status: this.statusName('queued'),
			estimatedSeconds: Math.ceil((pages * this.options.msPerPage + waitMs) / 1000),
			pages,
			creditsUsed: pages,
		});
	}
}

module.exports = { routes, handlers: V2Api };
