'use strict';
/**
 * The real-producer corpus (issue 42): small PDFs made at test time by the producers this machine
 * reaches (npm dev dependencies and Debian packages), each page carrying what only it may carry:
 * its text PAGE<n>-TEXT, its own JPEG whose COM segment says PRIVATE-PAGE-<n> (where the producer
 * passes JPEGs through), and where the producer offers them its own form XObject (FORM<n>-TEXT),
 * annotation (NOTE<n>-TEXT), form field value (FIELD<n>-VALUE) and hidden layer (LAYER<n>-TEXT).
 * What a file holds is read from the file (features(), through qpdf's JSON), not taken from what
 * its producer was asked for.
 *
 * makeCorpus(dir) writes the files into `dir` and returns [{name, producer, file, pages, features}]
 * and the producers that failed, with why.
 */
const { execFile, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The Debian packages the producers and the checks need, and a command each one installs. */
const DEBIAN = [
	['qpdf', 'qpdf'],
	['pdftoppm', 'poppler-utils'],
	['gs', 'ghostscript'],
	['mutool', 'mupdf-tools'],
	['img2pdf', 'img2pdf'],
	['ocrmypdf', 'ocrmypdf'],
	['tesseract', 'tesseract-ocr'],
	['soffice', 'libreoffice-writer-nogui'],
	['chromium', 'chromium'],
];
/** Tesseract's English data: a package without a command (english() finds it). */
const LANGUAGE = 'tesseract-ocr-eng';

const L = (text) => Buffer.from(text, 'latin1');
const every = (n) => Array.from({ length: n }, (_, i) => i + 1);

/** Every document's pages: 4 by 3 inches (small to draw), three of them (OCRmyPDF's: two). */
const WIDTH = 288;
const HEIGHT = 216;
const PAGES = 3;

/** A command's run, as a promise: its output, or an error that says what it printed. */
function run(command, args, options = {}) {
	return new Promise((resolve, reject) => {
		execFile(
			command,
			args,
			{ encoding: 'buffer', maxBuffer: 64 << 20, timeout: 120_000, ...options },
			(error, stdout, stderr) => {
				if (error) {
					error.message = `${command} ${args.join(' ')}: ${error.message} ${stderr.toString('latin1').slice(0, 600)}`;
					reject(error);
				} else resolve({ stdout, stderr });
			},
		);
	});
}

/**
 * Where each stream's data is in a PDF's bytes: from after its `stream` keyword to where its
 * direct /Length says (`measured`), else to the next `endstream`.
 */
function streams(bytes) {
	const found = [];
	const text = bytes.toString('latin1');
	const keyword = /(?<!end)stream\r?\n/g;
	for (let m; (m = keyword.exec(text)); ) {
		const start = m.index + m[0].length;
		// The stream's own dictionary: from its object's header on.
		const before = text.slice(Math.max(0, m.index - 2000), m.index);
		const length = /\/Length\s+(\d+)(\s+\d+\s+R)?/.exec(before.slice(before.lastIndexOf(' obj')));
		let end = length && !length[2] ? start + Number(length[1]) : -1;
		const measured = end >= start && end <= bytes.length;
		if (!measured) end = text.indexOf('endstream', start);
		if (end < 0) break;
		found.push({ start, end, measured });
		keyword.lastIndex = Math.max(keyword.lastIndex, end);
	}
	return found;
}

/** `jpeg` with a COM segment saying `text` after its first segment (JFIF's APP0). */
function commented(jpeg, text) {
	const body = L(text);
	const segment = Buffer.alloc(4 + body.length);
	segment.writeUInt16BE(0xfffe, 0);
	segment.writeUInt16BE(body.length + 2, 2);
	body.copy(segment, 4);
	const after = jpeg[3] === 0xe0 ? 4 + jpeg.readUInt16BE(4) : 2;
	return Buffer.concat([jpeg.subarray(0, after), segment, jpeg.subarray(after)]);
}

/**
 * The pages' pictures, made by Ghostscript's JPEG device: page n's is a colour of its own with
 * "P<n>" on it and a COM segment PRIVATE-PAGE-<n>. Also the scans OCRmyPDF reads: grey JPEGs of a
 * typed page, 100 dpi.
 */
async function pictures(dir, count) {
	const ps = [
		'%!PS',
		'<< /PageSize [96 64] >> setpagedevice',
		'/Helvetica-Bold findfont 28 scalefont setfont',
		`1 1 ${count} { /n exch def`,
		'  n 0.2 mul 0.3 add 0.4 1 n 0.15 mul sub setrgbcolor 0 0 96 64 rectfill',
		'  1 setgray 0 0 moveto 96 64 lineto stroke 8 20 moveto (P) show n (   ) cvs show',
		'  showpage } for',
	].join('\n');
	const scans = [
		'%!PS',
		`<< /PageSize [${WIDTH} ${HEIGHT}] >> setpagedevice`,
		'/Courier-Bold findfont 24 scalefont setfont',
		'1 1 2 { /n exch def 1 setgray clippath fill 0 setgray',
		'  30 140 moveto (PAGE) show n (   ) cvs show (-TEXT) show',
		'  /Courier findfont 16 scalefont setfont 30 90 moveto (scanned words) show',
		'  /Courier-Bold findfont 24 scalefont setfont showpage } for',
	].join('\n');
	fs.writeFileSync(path.join(dir, 'pictures.ps'), ps);
	fs.writeFileSync(path.join(dir, 'scans.ps'), scans);
	const gs = (device, res, out, input) =>
		run('gs', [
			'-q',
			'-dSAFER',
			'-dBATCH',
			'-dNOPAUSE',
			`-sDEVICE=${device}`,
			`-r${res}`,
			'-dJPEGQ=85',
			`-sOutputFile=${path.join(dir, out)}`,
			path.join(dir, input),
		]);
	await Promise.all([
		gs('jpeg', 72, 'picture-%d.jpg', 'pictures.ps'),
		gs('jpeggray', 100, 'scan-%d.jpg', 'scans.ps'),
	]);
	const read = (name, n) => {
		const file = path.join(dir, `${name}-${n}.jpg`);
		const bytes = commented(fs.readFileSync(file), `PRIVATE-PAGE-${n}`);
		fs.writeFileSync(file, bytes);
		return { file, bytes };
	};
	return {
		images: Array.from({ length: count }, (_, i) => read('picture', i + 1)),
		scans: [read('scan', 1), read('scan', 2)],
	};
}

// -------------------------------------------------------------------------- the producers

/** jsPDF: one /Resources for every page (its images and fonts), form XObjects, links. */
async function jspdf({ images }) {
	const { jsPDF } = require('jspdf');
	const doc = new jsPDF({ unit: 'pt', format: [WIDTH, HEIGHT], compress: true });
	doc.setProperties({ title: 'jsPDF corpus' });
	for (const n of every(PAGES)) {
		if (n > 1) doc.addPage([WIDTH, HEIGHT]);
		doc.setFontSize(14);
		doc.text(`PAGE${n}-TEXT`, 20, 30);
		doc.addImage(new Uint8Array(images[n - 1].bytes), 'JPEG', 20, 50, 96, 64);
		// A form XObject of the page's own: its words drawn through it.
		doc.advancedAPI((api) => {
			api.beginFormObject(0, 0, 150, 30, api.unitMatrix);
			api.setFontSize(12);
			api.text(`FORM${n}-TEXT`, 2, 14);
			api.endFormObject(`form${n}`);
			api.doFormObject(`form${n}`, new api.Matrix(1, 0, 0, 1, 140, 120));
		});
		if (n === 1) {
			doc.textWithLink('to page 3', 20, 150, { pageNumber: 3 });
			doc.textWithLink('a link out', 20, 170, { url: 'https://example.com/jspdf' });
		}
	}
	return { bytes: Buffer.from(doc.output('arraybuffer')) };
}

/** The bytes PDFKit (or pdfmake, built on it) streams out. */
function collect(doc) {
	const chunks = [];
	doc.on('data', (chunk) => chunks.push(chunk));
	return new Promise((resolve, reject) => {
		doc.on('end', () => resolve(Buffer.concat(chunks)));
		doc.on('error', reject);
	});
}

/**
 * PDFKit: form fields whose values have no appearance stream (PDFKit sets /NeedAppearances and
 * leaves drawing them to the reader), a link to a named destination on another page, a link out,
 * a note (a text annotation).
 */
async function pdfkit({ images }) {
	const PDFDocument = require('pdfkit');
	const doc = new PDFDocument({ size: [WIDTH, HEIGHT], autoFirstPage: false, margin: 0 });
	const done = collect(doc);
	doc.font('Helvetica');
	doc.initForm();
	for (const n of every(PAGES)) {
		doc.addPage();
		doc.fontSize(14).text(`PAGE${n}-TEXT`, 20, 20, { lineBreak: false });
		doc.image(images[n - 1].bytes, 20, 50, { width: 96, height: 64 });
		doc.fontSize(10).text('Name:', 140, 60, { lineBreak: false });
		doc.formText(`name${n}`, 140, 75, 130, 20, { value: `FIELD${n}-VALUE` });
		doc.note(250, 20, 20, 20, `NOTE${n}-TEXT`);
		doc.addNamedDestination(`page${n}`);
		if (n === 1) {
			doc.fontSize(10).text('to page 3', 20, 150, { goTo: 'page3', lineBreak: false });
			doc.text('a link out', 20, 170, { link: 'https://example.com/pdfkit', lineBreak: false });
		}
	}
	doc.end();
	return { bytes: await done };
}

/** pdfmake (on PDFKit 0.19): a layout's text and images, a link to a page, a link out. */
async function pdfmake({ images }) {
	const maker = require('pdfmake');
	maker.setFonts(require('pdfmake/standard-fonts/Helvetica'));
	maker.setUrlAccessPolicy(() => false);
	// No file is read but the standard fonts' names, which PDFKit knows without a file.
	maker.setLocalAccessPolicy((name) => /^Helvetica/.test(name));
	const content = [];
	for (const n of every(PAGES)) {
		content.push(
			{ text: `PAGE${n}-TEXT`, fontSize: 14, pageBreak: n > 1 ? 'before' : undefined },
			{ image: `data:image/jpeg;base64,${images[n - 1].bytes.toString('base64')}`, width: 96 },
			{
				table: {
					body: [
						[`row ${n}`, 'cell'],
						['more', 'cells'],
					],
				},
				fontSize: 9,
			},
		);
		if (n === 1)
			content.push(
				{ text: 'to page 3', linkToPage: 3, fontSize: 9 },
				{ text: 'a link out', link: 'https://example.com/pdfmake', fontSize: 9 },
			);
	}
	const doc = maker.createPdf({
		pageSize: { width: WIDTH, height: HEIGHT },
		pageMargins: [20, 15, 20, 15],
		defaultStyle: { font: 'Helvetica' },
		content,
	});
	return { bytes: await doc.getBuffer() };
}

/** pdf-lib's pieces for the low-level additions below. */
function pdfLib() {
	return require('pdf-lib');
}

/** A pdf-lib page of the corpus: its words and its picture. */
async function pdfLibPage(doc, n, images) {
	const { StandardFonts } = pdfLib();
	const font = await doc.embedFont(StandardFonts.Helvetica);
	const page = doc.addPage([WIDTH, HEIGHT]);
	page.drawText(`PAGE${n}-TEXT`, { x: 20, y: HEIGHT - 30, size: 14, font });
	page.drawImage(await doc.embedJpg(images[n - 1].bytes), { x: 20, y: 50, width: 96, height: 64 });
	return { page, font };
}

/**
 * pdf-lib: a text field on every page (a field with its widget as a kid), its value drawn by
 * pdf-lib in the widget's appearance stream. Saved with object streams (pdf-lib's default).
 */
async function pdfLibFields({ images }) {
	const { PDFDocument } = pdfLib();
	const doc = await PDFDocument.create();
	const form = doc.getForm();
	for (const n of every(PAGES)) {
		const { page, font } = await pdfLibPage(doc, n, images);
		page.drawText('Name:', { x: 140, y: 120, size: 10, font });
		const field = form.createTextField(`name${n}`);
		field.setText(`FIELD${n}-VALUE`);
		field.addToPage(page, { x: 140, y: 90, width: 130, height: 22, font });
	}
	return { bytes: Buffer.from(await doc.save()) };
}

/**
 * pdf-lib, low-level: the same fields, but page 2's widget has no appearance stream and the form
 * says /NeedAppearances (as form fillers that leave the drawing to the reader write it): page 2's
 * value is then only in its field's /V, the widget's parent.
 */
async function pdfLibFieldsUndrawn({ images }) {
	const { PDFDocument, PDFName, PDFBool } = pdfLib();
	const doc = await PDFDocument.load(await pdfLibFields({ images }).then((made) => made.bytes));
	const form = doc.getForm();
	form.getTextField('name2').acroField.getWidgets()[0].dict.delete(PDFName.of('AP'));
	form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.True);
	return { bytes: Buffer.from(await doc.save({ updateFieldAppearances: false })) };
}

