'use strict';
/**
 * What the emulator "recognises": derived views of a document's embedded text.
 *   parseInvoice(text)            { vendor, invoiceNumber, invoiceDate, dueDate, total, currency }
 *   toMarkdown(pages[])           "# <first line>\n\n<rest>" (+ "---" between pages)
 *   makeWords(pages[])            [{ text, page, confidence, bbox:{x,y,width,height} }]
 *   makeBlocks(pages[])           [{ page, type:'line', text, bbox }]
 *   validateSchema(obj)           null | error message
 *   extractBySchema(schema, text) { [property]: value|null }
 */
const crypto = require('node:crypto');

const CHAR_W = 7;
const LINE_H = 14;
const MARGIN = 72;

function lines(text) {
	return String(text || '')
		.split(/\r?\n|\f/)
		.map((l) => l.trim())
		.filter(Boolean);
}

function parseAmount(raw) {
	if (raw == null) return null;
	let s = String(raw).replace(/[^0-9.,-]/g, '');
	if (!/\d/.test(s)) return null;
	const lastDot = s.lastIndexOf('.');
	const lastComma = s.lastIndexOf(',');
	if (lastDot >= 0 && lastComma >= 0) {
		if (lastComma > lastDot) s = s.replace(/\./g, '').replace(',', '.');
		else s = s.replace(/,/g, '');
	} else if (lastComma >= 0) {
		s = /,\d{1,2}$/.test(s)
			? s.replace(/,(?=\d{1,2}$)/, '.').replace(/,/g, '')
			: s.replace(/,/g, '');
	}
	const n = Number(s);
	return Number.isFinite(n) ? n : null;
}

const CURRENCY_SYMBOLS = { '€': 'EUR', $: 'USD', '£': 'GBP', '¥': 'JPY', CHF: 'CHF' };

function detectCurrency(raw) {
	if (!raw) return null;
	const code = /\b([A-Z]{3})\b/.exec(raw);
	if (code) return code[1];
	for (const [sym, c] of Object.entries(CURRENCY_SYMBOLS)) if (raw.includes(sym)) return c;
	return null;
}

