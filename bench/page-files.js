'use strict';
/**
 * The documents the page counter's benchmarks measure (bench/pages.js: time, bench/pages-memory.js:
 * memory): every file of the committed corpus (test/fixtures/pages), a large PDF (the emulator's
 * makePdf, 20,000 pages, classic xref table, ~5.7 MB), the same with its cross-reference broken
 * (the object scan stands in), the same rewritten by qpdf with Flate object streams (~2.8 MB;
 * skipped, saying so, when qpdf is not installed) and a 5,000-directory TIFF.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const emulator = require('../emulator/documents.js');

const CORPUS = path.join(__dirname, '../test/fixtures/pages');

/** A little-endian TIFF of `pages` one-entry directories. */
function bigTiff(pages) {
	const buf = Buffer.alloc(8 + pages * 18);
	buf.write('II', 0, 'latin1');
	buf.writeUInt16LE(42, 2);
	buf.writeUInt32LE(8, 4);
	for (let i = 0; i < pages; i++) {
		const at = 8 + i * 18;
		buf.writeUInt16LE(1, at);
		buf.writeUInt16LE(256, at + 2);
		buf.writeUInt16LE(3, at + 4);
		buf.writeUInt32LE(1, at + 6);
		buf.writeUInt32LE(i === pages - 1 ? 0 : at + 18, at + 14);
	}
	return buf;
}