/**
 * pdf-lib, low-level: optional content. Each page has words in a layer that is OFF by default
 * (LAYER<n>-TEXT on a grey box, /OCProperties /D /OFF) and words in a layer that is ON.
 */
async function pdfLibLayers({ images }) {
	const { PDFDocument, PDFName, PDFString, PDFOperator, PDFOperatorNames, rgb } = pdfLib();
	const doc = await PDFDocument.create();
	const group = (name) =>
		doc.context.register(doc.context.obj({ Type: 'OCG', Name: PDFString.of(name) }));
	const hidden = group('Notes (off)');
	const shown = group('Body (on)');
	doc.catalog.set(
		PDFName.of('OCProperties'),
		doc.context.obj({
			OCGs: [hidden, shown],
			D: { Order: [hidden, shown], ON: [shown], OFF: [hidden] },
		}),
	);
	const marked = (name) =>
		PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, [
			PDFName.of('OC'),
			PDFName.of(name),
		]);
	const end = PDFOperator.of(PDFOperatorNames.EndMarkedContent);
	for (const n of every(PAGES)) {
		const { page, font } = await pdfLibPage(doc, n, images);
		page.pushOperators(marked('Hidden'));
		page.drawRectangle({ x: 130, y: 60, width: 140, height: 60, color: rgb(0.5, 0.5, 0.5) });
		page.drawText(`LAYER${n}-TEXT`, { x: 135, y: 85, size: 12, font });
		page.pushOperators(end, marked('Shown'));
		page.drawText('layer on', { x: 135, y: 140, size: 12, font });
		page.pushOperators(end);
		page.node
			.Resources()
			.set(PDFName.of('Properties'), doc.context.obj({ Hidden: hidden, Shown: shown }));
	}
	return { bytes: Buffer.from(await doc.save({ useObjectStreams: false })) };
}

