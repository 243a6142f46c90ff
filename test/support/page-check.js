'use strict';
/**
 * A written PDF (a selection or a part) checked against its source in real readers (issue 42).
 * Each problem names the source file, the selection, the source page and the check:
 *  - render: the written page drawn by poppler (pdftoppm -r 36) differs from the source page's
 *    drawing by one pixel or more;
 *  - text: its text (pdftotext -layout) is not the source page's;
 *  - bytes: the file holds an image object only unselected pages draw (the images each page draws
 *    as pdfimages -list gives them, their raw stream data as qpdf gives it), or a marker of an
 *    unselected page (its words, form XObject, note, field value, hidden layer, JPEG comment)
 *    that the source holds readable (in its bytes with Flate streams inflated, as written or in
 *    hex);
 *  - qpdf: qpdf --check reports an error or a warning;
 *  - pages: pdfinfo counts other than the pages written.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { run, streams } = require('./producers');

/** The markers a page carries, where its producer can carry them. */
const MARKERS = (n) => [
	`PAGE${n}-TEXT`,
	`FORM${n}-TEXT`,
	`NOTE${n}-TEXT`,
	`FIELD${n}-VALUE`,
	`LAYER${n}-TEXT`,
	`PRIVATE-PAGE-${n}`,
];

/**
 * At most `os.availableParallelism()` readers at once: every reader run of the suite goes
 * through here, so the documents and selections checked side by side share the machine's cores.
 */
const slots = { free: Math.max(2, os.availableParallelism?.() ?? os.cpus().length), waiting: [] };
async function reader(command, args) {
	if (slots.free > 0) slots.free--;
	else await new Promise((resolve) => slots.waiting.push(resolve));
	try {
		return await run(command, args).then(
			(done) => ({ status: 0, ...done }),
			// A reader killed (its timeout) has no exit code: -1.
			(error) => ({
				status: typeof error.code === 'number' ? error.code : -1,
				stdout: Buffer.alloc(0),
				stderr: Buffer.from(error.message),
			}),
		);
	} finally {
		const next = slots.waiting.shift();
		if (next) next();
		else slots.free++;
	}
}

/** The file's bytes with every Flate stream inflated after them (a marker in any stream shows). */
function inflated(bytes) {
	const pieces = [bytes];
	for (const { start, end } of streams(bytes)) {
		try {
			pieces.push(
				zlib.inflateSync(bytes.subarray(start, end), { finishFlush: zlib.constants.Z_SYNC_FLUSH }),
			);
		} catch {
			// Not Flate (an image, a font of another filter): its raw bytes are in the file already.
		}
	}
	return Buffer.concat(pieces);
}

/**
 * The ways a marker can be readable in a PDF: as written, in a hex string of its bytes or of its
 * UTF-16BE (a text string), either case.
 */
function spellings(marker) {
	const hex = Buffer.from(marker, 'latin1').toString('hex');
	const wide = Buffer.from(marker, 'utf16le').swap16().toString('hex');
	return [marker, hex, hex.toUpperCase(), wide, wide.toUpperCase()].map((s) =>
		Buffer.from(s, 'latin1'),
	);
}
const holds = (haystack, marker) => spellings(marker).some((s) => haystack.includes(s));

/** A PPM (P6) file poppler wrote: its width, height and pixels. */
function ppm(bytes) {
	const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
	if (!header) throw new Error('not a PPM');
	return {
		width: Number(header[1]),
		height: Number(header[2]),
		pixels: bytes.subarray(header[0].length),
	};
}

/** Each page of `file` drawn at 36 dpi by pdftoppm, in page order. */
async function renders(file, work) {
	const prefix = path.join(work, `${path.basename(file)}.r`);
	const done = await reader('pdftoppm', ['-r', '36', file, prefix]);
	if (done.status) throw new Error(`pdftoppm failed on ${file}: ${done.stderr}`);
	const base = path.basename(prefix).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return fs
		.readdirSync(work)
		.map((name) => ({ name, page: new RegExp(`^${base}-(\\d+)\\.ppm$`).exec(name) }))
		.filter((entry) => entry.page)
		.sort((a, b) => Number(a.page[1]) - Number(b.page[1]))
		.map((entry) => {
			const full = path.join(work, entry.name);
			const image = ppm(fs.readFileSync(full));
			fs.rmSync(full);
			return image;
		});
}

/** Where two drawings differ: how many pixels, and their box; null when they are the same. */
function difference(a, b) {
	if (a.width !== b.width || b.height !== a.height)
		return `${b.width}x${b.height} pixels, not ${a.width}x${a.height}`;
	if (a.pixels.equals(b.pixels)) return null;
	let count = 0;
	const box = [a.width, a.height, -1, -1];
	for (let i = 0; i < a.pixels.length; i += 3) {
		if (
			a.pixels[i] === b.pixels[i] &&
			a.pixels[i + 1] === b.pixels[i + 1] &&
			a.pixels[i + 2] === b.pixels[i + 2]
		)
			continue;
		count++;
		const x = (i / 3) % a.width;
		const y = Math.floor(i / 3 / a.width);
		box[0] = Math.min(box[0], x);
		box[1] = Math.min(box[1], y);
		box[2] = Math.max(box[2], x);
		box[3] = Math.max(box[3], y);
	}
	return `${count} pixels differ, in the box (${box.join(', ')}) at 36 dpi`;
}

