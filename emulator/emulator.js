'use strict';
/**
 * The stateful OCR service emulator: HTTP server, routing, task lifecycle, billing,
 * exports, /v1 surface, faults, webhooks, stats and the /__emulator admin API.
 * Use startEmulator() from ./index.js.
 */
const http = require('node:http');
const { EventEmitter } = require('node:events');
const docs = require('./documents.js');
const { Store } = require('./store.js');
const { Faults, WRONG_SHAPES } = require('./faults.js');
const { WorkQueue } = require('./queue.js');
const { WebhookSender } = require('./surfaces/webhooks.js');
const { errorPayload } = require('./errors.js');
const rec = require('./recognise.js');
const {
	API_TYPES,
	V1_TYPES,
	PROVIDERS,
	DOCUMENT_TYPES,
	FINAL,
	DEFAULT_FAILURE_MESSAGE,
	HandledError,
	isPlainObject,
} = require('./common.js');
const taskApi = require('./surfaces/task-api.js');
const v2 = require('./surfaces/v2.js');
const v1 = require('./surfaces/v1.js');
const admin = require('./surfaces/admin.js');
const { randomId, Timers, readBody, seededRandom } = require('./util.js');
const { applyProfile } = require('./profiles.js');

const DEFAULT_OPTIONS = {
	host: '127.0.0.1',
	port: 0,
	workers: 2,
	msPerPage: 50,
	syncMsPerPage: 10,
	queueDelayMs: 0,
	// submit 'spec': { success, taskId, provider } exactly as the reference shows it; 'withPages'
	// (opt-in) adds pages / pagesBilled, which the reference does not show.
	// list 'array': a bare array, no totals (the reference shows no list body; the least convenient).
	shapes: { error: 'flat', list: 'array', task: 'flat', submit: 'spec', v1Error: null },
	// 'spec': records and webhook payloads carry exactly the fields the reference shows — a task
	// { taskId, provider, status, resultText (done), metadata }, a job { id, status, result },
	// an event { event, data: { taskId, status } } without an id. 'rich' (opt-in) adds what a
	// service might also send: timestamps, page count, filename, error text, word positions,
	// event ids and X-Webhook-Event / X-Webhook-Id headers.
	fields: 'spec',
	// The reference does not say in which order tasks finish. 'random' (default): a worker takes
	// any queued task (seeded), so with mixed page counts tasks finish out of order; 'fifo' opt-in.
	completionOrder: 'random',
	// Largest pageSize GET /api/tasks honours (the reference shows none): the least convenient
	// plausible one, its own default of 20; a larger pageSize asked for gets 20 per page.
	maxPageSize: 20,
	statuses: { queued: 'queued', processing: 'processing', done: 'done', failed: 'failed' },
	timestampFormat: 'seconds',
	webhooks: [],
	webhookRetries: 3,
	webhookRetryDelayMs: 200,
	webhookTimeoutMs: 5000,
	pollRetryAfterSeconds: 0,
	// The reference limits the request BODY to 10 MB (413 payload_too_large): 10,000,000 bytes, the
	// stricter reading. A JSON body carries the file as Base64 (4/3 of it), so on the JSON
	// endpoints a file of about 7.5 MB already reaches the limit.
	maxBodyBytes: 10_000_000,
	maxFileBytes: 10_000_000,
	requireJsonContentType: true,
	separateApiServer: false,
	apiPort: 0,
	rateLimit: null, // { perSecond, burst? }
	// Opt-in hostility (see ./profiles.js, which sets them all for `profile: 'hostile'`):
	// `latency` { '<route name>' | '*': ms | [min, max] } before a request is handled;
	// `listShift` { probability, tasks: n | [min, max], times?, forMs? } tasks another client of the
	// account submits right after a page of GET /api/tasks is answered (`forMs`: only within that
	// long after the first page answered with it, a storm); `backlog` finished tasks of that
	// client in the account's list at start; `faults` rules added at start (see ./faults.js).
	latency: null,
	listShift: null,
	// `otherOrigin`: a second listener, another origin (`emu.otherOriginUrl`), the target of the
	// `redirect` fault: it records every request it gets (`emu.otherOriginLog`, headers included)
	// and answers 403, as a server that is not the OCR service would.
	otherOrigin: false,
	backlog: 0,
	faults: [],
	dailyQuota: null, // submissions per key until reset()
	syncTimeoutMs: 5000,
	failureMessage: DEFAULT_FAILURE_MESSAGE,
	seed: 42,
	log: false,
};

/** Every authenticated route, by surface; handlers name methods the surfaces mix in below. */
const ROUTES = [...taskApi.routes, ...v2.routes, ...v1.routes];

function mergeOptions(given = {}) {
	const options = applyProfile(given);
	const o = { ...DEFAULT_OPTIONS, ...options };
	o.shapes = { ...DEFAULT_OPTIONS.shapes, ...(options.shapes || {}) };
	o.statuses = { ...DEFAULT_OPTIONS.statuses, ...(options.statuses || {}) };
	return o;
}

function decodeSegment(s) {
	try {
		return decodeURIComponent(s);
	} catch {
		return null;
	}
}