/**
 * pdf-lib, low-level: the pages' /Resources moved up to the page tree's root, which the pages
 * inherit (ISO 32000 7.7.3.4); each page draws a form XObject of its own (an embedded page,
 * FORM<n>-TEXT).
 */
async function pdfLibInherited({ images }) {
	const { PDFDocument, PDFName, PDFDict, StandardFonts } = pdfLib();
	const other = await PDFDocument.create();
	const otherFont = await other.embedFont(StandardFonts.Courier);
	for (const n of every(PAGES))
		other.addPage([150, 30]).drawText(`FORM${n}-TEXT`, { x: 2, y: 10, size: 12, font: otherFont });
	const doc = await PDFDocument.create();
	const pieces = await doc.embedPdf(
		await other.save(),
		every(PAGES).map((n) => n - 1),
	);
	for (const n of every(PAGES)) {
		const { page } = await pdfLibPage(doc, n, images);
		page.drawPage(pieces[n - 1], { x: 130, y: 80 });
	}
	const shared = doc.context.obj({});
	for (const page of doc.getPages()) {
		const own = page.node.Resources();
		for (const [key, value] of own.entries()) {
			if (value instanceof PDFDict) {
				const into = shared.get(key) ?? doc.context.obj({});
				for (const [name, ref] of value.entries()) into.set(name, ref);
				shared.set(key, into);
			} else shared.set(key, value);
		}
		page.node.delete(PDFName.of('Resources'));
	}
	doc.catalog.Pages().set(PDFName.of('Resources'), doc.context.register(shared));
	return { bytes: Buffer.from(await doc.save({ useObjectStreams: false })) };
}

