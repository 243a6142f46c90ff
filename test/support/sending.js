'use strict';
/**
 * The operations that send a document to the service, which are the operations that bill: the
 * one table of them, by operation value, for every suite that runs each one (budget, pages,
 * split, invariants). Loading it compares it with the node's own list, `billingOperations()` in
 * nodes/DocumentOcr/actions/operations.ts (built, in dist/): an operation that bills and is not
 * here, or one here that does not bill, fails every suite that uses the table, naming it — so a
 * new operation that bills is run by every one of them, or none can run.
 *
 *   label      the operation as the node's menu shows it;
 *   params(o)  its parameters, binary input by default, `o` over them (the Input Type's fields,
 *              `options`, ...); `o` is spread, so `options` stays the caller's object;
 *   route      the request that sends the document (a key of the emulator's `stats().byRoute`);
 *   id, text   the output fields with the service's ID and the text (undefined: it has none —
 *              Recognize and Extract answer with no ID, Extract and Job → Create with no text);
 *   waits      it has Wait for Completion (on by default);
 *   remembers  it has Skip Submitted Documents.
 */
const path = require('node:path');
const h = require('../helpers');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../../dist');

/** The schema Extract is given: a string and a number field. */
const SCHEMA = JSON.stringify({
	type: 'object',
	properties: { invoiceNumber: { type: 'string' }, total: { type: 'number' } },
});

const SENDING = {
	submit: {
		label: 'Task → Submit',
		params: (o) => h.submit(o),
		route: 'POST /api/ocr',
		id: 'taskId',
		text: 'resultText',
		waits: true,
		remembers: true,
	},
	submitV2: {
		label: 'Task → Submit (V2)',
		params: (o) => h.submit({ operation: 'submitV2', format: 'markdown', ...o }),
		route: 'POST /api/v2/ocr',
		id: 'taskId',
		text: 'resultText',
		waits: true,
		remembers: true,
	},
	markdown: {
		label: 'Document → Convert to Markdown',
		params: (o) => h.doc('markdown', o),
		route: 'POST /v1/markdown',
		id: 'id',
		text: 'markdown',
	},
	recognize: {
		label: 'Document → Recognize',
		params: (o) => h.doc('recognize', o),
		route: 'POST /v1/ocr',
		text: 'text',
	},
	extract: {
		label: 'Document → Extract',
		params: (o) => h.doc('extract', { schema: SCHEMA, ...o }),
		route: 'POST /v1/extract',
	},
	create: {
		label: 'Job → Create',
		params: (o) => h.job('create', { jobFields: {}, ...o }),
		route: 'POST /v1/jobs',
		id: 'id',
		waits: true,
		remembers: true,
	},
};

/** Requests that sent a document, all operations together, since the emulator started. */
const posts = (emu) =>
	Object.values(SENDING).reduce((sum, { route }) => sum + h.hits(emu, route), 0);

/** What the table lacks and holds beyond the operations that bill, by the node's own list. */
function unmatched() {
	const { billingOperations } = require(path.join(DIST, 'nodes/DocumentOcr/actions/operations'));
	const bills = billingOperations();
	return {
		missing: bills.filter((value) => !(value in SENDING)),
		extra: Object.keys(SENDING).filter((value) => !bills.includes(value)),
	};
}

const { missing, extra } = unmatched();
if (missing.length > 0 || extra.length > 0)
	throw new Error(
		[
			missing.length > 0 &&
				`operations that bill and are not in test/support/sending.js: ${missing.join(', ')} (add each, with its parameters and route)`,
			extra.length > 0 &&
				`operations in test/support/sending.js that do not bill (billingOperations()): ${extra.join(', ')}`,
		]
			.filter(Boolean)
			.join('; '),
	);

module.exports = { SENDING, SCHEMA, posts, unmatched };