class Emulator extends EventEmitter {
	constructor(options = {}) {
		super();
		this.options = mergeOptions(options);
		this.timers = new Timers();
		this.store = new Store({
			accounts: options.accounts,
			users: options.users,
			keys: options.keys,
		});
		this.faults = new Faults(this.options.seed);
		for (const rule of this.options.faults || []) this.faults.add(rule, { watched: false });
		this.hostility = seededRandom(this.options.seed + 1);
		this.taskMap = new Map(); // /api tasks (kind 'task' | 'v2')
		this.jobMap = new Map(); // /v1 jobs (kind 'job')
		this.seq = 0;
		this.failNext = 0;
		this.buckets = new Map();
		this.quotaUsed = new Map();
		this.closed = false;
		this.servers = [];
		this.queue = new WorkQueue({
			workers: this.options.workers,
			order: () => this.options.completionOrder,
			seed: this.options.seed,
			timers: this.timers,
			queueDelayMs: this.options.queueDelayMs,
			run: (t) => this.runAsync(t),
		});
		this.webhooks = new WebhookSender({
			timers: this.timers,
			rich: () => this.options.fields === 'rich',
			timestampFormat: this.options.timestampFormat,
			retries: this.options.webhookRetries,
			retryDelayMs: this.options.webhookRetryDelayMs,
			timeoutMs: this.options.webhookTimeoutMs,
			onRecord: (r) => this.emit('delivery', r),
		});
		for (const w of this.options.webhooks || []) this.webhooks.addEndpoint(w);
		this.otherOriginLog = [];
		this.resetStats();
		if (this.options.backlog > 0) this.addFinishedTasks(this.options.backlog);
	}

	// ------------------------------------------------------------------ lifecycle
	async start() {
		const main = http.createServer((req, res) =>
			this.handle(req, res, this.options.separateApiServer ? 'main' : 'all'),
		);
		this.servers.push(main);
		await this.listen(main, this.options.port);
		this.url = this.urlOf(main);
		this.baseUrl = this.url;
		this.apiUrl = this.url;
		if (this.options.separateApiServer) {
			const api = http.createServer((req, res) => this.handle(req, res, 'v1'));
			this.servers.push(api);
			await this.listen(api, this.options.apiPort);
			this.apiUrl = this.urlOf(api);
		}
		if (this.options.otherOrigin) {
			const other = http.createServer((req, res) => this.handleOtherOrigin(req, res));
			this.servers.push(other);
			await this.listen(other, 0);
			this.otherOriginUrl = this.urlOf(other);
		}
		return this;
	}

