'use strict';
/** Review 37: small hand-built PDFs and TIFFs for the repro files (not a test file). */

/** A PDF of `objects` ({ number: body-with-optional-stream }), catalog 1; a classic xref. */
function pdf(objects, { root = 1 } = {}) {
	let text = '%PDF-1.4\n';
	const offsets = {};
	const numbers = Object.keys(objects)
		.map(Number)
		.sort((a, b) => a - b);
	for (const n of numbers) {
		offsets[n] = Buffer.byteLength(text, 'latin1');
		text += `${n} 0 obj\n${objects[n]}\nendobj\n`;
	}
	const size = numbers.at(-1) + 1;
	let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
	for (let n = 1; n < size; n++)
		xref +=
			offsets[n] !== undefined
				? `${String(offsets[n]).padStart(10, '0')} 00000 n \n`
				: '0000000000 65535 f \n';
	const at = Buffer.byteLength(text, 'latin1');
	text += `${xref}trailer\n<< /Size ${size} /Root ${root} 0 R >>\nstartxref\n${at}\n%%EOF\n`;
	return Buffer.from(text, 'latin1');
}

/** A content stream showing `text` (the emulator reads `(..) Tj`). */
const content = (text) => {
	const ops = `BT /F1 12 Tf 72 712 Td (${text}) Tj ET`;
	return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
};

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/**
 * Two pages in the tree (objects 3, 4), and object 9: a page removed from the tree (as an
 * editor's incremental save leaves it) that page 1's link still points to.
 */
function orphanLinked() {
	return pdf({
		1: '<< /Type /Catalog /Pages 2 0 R >>',
		2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
		3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R /Annots [8 0 R] >>',
		4: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 6 0 R >>',
		5: content('page one'),
		6: content('page two'),
		7: FONT,
		8: '<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /Dest [9 0 R /Fit] >>',
		9: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 10 0 R >>',
		10: content('deleted page secret'),
	});
}

/**
 * Two pages; page 1's content stream has a /Length that runs past its `endstream` over page 2's
 * dictionary and content to theirs (a /Length that lies: both ends are an `endstream`).
 */
function lyingLength() {
	const ops = 'BT /F1 12 Tf 72 712 Td (page one) Tj ET';
	const two = 'BT /F1 12 Tf 72 712 Td (page two) Tj ET';
	// Page 2's objects sit inside page 1's stream, as the long /Length reads them.
	const inside =
		`${ops}\nendstream\nendobj\n` +
		`4 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 6 0 R >>\nendobj\n` +
		`6 0 obj\n<< /Length ${two.length} >>\nstream\n${two}`;
	let text = '%PDF-1.4\n';
	const offsets = {};
	const put = (n, body) => {
		offsets[n] = text.length;
		text += `${n} 0 obj\n${body}\nendobj\n`;
	};
	put(1, '<< /Type /Catalog /Pages 2 0 R >>');
	put(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>');
	put(
		3,
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R >>',
	);
	put(7, FONT);
	offsets[5] = text.length;
	const head = `5 0 obj\n<< /Length ${inside.length} >>\nstream\n`;
	text += head;
	offsets[4] = text.length + inside.indexOf('4 0 obj');
	offsets[6] = text.length + inside.indexOf('6 0 obj');
	text += `${inside}\nendstream\nendobj\n`;
	let xref = 'xref\n0 8\n0000000000 65535 f \n';
	for (let n = 1; n < 8; n++) xref += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
	const at = text.length;
	text += `${xref}trailer\n<< /Size 8 /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
	return Buffer.from(text, 'latin1');
}

/**
 * A classic little-endian TIFF of `pages` directories; directory `heavy` (0-based) has `strips`
 * strips, each the whole file (offset 0, length of the file): strips that overlap.
 */
function overlappingStripsTiff({ pages = 2, heavy = 0, strips = 20_000 } = {}) {
	const entries = 5;
	const dirLen = 2 + 12 * entries + 4;
	const dirs = [];
	let at = 8;
	for (let p = 0; p < pages; p++) {
		const n = p === heavy ? strips : 1;
		dirs.push({ at, n });
		at += dirLen;
	}
	for (const d of dirs) {
		d.offsAt = at;
		at += d.n > 1 ? 4 * d.n : 0;
		d.countsAt = at;
		at += d.n > 1 ? 4 * d.n : 0;
	}
	const size = at + 16;
	const b = Buffer.alloc(size);
	b.write('II', 0, 'latin1');
	b.writeUInt16LE(42, 2);
	b.writeUInt32LE(8, 4);
	dirs.forEach((d, p) => {
		b.writeUInt16LE(entries, d.at);
		const e = (i, tag, type, n, v) => {
			const x = d.at + 2 + 12 * i;
			b.writeUInt16LE(tag, x);
			b.writeUInt16LE(type, x + 2);
			b.writeUInt32LE(n, x + 4);
			b.writeUInt32LE(v, x + 8);
		};
		e(0, 256, 4, 1, 8);
		e(1, 257, 4, 1, d.n);
		e(2, 259, 3, 1, 1);
		if (d.n > 1) {
			e(3, 273, 4, d.n, d.offsAt);
			e(4, 279, 4, d.n, d.countsAt);
			for (let i = 0; i < d.n; i++) {
				b.writeUInt32LE(0, d.offsAt + 4 * i);
				b.writeUInt32LE(size, d.countsAt + 4 * i);
			}
		} else {
			e(3, 273, 4, 1, size - 16);
			e(4, 279, 4, 1, 8);
		}
		b.writeUInt32LE(p < pages - 1 ? dirs[p + 1].at : 0, d.at + 2 + 12 * entries);
	});
	return b;
}

/**
 * Two pages; page 1's resources name `k` form XObjects laid one after the other, each stream's
 * /Length running to the one `endstream` at the end of them all: each stream's data holds every
 * later object (a /Length that lies, read as it says since an `endstream` follows there).
 */
function nestedStreams(k) {
	const parts = [];
	const offsets = {};
	let pos = 0;
	const add = (s) => {
		parts.push(s);
		pos += s.length;
	};
	add('%PDF-1.4\n');
	const xo = [];
	for (let i = 0; i < k; i++) xo.push(`/X${i} ${10 + i} 0 R`);
	const objs = {
		1: '<< /Type /Catalog /Pages 2 0 R >>',
		2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
		3: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << ${xo.join(' ')} >> >> /Contents 5 0 R >>`,
		4: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>',
		5: '<< /Length 0 >>\nstream\n\nendstream',
	};
	for (const n of [1, 2, 3, 4, 5]) {
		offsets[n] = pos;
		add(`${n} 0 obj\n${objs[n]}\nendobj\n`);
	}
	const heads = [];
	for (let i = 0; i < k; i++) {
		const n = 10 + i;
		offsets[n] = pos;
		const head = `${n} 0 obj\n<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length LLLLLLLLLL >>\nstream\n`;
		heads.push({ at: pos, head });
		add(head);
	}
	const end = pos;
	add('\nendstream\nendobj\n');
	let text = parts.join('');
	for (const { at, head } of heads) {
		const length = String(end - (at + head.length)).padStart(10, '0');
		text = text.slice(0, at) + head.replace('LLLLLLLLLL', length) + text.slice(at + head.length);
	}
	const size = 10 + k;
	let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
	for (let n = 1; n < size; n++)
		xref +=
			offsets[n] !== undefined
				? `${String(offsets[n]).padStart(10, '0')} 00000 n \n`
				: '0000000000 65535 f \n';
	const xrefAt = text.length;
	text += `${xref}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
	return Buffer.from(text, 'latin1');
}

module.exports = {
	pdf,
	content,
	FONT,
	orphanLinked,
	lyingLength,
	overlappingStripsTiff,
	nestedStreams,
};

/**
 * `pages` pages under one tree node whose /Resources is a direct dictionary of about `kb` kB
 * (many small graphics states): every page inherits it. Real files share resources this way.
 */
function inheritedResources(pages, kb) {
	const states = [];
	for (let i = 0, size = 0; size < kb * 1000; i++) {
		const entry = `/G${i} << /Type /ExtGState /CA 1 /ca 1 >> `;
		states.push(entry);
		size += entry.length;
	}
	const objects = {
		1: '<< /Type /Catalog /Pages 2 0 R >>',
		3: content('shared page'),
	};
	const kids = [];
	for (let i = 0; i < pages; i++) {
		objects[10 + i] = '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>';
		kids.push(`${10 + i} 0 R`);
	}
	objects[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /ExtGState << ${states.join('')}>> >> >>`;
	objects[4] = FONT;
	return pdf(objects);
}
module.exports.inheritedResources = inheritedResources;

