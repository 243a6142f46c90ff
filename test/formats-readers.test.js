'use strict';
/**
 * The format room's writers against real readers (issue 37): every selection and every part the
 * package writes (the built formats/, dist/) opens in them with the right pages in the right
 * order. PDFs: `qpdf --check` finds no error or warning, `pdfinfo` counts the pages, `pdftotext`
 * gives each page the text the original gives that page, no page object of a page left out
 * survives (`/Type /Page` counted in the bytes), and the package's own counter counts the file.
 * TIFFs: `tiffinfo` reads every directory (no error), in the order chosen (their descriptions),
 * and each page's pixels are the original page's (`tiffcmp` of the page taken out of each file
 * with `tiffcp file,N`). The corpus: PDFs made here with everything a copy must handle
 * (crafted.js richPdf: inherited attributes, shared fonts, links between pages, an outline, a
 * form, a structure tree), the same rewritten by qpdf with object streams, linearized, both, and
 * with an incremental update; the emulator's PDFs; PostScript through Ghostscript; the committed
 * corpus (test/fixtures/pages: every producer); a PDF of image pages split under a Base64 limit;
 * multi-page TIFFs from tiffcp (both byte orders, LZW, tiles), crafted.js pagedTiff (SubIFDs
 * and EXIF left out) and the corpus. Refused, clearly: an encrypted PDF, a BigTIFF. Last, a 25 MB
 * PDF split in a process of its own: its peak memory growth at most 2.5 times the file.
 *
 * The readers are Debian's qpdf, poppler-utils (pdfinfo, pdftotext), libtiff-tools (tiffinfo,
 * tiffcp, tiffcmp) and ghostscript, installed with apt-get when missing.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { richPdf, pagedTiff } = require('./fixtures/pages/crafted');
const emulator = require('../emulator/documents.js');
const { ensureDebian } = require('./support/debian');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../dist');
const FORMATS = path.join(DIST, 'nodes/DocumentOcr/formats');
const formats = require(FORMATS);
const CORPUS = path.join(__dirname, 'fixtures', 'pages');
/** The readers, installed when missing (test/support/debian.js). */
const READERS = [
	['qpdf', 'qpdf'],
	['pdfinfo', 'poppler-utils'],
	['pdftotext', 'poppler-utils'],
	['tiffinfo', 'libtiff-tools'],
	['tiffcp', 'libtiff-tools'],
	['tiffcmp', 'libtiff-tools'],
	['gs', 'ghostscript'],
];

/** A reader's run: its exit status and what it printed. */
function run(command, args) {
	const result = spawnSync(command, args, { encoding: 'latin1', timeout: 120_000 });
	return { status: result.status, out: `${result.stdout ?? ''}`, err: `${result.stderr ?? ''}` };
}

const L = (text) => Buffer.from(text, 'latin1');
const joined = (written) => Buffer.concat(written.chunks, written.length);
const every = (n) => Array.from({ length: n }, (_, i) => i + 1);
const base64 = (size) => 4 * Math.ceil(size / 3);

let dir;
let files = 0;
/** Writes `bytes` to a new file of the suite's folder. */
function save(bytes, ext) {
	const file = path.join(dir, `${files++}.${ext}`);
	fs.writeFileSync(file, bytes);
	return file;
}

// -------------------------------------------------------------------------- PDFs

/** Each page's text as pdftotext gives it (pages end with a form feed). */
function pageTexts(file) {
	const { status, out, err } = run('pdftotext', ['-layout', file, '-']);
	if (status !== 0) throw new Error(`pdftotext failed on ${file}: ${err}`);
	return out.split('\f').slice(0, -1);
}

/** A PDF rewritten by qpdf with `args`. */
function qpdf(bytes, args) {
	const input = save(bytes, 'pdf');
	const output = `${input}.qpdf.pdf`;
	execFileSync('qpdf', [...args, input, output]);
	return fs.readFileSync(output);
}

