'use strict';
/** Shared test plumbing: an emulator per test file, items with real documents, node parameters. */
const { startEmulator } = require('../emulator');
const documents = require('../emulator/documents');
const { runNode, readBinary, testCredential } = require('./harness');

const FULL_KEY = 'ocr_test_full';

function binaryItem(bytes, fileName, mimeType = 'application/pdf', json = {}, property = 'data') {
	return { json, binary: { [property]: { base64: bytes.toString('base64'), fileName, mimeType } } };
}

function pdfItem(text = 'Hello OCR', fileName = 'hello.pdf', json = {}) {
	return binaryItem(documents.makePdf([text]), fileName, 'application/pdf', json);
}

function credentials(emu, apiKey = FULL_KEY, extra = {}) {
	return { apiKey, baseUrl: emu.url, apiUrl: '', ...extra };
}

const submit = (overrides = {}) => ({
	resource: 'task',
	operation: 'submit',
	documentSource: 'binary',
	binaryPropertyName: 'data',
	fileName: '',
	provider: 'provider-async',
	documentType: 'general',
	waitForCompletion: true,
	options: {},
	...overrides,
});

const task = (operation, overrides = {}) => ({ resource: 'task', operation, ...overrides });

/** Document (/v1) operation parameters, binary input. */
const doc = (operation, overrides = {}) => ({
	resource: 'document',
	operation,
	documentSource: 'binary',
	binaryPropertyName: 'data',
	fileName: '',
	options: {},
	...overrides,
});

/** Job (/v1/jobs) operation parameters, binary input. */
const job = (operation, overrides = {}) => ({
	resource: 'job',
	operation,
	documentSource: 'binary',
	binaryPropertyName: 'data',
	options: {},
	...overrides,
});

/**
 * Runs the Document OCR node once; resolves to { output, error, status, run }. `mode`: n8n's
 * execution mode ('manual' unless given; 'cli' is a production run by `n8n execute`);
 * `typeVersion`: the node's version (1, as the suites' workflows were saved, unless given).
 */
async function run(
	emu,
	parameters,
	items = [{ json: {} }],
	{
		apiKey = FULL_KEY,
		continueOnFail = false,
		creds,
		staticData,
		saved,
		workflowId,
		mode,
		typeVersion = 1,
	} = {},
) {
	const handle = runNode({
		parameters,
		items,
		credentials: creds ?? credentials(emu, apiKey),
		nodeSettings: {
			typeVersion,
			...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		},
		staticData,
		saved,
		workflowId,
		mode,
	});
	return await handle.promise;
}

/** Count of requests the emulator received on a route, e.g. 'POST /api/ocr'. */
function hits(emu, route) {
	return emu.stats().byRoute[route] ?? 0;
}

/** The submit charges in the ledger of an account (refunds subtracted). */
function netCharged(emu, account = 'acme') {
	return 0 - emu.ledger(account).reduce((sum, e) => sum + e.delta, 0);
}

async function withEmulator(options = {}) {
	return await startEmulator({ workers: 2, msPerPage: 10, syncMsPerPage: 5, ...options });
}

/** A fault rule as a test wrote it: `#3 POST /api/ocr status 400`. */
const faultName = (r) =>
	[
		`#${r.id}`,
		r.method ?? 'any method',
		r.path instanceof RegExp ? String(r.path) : (r.path ?? 'any path'),
		r.kind,
		r.status,
	]
		.filter((part) => part !== undefined)
		.join(' ');

/**
 * Fails when a fault the test added with `emu.fault()` never fired: a fault that misses its
 * request (a wrong path or method, a request the node no longer sends) leaves the test checking
 * a run without the fault, which would pass untested. A rule that may rightly not fire says
 * `optional: true`. Checks the rules added since the last check (by `useEmulator`, after each test).
 */
function expectFaultsFired(emu) {
	const unfired = emu.faults.takeUnfired();
	if (unfired.length === 0) return;
	throw new Error(
		`${unfired.length === 1 ? 'a fault' : 'faults'} of this test never fired: ${unfired.map(faultName).join('; ')} (fix the rule's method or path, or mark it \`optional: true\` with a comment why)`,
	);
}

/**
 * Starts an emulator for the test file (or for each test with `perTest`) and stops it after;
 * returns a stand-in that always points at the current one. After each test, the faults it added
 * must have fired (`expectFaultsFired`).
 */
function useEmulator({ perTest = false, ...options } = {}) {
	let current;
	const start = async () => {
		current = await withEmulator(options);
	};
	const stop = async () => {
		await current?.close();
		current = undefined;
	};
	// Declared before `stop`: jest runs a block's afterEach hooks in the order they are declared.
	afterEach(() => {
		if (current) expectFaultsFired(current);
	});
	if (perTest) {
		beforeEach(start);
		afterEach(stop);
	} else {
		beforeAll(start);
		afterAll(stop);
	}
	return new Proxy(
		{},
		{
			get(_target, property) {
				if (!current) throw new Error('the emulator is not running (use it inside a test)');
				const value = current[property];
				return typeof value === 'function' ? value.bind(current) : value;
			},
		},
	);
}

/** The log lines n8n and the nodes wrote lately, as { level, text } (test/harness/secrets.js). */
function secretsLog() {
	return require('./harness/secrets').lines;
}

module.exports = {
	FULL_KEY,
	secretsLog,
	binaryItem,
	pdfItem,
	credentials,
	submit,
	task,
	doc,
	job,
	run,
	hits,
	netCharged,
	withEmulator,
	useEmulator,
	expectFaultsFired,
	documents,
	readBinary,
	testCredential,
};