	listen(server, port) {
		return new Promise((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, this.options.host, () => {
				server.off('error', reject);
				resolve();
			});
		});
	}

	/** The other origin (option `otherOrigin`): records the request, answers 403. */
	handleOtherOrigin(req, res) {
		this.otherOriginLog.push({
			method: req.method,
			url: req.url,
			headers: { ...req.headers },
			at: Date.now(),
		});
		if (this.otherOriginLog.length > 1000) this.otherOriginLog.shift();
		req.resume();
		req.on('end', () => {
			const body = JSON.stringify({
				error: 'forbidden',
				message: 'This server is not the OCR service',
			});
			res.writeHead(403, {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
			});
			res.end(body);
		});
	}

	urlOf(server) {
		const { port } = server.address();
		let host = this.options.host;
		if (host === '0.0.0.0' || host === '::' || !host) host = '127.0.0.1';
		if (host.includes(':')) host = `[${host}]`;
		return `http://${host}:${port}`;
	}

	async close() {
		if (this.closed) return;
		this.closed = true;
		this.queue.close();
		this.timers.close();
		await this.webhooks.close();
		await Promise.all(
			this.servers.map(
				(s) =>
					new Promise((resolve) => {
						s.close(() => resolve());
						s.closeAllConnections();
					}),
			),
		);
		this.removeAllListeners();
	}

	/** Back to the initial state: tasks, jobs, ledger, balances, keys, faults, deliveries, webhooks, stats. */
	reset() {
		this.taskMap.clear();
		this.jobMap.clear();
		this.queue.clear();
		this.store.reset();
		this.faults.clear();
		this.faults.reseed();
		for (const rule of this.options.faults || []) this.faults.add(rule, { watched: false });
		this.hostility = seededRandom(this.options.seed + 1);
		this.webhooks.abortAll();
		this.webhooks.deliveries.length = 0;
		this.webhooks.clearEndpoints();
		for (const w of this.options.webhooks || []) this.webhooks.addEndpoint(w);
		this.failNext = 0;
		this.buckets.clear();
		this.quotaUsed.clear();
		this.otherOriginLog = [];
		this.resetStats();
		if (this.options.backlog > 0) this.addFinishedTasks(this.options.backlog);
	}

	// ------------------------------------------------------------------ public helpers
	get keys() {
		return this.store.keysObject();
	}

	get tasks() {
		return [...this.taskMap.values()];
	}

	get jobs() {
		return [...this.jobMap.values()];
	}

	get deliveries() {
		return this.webhooks.deliveries;
	}

	getTask(id) {
		return this.taskMap.get(id) || this.jobMap.get(id);
	}

	/** The task (or job) as the HTTP API would return it. */
	taskView(id) {
		const t = this.getTask(id);
		if (!t) return undefined;
		return t.kind === 'job' ? this.jobView(t) : this.publicTask(t);
	}

	ledger(account) {
		return this.store.ledger(account);
	}

	balance(account) {
		return this.store.balance(account);
	}

	balances() {
		return this.store.balances();
	}

	setBalance(account, pages) {
		return this.store.setBalance(account, pages);
	}

	charges(account) {
		return this.store.charges(account);
	}

	pagesCharged(account) {
		return this.store.pagesCharged(account);
	}

	addKey(key, spec) {
		return this.store.addKey(key, spec);
	}

	removeKey(key) {
		return this.store.removeKey(key);
	}

	addAccount(name, spec) {
		return this.store.addAccount(name, spec);
	}

	addUser(name, spec) {
		return this.store.addUser(name, spec);
	}

	banUser(name, banned = true) {
		return this.store.banUser(name, banned);
	}

	failNextTasks(n = 1) {
		this.failNext += Number(n) || 0;
		return this.failNext;
	}

	pauseQueue() {
		this.queue.pause();
	}

	resumeQueue() {
		this.queue.resume();
	}

	fault(rule) {
		return this.faults.add(rule);
	}

	clearFaults() {
		this.faults.clear();
	}

	addWebhook(spec) {
		return this.webhooks.addEndpoint(spec);
	}

	clearWebhooks() {
		this.webhooks.clearEndpoints();
	}

	redeliver(index) {
		return this.webhooks.redeliver(index);
	}

	deliverRaw(spec) {
		return this.webhooks.deliverRaw(spec);
	}

	webhooksIdle() {
		return this.webhooks.idle();
	}

	resetStats() {
		this._stats = {
			requests: 0,
			byRoute: {},
			inFlight: this._stats ? this._stats.inFlight : 0,
			maxInFlight: 0,
			submissions: 0,
			polls: {},
			/** Every status read answered: { taskId, at (epoch ms), status }. */
			pollLog: [],
			tasksDone: 0,
			tasksFailed: 0,
			lostResponses: 0,
			faultsFired: 0,
			rateLimited: 0,
			lastPath: null,
		};
	}

	stats() {
		const s = this._stats;
		const polled = Object.values(s.polls);
		const total = polled.reduce((a, b) => a + b, 0);
		return {
			requests: s.requests,
			byRoute: { ...s.byRoute },
			inFlight: s.inFlight,
			maxInFlight: s.maxInFlight,
			submissions: s.submissions,
			polls: { ...s.polls },
			pollLog: [...s.pollLog],
			avgPollsPerTask: polled.length ? total / polled.length : 0,
			tasksDone: s.tasksDone,
			tasksFailed: s.tasksFailed,
			lostResponses: s.lostResponses,
			faultsFired: s.faultsFired,
			rateLimited: s.rateLimited,
			lastPath: s.lastPath,
		};
	}

	state() {
		return {
			url: this.url,
			apiUrl: this.apiUrl,
			stats: this.stats(),
			ledger: this.ledger(),
			balances: this.balances(),
			charges: this.charges(),
			deliveries: this.deliveries,
			taskCount: this.taskMap.size,
			jobCount: this.jobMap.size,
			tasks: this.tasks.map((t) => ({ ...this.publicTask(t, { list: true }), account: t.account })),
			jobs: this.jobs.map((j) => ({ ...this.jobView(j), account: j.account })),
			faults: this.faults.list(),
			webhooks: this.webhooks.endpoints,
			failNext: this.failNext,
			queueLength: this.queue.length,
		};
	}

	/**
	 * Resolves with the record once the task/job reaches done/failed (or `status`, canonical name).
	 * The timeout only guards a hang: a loaded machine must not trip it.
	 */
	waitForTask(id, { timeoutMs = 60_000, status } = {}) {
		const ok = (t) => t && (status ? t.status === status : FINAL.has(t.status));
		return new Promise((resolve, reject) => {
			const now = this.getTask(id);
			if (ok(now)) return resolve(now);
			const onTask = (t) => {
				if (t.taskId === id && ok(this.getTask(id))) {
					this.off('task', onTask);
					this.timers.clearTimeout(timer);
					resolve(this.getTask(id));
				}
			};
			const timer = this.timers.setTimeout(() => {
				this.off('task', onTask);
				reject(
					new Error(
						`task ${id} did not reach ${status || 'a final status'} within ${timeoutMs} ms`,
					),
				);
			}, timeoutMs);
			this.on('task', onTask);
		});
	}

	/** Polls `predicate()` until truthy (the timeout only guards a hang). */
	async waitFor(predicate, { timeoutMs = 60_000, intervalMs = 5 } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const v = await predicate();
			if (v) return v;
			if (Date.now() > deadline) throw new Error('waitFor: timed out');
			await new Promise((r) => setTimeout(r, intervalMs).unref());
		}
	}

	/**
	 * Resolves once no request is under way and none came for `quietMs`: what a client was doing
	 * (a poll's reads) is over, however long it took.
	 */
	async requestsIdle(quietMs, { timeoutMs = 300_000 } = {}) {
		let seen = this._stats.requests;
		let since = Date.now();
		await this.waitFor(
			() => {
				if (this._stats.requests !== seen || this._stats.inFlight > 0) {
					seen = this._stats.requests;
					since = Date.now();
				}
				return Date.now() - since >= quietMs;
			},
			{ timeoutMs, intervalMs: 100 },
		);
	}

	// ------------------------------------------------------------------ views
	statusName(s) {
		return this.options.statuses[s] || s;
	}

	publicTask(t, { list = false } = {}) {
		const v = { taskId: t.taskId, provider: t.provider, status: this.statusName(t.status) };
		if (t.status === 'done' && !list) v.resultText = t.resultText;
		v.metadata = JSON.parse(JSON.stringify(t.metadata || {}));
		if (this.options.fields !== 'rich') return v;
		Object.assign(v, {
			documentType: t.documentType,
			filename: t.filename,
			pages: t.pages,
			createdAt: t.createdAt,
			updatedAt: t.updatedAt,
		});
		if (t.completedAt) v.completedAt = t.completedAt;
		if (t.kind === 'v2') v.options = { ...t.options };
		if (t.status === 'done' && t.words && !list) v.words = t.words;
		if (t.status === 'failed') v.error = t.error;
		return v;
	}

	jobView(j) {
		const v = { id: j.taskId, status: this.statusName(j.status) };
		if (j.status === 'done') v.result = { ...j.result };
		if (this.options.fields !== 'rich') return v;
		Object.assign(v, {
			createdAt: j.createdAt,
			updatedAt: j.updatedAt,
			filename: j.filename,
			pages: j.pages,
			fields: { ...j.fields },
		});
		if (j.completedAt) v.completedAt = j.completedAt;
		if (j.status === 'failed') v.error = j.error;
		return v;
	}

	webhookData(t) {
		const d = { taskId: t.taskId, status: this.statusName(t.status) };
		if (this.options.fields !== 'rich') return d;
		Object.assign(d, {
			provider: t.provider,
			documentType: t.documentType,
			filename: t.filename,
			pages: t.pages,
		});
		if (t.kind === 'job') d.jobId = t.taskId;
		if (t.status === 'failed') d.error = t.error;
		return d;
	}

	// ------------------------------------------------------------------ HTTP plumbing
	send(ctx, status, headers, body) {
		const { res, req } = ctx;
		if (ctx.lost) {
			this._stats.lostResponses++;
			req.socket.destroy();
			return;
		}
		if (ctx.replaceAnswer) {
			// The service acted; what is in front of it answers something else (echo, wrongShape).
			const fault = ctx.replaceAnswer;
			ctx.replaceAnswer = null;
			this._stats.lostResponses++;
			return this.sendFault(ctx, fault);
		}
		if (ctx.actThenError) {
			// The service acted; the gateway in front of it answers with an error page instead.
			const fault = ctx.actThenError;
			ctx.actThenError = null;
			this._stats.lostResponses++;
			return this.send(
				ctx,
				Number(fault.status) || 502,
				{ 'content-type': 'text/html; charset=utf-8' },
				'<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
			);
		}
		if (res.headersSent || res.destroyed) return;
		const buf = Buffer.isBuffer(body)
			? body
			: Buffer.from(body == null ? '' : String(body), 'utf8');
		res.writeHead(status, { ...headers, 'content-length': buf.length });
		res.end(buf);
	}

	sendJson(ctx, status, obj, headers = {}) {
		this.send(
			ctx,
			status,
			{ 'content-type': 'application/json; charset=utf-8', ...headers },
			JSON.stringify(obj),
		);
	}

	sendError(ctx, status, code, message, headers = {}) {
		const shape =
			ctx.surface === 'v1'
				? this.options.shapes.v1Error || this.options.shapes.error
				: this.options.shapes.error;
		const p = errorPayload(shape, code, message);
		this.send(ctx, status, { 'content-type': p.contentType, ...headers }, p.body);
	}

	/** Sends an error and aborts the handler. */
	fail(ctx, status, code, message, headers) {
		this.sendError(ctx, status, code, message, headers);
		throw new HandledError(code);
	}

	matchRoute(method, segs, listener) {
		const allowed = (r) => {
			const isV1 = r.pattern[0] === 'v1';
			if (listener === 'all') return true;
			if (listener === 'v1') return isV1;
			return !isV1;
		};
		let pathMatched = null;
		for (const r of ROUTES) {
			if (!allowed(r) || r.pattern.length !== segs.length) continue;
			const params = {};
			let ok = true;
			for (let i = 0; i < segs.length; i++) {
				const p = r.pattern[i];
				if (p.startsWith(':')) {
					if (!segs[i]) {
						ok = false;
						break;
					}
					params[p.slice(1)] = segs[i];
				} else if (p !== segs[i]) {
					ok = false;
					break;
				}
			}
			if (!ok) continue;
			if (r.method === method) return { route: r, params };
			pathMatched = pathMatched || [];
			pathMatched.push(r.method);
		}
		if (pathMatched) return { methodNotAllowed: true, allow: pathMatched.join(', ') };
		const servable =
			listener === 'v1'
				? segs[0] === 'v1'
				: listener === 'main'
					? segs[0] === 'api'
					: segs[0] === 'api' || segs[0] === 'v1';
		return { notFound: true, needsAuth: servable };
	}

	async handle(req, res, listener) {
		const started = Date.now();
		const method = String(req.method || 'GET').toUpperCase();
		const rawUrl = req.url || '/';
		const qi = rawUrl.indexOf('?');
		const rawPath = qi >= 0 ? rawUrl.slice(0, qi) : rawUrl;
		const query = new URLSearchParams(qi >= 0 ? rawUrl.slice(qi + 1) : '');
		const segs = rawPath.split('/').slice(1);
		if (segs.length > 1 && segs[segs.length - 1] === '') segs.pop();
		const ctx = {
			req,
			res,
			method,
			rawPath,
			query,
			segs,
			listener,
			lost: false,
			surface: segs[0] === 'v1' ? 'v1' : 'api',
		};
		// A request-id header is "not shown" by the interface: only the 'rich' fields variant sends one.
		if (this.options.fields === 'rich') res.setHeader('x-request-id', randomId('req_', 6));
		if (this.options.log) {
			res.on('finish', () =>
				console.error(
					`[ocr-emulator] ${method} ${rawUrl} -> ${res.statusCode} (${Date.now() - started} ms)`,
				),
			);
		}
		if (segs[0] === '__emulator' && listener !== 'v1') {
			try {
				await this.handleAdmin(ctx);
			} catch (e) {
				if (!(e instanceof HandledError))
					this.sendJson(ctx, 500, { error: 'internal_error', message: String(e && e.message) });
			}
			return;
		}
		const m = this.matchRoute(method, segs, listener);
		const routeName = m.route ? m.route.name : `${method} ${rawPath}`;
		const s = this._stats;
		s.requests++;
		s.lastPath = rawPath;
		s.byRoute[routeName] = (s.byRoute[routeName] || 0) + 1;
		s.inFlight++;
		s.maxInFlight = Math.max(s.maxInFlight, s.inFlight);
		try {
			await this.process(ctx, m);
		} catch (e) {
			if (!(e instanceof HandledError)) {
				if (this.options.log) console.error('[ocr-emulator] handler error', e);
				this.sendError(ctx, 500, 'internal_error', `Internal error: ${e && e.message}`);
			}
		} finally {
			this._stats.inFlight--;
		}
	}

	async process(ctx, m) {
		const { req } = ctx;
		// 1. faults (infrastructure level: before auth and body)
		const fired = this.faults.take(ctx.method, ctx.rawPath, 'request');
		this._stats.faultsFired += fired.length;
		const terminal = fired.find((r) => r.kind !== 'latency');
		if (terminal && terminal.kind === 'reset') {
			req.socket.destroy();
			return;
		}
		const latency = fired
			.filter((r) => r.kind === 'latency')
			.reduce((a, r) => a + (Number(r.ms) || 0), 0);
		const slow = latency + this.routeLatency(m.route ? m.route.name : null);
		// A latency rule with `until` (a promise) holds its request until it settles, `ms` at most.
		const until = fired.filter((r) => r.kind === 'latency' && r.until).map((r) => r.until);
		if (until.length > 0)
			await Promise.race([Promise.all(until).catch(() => {}), this.timers.sleep(slow)]);
		else if (slow > 0) await this.timers.sleep(slow);
		if (this.closed) return;
		ctx.body = await readBody(req, this.options.maxBodyBytes);
		if (terminal) {
			if (terminal.kind === 'lostResponse') ctx.lost = true;
			else if (terminal.kind === 'actThenError') ctx.actThenError = terminal;
			else if (terminal.afterAct && (terminal.kind === 'echo' || terminal.kind === 'wrongShape'))
				ctx.replaceAnswer = terminal;
			else return this.sendFault(ctx, terminal);
		}
		// 2. auth: missing key -> invalid key -> banned -> scope
		if (m.notFound && !m.needsAuth)
			return this.sendError(ctx, 404, 'not_found', `No route for ${ctx.method} ${ctx.rawPath}`);
		const route = m.route;
		if (!route || route.auth !== false) {
			const a = this.store.authenticate(req.headers.authorization, route ? route.scope : null);
			if (a.error) return this.sendError(ctx, a.error.status, a.error.code, a.error.message);
			ctx.auth = a;
			this.checkRateLimit(ctx);
		}
		if (ctx.body.tooLarge)
			return this.sendError(
				ctx,
				413,
				'payload_too_large',
				`Request body exceeds ${this.options.maxBodyBytes} bytes`,
				{ connection: 'close' },
			);
		if (m.methodNotAllowed)
			return this.sendError(
				ctx,
				405,
				'method_not_allowed',
				`Method ${ctx.method} not allowed on ${ctx.rawPath}`,
				{ allow: m.allow },
			);
		if (!route)
			return this.sendError(ctx, 404, 'not_found', `No route for ${ctx.method} ${ctx.rawPath}`);
		const params = {};
		for (const [k, v] of Object.entries(m.params)) params[k] = decodeSegment(v);
		return this[route.handler](ctx, params);
	}

	/** The `latency` option's time for a route (a fixed ms, or seeded within [min, max]). */
	routeLatency(routeName) {
		const table = this.options.latency;
		if (!table) return 0;
		const spec = (routeName && table[routeName]) ?? table['*'];
		return this.pick(spec);
	}

	/** A number, or a seeded whole number within [min, max]. */
	pick(spec) {
		if (Array.isArray(spec)) {
			const [min, max] = spec.map(Number);
			return Math.round(min + this.hostility() * (max - min));
		}
		return Number(spec) || 0;
	}

	/**
	 * `listShift`: after a page of the list is answered, another client of the same account (the
	 * team member carol) submits tasks, so the list the node walks moves under it.
	 */
	shiftList(ctx) {
		const shift = this.options.listShift;
		if (!shift || !ctx.auth.account) return;
		if (shift.times !== undefined && !(shift.times-- > 0)) return;
		if (shift.forMs !== undefined) {
			shift.startedAt ??= Date.now();
			if (Date.now() - shift.startedAt > shift.forMs) return;
		}
		if (shift.probability != null && this.hostility() >= Number(shift.probability)) return;
		const n = this.pick(shift.tasks ?? 1);
		for (let i = 0; i < n; i++) this.submitAsOtherClient(ctx.auth.account.name);
	}

	/** The account's first member who is not its owner (the "other client"). */
	teamMember(accountName) {
		return [...this.store.users.values()].find(
			(u) => u.account === accountName && u.role === 'member' && !u.banned,
		);
	}

	/** One one-page task of the account's team member, charged to the shared balance and queued. */
	submitAsOtherClient(accountName) {
		const account = this.store.accounts.get(accountName);
		const user = this.teamMember(accountName);
		if (!account || !user || account.balance < 1) return undefined;
		const id = randomId('tsk_');
		this.store.charge(accountName, user.name, 1, id, 'POST /api/ocr');
		const buf = this.otherClientPdf ?? (this.otherClientPdf = docs.makePdf(['Another client']));
		const ctx = { auth: { account, user, key: { key: null } } };
		const t = this.createRecord(ctx, id, 'task', {
			provider: 'provider-async',
			documentType: 'general',
			filename: 'other-client.pdf',
			pages: 1,
			buf,
			type: 'pdf',
		});
		t.otherClient = true;
		this.queue.push(t);
		return t;
	}

	/**
	 * `n` finished tasks of the account's team member (no ledger entries, no webhooks), listed as
	 * the newest so far; the `backlog` option adds them at start, below everything submitted later.
	 * One in fifty failed.
	 */
	addFinishedTasks(n, accountName = 'acme') {
		const user = this.teamMember(accountName);
		if (!user) return;
		const pageTexts = ['An archived scan'];
		const at = new Date(Date.now() - 86_400_000).toISOString();
		for (let i = 0; i < n; i++) {
			const id = randomId('tsk_');
			this.taskMap.set(id, {
				taskId: id,
				kind: 'task',
				account: accountName,
				user: user.name,
				key: null,
				provider: 'provider-async',
				status: i % 50 === 49 ? 'failed' : 'done',
				documentType: 'general',
				filename: `archive-${i}.pdf`,
				pages: 1,
				fileType: 'pdf',
				size: 0,
				createdAt: at,
				updatedAt: at,
				completedAt: at,
				resultText: pageTexts[0],
				metadata: {},
				words: null,
				error: i % 50 === 49 ? this.options.failureMessage : null,
				options: null,
				fields: null,
				result: null,
				seq: ++this.seq,
				pageTexts,
				text: pageTexts[0],
				fate: null,
				otherClient: true,
			});
		}
	}

	checkRateLimit(ctx) {
		const rl = this.options.rateLimit;
		if (!rl || !(rl.perSecond > 0)) return;
		const burst = rl.burst || rl.perSecond;
		const now = Date.now();
		const id = ctx.auth.key.key;
		const b = this.buckets.get(id) || { tokens: burst, last: now };
		b.tokens = Math.min(burst, b.tokens + ((now - b.last) / 1000) * rl.perSecond);
		b.last = now;
		this.buckets.set(id, b);
		if (b.tokens >= 1) {
			b.tokens -= 1;
			return;
		}
		const retry = Math.max(1, Math.ceil((1 - b.tokens) / rl.perSecond));
		this._stats.rateLimited++;
		this.fail(
			ctx,
			429,
			'rate_limited',
			`Rate limit of ${rl.perSecond} requests per second exceeded`,
			{ 'retry-after': String(retry) },
		);
	}

	sendFault(ctx, r) {
		switch (r.kind) {
			case 'status': {
				const status = Number(r.status) || 503;
				const defaults = {
					400: 'bad_request',
					404: 'not_found',
					429: 'rate_limited',
					500: 'internal_error',
					502: 'bad_gateway',
					503: 'service_unavailable',
					504: 'timeout',
				};
				const code = r.code || defaults[status] || 'service_unavailable';
				const headers = r.retryAfter != null ? { 'retry-after': String(r.retryAfter) } : {};
				return this.sendError(
					ctx,
					status,
					code,
					r.message || `Injected ${status} ${code}`,
					headers,
				);
			}
			case 'rateLimit':
				return this.sendError(
					ctx,
					Number(r.status) || 429,
					r.code || 'rate_limited',
					r.message || 'Too many requests',
					{
						'retry-after': String(r.retryAfter != null ? r.retryAfter : 1),
					},
				);
			case 'quota':
				return this.sendError(
					ctx,
					Number(r.status) || 429,
					r.code || 'daily_quota_exceeded',
					r.message || 'Daily quota reached',
					r.retryAfter != null ? { 'retry-after': String(r.retryAfter) } : {},
				);
			case 'html':
				return this.send(
					ctx,
					Number(r.status) || 502,
					{ 'content-type': 'text/html; charset=utf-8' },
					'<html><body><h1>502 Bad Gateway</h1></body></html>',
				);
			case 'body':
				return this.send(
					ctx,
					Number(r.status) || 200,
					{ 'content-type': r.contentType || 'application/json' },
					typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? null),
				);
			case 'echo':
				// A proxy or debug endpoint: the request as it arrived, every header included.
				return this.send(
					ctx,
					Number(r.status) || 200,
					{ 'content-type': r.contentType || 'application/json' },
					JSON.stringify({
						method: ctx.method,
						path: ctx.rawPath,
						headers: { ...ctx.req.headers },
					}),
				);
			case 'redirect': {
				if (!this.otherOriginUrl)
					return this.sendError(ctx, 500, 'internal_error', 'redirect fault needs otherOrigin');
				const target = `${this.otherOriginUrl}${ctx.req.url || '/'}`;
				return this.send(ctx, Number(r.status) || 307, { location: target }, '');
			}
			case 'wrongShape': {
				const names = Object.keys(WRONG_SHAPES);
				const name = r.shape ?? names[Math.floor(this.hostility() * names.length)];
				const shape = WRONG_SHAPES[name];
				if (!shape) return this.sendError(ctx, 500, 'internal_error', `Unknown shape ${name}`);
				return this.send(
					ctx,
					Number(r.status) || 200,
					{ 'content-type': shape.contentType },
					shape.body,
				);
			}
			case 'truncatedJson':
				return this.send(
					ctx,
					Number(r.status) || 200,
					{ 'content-type': 'application/json' },
					'{"taskId": "tsk_',
				);
			default:
				return this.sendError(ctx, 500, 'internal_error', `Unknown fault kind ${r.kind}`);
		}
	}

	// ------------------------------------------------------------------ validation helpers
	readJson(ctx) {
		const ct = String(ctx.req.headers['content-type'] || '');
		if (this.options.requireJsonContentType && !/json/i.test(ct)) {
			this.fail(ctx, 415, 'unsupported_media_type', 'Content-Type must be application/json');
		}
		let json;
		try {
			json = JSON.parse(ctx.body.buffer.toString('utf8'));
		} catch (e) {
			this.fail(ctx, 400, 'bad_request', `Request body is not valid JSON: ${e.message}`);
		}
		if (!isPlainObject(json))
			this.fail(ctx, 400, 'bad_request', 'Request body must be a JSON object');
		return json;
	}

	decodeBase64(ctx, value) {
		if (typeof value !== 'string' || value.length === 0)
			this.fail(ctx, 400, 'bad_request', 'imageBase64 is required (base64 string or data URI)');
		let s = value.trim();
		if (/^data:/i.test(s)) {
			const m = /^data:([^;,]*)((?:;[^;,]*)*);base64,([\s\S]*)$/i.exec(s);
			if (!m)
				this.fail(
					ctx,
					400,
					'bad_request',
					'imageBase64 data URI must look like data:<mime>;base64,<data>',
				);
			s = m[3];
		}
		s = s.replace(/\s+/g, '');
		if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s) || s.length % 4 === 1)
			this.fail(ctx, 400, 'bad_request', 'imageBase64 is not valid base64');
		const buf = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
		return buf;
	}

	checkFile(ctx, buf, types) {
		if (!buf || buf.length === 0)
			this.fail(ctx, 400, 'bad_request', 'The document is empty (0 bytes)');
		if (buf.length > this.options.maxFileBytes)
			this.fail(
				ctx,
				413,
				'payload_too_large',
				`The document exceeds ${this.options.maxFileBytes} bytes`,
			);
		const type = docs.detectType(buf);
		if (!type || !types.includes(type)) {
			this.fail(
				ctx,
				415,
				'unsupported_media_type',
				`Unsupported file type${type ? ` "${type}"` : ' (unknown magic bytes)'}; accepted: ${types.join(', ')}`,
			);
		}
		return type;
	}

	validateSubmissionJson(ctx, json, { requireFilename }) {
		if (typeof json.imageBase64 !== 'string' || !json.imageBase64)
			this.fail(ctx, 400, 'bad_request', 'imageBase64 is required (base64 string or data URI)');
		if (json.filename !== undefined && json.filename !== null && typeof json.filename !== 'string')
			this.fail(ctx, 400, 'bad_request', 'filename must be a string');
		if (requireFilename && (typeof json.filename !== 'string' || !json.filename.trim()))
			this.fail(ctx, 400, 'bad_request', 'filename is required');
		if (json.provider !== undefined && !PROVIDERS.includes(json.provider))
			this.fail(ctx, 400, 'bad_request', `provider must be one of ${PROVIDERS.join(', ')}`);
		if (json.documentType !== undefined && !DOCUMENT_TYPES.includes(json.documentType))
			this.fail(
				ctx,
				400,
				'bad_request',
				`documentType must be one of ${DOCUMENT_TYPES.join(', ')}`,
			);
	}

	/**
	 * Quota + balance check, deduction (ledger), failCreation fault (refund + 500). Returns the new
	 * id. The ledger entry keeps the document's text (`document`), for tests to tell which item
	 * of a batch a charge belongs to; it is never part of an answer.
	 */
	charge(ctx, pages, prefix, endpoint, buf) {
		const { user, account, key } = ctx.auth;
		const quota = this.options.dailyQuota;
		if (quota != null && (this.quotaUsed.get(key.key) || 0) >= quota) {
			this.fail(ctx, 429, 'daily_quota_exceeded', `Daily quota of ${quota} submissions reached`);
		}
		const available = account ? account.balance : 0;
		if (!account || available < pages) {
			this.fail(
				ctx,
				402,
				'insufficient_pages',
				`Insufficient page balance: ${pages} page(s) required, ${available} available`,
			);
		}
		const id = randomId(prefix);
		const entry = this.store.charge(account.name, user.name, pages, id, endpoint);
		if (buf) entry.document = docs.extractPages(buf).join(docs.PAGE_SEPARATOR);
		if (this.faults.take(ctx.method, ctx.rawPath, 'create').length) {
			this._stats.faultsFired++;
			this.store.refund(account.name, user.name, pages, id, endpoint);
			this.fail(ctx, 500, 'internal_error', `Task creation failed; ${pages} page(s) were refunded`);
		}
		this.quotaUsed.set(key.key, (this.quotaUsed.get(key.key) || 0) + 1);
		this._stats.submissions++;
		return id;
	}

	createRecord(
		ctx,
		id,
		kind,
		{ provider, documentType, filename, pages, buf, type, options, fields },
	) {
		const pageTexts = docs.extractPages(buf);
		const text = pageTexts.join(docs.PAGE_SEPARATOR);
		let fate = null;
		if (/STUCK/.test(text)) fate = 'stuck';
		else if (this.failNext > 0) {
			this.failNext--;
			fate = 'fail';
		} else if (/FAIL/.test(text)) fate = 'fail';
		const now = new Date().toISOString();
		const t = {
			taskId: id,
			kind,
			account: ctx.auth.account.name,
			user: ctx.auth.user.name,
			key: ctx.auth.key.key,
			provider,
			status: 'queued',
			documentType,
			filename: filename || null,
			pages,
			fileType: type,
			size: buf.length,
			createdAt: now,
			updatedAt: now,
			completedAt: null,
			resultText: null,
			metadata: {},
			words: null,
			error: null,
			options: options || null,
			fields: fields || null,
			result: null,
			seq: ++this.seq,
			pageTexts,
			text,
			fate,
		};
		(kind === 'job' ? this.jobMap : this.taskMap).set(id, t);
		this.emit('task', t);
		return t;
	}

	exists(t) {
		return (t.kind === 'job' ? this.jobMap : this.taskMap).get(t.taskId) === t;
	}

	setStatus(t, status) {
		t.status = status;
		t.updatedAt = new Date().toISOString();
		this.emit('task', t);
	}

	async runAsync(t) {
		if (!this.exists(t) || this.closed) return;
		this.setStatus(t, 'processing');
		await this.timers.sleep(this.options.msPerPage * t.pages);
		this.finish(t);
	}

	finish(t) {
		if (!this.exists(t) || this.closed || t.fate === 'stuck') return;
		const now = new Date().toISOString();
		if (t.fate === 'fail') {
			t.error = this.options.failureMessage;
			t.status = 'failed';
			this._stats.tasksFailed++;
		} else {
			if (t.kind === 'job') {
				t.result = { text: t.text, markdown: rec.toMarkdown(t.pageTexts), pages: t.pages };
			} else {
				t.resultText =
					t.kind === 'v2' && t.options && t.options.format === 'markdown'
						? rec.toMarkdown(t.pageTexts)
						: t.text;
				if (t.documentType === 'invoice')
					t.metadata = { ...t.metadata, invoice: rec.parseInvoice(t.text) };
				if (t.provider === 'provider-sync') t.words = rec.makeWords(t.pageTexts);
			}
			t.status = 'done';
			this._stats.tasksDone++;
		}
		t.updatedAt = now;
		t.completedAt = now;
		this.emit('task', t);
		this.webhooks.emit(t.status === 'done' ? 'ocr.done' : 'ocr.failed', this.webhookData(t));
	}

	ownRecord(ctx, map, id) {
		const t = id == null ? null : map.get(id);
		if (!t || !ctx.auth.account || t.account !== ctx.auth.account.name) return null;
		return t;
	}

	retryAfterHeaders(t) {
		const n = this.options.pollRetryAfterSeconds;
		return n > 0 && !FINAL.has(t.status) ? { 'retry-after': String(n) } : {};
	}

	countPoll(id) {
		this._stats.polls[id] = (this._stats.polls[id] || 0) + 1;
	}
}

for (const surface of [taskApi, v2, v1, admin]) {
	const proto = surface.handlers.prototype;
	for (const name of Object.getOwnPropertyNames(proto)) {
		if (name !== 'constructor')
			Object.defineProperty(Emulator.prototype, name, Object.getOwnPropertyDescriptor(proto, name));
	}
}

module.exports = { Emulator, DEFAULT_OPTIONS, API_TYPES, V1_TYPES, ROUTES };
