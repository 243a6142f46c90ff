'use strict';
/**
 * Secret scan over every test run: the API keys and webhook secrets handed to the nodes must
 * never appear in node output, error messages, descriptions, error context or logs.
 *
 *  - `register(value)` adds a secret (the harness registers every credential it is given);
 *  - the harness installs `capturingLogger` as n8n's logger (n8n-core's DI Logger and
 *    n8n-workflow's LoggerProxy), so every line any code logs during a run is scanned;
 *  - `scan(where, value)` scans a node's output / error; a leak throws, failing the test.
 *
 * Counters are written per jest worker to $OCR_SECRET_SCAN_DIR; `summary.js` (jest
 * globalTeardown) adds them up and prints one line.
 */
const fs = require('node:fs');
const path = require('node:path');

const secrets = new Set();
// jest loads this module afresh for every test file: one counter file per load.
const fileId = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const counts = { scans: 0, logLines: 0, bytes: 0, leaks: 0, planted: 0 };
/** While set, leaks are the scan's self-check (planted on purpose), counted apart. */
let planting = false;
const leaks = [];

function register(value) {
	if (typeof value !== 'string' || value.length < 6) return;
	secrets.add(value);
	// The forms a key could travel in: as is, Base64 (Basic auth, data URIs), URL-encoded.
	secrets.add(Buffer.from(value).toString('base64').replace(/=+$/, ''));
	if (encodeURIComponent(value) !== value) secrets.add(encodeURIComponent(value));
}

/** JSON of anything: circular references, Buffers and functions reduced to markers. */
function serialise(value) {
	const seen = new WeakSet();
	try {
		return (
			JSON.stringify(value, (_key, v) => {
				if (typeof v === 'bigint') return String(v);
				if (typeof v === 'function') return '[function]';
				if (v && typeof v === 'object') {
					if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `[${v.length} bytes]`;
					if (v.type === 'Buffer' && Array.isArray(v.data)) return `[${v.data.length} bytes]`;
					if (seen.has(v)) return '[circular]';
					seen.add(v);
					if (v instanceof Error) {
						const own = {};
						for (const k of Object.getOwnPropertyNames(v)) own[k] = v[k];
						return own;
					}
				}
				return v;
			}) ?? ''
		);
	} catch (error) {
		return `[unserialisable: ${error.message}]`;
	}
}

function flush() {
	const dir = process.env.OCR_SECRET_SCAN_DIR;
	if (!dir) return;
	try {
		fs.writeFileSync(
			path.join(dir, `${fileId}.json`),
			JSON.stringify({ ...counts, leakDetails: leaks }),
		);
	} catch {
		// The summary is informative only; the test failing on a leak is the check.
	}
}

function find(text) {
	for (const secret of secrets) if (text.includes(secret)) return secret;
	return undefined;
}

/** Scans `value` (any shape); throws when a registered secret is in it. */
function scan(where, value) {
	const text = typeof value === 'string' ? value : serialise(value);
	counts.scans++;
	counts.bytes += text.length;
	const secret = find(text);
	if (secret) {
		if (planting) counts.planted++;
		else counts.leaks++;
		const at = text.indexOf(secret);
		if (!planting)
			leaks.push({ where, context: text.slice(Math.max(0, at - 60), at + secret.length + 20) });
		flush();
		throw new Error(
			`SECRET LEAK in ${where}: "${secret.slice(0, 4)}…" appears in: ${text.slice(Math.max(0, at - 80), at)}[secret]`,
		);
	}
	flush();
}

/** Log lines seen during the current run; a leak there fails the run that logged it. */
const pendingLogLeaks = [];

function logLine(level, message, meta) {
	counts.logLines++;
	const text = `${level} ${typeof message === 'string' ? message : serialise(message)} ${meta === undefined ? '' : serialise(meta)}`;
	counts.bytes += text.length;
	const secret = find(text);
	if (secret) {
		if (planting) counts.planted++;
		else {
			counts.leaks++;
			leaks.push({ where: `log (${level})`, context: text.slice(0, 200) });
		}
		pendingLogLeaks.push(`log (${level}): ${text.slice(0, 200)}`);
	}
	if (process.env.OCR_TEST_LOG) process.stderr.write(`[n8n ${level}] ${text}\n`);
	lines.push({ level, text });
	for (const listener of listeners) listener(level, message, meta);
	if (lines.length > 5000) lines.splice(0, lines.length - 5000);
}

/** Recent log lines (bounded), for tests that assert on logging. */
const lines = [];
/** Functions called with (level, message, meta) for every log line. */
const listeners = new Set();

/** Throws if a log line of the run just finished contained a secret. */
function assertLogsClean() {
	flush();
	if (pendingLogLeaks.length) {
		const first = pendingLogLeaks.splice(0);
		throw new Error(`SECRET LEAK in ${first[0]}`);
	}
}

/** Runs `fn` (the scan's self-check): the leaks it plants are counted as planted, not as leaks. */
async function planted(fn) {
	planting = true;
	try {
		return await fn();
	} finally {
		planting = false;
		flush();
	}
}

/** A logger with n8n's Logger interface that records (never prints) every line. */
const capturingLogger = {
	error: (message, meta) => logLine('error', message, meta),
	warn: (message, meta) => logLine('warn', message, meta),
	info: (message, meta) => logLine('info', message, meta),
	debug: (message, meta) => logLine('debug', message, meta),
	verbose: (message, meta) => logLine('verbose', message, meta),
	scoped: () => capturingLogger,
};

module.exports = {
	register,
	scan,
	serialise,
	assertLogsClean,
	capturingLogger,
	lines,
	listeners,
	planted,
	counts,
};
