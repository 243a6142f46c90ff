'use strict';
/**
 * An operation's parameters and items with a document from each source the node reads — a binary
 * item, Base64 in a field, a URL on a test file server — for the suites that run every operation
 * that sends a document from every source (pages-selection.test.js, split.test.js).
 */
const h = require('../helpers');

/**
 * The parameters (from `params`, given the source's fields and `options`) and the items of a run
 * with `bytes` as the document from `source` ('binary', 'base64' or 'url': put on `files`).
 */
function withDocument({ params, source, bytes, options, name, files, tag = 'doc' }) {
	if (source === 'binary')
		return { params: params({ options }), items: [h.binaryItem(bytes, name)] };
	if (source === 'base64')
		return {
			params: params({
				documentSource: 'base64',
				base64Data: bytes.toString('base64'),
				fileName: name,
				options,
			}),
			items: [{ json: {} }],
		};
	const at = `/${tag}-${Math.random().toString(36).slice(2)}/${name}`;
	files.put(at, bytes, { 'content-type': 'application/pdf' });
	return {
		params: params({ documentSource: 'url', documentUrl: files.url(at), options }),
		items: [{ json: {} }],
	};
}

/**
 * A scan-like PDF (test/split*.test.js): `pages` pages of `bytes` bytes of image each, page i's
 * text "<prefix> i" (page 1's `first` when given).
 */
function scanPdf(pages, bytes, { prefix = 'Scan page', first } = {}) {
	const texts = Array.from({ length: pages }, (_, i) =>
		i === 0 && first !== undefined ? first : `${prefix} ${i + 1}`,
	);
	return { texts, pdf: h.documents.makePdf(texts, { imageBytes: bytes }) };
}

/** The documents the emulator `emu` billed, in order: each as its pages' texts. */
function billedPages(emu) {
	return emu
		.ledger('acme')
		.filter((entry) => entry.delta < 0 && entry.document !== undefined)
		.map((entry) => entry.document.split(h.documents.PAGE_SEPARATOR));
}

module.exports = { withDocument, scanPdf, billedPages };