/**
 * Ghostscript's pdfwrite from PostScript written here: each page's words, its JPEG (passed through
 * from a DCTDecode filter), a form XObject (pdfmark /BP /EP /SP, FORM<n>-TEXT), words in an optional
 * content group that is OFF by default (pdfmark /BDC /EMC, LAYER<n>-TEXT), a link to another page,
 * a link out and a note (pdfmark /ANN, NOTE<n>-TEXT).
 */
async function ghostscript({ images, dir }) {
	const ps = [
		'%!PS',
		`<< /PageSize [${WIDTH} ${HEIGHT}] >> setpagedevice`,
		'[ /Title (Ghostscript corpus) /DOCINFO pdfmark',
		'[ /_objdef {notes} /type /dict /OBJ pdfmark',
		'[ {notes} << /Type /OCG /Name (Notes) >> /PUT pdfmark',
		'[ {Catalog} << /OCProperties << /OCGs [{notes}] /D << /Order [{notes}] /OFF [{notes}] >> >> >> /PUT pdfmark',
	];
	for (const n of every(PAGES)) {
		const target = (n % PAGES) + 1;
		ps.push(
			'/Helvetica findfont 14 scalefont setfont',
			`20 ${HEIGHT - 30} moveto (PAGE${n}-TEXT) show`,
			'gsave 20 50 translate 96 64 scale /DeviceRGB setcolorspace',
			`<< /ImageType 1 /Width 96 /Height 64 /BitsPerComponent 8 /Decode [0 1 0 1 0 1] /ImageMatrix [96 0 0 -64 0 64] /DataSource <${images[n - 1].bytes.toString('hex')}> /DCTDecode filter >> image`,
			'grestore',
			`[ /_objdef {form${n}} /BBox [0 0 150 30] /BP pdfmark`,
			`/Helvetica findfont 12 scalefont setfont 2 14 moveto (FORM${n}-TEXT) show`,
			'[ /EP pdfmark',
			`gsave 140 140 translate [ {form${n}} /SP pdfmark grestore`,
			'[ /OC {notes} /BDC pdfmark',
			`0.5 setgray 130 50 140 40 rectfill 0 setgray 135 62 moveto (LAYER${n}-TEXT) show`,
			'[ /EMC pdfmark',
			`/Helvetica findfont 10 scalefont setfont 20 30 moveto (to page ${target}) show`,
			`[ /Rect [18 26 90 40] /Border [0 0 0] /Page ${target} /View [/XYZ null null null] /Subtype /Link /ANN pdfmark`,
			'100 30 moveto (a link out) show',
			'[ /Rect [98 26 160 40] /Border [0 0 0] /Action << /Subtype /URI /URI (https://example.com/ghostscript) >> /Subtype /Link /ANN pdfmark',
			`[ /Rect [250 180 270 200] /Contents (NOTE${n}-TEXT) /Subtype /Text /ANN pdfmark`,
			'showpage',
		);
	}
	const input = path.join(dir, 'ghostscript.ps');
	const output = path.join(dir, 'ghostscript.pdf');
	fs.writeFileSync(input, ps.join('\n'));
	await run('gs', [
		'-q',
		'-dSAFER',
		'-dBATCH',
		'-dNOPAUSE',
		'-sDEVICE=pdfwrite',
		`-sOutputFile=${output}`,
		input,
	]);
	return { file: output };
}

/**
 * Chromium's print to PDF (headless, through playwright-core): HTML pages with their words, their
 * picture, translucent text (Skia draws it through a form XObject), a link to another page's
 * anchor, a link out, and an outline (document-level: it must not travel).
 */
