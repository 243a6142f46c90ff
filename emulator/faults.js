'use strict';
/**
 * Fault injection rules.
 *   rule = { method?, path? (string prefix | RegExp | { regex, flags }), kind, status?, retryAfter?,
 *            ms?, times?, every?, probability?, code?, message? }
 * kinds: status | rateLimit | quota | reset | latency | lostResponse | failCreation | html | truncatedJson
 *        | body (any answer: { status?, contentType?, body } — a string, or JSON for anything else)
 *        | actThenError (the request is handled — a task created and charged — and then answered
 *          with { status? } (502 by default) and a gateway's HTML page instead of the real answer)
 *        | echo (a proxy or debug endpoint answering with the request it received — method, path
 *          and every header, the Authorization header included: { status? (200), contentType? })
 *        | redirect (a redirect to the same path at another origin, the emulator's second
 *          listener `emu.otherOriginUrl` (option `otherOrigin: true`): { status? (307) })
 *        | wrongShape (a 2xx whose body is not what the route answers: `{}`, `[]`, `null`, an HTML
 *          page or a JSON string, drawn with the seeded PRNG unless { shape } names one)
 * afterAct: with echo or wrongShape, the request is handled first (a submission created and
 *           charged) and the answer then replaced, as actThenError does.
 * times: apply to the next N matching requests (default 1; unlimited when `every` or
 *        `probability` is given and `times` is not). every: fire on every k-th match.
 * probability: fire with that probability (seeded PRNG, option `seed`).
 * until: with latency, a promise: the request is held until it settles (`ms` the longest), so
 *        that a test orders two events by what happened, not by a machine's speed.
 * failCreation rules are consulted only at the moment a submission has been charged.
 * optional: the rule may never fire (a race the test allows either way). Every other rule added by
 *           `emu.fault()` is watched: `takeUnfired()` names those that never fired, so that a test
 *           whose fault missed its request fails instead of passing untested (test/helpers.js).
 */
const { seededRandom } = require('./util.js');

const FAULT_KINDS = [
	'status',
	'rateLimit',
	'quota',
	'reset',
	'latency',
	'lostResponse',
	'actThenError',
	'failCreation',
	'html',
	'truncatedJson',
	'body',
	'echo',
	'redirect',
	'wrongShape',
];

/** The bodies of a wrong-shaped 2xx (`wrongShape`), by name. */
const WRONG_SHAPES = {
	emptyObject: { contentType: 'application/json', body: '{}' },
	array: { contentType: 'application/json', body: '[]' },
	null: { contentType: 'application/json', body: 'null' },
	html: {
		contentType: 'text/html; charset=utf-8',
		body: '<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>',
	},
	string: { contentType: 'application/json', body: '"ok"' },
};

function normalisePath(p) {
	if (p === undefined || p === null || p === '') return null;
	if (p instanceof RegExp) return p;
	if (typeof p === 'object' && typeof p.regex === 'string')
		return new RegExp(p.regex, p.flags || '');
	if (typeof p === 'string') return p;
	throw new Error('fault rule "path" must be a string prefix, a RegExp or { regex, flags }');
}

class Faults {
	constructor(seed = 42) {
		this.seed = seed;
		this.random = seededRandom(seed);
		this.rules = [];
		this.nextId = 1;
		this.log = []; // { id, kind, method, path, at }
		this.watched = []; // the rules added since the last takeUnfired(), fired or not
	}

	/** Adds a rule; `watched: false` for the standing rules of the emulator's options. */
	add(rule, { watched = true } = {}) {
		if (!rule || !FAULT_KINDS.includes(rule.kind))
			throw new Error(`fault rule "kind" must be one of ${FAULT_KINDS.join(', ')}`);
		const r = {
			...rule,
			id: this.nextId++,
			method: rule.method ? String(rule.method).toUpperCase() : null,
			path: normalisePath(rule.path),
			seen: 0,
			fired: 0,
		};
		const unlimited = r.every != null || r.probability != null;
		r.remaining = r.times != null ? Number(r.times) : unlimited ? Infinity : 1;
		if (r.every != null && !(Number(r.every) >= 1))
			throw new Error('fault rule "every" must be >= 1');
		this.rules.push(r);
		if (watched) this.watched.push(r);
		return r;
	}

	/**
	 * The watched rules that have not fired (`optional` ones aside), and a fresh watch: a rule is
	 * named once, by the check that follows its test, even after `clear()` or `reset()` dropped it.
	 */
	takeUnfired() {
		const unfired = this.watched.filter((r) => r.fired === 0 && !r.optional);
		this.watched = [];
		return unfired;
	}

	clear() {
		this.rules = [];
	}

	reseed(seed = this.seed) {
		this.random = seededRandom(seed);
	}

	matches(r, method, path) {
		if (r.method && r.method !== method) return false;
		if (r.path === null) return true;
		if (r.path instanceof RegExp) {
			r.path.lastIndex = 0;
			return r.path.test(path);
		}
		return path.startsWith(r.path);
	}

	/**
	 * Returns the rules that fire for this request (consuming them).
	 * phase 'request': every kind but failCreation; phase 'create': failCreation only.
	 */
	take(method, path, phase = 'request') {
		const fired = [];
		for (const r of this.rules) {
			const isCreate = r.kind === 'failCreation';
			if ((phase === 'create') !== isCreate) continue;
			if (r.remaining <= 0 || !this.matches(r, method, path)) continue;
			r.seen++;
			let fire = r.every != null ? r.seen % Number(r.every) === 0 : true;
			if (fire && r.probability != null) fire = this.random() < Number(r.probability);
			if (!fire) continue;
			r.remaining--;
			r.fired++;
			fired.push(r);
			this.log.push({ id: r.id, kind: r.kind, method, path, at: new Date().toISOString() });
		}
		this.rules = this.rules.filter((r) => r.remaining > 0);
		return fired;
	}

	list() {
		return this.rules.map((r) => ({
			...r,
			path: r.path instanceof RegExp ? { regex: r.path.source, flags: r.path.flags } : r.path,
		}));
	}
}

module.exports = { Faults, FAULT_KINDS, WRONG_SHAPES };