function parseInvoice(text) {
	const ls = lines(text);
	const field = (re) => {
		for (const l of ls) {
			const m = re.exec(l);
			if (m) return m[1].trim();
		}
		return null;
	};
	const totalRaw = field(
		/^(?:grand\s*total|total(?:\s*amount)?(?:\s*due)?|amount\s*due)\s*[:=]?\s*(.+)$/i,
	);
	return {
		vendor: ls[0] || null,
		invoiceNumber: field(/^invoice\s*(?:number|no\.?|nr\.?|#|id)\s*[:#]?\s*(.+)$/i),
		invoiceDate: field(/^(?:invoice\s*date|date\s*of\s*issue|issue\s*date)\s*[:=]?\s*(.+)$/i),
		dueDate: field(/^(?:due\s*date|payment\s*due)\s*[:=]?\s*(.+)$/i),
		total: parseAmount(totalRaw),
		currency:
			(field(/^currency\s*[:=]?\s*([A-Za-z]{3})\b/i) || '').toUpperCase() ||
			detectCurrency(totalRaw),
	};
}

function toMarkdown(pages) {
	const out = [];
	pages.forEach((page, i) => {
		const ls = String(page || '').split('\n');
		if (i > 0) out.push('\n\n---\n\n');
		if (i === 0) {
			const first = ls.findIndex((l) => l.trim());
			if (first >= 0) {
				const rest = ls
					.slice(first + 1)
					.join('\n')
					.trim();
				out.push(`# ${ls[first].trim()}` + (rest ? `\n\n${rest}` : ''));
				return;
			}
		}
		out.push(ls.join('\n').trim());
	});
	return out.join('').trim() + '\n';
}

function confidenceFor(word) {
	const h = crypto.createHash('md5').update(word).digest();
	return Math.round((0.9 + (h[0] % 10) / 100) * 100) / 100;
}

function makeWords(pages) {
	const words = [];
	pages.forEach((page, p) => {
		String(page || '')
			.split('\n')
			.forEach((line, li) => {
				for (const m of line.matchAll(/\S+/g)) {
					words.push({
						text: m[0],
						page: p + 1,
						confidence: confidenceFor(m[0]),
						bbox: {
							x: MARGIN + m.index * CHAR_W,
							y: MARGIN + li * LINE_H,
							width: m[0].length * CHAR_W,
							height: 12,
						},
					});
				}
			});
	});
	return words;
}

function makeBlocks(pages) {
	const blocks = [];
	pages.forEach((page, p) => {
		String(page || '')
			.split('\n')
			.forEach((line, li) => {
				if (!line.trim()) return;
				const lead = line.length - line.trimStart().length;
				blocks.push({
					page: p + 1,
					type: 'line',
					text: line.trim(),
					bbox: {
						x: MARGIN + lead * CHAR_W,
						y: MARGIN + li * LINE_H,
						width: line.trim().length * CHAR_W,
						height: 12,
					},
				});
			});
	});
	return blocks;
}

// normalised property name -> invoice field (or 'text' for the full text)
const FIELD_ALIASES = {
	invoicenumber: 'invoiceNumber',
	invoiceno: 'invoiceNumber',
	invoicenr: 'invoiceNumber',
	invoiceid: 'invoiceNumber',
	number: 'invoiceNumber',
	invoicedate: 'invoiceDate',
	issuedate: 'invoiceDate',
	date: 'invoiceDate',
	duedate: 'dueDate',
	paymentduedate: 'dueDate',
	total: 'total',
	totalamount: 'total',
	amount: 'total',
	amountdue: 'total',
	grandtotal: 'total',
	currency: 'currency',
	currencycode: 'currency',
	vendor: 'vendor',
	vendorname: 'vendor',
	supplier: 'vendor',
	suppliername: 'vendor',
	seller: 'vendor',
	issuer: 'vendor',
	company: 'vendor',
	text: 'text',
	fulltext: 'text',
	content: 'text',
};

function normaliseName(name) {
	return String(name)
		.toLowerCase()
		.replace(/[_\-\s.]/g, '');
}

function validateSchema(schema) {
	if (!schema || typeof schema !== 'object' || Array.isArray(schema))
		return 'schema must be a JSON object';
	if (
		!schema.properties ||
		typeof schema.properties !== 'object' ||
		Array.isArray(schema.properties)
	)
		return 'schema must have an object "properties"';
	if (schema.type !== undefined && schema.type !== 'object')
		return 'schema "type" must be "object"';
	return null;
}

function declaredType(def) {
	let t = def && def.type;
	if (Array.isArray(t)) t = t.find((x) => x !== 'null');
	return t;
}

function coerce(value, def) {
	if (value === null || value === undefined) return null;
	switch (declaredType(def)) {
		case 'number': {
			const n = typeof value === 'number' ? value : parseAmount(value);
			return n == null ? null : n;
		}
		case 'integer': {
			const n = typeof value === 'number' ? value : parseAmount(value);
			return n == null ? null : Math.trunc(n);
		}
		case 'string':
			return String(value);
		case 'boolean':
			return Boolean(value);
		default:
			return value;
	}
}

function extractBySchema(schema, text) {
	const inv = parseInvoice(text);
	inv.text = String(text || '');
	const data = {};
	for (const [name, def] of Object.entries(schema.properties)) {
		const field = FIELD_ALIASES[normaliseName(name)];
		data[name] = coerce(field ? inv[field] : null, def);
	}
	return data;
}

module.exports = {
	parseInvoice,
	parseAmount,
	toMarkdown,
	makeWords,
	makeBlocks,
	validateSchema,
	extractBySchema,
	FIELD_ALIASES,
};
