'use strict';
/** Small shared helpers: ids, tracked timers, body reading, seeded PRNG, XML escaping. */
const crypto = require('node:crypto');

function randomId(prefix, bytes = 8) {
	return prefix + crypto.randomBytes(bytes).toString('hex');
}

/** Tracked, unref'd timers; clear() cancels all of them (pending sleeps then never resolve). */
class Timers {
	constructor() {
		this.set = new Set();
		this.closed = false;
	}
	setTimeout(fn, ms) {
		if (this.closed) return null;
		const t = setTimeout(
			() => {
				this.set.delete(t);
				fn();
			},
			Math.max(0, ms || 0),
		);
		if (typeof t.unref === 'function') t.unref();
		this.set.add(t);
		return t;
	}
	clearTimeout(t) {
		if (!t) return;
		clearTimeout(t);
		this.set.delete(t);
	}
	sleep(ms) {
		return new Promise((resolve) => {
			this.setTimeout(resolve, ms);
		});
	}
	clearAll() {
		for (const t of this.set) clearTimeout(t);
		this.set.clear();
	}
	close() {
		this.closed = true;
		this.clearAll();
	}
}

/**
 * Reads the whole request body. Keeps at most `limit` bytes; if more arrive the rest is
 * drained and `tooLarge` is set (so a 413 can be sent on a clean connection).
 */
function readBody(req, limit) {
	return new Promise((resolve) => {
		const chunks = [];
		let size = 0;
		let tooLarge = false;
		const declared = Number(req.headers['content-length']);
		if (Number.isFinite(declared) && declared > limit) tooLarge = true;
		req.on('data', (c) => {
			size += c.length;
			if (tooLarge || size > limit) {
				tooLarge = true;
				return;
			}
			chunks.push(c);
		});
		const done = () =>
			resolve({ buffer: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), size, tooLarge });
		req.on('end', done);
		req.on('error', done);
		req.on('close', () => {
			if (!req.complete) done();
		});
	});
}

/** mulberry32 */
function seededRandom(seed = 42) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function xmlEscape(s) {
	return String(s)
		.replace(/[^\x09\x0a\x0d\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}

module.exports = { randomId, Timers, readBody, seededRandom, xmlEscape };
