'use strict';
/**
 * The page counter against real readers (issue 35): a corpus made here (names and keys with #xx
 * escapes, bytes before %PDF, CR-only lines, comments everywhere, incremental updates that change
 * the catalog, updates written as cross-reference streams, one-entry subsections, object streams
 * behind a byte order mark), the committed corpus (test/fixtures/pages) and the review's files
 * (test/fixtures/pages/review), each counted by the built counter (dist/) and by
 * `qpdf --show-npages` and `pdfinfo` (Debian's qpdf and poppler-utils, installed with apt-get when
 * missing; .ci/run installs them in its background job). The counter must say what both readers
 * say, or null with a reason: never another number. The files this issue fixed must count.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { classic, tree, oneEntrySubsections } = require('./fixtures/pages/crafted');
const { ensureDebian } = require('./support/debian');

const DIST = process.env.OCR_DIST || path.resolve(__dirname, '../dist');
const { countPages } = require(path.join(DIST, 'nodes/DocumentOcr/formats'));
const CORPUS = path.join(__dirname, 'fixtures', 'pages');

/** Debian's qpdf and poppler-utils (pdfinfo), installed when missing (test/support/debian.js). */
const READERS = [
	['qpdf', 'qpdf'],
	['pdfinfo', 'poppler-utils'],
];

/** What a reader printed (it may exit non-zero on a damaged file and still print its count). */
function run(command, args) {
	const result = spawnSync(command, args, { encoding: 'latin1', timeout: 60_000 });
	return `${result.stdout ?? ''}`;
}
const qpdfPages = (file) => {
	const out = run('qpdf', ['--show-npages', file]).trim();
	return /^\d+$/.test(out) ? Number(out) : `no count (${out.slice(0, 60)})`;
};
const pdfinfoPages = (file) => {
	const match = /^Pages:\s+(\d+)/m.exec(run('pdfinfo', [file]));
	return match ? Number(match[1]) : 'no count';
};

// ------------------------------------------------------------------- the corpus made here

const L = (text) => Buffer.from(text, 'latin1');
const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const page = (parent = 2) => `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 200 200] >>`;
const THREE = [
	CATALOG,
	'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>',
	page(),
	page(),
	page(),
];