async function chromium({ images, dir }) {
	const { chromium: browserType } = require('playwright-core');
	const sections = every(PAGES).map(
		(n) => `<section id="p${n}">
<h1>PAGE${n}-TEXT</h1>
<img src="data:image/jpeg;base64,${images[n - 1].bytes.toString('base64')}" width="96" height="64">
<p class="faint">translucent words</p>
<p><a href="#p${(n % PAGES) + 1}">to page ${(n % PAGES) + 1}</a> <a href="https://example.com/chromium">a link out</a></p>
</section>`,
	);
	const html = `<!doctype html><html><head><meta charset="utf-8"><style>
@page { size: ${WIDTH}pt ${HEIGHT}pt; margin: 0 }
body { margin: 0; font: 12px sans-serif }
section { height: ${HEIGHT}pt; padding: 10pt 20pt; box-sizing: border-box; overflow: hidden; break-after: page }
section:last-child { break-after: auto }
h1 { font-size: 14pt; margin: 0 0 6pt }
.faint { opacity: 0.5; margin: 4pt 0 }
</style></head><body>${sections.join('\n')}</body></html>`;
	const profile = fs.mkdtempSync(path.join(dir, 'chromium-profile-'));
	const context = await browserType.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	try {
		const page = await context.newPage();
		await page.setContent(html);
		const bytes = await page.pdf({
			preferCSSPageSize: true,
			printBackground: true,
			outline: true,
			tagged: true,
		});
		return { bytes };
	} finally {
		await context.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

/**
 * mutool create: pages written as content streams with resource directives (MuPDF's own writer),
 * each with its words and its picture. `plain`: its streams left uncompressed, and page 2 a page
 * about PDF whose words include the keyword that ends a stream (its content stream holds
 * `(endstream) Tj`, which a reader finds by /Length).
 */
async function mutool({ images, dir }, { plain = false } = {}) {
	const name = plain ? 'mutool-plain' : 'mutool';
	const pages = every(PAGES).map((n) => {
		const file = path.join(dir, `${name}-page-${n}.txt`);
		fs.writeFileSync(
			file,
			[
				`%%MediaBox 0 0 ${WIDTH} ${HEIGHT}`,
				'%%Font Helv Helvetica',
				`%%Image Own ${images[n - 1].file}`,
				`BT /Helv 14 Tf 20 ${HEIGHT - 30} Td (PAGE${n}-TEXT) Tj ET`,
				'q 96 0 0 64 20 50 cm /Own Do Q',
				...(plain && n === 2
					? ['BT /Helv 10 Tf 140 100 Td (a stream ends at) Tj 0 -12 Td (endstream) Tj ET']
					: []),
			].join('\n'),
		);
		return file;
	});
	const output = path.join(dir, `${name}.pdf`);
	await run('mutool', ['create', '-O', plain ? 'decompress' : 'compress', '-o', output, ...pages]);
	return { file: output };
}

/** img2pdf: the pictures, one a page, passed through as they are (a scanner's PDF). */
async function img2pdf({ images, dir }) {
	const output = path.join(dir, 'img2pdf.pdf');
	await run('img2pdf', ['-o', output, ...images.slice(0, PAGES).map((image) => image.file)]);
	return { file: output };
}

/**
 * OCRmyPDF and Tesseract: two scanned pages (grey JPEGs of typed words, 100 dpi, made into a PDF by
 * img2pdf as a scanner would) under an invisible text layer (a form XObject per page): what an OCR
 * service is most often sent.
 */
async function ocrmypdf({ scans, dir }) {
	const input = path.join(dir, 'ocrmypdf-scans.pdf');
	const output = path.join(dir, 'ocrmypdf.pdf');
	await run('img2pdf', ['-o', input, ...scans.map((scan) => scan.file)]);
	await run(
		'ocrmypdf',
		[
			'--quiet',
			'--output-type',
			'pdf',
			'--optimize',
			'0',
			'--jobs',
			'1',
			'-l',
			'eng',
			input,
			output,
		],
		{ env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
	);
	return { file: output, pages: 2 };
}

/** qpdf: jsPDF's file (one /Resources for every page) rewritten with object streams, linearized. */
async function qpdf({ dir, made }) {
	const output = path.join(dir, 'qpdf.pdf');
	await run('qpdf', ['--object-streams=generate', '--linearize', made.jspdf, output]);
	return { file: output };
}

/** cairo (poppler's pdftocairo -pdf): pdfmake's file drawn again through cairo's PDF surface. */
async function cairo({ dir, made }) {
	const output = path.join(dir, 'cairo.pdf');
	await run('pdftocairo', ['-pdf', made.pdfmake, output]);
	return { file: output };
}

/** Text for XML. */
const xml = (text) =>
	text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * LibreOffice Writer (headless, a fresh profile): a flat ODF text document of three pages, each
 * with its words, its picture, a form control holding a value (exported as an AcroForm field with
 * its appearance), a link to another page's bookmark and a link out.
 */
async function libreoffice({ images, dir }) {
	const controls = every(PAGES)
		.map(
			(n) =>
				`<form:text form:name="name${n}" form:id="control${n}" xml:id="control${n}" form:current-value="FIELD${n}-VALUE" form:value="FIELD${n}-VALUE"/>`,
		)
		.join('');
	const pages = every(PAGES)
		.map((n) => {
			const target = (n % PAGES) + 1;
			return [
				`<text:p text:style-name="${n > 1 ? 'Break' : 'First'}"><text:bookmark text:name="p${n}"/>PAGE${n}-TEXT</text:p>`,
				`<text:p><draw:frame draw:name="picture${n}" text:anchor-type="as-char" svg:width="96pt" svg:height="64pt"><draw:image><office:binary-data>${images[n - 1].bytes.toString('base64')}</office:binary-data></draw:image></draw:frame></text:p>`,
				`<text:p>Name: <draw:control draw:control="control${n}" text:anchor-type="as-char" svg:width="120pt" svg:height="18pt"/></text:p>`,
				`<text:p><text:a xlink:type="simple" xlink:href="#p${target}">to page ${target}</text:a> <text:a xlink:type="simple" xlink:href="${xml('https://example.com/libreoffice')}">a link out</text:a></text:p>`,
			].join('\n');
		})
		.join('\n');
	const document = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:xlink="http://www.w3.org/1999/xlink"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:form="urn:oasis:names:tc:opendocument:xmlns:form:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles>
<style:page-layout style:name="Small"><style:page-layout-properties fo:page-width="${WIDTH}pt" fo:page-height="${HEIGHT}pt" fo:margin-top="12pt" fo:margin-bottom="12pt" fo:margin-left="20pt" fo:margin-right="20pt"/></style:page-layout>
<style:style style:name="First" style:family="paragraph" style:master-page-name="Standard"><style:text-properties fo:font-size="14pt"/></style:style>
<style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/><style:text-properties fo:font-size="14pt"/></style:style>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="Small"/></office:master-styles>
<office:body><office:text>
<office:forms form:automatic-focus="false" form:apply-design-mode="false"><form:form form:name="Form">${controls}</form:form></office:forms>
${pages}
</office:text></office:body></office:document>
`;
	const input = path.join(dir, 'libreoffice.fodt');
	fs.writeFileSync(input, document);
	const profile = fs.mkdtempSync(path.join(dir, 'libreoffice-profile-'));
	try {
		await run('soffice', [
			'--headless',
			'--norestore',
			'--nologo',
			`-env:UserInstallation=file://${profile}`,
			'--convert-to',
			'pdf',
			'--outdir',
			dir,
			input,
		]);
	} finally {
		fs.rmSync(profile, { recursive: true, force: true });
	}
	return { file: path.join(dir, 'libreoffice.pdf') };
}

