'use strict';
/**
 * Signed webhook deliveries.
 *
 * Body (the reference does not show it): { event: 'ocr.done'|'ocr.failed', data: {…} }; with
 *   `rich` also an event id and createdAt: { id: 'evt_…', event, createdAt: ISO, data }.
 * Headers: Content-Type: application/json, X-Webhook-Timestamp, X-Webhook-Nonce (16 random bytes, hex),
 *          X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, `${ts}.${nonce}.${rawBody}`)>,
 *          User-Agent; with `rich` also X-Webhook-Event and X-Webhook-Id (the event id).
 * Each attempt gets a fresh timestamp + nonce (and thus signature); the body is identical.
 * Non-2xx or network error -> retried up to `retries` more times, `retryDelayMs` apart.
 * Every attempt is recorded: { index, url, event, eventId, taskId, status (0 = network error),
 *   error?, attempt, nonce, timestamp, at, body, headers, replay?, raw? }.
 */
const crypto = require('node:crypto');
const { Agent, request } = require('undici');
const { signatureHeader } = require('../sign.js');
const { randomId } = require('../util.js');

const EVENTS = ['ocr.done', 'ocr.failed'];

function makeTimestamp(format) {
	const now = Date.now();
	if (format === 'ms') return String(now);
	if (format === 'iso') return new Date(now).toISOString();
	return String(Math.floor(now / 1000));
}

class WebhookSender {
	constructor({
		timers,
		timestampFormat = 'seconds',
		retries = 3,
		retryDelayMs = 200,
		timeoutMs = 5000,
		rich = false,
		onRecord,
	} = {}) {
		// Read at each delivery (a function), so a test may switch profiles on a running emulator.
		this.rich = typeof rich === 'function' ? rich : () => rich;
		this.timers = timers;
		this.timestampFormat = timestampFormat;
		this.retries = retries;
		this.retryDelayMs = retryDelayMs;
		this.timeoutMs = timeoutMs;
		this.endpoints = [];
		this.deliveries = [];
		this.pending = new Set();
		this.controllers = new Set();
		this.onRecord = onRecord || (() => {});
		this.closed = false;
		this.agent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000, connections: 16 });
	}

	addEndpoint({ url, secret, events } = {}) {
		if (!url) throw new Error('webhook "url" is required');
		const ep = {
			url: String(url),
			secret: secret == null ? '' : String(secret),
			events: Array.isArray(events) && events.length ? [...events] : [...EVENTS],
		};
		this.endpoints.push(ep);
		return ep;
	}

	clearEndpoints() {
		this.endpoints = [];
	}

	/** Fire-and-forget: deliver `event` with `data` to every subscribed endpoint. */
	emit(event, data) {
		const envelope = this.rich()
			? { id: randomId('evt_'), event, createdAt: new Date().toISOString(), data }
			: { event, data };
		const body = JSON.stringify(envelope);
		for (const ep of this.endpoints) {
			if (!ep.events.includes(event)) continue;
			this.track(this.deliver(ep, event, envelope.id, data && data.taskId, body));
		}
		return envelope;
	}

	track(p) {
		const wrapped = p.catch(() => {}).finally(() => this.pending.delete(wrapped));
		this.pending.add(wrapped);
		return wrapped;
	}

	/** Resolves when no delivery (including retries) is in progress. */
	async idle() {
		while (this.pending.size) await Promise.all([...this.pending]);
	}

	async send(url, headers, body) {
		const ac = new AbortController();
		this.controllers.add(ac);
		const t = this.timers.setTimeout(
			() => ac.abort(new Error('webhook delivery timed out')),
			this.timeoutMs,
		);
		try {
			const res = await request(url, {
				method: 'POST',
				headers,
				body,
				dispatcher: this.agent,
				signal: ac.signal,
			});
			const text = await res.body.text();
			return { status: res.statusCode, body: text };
		} catch (e) {
			return { status: 0, error: e && e.message ? e.message : String(e) };
		} finally {
			this.timers.clearTimeout(t);
			this.controllers.delete(ac);
		}
	}

	push(rec) {
		rec.index = this.deliveries.length;
		this.deliveries.push(rec);
		return rec;
	}

	async deliver(ep, event, eventId, taskId, body) {
		const max = 1 + Math.max(0, Number(this.retries) || 0);
		for (let attempt = 1; attempt <= max && !this.closed; attempt++) {
			const timestamp = makeTimestamp(this.timestampFormat);
			const nonce = crypto.randomBytes(16).toString('hex');
			const headers = {
				'content-type': 'application/json',
				'user-agent': 'ocr-emulator-webhooks/1.0',
				...(this.rich() ? { 'x-webhook-event': event, 'x-webhook-id': eventId } : {}),
				'x-webhook-timestamp': timestamp,
				'x-webhook-nonce': nonce,
				'x-webhook-signature': signatureHeader(ep.secret, timestamp, nonce, body),
			};
			const rec = this.push({
				url: ep.url,
				event,
				eventId,
				taskId,
				status: null,
				attempt,
				nonce,
				timestamp,
				at: new Date().toISOString(),
				body,
				headers,
			});
			const r = await this.send(ep.url, headers, body);
			rec.status = r.status;
			if (r.body !== undefined) rec.response = String(r.body).slice(0, 500);
			if (r.error) rec.error = r.error;
			this.onRecord(rec);
			if (r.status >= 200 && r.status < 300) return rec;
			if (attempt < max && !this.closed) await this.timers.sleep(this.retryDelayMs);
		}
		return null;
	}

	/** Re-sends delivery `index` byte-for-byte (same body and headers: a replay). */
	async redeliver(index) {
		const old = this.deliveries[index];
		if (!old) throw new Error(`no delivery #${index}`);
		const rec = this.push({
			...old,
			status: null,
			replay: true,
			replayOf: index,
			at: new Date().toISOString(),
		});
		delete rec.error;
		let result;
		await this.track(
			this.send(old.url, old.headers, old.body).then((r) => {
				result = r;
			}),
		);
		rec.status = result ? result.status : 0;
		if (result && result.error) rec.error = result.error;
		this.onRecord(rec);
		return rec;
	}

	/** Sends an arbitrary (e.g. forged) delivery. Returns { status, body, error? }. */
	async deliverRaw({ url, body, headers = {} }) {
		const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
		const h = { 'content-type': 'application/json', ...headers };
		const rec = this.push({
			url,
			event: null,
			taskId: null,
			status: null,
			attempt: 1,
			nonce: h['x-webhook-nonce'] || null,
			timestamp: h['x-webhook-timestamp'] || null,
			at: new Date().toISOString(),
			body: String(raw),
			headers: h,
			raw: true,
		});
		let result;
		await this.track(
			this.send(url, h, raw).then((r) => {
				result = r;
			}),
		);
		result = result || { status: 0, error: 'not sent' };
		rec.status = result.status;
		if (result.error) rec.error = result.error;
		this.onRecord(rec);
		return result;
	}

	abortAll() {
		for (const ac of this.controllers) ac.abort(new Error('emulator closed'));
	}

	async close() {
		this.closed = true;
		this.abortAll();
		await this.agent.destroy().catch(() => {});
	}
}

module.exports = { WebhookSender, makeTimestamp, EVENTS };