/** The PDF rewritten by qpdf with Flate object streams, or null (and why) without qpdf. */
function withObjectStreams(pdf) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-bench-'));
	try {
		fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
		execFileSync('qpdf', ['--object-streams=generate', 'in.pdf', 'out.pdf'], { cwd: dir });
		return fs.readFileSync(path.join(dir, 'out.pdf'));
	} catch (error) {
		console.log(`qpdf could not make the object-stream PDF, skipped: ${error.message}`);
		return null;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** The files, as { name, kind ('pdf' | 'tiff'), bytes }. */
function pageFiles() {
	const files = fs
		.readdirSync(CORPUS)
		.filter((f) => /\.(pdf|tif)$/.test(f))
		.map((f) => ({
			name: f,
			kind: f.endsWith('.pdf') ? 'pdf' : 'tiff',
			bytes: fs.readFileSync(path.join(CORPUS, f)),
		}));
	const large = emulator.makePdf(Array.from({ length: 20_000 }, (_, i) => `page ${i + 1}`));
	const broken = Buffer.from(
		large.toString('latin1').replace(/startxref\n\d+/, 'startxref\n1'),
		'latin1',
	);
	files.push(
		{ name: 'makePdf 20,000 pages', kind: 'pdf', bytes: large },
		{ name: 'the same, startxref broken (scan)', kind: 'pdf', bytes: broken },
	);
	const objstm = withObjectStreams(large);
	if (objstm)
		files.push({ name: 'the same, qpdf object streams (Flate)', kind: 'pdf', bytes: objstm });
	files.push({ name: 'TIFF, 5,000 directories', kind: 'tiff', bytes: bigTiff(5000) });
	return files;
}

module.exports = { pageFiles };

// ---------------------------------------------------------------- crafted files (issue 35)

const zlib = require('node:zlib');
const L = (text) => Buffer.from(text, 'latin1');
const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const PAGE = '<< /Type /Page /Parent 2 0 R >>';
const refs = (first, n) => Array.from({ length: n }, (_, i) => `${first + i} 0 R`).join(' ');

/** A PDF of `objects` (numbered from 1) with a classic table. */
function classic(objects) {
	const parts = ['%PDF-1.4\n'];
	let length = parts[0].length;
	const rows = [];
	objects.forEach((body, i) => {
		rows.push(`${String(length).padStart(10, '0')} 00000 n \n`);
		const text = `${i + 1} 0 obj\n${body}\nendobj\n`;
		parts.push(text);
		length += text.length;
	});
	parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...rows);
	parts.push(
		`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
	);
	return L(parts.join(''));
}

/** The review's file: a cross-reference table of `n` one-entry subsections (`1 1`, `2 1`, ...). */
function quadraticXref(n) {
	const objects = [CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE];
	const parts = ['%PDF-1.4\n'];
	let length = parts[0].length;
	const offsets = [];
	objects.forEach((o, i) => {
		offsets[i + 1] = length;
		const text = `${i + 1} 0 obj\n${o}\nendobj\n`;
		parts.push(text);
		length += text.length;
	});
	parts.push('xref\n0 1\n0000000000 65535 f \n');
	for (let i = 1; i < n; i++)
		parts.push(
			`${i} 1\n${offsets[i] !== undefined ? `${String(offsets[i]).padStart(10, '0')} 00000 n ` : '0000000000 00001 f '}\n`,
		);
	parts.push(`trailer\n<< /Size ${n} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
	return L(parts.join(''));
}

/** `n` pages in a tree of `fan` kids per node (Infinity: all in the root). */
function pageTree(n, fan) {
	const objects = [CATALOG, ''];
	let level = [];
	for (let i = 0; i < n; i++) level.push(objects.push(PAGE));
	let counts = level.map(() => 1);
	while (level.length > fan) {
		const next = [];
		const nextCounts = [];
		for (let i = 0; i < level.length; i += fan) {
			const count = counts.slice(i, i + fan).reduce((a, b) => a + b, 0);
			const kids = level.slice(i, i + fan).map((k) => `${k} 0 R`);
			next.push(objects.push(`<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${count} >>`));
			nextCounts.push(count);
		}
		level = next;
		counts = nextCounts;
	}
	objects[1] = `<< /Type /Pages /Kids [${level.map((k) => `${k} 0 R`).join(' ')}] /Count ${n} >>`;
	return classic(objects);
}

/** Letters from a seeded generator: data that does not compress much. */
function letters(n, seed) {
	let s = seed;
	let out = '';
	for (let i = 0; i < n; i++)
		out += String.fromCharCode(97 + ((s = (s * 1103515245 + 12345) % 2 ** 31) % 26));
	return out;
}

/** A cross-reference stream of 9-byte rows (type, two 4-byte fields), and the file's end. */
function xrefStream(num, entries, at, encode) {
	const rows = Buffer.alloc(entries.length * 9);
	entries.forEach(([type, a, b], i) => {
		rows[i * 9] = type;
		rows.writeUInt32BE(a, i * 9 + 1);
		rows.writeUInt32BE(b, i * 9 + 5);
	});
	const { data, dict } = encode ? encode(rows) : { data: rows, dict: '' };
	return Buffer.concat([
		L(
			`${num} 0 obj\n<< /Type /XRef /W [1 4 4] /Size ${num + 1} /Root 1 0 R ${dict} /Length ${data.length} >>\nstream\n`,
		),
		data,
		L(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF\n`),
	]);
}

/** `streams` Flate object streams of `per` pages each (each page padded with letters). */
function objectStreams(streams, per, pad) {
	const parts = [L('%PDF-1.5\n')];
	let length = parts[0].length;
	const put = (b) => {
		parts.push(b);
		length += b.length;
	};
	const n = streams * per;
	const entries = [
		[0, 0, 65535],
		[1, length, 0],
	];
	put(L(`1 0 obj\n${CATALOG}\nendobj\n`));
	entries[2] = [1, length, 0];
	put(L(`2 0 obj\n<< /Type /Pages /Kids [${refs(3, n)}] /Count ${n} >>\nendobj\n`));
	for (let s = 0; s < streams; s++) {
		let head = '';
		let body = '';
		const num = n + 3 + s;
		for (let i = 0; i < per; i++) {
			const page = 3 + s * per + i;
			head += `${page} ${body.length} `;
			body += `<< /Type /Page /Parent 2 0 R /X (${letters(pad, page)}) >>\n`;
			entries[page] = [2, num, i];
		}
		const data = zlib.deflateSync(L(head + body));
		entries[num] = [1, length, 0];
		put(
			L(
				`${num} 0 obj\n<< /Type /ObjStm /N ${per} /First ${head.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
			),
		);
		put(data);
		put(L('\nendstream\nendobj\n'));
	}
	const xnum = n + streams + 3;
	entries[xnum] = [1, length, 0];
	put(xrefStream(xnum, entries, length));
	return Buffer.concat(parts);
}

/** `n` pages in one object stream stored without a filter. */
function storedObjectStream(n) {
	const parts = [L('%PDF-1.5\n')];
	let length = parts[0].length;
	const put = (b) => {
		parts.push(b);
		length += b.length;
	};
	const stream = n + 3;
	const entries = [
		[0, 0, 65535],
		[1, length, 0],
	];
	put(L(`1 0 obj\n${CATALOG}\nendobj\n`));
	entries[2] = [1, length, 0];
	put(L(`2 0 obj\n<< /Type /Pages /Kids [${refs(3, n)}] /Count ${n} >>\nendobj\n`));
	let head = '';
	let body = '';
	for (let i = 0; i < n; i++) {
		head += `${3 + i} ${body.length} `;
		body += `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\n`;
		entries[3 + i] = [2, stream, i];
	}
	entries[stream] = [1, length, 0];
	put(
		L(
			`${stream} 0 obj\n<< /Type /ObjStm /N ${n} /First ${head.length} /Length ${head.length + body.length} >>\nstream\n${head}${body}\nendstream\nendobj\n`,
		),
	);
	entries[stream + 1] = [1, length, 0];
	put(xrefStream(stream + 1, entries, length));
	return Buffer.concat(parts);
}

/** A one-page PDF whose PNG-predicted cross-reference stream lists `n` numbers, in stored blocks. */
function predictedXref(n) {
	const parts = [L(`%PDF-1.5\n%${'x'.repeat(2 * n)}\n`)];
	let length = parts[0].length;
	const entries = [[0, 0, 65535]];
	[CATALOG, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE].forEach((body, i) => {
		entries[i + 1] = [1, length, 0];
		const b = L(`${i + 1} 0 obj\n${body}\nendobj\n`);
		parts.push(b);
		length += b.length;
	});
	for (let num = 4; num < n; num++) entries[num] = [0, 0, 1];
	entries[n] = [1, length, 0];
	parts.push(
		xrefStream(n, entries, length, (rows) => {
			const out = Buffer.alloc((rows.length / 9) * 10);
			for (let r = 0; r < rows.length / 9; r++) {
				out[r * 10] = 2;
				for (let i = 0; i < 9; i++)
					out[r * 10 + 1 + i] = (rows[r * 9 + i] - (r > 0 ? rows[(r - 1) * 9 + i] : 0)) & 0xff;
			}
			return {
				data: zlib.deflateSync(out, { level: 0 }),
				dict: '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 9 >>',
			};
		}),
	);
	return Buffer.concat(parts);
}

/** A TIFF of `n` directories of `entries` entries each (little endian). */
function tiffDirectories(n, entries) {
	const size = 2 + entries * 12 + 4;
	const buf = Buffer.alloc(8 + n * size);
	buf.write('II', 0, 'latin1');
	buf.writeUInt16LE(42, 2);
	buf.writeUInt32LE(8, 4);
	for (let i = 0; i < n; i++) {
		const at = 8 + i * size;
		buf.writeUInt16LE(entries, at);
		for (let e = 0; e < entries; e++) {
			buf.writeUInt16LE(256 + e, at + 2 + e * 12);
			buf.writeUInt16LE(3, at + 4 + e * 12);
			buf.writeUInt32LE(1, at + 6 + e * 12);
		}
		buf.writeUInt32LE(i === n - 1 ? 0 : at + size, at + 2 + entries * 12);
	}
	return buf;
}

/** A GIF89a of `n` 1x1 frames. */
function gifFrames(n) {
	const head = L('GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff');
	const frame = L(
		'!\xf9\x04\x00\x0a\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00',
	);
	return Buffer.concat([head, ...Array(n).fill(frame), L(';')]);
}

/** A GIF of one frame whose image data is `n` sub-blocks of one byte. */
function gifSubBlocks(n) {
	const head = L(
		'GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02',
	);
	return Buffer.concat([head, Buffer.alloc(2 * n, 1), L('\x00;')]);
}

/** A PNG chunk (its CRC left 0: the counter does not check it). */
function pngChunk(type, data) {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'latin1');
	data.copy(out, 8);
	return out;
}

/** An APNG of `n` frames. */
function apngFrames(n) {
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(1, 0);
	ihdr.writeUInt32BE(1, 4);
	ihdr[8] = 8;
	const acTL = Buffer.alloc(8);
	acTL.writeUInt32BE(n, 0);
	const pixel = zlib.deflateSync(Buffer.from([0, 0xff]));
	const chunks = [
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		pngChunk('IHDR', ihdr),
		pngChunk('acTL', acTL),
	];
	for (let i = 0; i < n; i++) {
		chunks.push(pngChunk('fcTL', Buffer.alloc(26)));
		chunks.push(
			i === 0 ? pngChunk('IDAT', pixel) : pngChunk('fdAT', Buffer.concat([Buffer.alloc(4), pixel])),
		);
	}
	chunks.push(pngChunk('IEND', Buffer.alloc(0)));
	return Buffer.concat(chunks);
}

/** An animated WEBP of `n` frames. */
function webpFrames(n) {
	const chunk = (type, data) => {
		const out = Buffer.alloc(8 + data.length + (data.length % 2));
		out.write(type, 0, 'latin1');
		out.writeUInt32LE(data.length, 4);
		data.copy(out, 8);
		return out;
	};
	const vp8x = Buffer.alloc(10);
	vp8x[0] = 0x02;
	const body = Buffer.concat([
		L('WEBP'),
		chunk('VP8X', vp8x),
		chunk('ANIM', Buffer.alloc(6)),
		...Array.from({ length: n }, () => chunk('ANMF', Buffer.alloc(26))),
	]);
	const head = Buffer.alloc(8);
	head.write('RIFF', 0, 'latin1');
	head.writeUInt32LE(body.length, 4);
	return Buffer.concat([head, body]);
}

/**
 * Crafted files of about 10 MB each (the service's limit), the shapes that cost a counter most per
 * byte: { name, kind, make() } (each made when measured, so that one is held at a time).
 */
function craftedFiles() {
	const big = 10_000_000;
	const one = (value) =>
		classic([
			CATALOG,
			'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
			`<< /Type /Page /Parent 2 0 R ${value} >>`,
		]);
	const scanned = () =>
		L(
			pageTree(100_000, 8)
				.toString('latin1')
				.replace(/startxref\n\d+/, 'startxref\n1'),
		);
	return [
		['one-entry subsections (345,000)', () => quadraticXref(345_000)],
		['page tree of 100,000 tiny pages', () => pageTree(100_000, 8)],
		['the same, startxref broken (scan)', scanned],
		['a /Kids of 100,000 pages', () => pageTree(100_000, Infinity)],
		['a 10 MB string in a page', () => one(`/X (${'x'.repeat(big)})`)],
		['a 10 MB string as /Type', () => one(`/Type (${'x'.repeat(big)})`)],
		['10 MB of comments in a dictionary', () => one('% a comment >> ]\n'.repeat(big / 17))],
		[
			'10 MB of deep arrays in a page',
			() => one(`/X [${`${'['.repeat(28)}1${']'.repeat(28)} `.repeat(big / 58)}]`),
		],
		['a 10 MB name', () => one(`/${'A'.repeat(big)} 1`)],
		['4,000 Flate object streams, 100,000 pages', () => objectStreams(4000, 25, 100)],
		['one stored object stream, 110,000 pages', () => storedObjectStream(110_000)],
		['a predicted cross-reference stream of 800,000 rows', () => predictedXref(800_000)],
		['TIFF, 98,000 directories of 8 entries', () => tiffDirectories(98_000, 8), 'tiff'],
		['GIF, 100,000 frames (2.3 MB: the frame limit)', () => gifFrames(100_000), 'gif'],
		['GIF, one frame of 5,000,000 one-byte sub-blocks', () => gifSubBlocks(5_000_000), 'gif'],
		['APNG, 100,000 frames', () => apngFrames(100_000), 'png'],
		['animated WEBP, 100,000 frames', () => webpFrames(100_000), 'webp'],
	].map(([name, make, kind = 'pdf']) => ({ name, kind, make }));
}

module.exports.craftedFiles = craftedFiles;
module.exports.quadraticXref = quadraticXref;