// -------------------------------------------------------------------------- what a file holds

/** What each feature means, as features() finds it in a file. */
const FEATURES = {
	'shared /Resources': 'pages whose /Resources is one object',
	'inherited /Resources': 'a page with no /Resources of its own, inheriting a page tree node’s',
	'form XObjects': 'a page’s resources name a form XObject',
	'fields with appearances': 'a form field widget with an appearance stream',
	'fields without appearances': 'a form field widget without one',
	NeedAppearances: 'the form asks the reader to draw its fields (/NeedAppearances true)',
	'layer off': 'optional content that is OFF by default (/OCProperties /D /OFF)',
	'links between pages': 'a link whose destination is a page of the file (/Dest, GoTo)',
	'links out': 'a link to a URI',
	annotations: 'an annotation that is neither a link nor a widget',
	'scanned pages': 'each page one image of the page’s own proportions',
	'JPEGs passed through': 'a page’s JPEG in the file as it was given (its COM marker)',
	'endstream in a stream':
		'a stream whose data holds the keyword `endstream` (its /Length says where it ends)',
	'object streams': 'objects stored in object streams',
	linearized: 'a linearized file',
	outline: 'an outline (bookmarks)',
};

/** The features of FEATURES a PDF has, read through qpdf's JSON. */
async function features(file) {
	const bytes = fs.readFileSync(file);
	const { stdout } = await run('qpdf', ['--json=2', '--json-key=qpdf', '--json-key=pages', file]);
	// qpdf writes a PDF's numbers as they are written in the file (`.5`, `1.`): made JSON first.
	const json = JSON.parse(
		stdout
			.toString('utf8')
			.replace(/(?<=[\s[:,])(-?)\.(\d)/g, '$10.$2')
			.replace(/(\d)\.(?=[\s,\]}])/g, '$1.0'),
	);
	const objects = json.qpdf[1];
	const isRef = (value) => typeof value === 'string' && /^\d+ \d+ R$/.test(value);
	const body = (entry) => entry?.value ?? entry?.stream?.dict;
	const get = (value) => (isRef(value) ? body(objects[`obj:${value}`]) : value);
	const root = get(objects.trailer.value['/Root']);
	const found = new Set();
	const pages = json.pages.map((page) => ({
		ref: page.object,
		dict: get(page.object),
		images: page.images,
	}));
	const resources = (dict) => {
		for (let node = dict, depth = 0; node && depth < 32; node = get(node['/Parent']), depth++)
			if (node['/Resources'] !== undefined)
				return { value: node['/Resources'], own: node === dict };
		return null;
	};
	const uses = new Map();
	for (const page of pages) {
		const found_ = resources(page.dict);
		if (!found_) continue;
		if (!found_.own) found.add('inherited /Resources');
		if (isRef(found_.value) && found_.own)
			uses.set(found_.value, (uses.get(found_.value) ?? 0) + 1);
		const xobjects = get(get(found_.value)?.['/XObject']) ?? {};
		for (const ref of Object.values(xobjects))
			if (get(ref)?.['/Subtype'] === '/Form') found.add('form XObjects');
		for (const annotation of (get(page.dict['/Annots']) ?? []).map(get)) {
			const subtype = annotation?.['/Subtype'];
			if (subtype === '/Link') {
				const action = get(annotation['/A']);
				if (annotation['/Dest'] !== undefined || action?.['/S'] === '/GoTo')
					found.add('links between pages');
				if (action?.['/S'] === '/URI') found.add('links out');
			} else if (subtype === '/Widget') {
				found.add(annotation['/AP'] ? 'fields with appearances' : 'fields without appearances');
			} else if (subtype) found.add('annotations');
		}
	}
	if ([...uses.values()].some((count) => count > 1)) found.add('shared /Resources');
	if (get(get(root['/AcroForm'])?.['/NeedAppearances']) === true) found.add('NeedAppearances');
	if ((get(get(get(root['/OCProperties'])?.['/D'])?.['/OFF']) ?? []).length) found.add('layer off');
	if (get(root['/Outlines'])?.['/First']) found.add('outline');
	const proportion = (w, h) => Math.round((100 * w) / h);
	if (
		pages.length > 1 &&
		pages.every((page) => {
			if (page.images.length !== 1) return false;
			const box = get(page.dict['/MediaBox'] ?? get(page.dict['/Parent'])?.['/MediaBox']) ?? [];
			const [image] = page.images;
			return proportion(box[2] - box[0], box[3] - box[1]) === proportion(image.width, image.height);
		})
	)
		found.add('scanned pages');
	if (bytes.includes('PRIVATE-PAGE-1')) found.add('JPEGs passed through');
	if (
		streams(bytes).some((s) => s.measured && bytes.subarray(s.start, s.end).includes('endstream'))
	)
		found.add('endstream in a stream');
	if (/\/Type\s*\/ObjStm/.test(bytes.toString('latin1'))) found.add('object streams');
	if (/\/Linearized/.test(bytes.subarray(0, 1024).toString('latin1'))) found.add('linearized');
	return Object.keys(FEATURES).filter((feature) => found.has(feature));
}

