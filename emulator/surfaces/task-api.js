'use strict';
/**
 * The task API (base URL): POST /api/ocr, GET /api/tasks, GET and DELETE /api/tasks/{taskId},
 * GET /api/export/{taskId}/{format}, and the machine-readable description GET /api/openapi.json.
 * Handlers are methods mixed into the Emulator (see ../emulator.js): `this` is the emulator.
 */
const docs = require('../documents.js');
const { API_TYPES, EXPORT_FORMATS } = require('../common.js');
const { buildExport, EXPORT_CONTENT_TYPES } = require('../exports.js');
const { buildOpenApi } = require('../openapi.js');

function exportBaseName(task) {
	let base = task.filename ? String(task.filename).split(/[\\/]/).pop() : '';
	base = base.replace(/\.[^.]*$/, '');
	return base || task.taskId;
}

function contentDisposition(name) {
	const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
	if (ascii === name) return `attachment; filename="${ascii}"`;
	return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const routes = [
	{
		method: 'POST',
		pattern: ['api', 'ocr'],
		name: 'POST /api/ocr',
		scope: 'submit',
		handler: 'submitTask',
	},
	{
		method: 'GET',
		pattern: ['api', 'openapi.json'],
		name: 'GET /api/openapi.json',
		auth: false,
		handler: 'openapi',
	},
	{
		method: 'GET',
		pattern: ['api', 'tasks'],
		name: 'GET /api/tasks',
		scope: 'read',
		handler: 'listTasks',
	},
	{
		method: 'GET',
		pattern: ['api', 'tasks', ':id'],
		name: 'GET /api/tasks/:id',
		scope: 'read',
		handler: 'getTaskRoute',
	},
	{
		method: 'DELETE',
		pattern: ['api', 'tasks', ':id'],
		name: 'DELETE /api/tasks/:id',
		scope: 'export',
		handler: 'deleteTask',
	},
	{
		method: 'GET',
		pattern: ['api', 'export', ':id', ':format'],
		name: 'GET /api/export/:id/:format',
		scope: 'read',
		handler: 'exportTask',
	},
];

class TaskApi {
	async submitTask(ctx) {
		const json = this.readJson(ctx);
		this.validateSubmissionJson(ctx, json, { requireFilename: false });
		const buf = this.decodeBase64(ctx, json.imageBase64);
		const type = this.checkFile(ctx, buf, API_TYPES);
		const provider = json.provider || 'provider-async';
		const documentType = json.documentType || 'general';
		const pages = docs.countPages(buf);
		const id = this.charge(ctx, pages, 'tsk_', 'POST /api/ocr', buf);
		const t = this.createRecord(ctx, id, 'task', {
			provider,
			documentType,
			filename: json.filename,
			pages,
			buf,
			type,
		});
		if (provider === 'provider-sync') {
			this.setStatus(t, 'processing');
			await this.timers.sleep(this.options.syncMsPerPage * pages);
			if (this.closed) return;
			this.finish(t);
		} else {
			this.queue.push(t);
		}
		const body = { success: true, taskId: id, provider };
		if (this.options.shapes.submit === 'withPages') {
			body.pages = pages;
			body.pagesBilled = pages;
		}
		this.sendJson(ctx, 200, body);
	}

	openapi(ctx) {
		this.sendJson(ctx, 200, buildOpenApi(this.url));
	}

	listTasks(ctx) {
		const q = ctx.query;
		const int = (name, dflt) => {
			const raw = q.get(name);
			if (raw === null || raw === '') return dflt;
			if (!/^\s*[+-]?\d+\s*$/.test(raw))
				this.fail(ctx, 400, 'bad_request', `${name} must be an integer`);
			const n = parseInt(raw, 10);
			if (n < 1) this.fail(ctx, 400, 'bad_request', `${name} must be >= 1`);
			return n;
		};
		const page = int('page', 1);
		const pageSize = Math.min(this.options.maxPageSize, int('pageSize', 20));
		const status = q.get('status');
		const account = ctx.auth.account && ctx.auth.account.name;
		let all = [...this.taskMap.values()].filter((t) => t.account === account);
		if (status) all = all.filter((t) => this.statusName(t.status) === status);
		// Newest created first (default); option `listOrder: 'oldest'` (opt-in) lists oldest first.
		all.sort((a, b) => (this.options.listOrder === 'oldest' ? a.seq - b.seq : b.seq - a.seq));
		const total = all.length;
		const items = all
			.slice((page - 1) * pageSize, page * pageSize)
			.map((t) => this.publicTask(t, { list: true }));
		let body;
		switch (this.options.shapes.list) {
			case 'data':
				body = {
					data: items,
					pagination: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) },
				};
				break;
			case 'tasks':
				body = { tasks: items, total };
				break;
			case 'array':
				body = items;
				break;
			case 'items':
			default:
				body = { items, page, pageSize, total };
		}
		this.sendJson(ctx, 200, body);
		this.shiftList(ctx);
	}

	getTaskRoute(ctx, { id }) {
		const t = this.ownRecord(ctx, this.taskMap, id);
		if (!t) return this.sendError(ctx, 404, 'not_found', 'Task not found');
		this.countPoll(t.taskId);
		const v = this.publicTask(t);
		this._stats.pollLog.push({ taskId: t.taskId, at: Date.now(), status: v.status });
		let body;
		switch (this.options.shapes.task) {
			case 'data':
				body = { data: v };
				break;
			case 'task':
				body = { success: true, task: v };
				break;
			default:
				body = v;
		}
		this.sendJson(ctx, 200, body, this.retryAfterHeaders(t));
	}

	deleteTask(ctx, { id }) {
		const t = this.ownRecord(ctx, this.taskMap, id);
		if (!t) return this.sendError(ctx, 404, 'not_found', 'Task not found');
		this.taskMap.delete(t.taskId);
		this.queue.remove(t);
		this.emit('task', t);
		// The reference shows no body for a delete: 'spec' answers 200 with none.
		if (this.options.fields === 'rich')
			this.sendJson(ctx, 200, { success: true, taskId: t.taskId });
		else this.send(ctx, 200, {}, '');
	}

	exportTask(ctx, { id, format }) {
		if (!EXPORT_FORMATS.includes(format))
			return this.sendError(
				ctx,
				400,
				'invalid_format',
				`format must be one of ${EXPORT_FORMATS.join(', ')}`,
			);
		const t = this.ownRecord(ctx, this.taskMap, id);
		if (!t) return this.sendError(ctx, 404, 'not_found', 'Task not found');
		if (t.status !== 'done') {
			return this.sendError(
				ctx,
				409,
				'task_not_ready',
				`Task ${t.taskId} is not ready for export (status: ${this.statusName(t.status)})`,
			);
		}
		const pages = String(t.resultText).split(docs.PAGE_SEPARATOR);
		const file = buildExport(format, { pages, invoice: t.metadata && t.metadata.invoice });
		this.send(
			ctx,
			200,
			{
				'content-type': EXPORT_CONTENT_TYPES[format],
				'content-disposition': contentDisposition(`${exportBaseName(t)}.${format}`),
			},
			file,
		);
	}
}

module.exports = { routes, handlers: TaskApi };