// PDF 1.5: pages 3 and 4 in object stream 10; the xref stream lists object 3 at index 1 and
// object 4 at index 0, while the object stream's own pairs say index 0 is object 3.
function objectStreamSwapped() {
	let text = '%PDF-1.5\n';
	const off = {};
	const put = (n, body) => {
		off[n] = text.length;
		text += `${n} 0 obj\n${body}\nendobj\n`;
	};
	put(1, '<< /Type /Catalog /Pages 2 0 R >>');
	put(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>');
	put(5, content('page one'));
	put(6, content('page two'));
	put(7, FONT);
	const p3 =
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R >>';
	const p4 =
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 6 0 R >>';
	const pairs = `3 0 4 ${p3.length + 1} `;
	const data = pairs + p3 + '\n' + p4 + '\n';
	put(
		10,
		`<< /Type /ObjStm /N 2 /First ${pairs.length} /Length ${data.length} >>\nstream\n${data}\nendstream`,
	);
	// xref stream, object 11, W [1 4 2]
	const rows = [];
	const row = (t, f2, f3) => {
		const r = Buffer.alloc(7);
		r[0] = t;
		r.writeUInt32BE(f2, 1);
		r.writeUInt16BE(f3, 5);
		rows.push(r);
	};
	const xrefAt = text.length;
	row(0, 0, 65535);
	row(1, off[1], 0);
	row(1, off[2], 0);
	row(2, 10, 1); // object 3: index 1 (the stream says index 1 is object 4)
	row(2, 10, 0); // object 4: index 0
	row(1, off[5], 0);
	row(1, off[6], 0);
	row(1, off[7], 0);
	row(0, 0, 0);
	row(0, 0, 0);
	row(1, off[10], 0);
	row(1, xrefAt, 0);
	const body = Buffer.concat(rows);
	const head = `11 0 obj\n<< /Type /XRef /Size 12 /W [1 4 2] /Root 1 0 R /Length ${body.length} >>\nstream\n`;
	const tail = `\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
	return Buffer.concat([Buffer.from(text + head, 'latin1'), body, Buffer.from(tail, 'latin1')]);
}
module.exports.objectStreamSwapped = objectStreamSwapped;