// -------------------------------------------------------------------------- the corpus

/** An npm package's version (PDFKit's exports hide its package.json from require). */
function packageVersion(name, from = __dirname) {
	let dir = path.dirname(require.resolve(name, { paths: [from] }));
	for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const file = path.join(dir, 'package.json');
		if (!fs.existsSync(file)) continue;
		const json = JSON.parse(fs.readFileSync(file, 'utf8'));
		if (json.name === name) return `${name} ${json.version}`;
	}
	return `${name} (version unknown)`;
}

/**
 * The producers: each file's name, how it is made, what made it (its version, asked when the
 * corpus is made) and the producers whose files it is made from.
 */
const PRODUCERS = [
	{ name: 'jsPDF', make: jspdf, version: () => packageVersion('jspdf') },
	{ name: 'pdf-lib fields', make: pdfLibFields, version: () => packageVersion('pdf-lib') },
	{
		name: 'pdf-lib fields, one undrawn',
		make: pdfLibFieldsUndrawn,
		version: () => `${packageVersion('pdf-lib')} (low-level API)`,
	},
	{
		name: 'pdf-lib layers',
		make: pdfLibLayers,
		version: () => `${packageVersion('pdf-lib')} (low-level API)`,
	},
	{
		name: 'pdf-lib inherited',
		make: pdfLibInherited,
		version: () => `${packageVersion('pdf-lib')} (low-level API)`,
	},
	{ name: 'PDFKit', make: pdfkit, version: () => packageVersion('pdfkit') },
	{
		name: 'pdfmake',
		make: pdfmake,
		version: () =>
			`${packageVersion('pdfmake')} (on ${packageVersion('pdfkit', path.dirname(require.resolve('pdfmake')))})`,
	},
	{ name: 'Chromium', make: chromium, version: (tools) => tools.chromium },
	{ name: 'Ghostscript', make: ghostscript, version: (tools) => tools.gs },
	{ name: 'mutool', make: mutool, version: (tools) => tools.mutool },
	{
		name: 'mutool, uncompressed',
		make: (given) => mutool(given, { plain: true }),
		version: (tools) => tools.mutool,
	},
	{ name: 'img2pdf', make: img2pdf, version: (tools) => tools.img2pdf },
	{ name: 'OCRmyPDF', make: ocrmypdf, version: (tools) => `${tools.ocrmypdf}, ${tools.tesseract}` },
	{ name: 'LibreOffice', make: libreoffice, version: (tools) => tools.soffice },
	{
		name: 'qpdf',
		make: qpdf,
		from: ['jsPDF'],
		version: (tools) => `${tools.qpdf}, from jsPDF's file`,
	},
	{
		name: 'cairo',
		make: cairo,
		from: ['pdfmake'],
		version: (tools) => `${tools.pdftocairo}, from pdfmake's file`,
	},
];