/** A PDF of `objects` with `eol` line ends, offsets from the header (junk before it: `prefix`). */
function written(objects, { eol = '\n', prefix = '' } = {}) {
	let out = `%PDF-1.7${eol}%\xe2\xe3\xcf\xd3${eol}`;
	const offsets = [];
	objects.forEach((body, i) => {
		offsets.push(out.length);
		out += `${i + 1} 0 obj${eol}${body}${eol}endobj${eol}`;
	});
	const end = eol === '\r\n' ? '\r\n' : ` ${eol}`;
	let xref = `xref${eol}0 ${objects.length + 1}${eol}0000000000 65535 f${end}`;
	for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n${end}`;
	xref += `trailer${eol}<< /Size ${objects.length + 1} /Root 1 0 R >>${eol}startxref${eol}${out.length}${eol}%%EOF${eol}`;
	return L(prefix + out + xref);
}

/** An update after `base` (offsets less `prefix` bytes) as a table: objects by number. */
function tableUpdate(base, objects, { root = 1, prefix = 0 } = {}) {
	const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))[1];
	let out = '';
	const at = {};
	for (const [num, body] of Object.entries(objects)) {
		at[num] = base.length - prefix + out.length;
		out += `${num} 0 obj\n${body}\nendobj\n`;
	}
	const xref = base.length - prefix + out.length;
	out += 'xref\n';
	for (const num of Object.keys(at))
		out += `${num} 1\n${String(at[num]).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size 40 /Root ${root} 0 R /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.concat([base, L(out)]);
}

/** An update after `base` written as a Flate cross-reference stream: objects from number 20. */
function streamUpdate(base, objects, { root = 20, prefix = 0 } = {}) {
	const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))[1];
	let out = '';
	const at = [];
	objects.forEach((body, i) => {
		at.push(base.length - prefix + out.length);
		out += `${20 + i} 0 obj\n${body}\nendobj\n`;
	});
	const num = 20 + objects.length;
	at.push(base.length - prefix + out.length);
	const rows = Buffer.alloc(at.length * 6);
	at.forEach((o, i) => {
		rows[i * 6] = 1;
		rows.writeUInt32BE(o, i * 6 + 1);
	});
	const data = zlib.deflateSync(rows);
	return Buffer.concat([
		base,
		L(
			`${out}${num} 0 obj\n<< /Type /XRef /Size ${num + 1} /Index [20 ${at.length}] /W [1 4 1] /Root ${root} 0 R /Prev ${prev} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
		),
		data,
		L(`\nendstream\nendobj\nstartxref\n${at[at.length - 1]}\n%%EOF\n`),
	]);
}

const FIVE = [
	'<< /Type /Catalog /Pages 21 0 R >>',
	'<< /Type /Pages /Kids [22 0 R 23 0 R 24 0 R 25 0 R 26 0 R] /Count 5 >>',
	...Array.from({ length: 5 }, () => page(21)),
];
const BOM = '\xef\xbb\xbf';
const JUNK = `${'x'.repeat(899)}\n`;

/** A file qpdf rewrites with object streams (and a cross-reference stream). */
function withObjectStreams(dir, bytes) {
	const input = path.join(dir, 'qpdf-in.pdf');
	const output = path.join(dir, 'qpdf-out.pdf');
	fs.writeFileSync(input, bytes);
	execFileSync('qpdf', ['--object-streams=generate', input, output]);
	return fs.readFileSync(output);
}

/** The files made here: [name, bytes, must count (true) or may be null]. */
function madeHere(dir) {
	const escapes = [
		'<< /Typ#65 /C#61talog /P#61ges 2 0 R >>',
		'<< /Ty#70e /Page#73 /K#69ds [3 0 R 4 0 R 5 0 R] /Coun#74 3 >>',
		'<< /Type /Pag#65 /Parent 2 0 R >>',
		'<< /#54ype /#50#61#67#65 /Parent 2 0 R >>',
		page(),
	];
	const comments = [
		'<< /Type /Catalog % >> /Pages 9 0 R\n/Pages 2 0 R >>',
		'<< /Type /Pages % /Count 99 >> ]\n/Kids [3 0 R % 7 0 R ]\n4 0 R 5 0 R] /Count % 1\n3 >>',
		'<< % a comment\n/Type % another\n/Page /Parent 2 0 R >>',
		page(),
		page(),
	];
	const base = written(THREE);
	const bom = written(THREE, { prefix: BOM });
	const objstm = withObjectStreams(dir, classic(tree(40)));
	return [
		['escaped names and keys', written(escapes), true],
		[
			'escaped keys after plain ones (the last wins)',
			written([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R] /Count 1 /K#69ds [3 0 R 4 0 R 5 0 R] /Coun#74 3 >>',
				page(),
				page(),
				page(),
			]),
			true,
		],
		['a BOM before %PDF', bom, true],
		['900 bytes before %PDF', written(THREE, { prefix: JUNK }), true],
		['CR-only lines', written(THREE, { eol: '\r' }), true],
		['CR LF lines', written(THREE, { eol: '\r\n' }), true],
		['comments everywhere, inside dictionaries and arrays', written(comments), true],
		[
			'an update with a new catalog (table)',
			tableUpdate(
				base,
				{
					10: '<< /Type /Catalog /Pages 11 0 R >>',
					11: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
				},
				{ root: 10 },
			),
			true,
		],
		[
			'an update deleting a page (table)',
			tableUpdate(base, { 2: '<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>' }),
			true,
		],
		['an update with a new catalog (cross-reference stream)', streamUpdate(base, FIVE), true],
		['the same behind a BOM', streamUpdate(bom, FIVE, { prefix: 3 }), true],
		[
			'the same behind 900 bytes',
			streamUpdate(written(THREE, { prefix: JUNK }), FIVE, { prefix: JUNK.length }),
			true,
		],
		[
			'two updates, a stream then a table',
			tableUpdate(
				streamUpdate(base, FIVE),
				{ 21: '<< /Type /Pages /Kids [22 0 R 23 0 R] /Count 2 >>' },
				{ root: 20 },
			),
			true,
		],
		['2,000 one-entry subsections', oneEntrySubsections(2000), true],
		['80,000 one-entry subsections (2.2 MB)', oneEntrySubsections(80_000), true],
		['qpdf object streams', objstm, true],
		['qpdf object streams behind a BOM', Buffer.concat([L(BOM), objstm]), true],
		['qpdf object streams behind 900 bytes', Buffer.concat([L(JUNK), objstm]), true],
		[
			'an intermediate /Count that is wrong, the root right',
			written([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 4 >>',
				'<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 7 >>',
				page(3),
				page(3),
				'<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R] /Count 1 >>',
				page(6),
				page(6),
			]),
			false,
		],
		[
			'a leaf typed /Pages with no /Kids',
			written([
				CATALOG,
				'<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>',
				page(),
				'<< /Type /Pages /Parent 2 0 R >>',
				page(),
			]),
			false,
		],
		[
			'an update that frees the page tree (the readers differ)',
			Buffer.concat([
				base,
				L(
					`xref\n2 1\n0000000000 00001 f \ntrailer\n<< /Size 6 /Root 1 0 R /Prev ${/startxref\s+(\d+)/.exec(base.toString('latin1'))[1]} >>\nstartxref\n${base.length}\n%%EOF\n`,
				),
			]),
			false,
		],
	];
}

describe('the counter against qpdf and pdfinfo: the same count, or null with a reason', () => {
	let dir;
	const rows = [];
	beforeAll(async () => {
		await ensureDebian(READERS);
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-readers-'));
	}, 900_000);
	afterAll(() => {
		console.log(
			`file | counter | qpdf | pdfinfo\n${rows.map((r) => `${r.name} | ${r.counter} | ${r.qpdf} | ${r.pdfinfo}`).join('\n')}`,
		);
		fs.rmSync(dir, { recursive: true, force: true });
	});

	/** Counts `bytes` three ways; what is wrong with the counter's answer, if anything. */
	async function compare(name, bytes, mustCount) {
		const file = path.join(dir, `${rows.length}.pdf`);
		fs.writeFileSync(file, bytes);
		const count = await countPages(bytes, 'pdf');
		const row = {
			name,
			counter: count.pages ?? `null (${count.reason})`,
			qpdf: qpdfPages(file),
			pdfinfo: pdfinfoPages(file),
		};
		rows.push(row);
		if (typeof row.qpdf !== 'number' || typeof row.pdfinfo !== 'number')
			return `${name}: a reader gave no count`;
		if (count.pages === null && !/\w{4}/.test(count.reason)) return `${name}: null, no reason`;
		if (count.pages === null && mustCount)
			return `${name}: null (${count.reason}), readers ${row.qpdf}`;
		if (count.pages !== null && (count.pages !== row.qpdf || count.pages !== row.pdfinfo))
			return `${name}: counted ${count.pages}, qpdf ${row.qpdf}, pdfinfo ${row.pdfinfo}`;
		return undefined;
	}

	/** Compares every file; then every problem found, none expected. */
	async function compareAll(files) {
		const problems = [];
		for (const [name, bytes, mustCount] of files) {
			const problem = await compare(name, bytes, mustCount);
			if (problem) problems.push(problem);
		}
		expect(problems).toEqual([]);
	}

	test('the files made here', async () => {
		await compareAll(madeHere(dir));
	});

	test('the committed corpus, as it is, behind a BOM and behind 900 bytes', async () => {
		const files = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.pdf'));
		await compareAll(
			files.flatMap((name) => {
				const bytes = fs.readFileSync(path.join(CORPUS, name));
				return [
					[name, bytes, true],
					[`${name} behind a BOM`, Buffer.concat([L(BOM), bytes]), true],
					[`${name} behind 900 bytes`, Buffer.concat([L(JUNK), bytes]), true],
				];
			}),
		);
	});

	test("the review's files", async () => {
		await compareAll(
			['08-name-escape-keys-3.pdf', '22-bom-xrefstm-update-newcatalog-5.pdf'].map((name) => [
				name,
				fs.readFileSync(path.join(CORPUS, 'review', name)),
				true,
			]),
		);
	});
});