/** Each page's text as pdftotext -layout gives it (a page ends with a form feed). */
async function texts(file) {
	const done = await reader('pdftotext', ['-layout', file, '-']);
	if (done.status) throw new Error(`pdftotext failed on ${file}: ${done.stderr}`);
	return done.stdout.toString('utf8').split('\f').slice(0, -1);
}

/**
 * The images each page draws (pdfimages -list: page, object number), with each image object's
 * raw stream data (qpdf --show-object --raw-stream-data).
 */
async function images(file) {
	const listed = await reader('pdfimages', ['-list', file]);
	if (listed.status) throw new Error(`pdfimages failed on ${file}: ${listed.stderr}`);
	const drawn = new Map();
	for (const line of listed.stdout.toString('latin1').split('\n').slice(2)) {
		const columns = line.trim().split(/\s+/);
		if (columns.length < 12) continue;
		const [page, object] = [Number(columns[0]), Number(columns[10])];
		if (!Number.isInteger(object) || object <= 0) continue; // an inline image: in its page's content
		if (!drawn.has(object)) drawn.set(object, new Set());
		drawn.get(object).add(page);
	}
	const all = [];
	for (const [object, pages] of drawn) {
		const raw = await reader('qpdf', [`--show-object=${object}`, '--raw-stream-data', file]);
		if (raw.status)
			throw new Error(`qpdf could not give object ${object} of ${file}: ${raw.stderr}`);
		all.push({ object, pages: [...pages], raw: raw.stdout });
	}
	return all;
}

/**
 * A source read once for all its checks: its pages' drawings and texts, the images each page
 * draws, the markers each page carries that are readable in the file.
 */
async function readSource(file, work) {
	const bytes = fs.readFileSync(file);
	const [drawings, pageTexts, drawnImages] = await Promise.all([
		renders(file, work),
		texts(file),
		images(file),
	]);
	const readable = inflated(bytes);
	const markers = drawings.map((_, i) => MARKERS(i + 1).filter((m) => holds(readable, m)));
	return {
		file,
		name: path.basename(file),
		pages: drawings.length,
		drawings,
		pageTexts,
		images: drawnImages,
		markers,
	};
}

/**
 * The problems of `bytes`, written for `pages` (1-based source pages, ascending) of `source` and
 * named `selection`: [{file, selection, page, check, detail}] (page null: the whole file).
 */
async function checkWritten(source, selection, pages, bytes, work) {
	const problems = [];
	const problem = (page, check, detail) =>
		problems.push({ file: source.name, selection, page, check, detail });
	const file = path.join(work, `${source.name}.${selection.replace(/[^\w-]+/g, '_')}.pdf`);
	fs.writeFileSync(file, bytes);

	const [check, info, drawings, written] = await Promise.all([
		reader('qpdf', ['--check', file]),
		reader('pdfinfo', [file]),
		renders(file, work).catch((error) => error),
		texts(file).catch((error) => error),
	]);
	if (check.status !== 0)
		problem(
			null,
			'qpdf',
			`qpdf --check exits ${check.status} (${check.status === 3 ? 'warnings' : 'errors'}): ${`${check.stdout}${check.stderr}`.replace(/\s+/g, ' ').slice(0, 300)}`,
		);
	const counted = /^Pages:\s+(\d+)/m.exec(info.stdout.toString('latin1'));
	if (!counted || Number(counted[1]) !== pages.length)
		problem(null, 'pages', `pdfinfo counts ${counted?.[1] ?? 'no'} pages, not ${pages.length}`);

	pages.forEach((page, k) => {
		if (drawings instanceof Error) return problem(page, 'render', drawings.message);
		const drawn = drawings[k];
		if (!drawn) return problem(page, 'render', `the file has no page ${k + 1} to draw`);
		const differs = difference(source.drawings[page - 1], drawn);
		if (differs) problem(page, 'render', differs);
	});
	pages.forEach((page, k) => {
		if (written instanceof Error) return problem(page, 'text', written.message);
		if (written[k] !== source.pageTexts[page - 1])
			problem(
				page,
				'text',
				`${JSON.stringify((written[k] ?? '').trim()).slice(0, 160)}, not ${JSON.stringify(source.pageTexts[page - 1].trim()).slice(0, 160)}`,
			);
	});

	// What only unselected pages use must not be in the file.
	const chosen = new Set(pages);
	const kept = source.images.filter((image) => image.pages.some((p) => chosen.has(p)));
	for (const image of source.images) {
		if (image.pages.some((p) => chosen.has(p)) || image.raw.length < 32) continue;
		// The same bytes drawn by a chosen page (another object) may be there.
		if (kept.some((other) => other.raw.equals(image.raw))) continue;
		if (bytes.includes(image.raw))
			problem(
				image.pages[0],
				'bytes',
				`holds image object ${image.object} (${image.raw.length} bytes), drawn only by page ${image.pages.join(', ')}`,
			);
	}
	const readable = inflated(bytes);
	for (let page = 1; page <= source.pages; page++) {
		if (chosen.has(page)) continue;
		const found = source.markers[page - 1].filter((marker) => holds(readable, marker));
		if (found.length)
			problem(page, 'bytes', `holds ${found.join(', ')} of unselected page ${page}`);
	}
	fs.rmSync(file);
	return problems;
}

/** A problem as one line of a failure message. */
const lineOf = (p) =>
	`${p.file} | ${p.selection} | ${p.page === null ? 'file' : `page ${p.page}`} | ${p.check} | ${p.detail}`;

module.exports = { readSource, checkWritten, lineOf, inflated, MARKERS };