/** Each Debian producer's version, as it says it (its first line that has a digit). */
async function versions() {
	const ask = async (command, args) => {
		try {
			const { stdout, stderr } = await run(command, args);
			const line = `${stdout}\n${stderr}`.split('\n').find((l) => /\d/.test(l)) ?? '';
			return line.trim();
		} catch (error) {
			return `${command}: ${error.message.split('\n')[0]}`;
		}
	};
	const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
	const [chromium_, gs, mutool_, img2pdf_, ocrmypdf_, tesseract, soffice, qpdf_, pdftocairo] =
		await Promise.all([
			ask(chromiumPath, ['--version']),
			ask('gs', ['--version']),
			ask('mutool', ['-v']),
			ask('img2pdf', ['--version']),
			ask('ocrmypdf', ['--version']),
			ask('tesseract', ['--version']),
			ask('soffice', ['--version']),
			ask('qpdf', ['--version']),
			ask('pdftocairo', ['-v']),
		]);
	return {
		chromium: chromium_,
		gs: `Ghostscript ${gs}`,
		mutool: mutool_,
		img2pdf: img2pdf_,
		ocrmypdf: `OCRmyPDF ${ocrmypdf_}`,
		tesseract,
		soffice: soffice.replace(/\s+[0-9a-f]{20,}.*$/, ''),
		qpdf: qpdf_,
		pdftocairo: `cairo through ${pdftocairo}`,
	};
}

/** The producers that take longest, started first. */
const SLOW = ['LibreOffice', 'Chromium', 'OCRmyPDF'];

/**
 * Makes the corpus in `dir`: { documents: [{name, producer, file, pages, features, seconds}],
 * failed: [{name, error}] }, in PRODUCERS' order. Producers run side by side, at most `parallel`
 * at once, the slowest first; one made from another's file waits for it. `only` names the
 * producers to run (all by default).
 */
async function makeCorpus(dir, { parallel = 3, only } = {}) {
	fs.mkdirSync(dir, { recursive: true });
	const asked = versions();
	const given = await pictures(dir, PAGES);
	const chosen = PRODUCERS.filter((p) => !only || only.includes(p.name));
	const rank = (p) => (SLOW.includes(p.name) ? SLOW.indexOf(p.name) : SLOW.length);
	const queue = [...chosen].sort((a, b) => rank(a) - rank(b));
	const files = new Map(chosen.map((p) => [p.name, deferred()]));
	const documents = [];
	const failed = [];
	const makeOne = async (producer) => {
		const started = Date.now();
		const file = path.join(dir, `${producer.name.replace(/\W+/g, '-')}.pdf`);
		try {
			const made = {};
			for (const from of producer.from ?? []) {
				made[from.toLowerCase()] = await files.get(from)?.promise;
				if (!made[from.toLowerCase()])
					throw new Error(`${from}'s file, which it is made from, was not made`);
			}
			const out = await producer.make({ ...given, dir, made });
			if (out.bytes) fs.writeFileSync(file, out.bytes);
			else fs.renameSync(out.file, file);
			const info = await run('pdfinfo', [file]);
			documents.push({
				name: producer.name,
				producer: producer.version(await asked),
				file,
				pages: Number(/^Pages:\s+(\d+)/m.exec(info.stdout.toString('latin1'))?.[1]),
				features: await features(file),
				seconds: (Date.now() - started) / 1000,
			});
			files.get(producer.name).resolve(file);
		} catch (error) {
			failed.push({ name: producer.name, error: error.message });
			files.get(producer.name).resolve(null);
		}
	};
	await Promise.all(
		Array.from({ length: parallel }, async () => {
			for (let next; (next = queue.shift()); ) await makeOne(next);
		}),
	);
	const order = (name) => chosen.findIndex((p) => p.name === name);
	documents.sort((a, b) => order(a.name) - order(b.name));
	return { documents, failed };
}

/** A promise with its resolve. */
function deferred() {
	let resolve;
	const promise = new Promise((r) => (resolve = r));
	return { promise, resolve };
}

/** Whether Tesseract has its English data (tesseract-ocr-eng, a package without a command). */
function english() {
	const listed = spawnSync('tesseract', ['--list-langs'], { encoding: 'utf8' });
	return /^eng$/m.test(`${listed.stdout}`);
}

module.exports = {
	DEBIAN,
	LANGUAGE,
	english,
	FEATURES,
	PRODUCERS,
	makeCorpus,
	features,
	run,
	streams,
};
