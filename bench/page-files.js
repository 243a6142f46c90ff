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