/** An incremental update after `base`: objects by number, a classic table and /Prev. */
function update(base, objects) {
	const text = base.toString('latin1');
	const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)[1];
	const size = /\/Size (\d+)/.exec(text.slice(text.lastIndexOf('trailer')))[1];
	let out = '';
	const at = {};
	for (const [num, body] of Object.entries(objects)) {
		at[num] = base.length + out.length;
		out += `${num} 0 obj\n${body}\nendobj\n`;
	}
	const xref = base.length + out.length;
	out += 'xref\n';
	for (const num of Object.keys(at))
		out += `${num} 1\n${String(at[num]).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size ${size} /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.concat([base, L(out)]);
}

/** PostScript of `pages` pages, each its own words in Times, through Ghostscript's pdfwrite. */
function ghostscript(pages) {
	const ps = ['%!PS', '/Times-Roman findfont 20 scalefont setfont'];
	for (let i = 1; i <= pages; i++)
		ps.push(`72 700 moveto (GHOSTSCRIPT PAGE ${i} OF ${pages}) show showpage`);
	const input = save(L(ps.join('\n')), 'ps');
	const output = `${input}.pdf`;
	execFileSync('gs', [
		'-q',
		'-dNOPAUSE',
		'-dBATCH',
		'-dSAFER',
		'-sDEVICE=pdfwrite',
		`-sOutputFile=${output}`,
		input,
	]);
	return fs.readFileSync(output);
}

/**
 * A PDF of `pages` pages, each a Flate image of `imageBytes` random bytes of its own, one image
 * every page shows, a font they share and its words; objects numbered from 1.
 */
function imagePdf(pages, imageBytes, seed = 1) {
	let state = seed;
	const random = (n) => {
		const out = Buffer.alloc(n);
		for (let i = 0; i < n; i++) {
			state = (Math.imul(state, 1103515245) + 12345) >>> 0;
			out[i] = state >>> 24;
		}
		return out;
	};
	const objects = [];
	const add = (body) => objects.push(body);
	const image = (bytes) => {
		const side = Math.floor(Math.sqrt(bytes.length / 3));
		const data = zlib.deflateSync(bytes.subarray(0, side * side * 3), { level: 1 });
		return [
			L(
				`<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
			),
			data,
			L('\nendstream'),
		];
	};
	add(L('<< /Type /Catalog /Pages 2 0 R >>'));
	add(L('')); // the page tree, below
	const font = add(L('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
	const shared = add(image(random(30_000)));
	const kids = [];
	for (let i = 1; i <= pages; i++) {
		const own = add(image(random(imageBytes)));
		const ops = `q 200 0 0 200 50 300 cm /Own Do Q q 50 0 0 50 400 700 cm /Logo Do Q BT /F1 18 Tf 50 100 Td (IMAGE PAGE ${i}) Tj ET`;
		const content = add(L(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`));
		kids.push(
			add(
				L(
					`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 ${font} 0 R >> /XObject << /Own ${own} 0 R /Logo ${shared} 0 R >> >> >>`,
				),
			),
		);
	}
	objects[1] = L(
		`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages} >>`,
	);
	const pieces = [L('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')];
	let length = pieces[0].length;
	const offsets = [];
	objects.forEach((body, i) => {
		offsets.push(length);
		const parts = [
			L(`${i + 1} 0 obj\n`),
			...(Array.isArray(body) ? body : [body]),
			L('\nendobj\n'),
		];
		for (const part of parts) {
			pieces.push(part);
			length += part.length;
		}
	});
	let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) xref += `${String(offset).padStart(10, '0')} 00000 n \n`;
	xref += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
	pieces.push(L(xref));
	return Buffer.concat(pieces);
}

/** The PDFs of the corpus: [name, bytes]. */
function pdfCorpus() {
	const rich = richPdf();
	const words = Array.from(
		{ length: 12 },
		(_, i) => `emulator page ${i + 1} says ${'word '.repeat(i + 1)}`,
	);
	return [
		['richPdf (crafted.js)', rich],
		['richPdf, qpdf object streams', qpdf(rich, ['--object-streams=generate'])],
		['richPdf, qpdf linearized', qpdf(rich, ['--linearize'])],
		[
			'richPdf, qpdf object streams and linearized',
			qpdf(rich, ['--object-streams=generate', '--linearize']),
		],
		[
			'richPdf with an incremental update (new words on page 3, a page dropped)',
			update(rich, {
				15: `<< /Length 48 >>\nstream\nBT /F1 12 Tf 20 20 Td (PAGE-THREE-UPDATED) Tj ET\nendstream`,
				3: '<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 7 0 R] /Count 2 /CropBox [10 10 290 390] >>',
				2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 4 /MediaBox [0 0 300 400] /Resources 10 0 R /Rotate 90 >>',
			}),
		],
		['the emulator, 12 pages', emulator.makePdf(words)],
		[
			'the emulator, 12 pages, qpdf object streams',
			qpdf(emulator.makePdf(words), ['--object-streams=generate']),
		],
		['Ghostscript, 7 pages', ghostscript(7)],
		['images, 9 pages', imagePdf(9, 20_000)],
		...fs
			.readdirSync(CORPUS)
			.filter((name) => name.endsWith('.pdf'))
			.map((name) => [name, fs.readFileSync(path.join(CORPUS, name))]),
	];
}

/** The selections tried on a document of `total` pages. */
function selectionsOf(total) {
	const list = ['1', 'last', '1-', '2-'];
	if (total >= 4) list.push('1, 3-4, last', '2-3');
	if (total >= 6)
		list.push(
			every(total)
				.filter((p) => p % 2 === 0)
				.join(','),
		);
	return [...new Set(list)].filter((text) => {
		try {
			formats.parsePageSelection(text, total);
			return true;
		} catch {
			return false;
		}
	});
}

// -------------------------------------------------------------------------- TIFFs

/** The TIFFs of the corpus: [name, bytes, the descriptions of its pages or undefined]. */
function tiffCorpus() {
	const texts = every(6).map((i) => `TIFF-PAGE-${i}`);
	const singles = texts.map((text) => save(emulator.makeTiff(text), 'tif'));
	const tiffcp = (args) => {
		const output = path.join(dir, `${files++}.tif`);
		execFileSync('tiffcp', [...args, ...singles, output]);
		return fs.readFileSync(output);
	};
	return [
		['tiffcp, little-endian', tiffcp([]), texts],
		['tiffcp, big-endian', tiffcp(['-B']), texts],
		['tiffcp, LZW', tiffcp(['-c', 'lzw']), texts],
		['tiffcp, tiles of 16 x 16', tiffcp(['-t', '-w', '16', '-l', '16']), texts],
		[
			'pagedTiff (crafted.js), SubIFDs and EXIF',
			pagedTiff(texts, { pointers: true, strips: 3 }),
			texts,
		],
		['pagedTiff (crafted.js), big-endian', pagedTiff(texts, { be: true, strips: 2 }), texts],
		...['magick-3.tif', 'magick-be-2.tif', 'tiffcp-5.tif'].map((name) => [
			name,
			fs.readFileSync(path.join(CORPUS, name)),
			undefined,
		]),
	];
}

/** tiffinfo's directories of a file: their descriptions, and any error it printed. */
function tiffDirectories(file) {
	const { status, out, err } = run('tiffinfo', ['-D', file]);
	const directories = out.split(/^TIFF Directory at offset/m).slice(1);
	return {
		status,
		errors: err.split('\n').filter((line) => /error/i.test(line)),
		descriptions: directories.map((d) => /ImageDescription: (.*)/.exec(d)?.[1]),
	};
}

/** Whether page `k` (1-based) of `a` has the pixels of page `p` of `b` (tiffcp, then tiffcmp). */
function samePixels(a, k, b, p) {
	const one = path.join(dir, `${files++}.tif`);
	const two = path.join(dir, `${files++}.tif`);
	// In strips (-s): tiffcmp reads scanlines, which a tiled image has not.
	execFileSync('tiffcp', ['-s', `${a},${k - 1}`, one]);
	execFileSync('tiffcp', ['-s', `${b},${p - 1}`, two]);
	return run('tiffcmp', [one, two]).status === 0;
}

// -------------------------------------------------------------------------- the suite

describe('every file the package writes opens in real readers, the right pages in order', () => {
	const rows = [];
	beforeAll(async () => {
		await ensureDebian(READERS);
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formats-readers-'));
	}, 900_000);
	afterAll(() => {
		console.log(
			`file | written | bytes | qpdf --check / tiffinfo | pages: pdfinfo / directories | text or pixels | page objects | counter\n${rows.map((r) => r.join(' | ')).join('\n')}`,
		);
		const summary = rows.reduce(
			(all, row) => ({ files: all.files + 1, ok: all.ok + (row.includes('WRONG') ? 0 : 1) }),
			{ files: 0, ok: 0 },
		);
		console.log(`${summary.ok} of ${summary.files} written files read right by every reader`);
		fs.rmSync(dir, { recursive: true, force: true });
	});

	/** Checks a written PDF of `pages` (1-based pages of the original); what is wrong, if anything. */
	async function checkPdf(name, what, written, pages, originalTexts) {
		const bytes = joined(written);
		const file = save(bytes, 'pdf');
		const check = run('qpdf', ['--check', file]);
		const info = /^Pages:\s+(\d+)/m.exec(run('pdfinfo', [file]).out);
		const texts = pageTexts(file);
		const expected = pages.map((page) => originalTexts[page - 1]);
		const sameText = JSON.stringify(texts) === JSON.stringify(expected);
		const objects = (bytes.toString('latin1').match(/\/Type\s*\/Page(?![A-Za-z])/g) ?? []).length;
		const counted = (await formats.countPages(bytes, 'pdf')).pages;
		const problems = [];
		if (check.status !== 0)
			problems.push(
				`qpdf --check exits ${check.status}: ${check.out.slice(-300)}${check.err.slice(0, 300)}`,
			);
		if (!info || Number(info[1]) !== pages.length)
			problems.push(`pdfinfo: ${info?.[1]} pages, not ${pages.length}`);
		if (!sameText)
			problems.push(
				`pdftotext: ${JSON.stringify(texts).slice(0, 300)}, not ${JSON.stringify(expected).slice(0, 300)}`,
			);
		if (objects !== pages.length)
			problems.push(`${objects} /Type /Page objects, not ${pages.length}`);
		if (counted !== pages.length) problems.push(`the counter: ${counted}, not ${pages.length}`);
		if (bytes.length !== written.length)
			problems.push(`${bytes.length} bytes written, ${written.length} said`);
		rows.push([
			name,
			what,
			bytes.length,
			check.status === 0 ? 'ok' : 'WRONG',
			info?.[1] ?? 'none',
			sameText ? 'same' : 'WRONG',
			objects,
			counted,
		]);
		return problems.map((problem) => `${name}, ${what}: ${problem}`);
	}

	test('PDF selections and splits: qpdf, pdfinfo, pdftotext and the counter', async () => {
		const problems = [];
		for (const [name, bytes] of pdfCorpus()) {
			const original = save(bytes, 'pdf');
			const originalTexts = pageTexts(original);
			const total = (await formats.countPages(bytes, 'pdf')).pages;
			expect([name, total]).toEqual([name, originalTexts.length]);
			for (const text of selectionsOf(total)) {
				const pages = formats.parsePageSelection(text, total);
				const written = await formats.selectPages(bytes, 'pdf', pages);
				problems.push(...(await checkPdf(name, `pages ${text}`, written, pages, originalTexts)));
			}
			// A split where parts hold a few pages: the limit half again the largest page's Base64.
			let largest = 0;
			for (const page of every(total))
				largest = Math.max(largest, (await formats.selectPdfPages(bytes, [page])).length);
			const limit = Math.ceil(base64(largest) * 1.5);
			const parts = await formats.splitPages(bytes, 'pdf', (size) => base64(size) <= limit);
			let next = 1;
			for (const part of parts) {
				if (part.first !== next)
					problems.push(`${name}: a part begins at ${part.first}, not ${next}`);
				next = part.last + 1;
				if (base64(part.length) > limit) problems.push(`${name}: a part's Base64 passes ${limit}`);
				const pages = every(part.last - part.first + 1).map((k) => part.first + k - 1);
				problems.push(
					...(await checkPdf(
						name,
						`part ${part.first}-${part.last} (Base64 ≤ ${limit})`,
						part,
						pages,
						originalTexts,
					)),
				);
			}
			if (next !== total + 1) problems.push(`${name}: the parts end at ${next - 1}, not ${total}`);
			// A split of a selection (Pages with Split Large Documents): every other page and the last.
			const chosen = every(total).filter((page) => page % 2 === 1 || page === total);
			const selected = await formats.splitPages(bytes, 'pdf', (size) => base64(size) <= limit, {
				pages: chosen,
			});
			if (selected.flatMap((part) => part.pages).join() !== chosen.join())
				problems.push(`${name}: the selection's parts do not hold pages ${chosen.join(', ')}`);
			for (const part of selected)
				problems.push(
					...(await checkPdf(
						name,
						`selection part ${part.pages.join(',')}`,
						part,
						part.pages,
						originalTexts,
					)),
				);
			// Every part is the file selectPages writes for its pages, byte for byte: a part is
			// written again from its pages alone when it is sent (documents/read.ts).
			for (const part of [...parts, ...selected]) {
				const again = await formats.selectPages(bytes, 'pdf', part.pages);
				if (!Buffer.concat(again.chunks).equals(Buffer.concat(part.chunks)))
					problems.push(
						`${name}: the part of pages ${part.pages.join(',')} is not what selectPages writes`,
					);
			}
		}
		expect(problems).toEqual([]);
	}, 900_000);

	test('a PDF of image pages split under a Base64 limit: every part fits, as few as fit', async () => {
		const bytes = imagePdf(40, 60_000, 7);
		const originalTexts = pageTexts(save(bytes, 'pdf'));
		const limit = 600_000;
		const parts = await formats.splitPdf(bytes, (size) => base64(size) <= limit);
		const problems = [];
		for (const [i, part] of parts.entries()) {
			const pages = every(part.last - part.first + 1).map((k) => part.first + k - 1);
			expect(base64(part.length)).toBeLessThanOrEqual(limit);
			expect(joined(part).toString('base64').length).toBe(base64(part.length));
			problems.push(
				...(await checkPdf(
					'images, 40 pages',
					`part ${part.first}-${part.last}`,
					part,
					pages,
					originalTexts,
				)),
			);
			if (i < parts.length - 1) {
				const more = await formats.selectPdfPages(bytes, [...pages, part.last + 1]);
				expect(base64(more.length)).toBeGreaterThan(limit);
			}
		}
		expect(parts.length).toBeGreaterThan(3);
		expect(problems).toEqual([]);
	});

	test('an encrypted PDF: one that opens without a password is written decrypted, one with a user password refused; a BigTIFF refused', async () => {
		const rich = richPdf();
		for (const bits of ['40', '128', '256']) {
			const open = qpdf(rich, ['--allow-weak-crypto', '--encrypt', '', 'owner', bits, '--']);
			const written = await formats.selectPages(open, 'pdf', [1, 4]);
			const file = save(joined(written), 'pdf');
			const check = run('qpdf', ['--check', file]);
			expect(check.status).toBe(0);
			expect(check.out).toMatch(/File is not encrypted/);
			expect(written.decrypted).toMatch(/RC4|AES/);
			expect(pageTexts(file).map((text) => text.trim())).toEqual(
				pageTexts(save(rich, 'pdf'))
					.filter((_, i) => i === 0 || i === 3)
					.map((text) => text.trim()),
			);
		}
		const locked = qpdf(rich, ['--encrypt', 'user', 'owner', '256', '--']);
		await expect(formats.selectPages(locked, 'pdf', [1])).rejects.toThrow(
			/opens only with a password/,
		);
		await expect(formats.splitPages(locked, 'pdf', () => true)).rejects.toThrow(
			/opens only with a password/,
		);
		const big = fs.readFileSync(path.join(CORPUS, 'tiffcp-big-2.tif'));
		await expect(formats.selectPages(big, 'tiff', [1])).rejects.toThrow(/BigTIFF/);
	});

	test('TIFF selections and splits: tiffinfo, tiffcmp and the counter', async () => {
		const problems = [];
		for (const [name, bytes, texts] of tiffCorpus()) {
			const original = save(bytes, 'tif');
			const total = (await formats.countPages(bytes, 'tiff')).pages;
			const check = async (what, written, pages) => {
				const out = joined(written);
				const file = save(out, 'tif');
				const read = tiffDirectories(file);
				const counted = (await formats.countPages(out, 'tiff')).pages;
				const pixels = pages.every((page, k) => samePixels(file, k + 1, original, page));
				const wrong = [];
				if (read.status !== 0 || read.errors.length)
					wrong.push(`tiffinfo: ${read.status} ${read.errors.join('; ')}`);
				if (read.descriptions.length !== pages.length)
					wrong.push(`tiffinfo lists ${read.descriptions.length} directories, not ${pages.length}`);
				if (
					texts &&
					JSON.stringify(read.descriptions) !== JSON.stringify(pages.map((p) => texts[p - 1]))
				)
					wrong.push(`descriptions ${read.descriptions.join(', ')}`);
				if (!pixels) wrong.push('tiffcmp: a page differs from the original page');
				if (counted !== pages.length) wrong.push(`the counter: ${counted}`);
				rows.push([
					name,
					what,
					out.length,
					read.status === 0 && !read.errors.length ? 'ok' : 'WRONG',
					read.descriptions.length,
					pixels ? 'same' : 'WRONG',
					'-',
					counted,
				]);
				problems.push(...wrong.map((w) => `${name}, ${what}: ${w}`));
			};
			for (const text of selectionsOf(total)) {
				const pages = formats.parsePageSelection(text, total);
				await check(`pages ${text}`, await formats.selectPages(bytes, 'tiff', pages), pages);
			}
			let largest = 0;
			for (const page of every(total))
				largest = Math.max(largest, (await formats.selectTiffPages(bytes, [page])).length);
			const parts = await formats.splitPages(bytes, 'tiff', (size) => size <= largest * 2.5);
			for (const part of parts)
				await check(
					`part ${part.first}-${part.last}`,
					part,
					every(part.last - part.first + 1).map((k) => part.first + k - 1),
				);
			if (parts.at(-1).last !== total)
				problems.push(`${name}: the parts end at ${parts.at(-1).last}`);
			const chosen = every(total).filter((page) => page % 2 === 1 || page === total);
			const selected = await formats.splitPages(bytes, 'tiff', (size) => size <= largest * 2.5, {
				pages: chosen,
			});
			if (selected.flatMap((part) => part.pages).join() !== chosen.join())
				problems.push(`${name}: the selection's parts do not hold pages ${chosen.join(', ')}`);
			for (const part of selected)
				await check(`selection part ${part.pages.join(',')}`, part, part.pages);
			for (const part of [...parts, ...selected]) {
				const again = await formats.selectPages(bytes, 'tiff', part.pages);
				if (!Buffer.concat(again.chunks).equals(Buffer.concat(part.chunks)))
					problems.push(
						`${name}: the part of pages ${part.pages.join(',')} is not what selectPages writes`,
					);
			}
		}
		expect(problems).toEqual([]);
	});

	test('a 25 MB PDF split under the 10 MB Base64 limit: peak memory growth at most 2.5 times the file', async () => {
		const bytes = imagePdf(100, 250_000, 3);
		expect(bytes.length).toBeGreaterThan(24_000_000);
		const file = save(bytes, 'pdf');
		const child = `
			const fs = require('node:fs');
			const formats = require(${JSON.stringify(FORMATS)});
			const bytes = fs.readFileSync(${JSON.stringify(file)});
			const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };
			global.gc(); global.gc();
			const before = used();
			let peak = before;
			const pause = () => new Promise((resolve) => { peak = Math.max(peak, used()); setImmediate(resolve); });
			formats.splitPdf(bytes, (size) => 4 * Math.ceil(size / 3) <= 10_000_000, { pause }).then((parts) => {
				peak = Math.max(peak, used());
				const lengths = parts.map((part) => part.length);
				parts.forEach((part, i) => fs.writeFileSync(${JSON.stringify(file)} + '.part' + i + '.pdf', Buffer.concat(part.chunks)));
				console.log(JSON.stringify({ growth: peak - before, lengths, ranges: parts.map((p) => [p.first, p.last]) }));
			});
		`;
		const out = execFileSync(process.execPath, ['--expose-gc', '-e', child], {
			encoding: 'utf8',
			maxBuffer: 1 << 20,
		});
		const { growth, lengths, ranges } = JSON.parse(out.trim().split('\n').at(-1));
		console.log(
			`25 MB split: ${(bytes.length / 1e6).toFixed(1)} MB into ${lengths.length} parts (${ranges.map((r) => r.join('-')).join(', ')}); peak memory growth ${(growth / 1e6).toFixed(1)} MB = ${(growth / bytes.length).toFixed(2)} × the file`,
		);
		expect(growth).toBeLessThanOrEqual(2.5 * bytes.length);
		// As few as fit: the Base64 of the whole over the limit, rounded up (shared objects are few).
		expect(lengths.length).toBe(Math.ceil(base64(bytes.length) / 10_000_000));
		const originalTexts = pageTexts(file);
		const problems = [];
		for (const [i, [first, last]] of ranges.entries()) {
			expect(base64(lengths[i])).toBeLessThanOrEqual(10_000_000);
			const part = fs.readFileSync(`${file}.part${i}.pdf`);
			const pages = every(last - first + 1).map((k) => first + k - 1);
			problems.push(
				...(await checkPdf(
					'images, 25 MB',
					`part ${first}-${last}`,
					{ chunks: [part], length: part.length },
					pages,
					originalTexts,
				)),
			);
		}
		expect(problems).toEqual([]);
	});
});
