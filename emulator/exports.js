'use strict';
/**
 * Export builders for finished tasks.
 *   buildExport(format, { text, pages, invoice }) -> Buffer
 *   EXPORT_CONTENT_TYPES[format]
 * docx/xlsx are real OOXML zip packages; pdf is built with the fixtures' makePdf.
 */
const { writeZip } = require('./zip.js');
const { makePdf } = require('./documents.js');
const { xmlEscape } = require('./util.js');

const EXPORT_CONTENT_TYPES = {
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	pdf: 'application/pdf',
};

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOC_REL =
	'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

function buildDocx({ pages }) {
	const body = [];
	pages.forEach((page, i) => {
		if (i > 0) body.push('<w:p><w:r><w:br w:type="page"/></w:r></w:p>');
		for (const line of String(page).split('\n')) {
			body.push(
				line
					? `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(line)}</w:t></w:r></w:p>`
					: '<w:p/>',
			);
		}
	});
	const document =
		XML_HEAD +
		'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
		body.join('') +
		'<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>';
	return writeZip([
		{
			name: '[Content_Types].xml',
			data:
				XML_HEAD +
				'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
				'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
				'<Default Extension="xml" ContentType="application/xml"/>' +
				'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
				'</Types>',
		},
		{
			name: '_rels/.rels',
			data:
				XML_HEAD +
				`<Relationships xmlns="${REL_NS}"><Relationship Id="rId1" Type="${OFFICE_DOC_REL}" Target="word/document.xml"/></Relationships>`,
		},
		{ name: 'word/document.xml', data: document },
	]);
}

function colName(i) {
	let s = '';
	i += 1;
	while (i > 0) {
		const m = (i - 1) % 26;
		s = String.fromCharCode(65 + m) + s;
		i = Math.floor((i - 1) / 26);
	}
	return s;
}

function sheetXml(rows) {
	const out = rows.map((cells, r) => {
		const cs = cells
			.map((v, c) => {
				const ref = `${colName(c)}${r + 1}`;
				if (v === null || v === undefined || v === '') return '';
				if (typeof v === 'number' && Number.isFinite(v)) return `<c r="${ref}"><v>${v}</v></c>`;
				return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlEscape(v)}</t></is></c>`;
			})
			.join('');
		return `<row r="${r + 1}">${cs}</row>`;
	});
	return (
		XML_HEAD +
		'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
		out.join('') +
		'</sheetData></worksheet>'
	);
}

function buildXlsx({ pages, invoice }) {
	const textRows = [];
	for (const page of pages) for (const line of String(page).split('\n')) textRows.push([line]);
	const sheets = [];
	if (invoice) {
		sheets.push({
			name: 'Invoice',
			rows: [['Field', 'Value'], ...Object.entries(invoice).map(([k, v]) => [k, v])],
		});
	}
	sheets.push({ name: 'Text', rows: textRows });
	const entries = [
		{
			name: '[Content_Types].xml',
			data:
				XML_HEAD +
				'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
				'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
				'<Default Extension="xml" ContentType="application/xml"/>' +
				'<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
				sheets
					.map(
						(_, i) =>
							`<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
					)
					.join('') +
				'</Types>',
		},
		{
			name: '_rels/.rels',
			data:
				XML_HEAD +
				`<Relationships xmlns="${REL_NS}"><Relationship Id="rId1" Type="${OFFICE_DOC_REL}" Target="xl/workbook.xml"/></Relationships>`,
		},
		{
			name: 'xl/workbook.xml',
			data:
				XML_HEAD +
				'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>' +
				sheets
					.map(
						(s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`,
					)
					.join('') +
				'</sheets></workbook>',
		},
		{
			name: 'xl/_rels/workbook.xml.rels',
			data:
				XML_HEAD +
				`<Relationships xmlns="${REL_NS}">` +
				sheets
					.map(
						(_, i) =>
							`<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
					)
					.join('') +
				'</Relationships>',
		},
		...sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: sheetXml(s.rows) })),
	];
	return writeZip(entries);
}

function buildExport(format, { pages, invoice }) {
	switch (format) {
		case 'docx':
			return buildDocx({ pages });
		case 'xlsx':
			return buildXlsx({ pages, invoice });
		case 'pdf':
			return makePdf(pages);
		default:
			throw new Error(`unknown export format ${format}`);
	}
}

module.exports = { buildExport, buildDocx, buildXlsx, EXPORT_CONTENT_TYPES };
