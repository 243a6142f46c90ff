'use strict';
/**
 * Does the platform's inflate cost a user anything (issue 36)? The page count reads FlateDecode
 * streams with DecompressionStream (9cd5db3) where it had a synchronous inflate of its own
 * (flate.ts, last at 46611e3); what matters is the count's share of a real document's
 * check-and-send, so this measures both on real files of 1–10 MB:
 *
 * - Files: scan-like pages (JPEG made with Debian's python3-pil: lines of text on grey paper,
 *   scanner grain, a slight tilt; seeded) of 1 page (A4 at 300 dpi, colour), 10 pages (200 dpi,
 *   grey) and 40 pages (150 dpi, grey), wrapped by img2pdf; that file through Ghostscript
 *   (`gs -sDEVICE=pdfwrite`); Ghostscript's file rewritten by qpdf with object streams
 *   (`--object-streams=generate`: the page objects in Flate object streams and a Flate
 *   cross-reference stream, what the inflate reads), and the same linearized. A tool that is not
 *   installed skips its files, saying so.
 * - For each file, in this one process, rounds interleaved (the order of before and after
 *   alternating each round; a full collection before each measure):
 *   - the count alone: countPages of this build (dist/, or BENCH_DIST) and of BENCH_BEFORE
 *     (default 46611e3: flate.ts; compiled from git into a temporary folder);
 *   - the check-and-send: Input → Document OCR → Convert to Markdown in n8n-core's engine
 *     (bench/engine.js), against the emulator in its own process answering at once (0 ms per
 *     page: the quickest service there can be, so the count's share is the largest it can be);
 *     the node's execution time from n8n's run data, once with this build's counter and once
 *     with BENCH_BEFORE's put in its place (the same node; only the count differs), and the
 *     count's own time inside that run.
 *   Medians over BENCH_ROUNDS (default 21) rounds, after one round not counted (warm-up).
 *
 * `BENCH_OPERATION=countPages` runs Document → Count Pages instead (nothing sent: the count is
 * most of the node's work there, the worst case for its share). `BENCH_SCANS=<dir>` makes the
 * files there and keeps them (a later run reuses them); otherwise they are made in a temporary
 * folder (about a minute) and removed. `BENCH_JSON=<file>` writes every round's figures there.
 * Needs `npm run build`.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');
const { counterAt, counterFile, PAUSE } = require('./page-counters');

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');

const DIST = path.resolve(process.env.BENCH_DIST ?? path.join(__dirname, '../dist'));
const KEY = 'ocr_test_full';

/** The scans: pages, resolution, colour, grain (sigma) and JPEG quality; about 1.6, 5.5, 8.4 MB. */
const SCANS = [
	{ pages: 1, dpi: 300, mode: 'RGB', sigma: 40, quality: 85 },
	{ pages: 10, dpi: 200, mode: 'L', sigma: 30, quality: 80 },
	{ pages: 40, dpi: 150, mode: 'L', sigma: 15, quality: 70 },
];

/** Draws scan-like pages as JPEG: `prefix-NN.jpg`. Args: prefix pages dpi mode sigma quality. */
const SCAN_PY = `
import random, sys
from PIL import Image, ImageDraw, ImageFilter, ImageFont
WORDS = ('invoice total amount date number customer account payment due tax net gross item '
         'quantity price description order delivery address reference page of the and for to '
         'with from by this that please remit within days bank transfer').split()
prefix, count, dpi, mode, sigma, quality = sys.argv[1:]
dpi, sigma, quality = int(dpi), float(sigma), int(quality)
try:
    font = ImageFont.truetype('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', int(dpi * 0.14))
except OSError:
    font = None
for n in range(int(count)):
    rnd = random.Random(n)
    w, h = int(8.27 * dpi), int(11.69 * dpi)
    paper, ink = ((246, 244, 238), (30, 30, 40)) if mode == 'RGB' else (244, 30)
    img = Image.new(mode, (w, h), paper)
    draw = ImageDraw.Draw(img)
    line, x, y = int(dpi * 0.2), int(dpi * 0.9), int(dpi * 1.0)
    while y < h - dpi:
        text = ' '.join(rnd.choice(WORDS) for _ in range(rnd.randrange(4, 16)))
        if rnd.random() < 0.08:
            pass
        elif font:
            draw.text((x, y), text, fill=ink, font=font)
        else:
            draw.rectangle([x, y, x + len(text) * dpi // 14, y + line // 2], fill=ink)
        y += line
    img = img.filter(ImageFilter.GaussianBlur(dpi / 300))
    img = Image.blend(img, Image.effect_noise((w, h), sigma).convert(mode), 0.12)
    img = img.rotate(rnd.uniform(-0.6, 0.6), fillcolor=paper, resample=Image.BICUBIC)
    img.save('%s-%02d.jpg' % (prefix, n), 'JPEG', quality=quality, dpi=(dpi, dpi))
`;

function has(command, args) {
	try {
		execFileSync(command, args, { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

/** The files, made in `dir` (or found there): [{ name, producer, pages, path }], and what was skipped. */
function makeFiles(dir) {
	const python = ['/usr/bin/python3', 'python3'].find((p) => has(p, ['-c', 'import PIL']));
	const skipped = [];
	if (!python || !has('img2pdf', ['--version']))
		return {
			files: [],
			skipped: ['every file: python3 with PIL (python3-pil) and img2pdf needed'],
		};
	const gs = has('gs', ['--version']);
	const qpdf = has('qpdf', ['--version']);
	if (!gs) skipped.push('Ghostscript and qpdf files: gs not installed');
	else if (!qpdf) skipped.push('qpdf files: qpdf not installed');
	const files = [];
	for (const scan of SCANS) {
		const at = (name) => path.join(dir, `${name}-${scan.pages}.pdf`);
		const make = (name, producer, run) => {
			// Made under another name first: a run stopped halfway leaves no file a later one reuses.
			if (!fs.existsSync(at(name))) {
				run(`${at(name)}.part`);
				fs.renameSync(`${at(name)}.part`, at(name));
			}
			files.push({
				name: `${name}-${scan.pages}.pdf`,
				producer,
				pages: scan.pages,
				path: at(name),
			});
		};
		make('img2pdf', 'img2pdf', (out) => {
			const prefix = path.join(dir, `scan-${scan.pages}`);
			const args = [scan.pages, scan.dpi, scan.mode, scan.sigma, scan.quality].map(String);
			execFileSync(python, ['-c', SCAN_PY, prefix, ...args]);
			const jpegs = Array.from(
				{ length: scan.pages },
				(_, i) => `${prefix}-${String(i).padStart(2, '0')}.jpg`,
			);
			execFileSync('img2pdf', ['--pagesize', 'A4', '-o', out, ...jpegs]);
			for (const jpeg of jpegs) fs.rmSync(jpeg);
		});
		if (!gs) continue;
		make('gs', 'Ghostscript pdfwrite of the img2pdf file', (out) =>
			execFileSync('gs', [
				...['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite'],
				`-sOutputFile=${out}`,
				at('img2pdf'),
			]),
		);
		if (!qpdf) continue;
		make('qpdf', 'qpdf --object-streams=generate of the Ghostscript file', (out) =>
			execFileSync('qpdf', ['--object-streams=generate', at('gs'), out]),
		);
		make('qpdf-linear', 'the same, --linearize', (out) =>
			execFileSync('qpdf', ['--object-streams=generate', '--linearize', at('gs'), out]),
		);
	}
	return { files, skipped };
}

/** The emulator in its own process (its work is not this process's), answering at once. */
async function startEmulatorProcess() {
	const cli = path.join(__dirname, '../emulator/cli.js');
	const args = ['--port', '0', '--ms-per-page', '0', '--sync-ms-per-page', '0'];
	const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
	const line = await new Promise((resolve, reject) => {
		child.once('error', reject);
		child.stdout.once('data', (chunk) => resolve(String(chunk)));
	});
	const { url } = JSON.parse(line.split('\n')[0]);
	// The rounds charge thousands of pages: the account's balance is set past them.
	await fetch(`${url}/__emulator/balance`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ account: 'acme', pages: 1e9 }),
	});
	return { child, url };
}

/** The `q` quantile of `values` (0.5: the median), interpolated between neighbours. */
const quantile = (values, q) => {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (sorted.length - 1) * q;
	const low = Math.floor(at);
	return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
};
const median = (values) => quantile(values, 0.5);
/**
 * Where the median of `values` lies, 95 % of the time: the 2.5th and 97.5th percentiles of the
 * medians of 2,000 resamplings (seeded, so a run's values always give the same interval).
 */
const medianInterval = (values) => {
	let seed = 1;
	const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
	const medians = Array.from({ length: 2000 }, () =>
		median(Array.from(values, () => values[Math.floor(random() * values.length)])),
	);
	return [quantile(medians, 0.025), quantile(medians, 0.975)];
};
/** Median, quartiles and the median's 95 % interval, rounded. */
const spread = (values, digits = 1) => {
	const round = (x) => +x.toFixed(digits);
	return {
		median: round(median(values)),
		p25: round(quantile(values, 0.25)),
		p75: round(quantile(values, 0.75)),
		interval: medianInterval(values).map(round),
	};
};

/**
 * `operation`: 'markdown' (Convert to Markdown: the check-and-send) or 'countPages'; `scans`: the
 * folder to make the files in and keep (run.js passes one to both rows).
 */
async function main({
	operation = process.env.BENCH_OPERATION ?? 'markdown',
	scans = process.env.BENCH_SCANS,
} = {}) {
	const rounds = Number(process.env.BENCH_ROUNDS ?? 21);
	const commit = process.env.BENCH_BEFORE ?? '46611e3';
	const keep = scans;
	if (operation !== 'markdown' && operation !== 'countPages')
		throw new Error(`BENCH_OPERATION is markdown or countPages, not ${operation}`);
	const dir = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'inflate-share-'));
	fs.mkdirSync(dir, { recursive: true });
	let emulator;
	let before;
	try {
		const { files, skipped } = makeFiles(dir);
		if (files.length === 0) return { rows: [], skipped };
		const counter = require(counterFile(DIST));
		const after = counter.countPages;
		before = counterAt(commit);
		const { runNode } = require('./engine');
		emulator = await startEmulatorProcess();
		const parameters = {
			resource: 'document',
			operation,
			documentSource: 'binary',
			binaryPropertyName: 'data',
			options: {},
		};
		const credentials = { apiKey: KEY, baseUrl: emulator.url, apiUrl: '' };
		const samples = new Map(files.map((f) => [f, { before: [], after: [] }]));

		/** The count alone: its result and ms. */
		const countAlone = async (countPages, bytes) => {
			collect();
			const started = performance.now();
			const result = await countPages(bytes, 'pdf', undefined, PAUSE);
			return { pages: result.pages, ms: performance.now() - started };
		};
		/** The node's check-and-send with `countPages` as its counter: node ms, count ms in it. */
		const checkAndSend = async (countPages, file) => {
			let countMs = 0;
			let pages;
			counter.countPages = async (...args) => {
				const started = performance.now();
				const result = await countPages(...args);
				countMs += performance.now() - started;
				pages = result.pages;
				return result;
			};
			collect();
			try {
				const run = await runNode({
					parameters,
					files: [{ path: file.path, fileName: file.name, mimeType: 'application/pdf' }],
					credentials,
				});
				const json = run.output?.[0]?.json;
				const answered =
					operation === 'countPages'
						? json?.pages === file.pages
						: typeof json?.markdown === 'string';
				if (run.error || json?.error || !answered)
					throw new Error(`${file.name}: ${run.error?.message ?? JSON.stringify(json)}`);
				return { nodeMs: run.runData.executionTime, countMs, pages };
			} finally {
				counter.countPages = after;
			}
		};

		// How many streams each file's count inflates (this build: one DecompressionStream each).
		const Platform = globalThis.DecompressionStream;
		let inflated = 0;
		globalThis.DecompressionStream = class extends Platform {
			constructor(...args) {
				super(...args);
				inflated++;
			}
		};
		const streams = new Map();
		try {
			for (const file of files) {
				inflated = 0;
				await after(fs.readFileSync(file.path), 'pdf');
				streams.set(file, inflated);
			}
		} finally {
			globalThis.DecompressionStream = Platform;
		}

		const load = [os.loadavg()[0]];
		for (let round = -1; round < rounds; round++) {
			for (const file of files) {
				const bytes = fs.readFileSync(file.path);
				const order = round % 2 ? ['before', 'after'] : ['after', 'before'];
				const counts = { before: before.countPages, after };
				const measured = {};
				for (const which of order) measured[which] = await countAlone(counts[which], bytes);
				for (const which of order)
					Object.assign(measured[which], { node: await checkAndSend(counts[which], file) });
				if (round < 0) continue;
				for (const which of order) samples.get(file)[which].push(measured[which]);
			}
			load.push(os.loadavg()[0]);
		}

		const rows = files.map((file) => {
			const s = samples.get(file);
			const row = { file: file.name, producer: file.producer, pages: file.pages };
			row.MB = +(fs.statSync(file.path).size / 1e6).toFixed(2);
			row.streams = streams.get(file);
			const wrong = [...s.before, ...s.after].find(
				(m) => m.pages !== file.pages || m.node.pages !== file.pages,
			);
			if (wrong) row.wrongCount = wrong.pages ?? wrong.node.pages;
			for (const which of ['before', 'after']) {
				const m = s[which];
				row[`${which}CountMs`] = +median(m.map((x) => x.ms)).toFixed(2);
				row[`${which}CountInNodeMs`] = +median(m.map((x) => x.node.countMs)).toFixed(2);
				row[`${which}NodeMs`] = median(m.map((x) => x.node.nodeMs));
				// The share in each run, then its median: a run's count against that run's total.
				row[`${which}SharePct`] = +median(
					m.map((x) => (100 * x.node.countMs) / Math.max(1, x.node.nodeMs)),
				).toFixed(1);
			}
			// After − before in the same round (the two runs side by side), per round.
			row.nodeDiffs = s.after.map((a, i) => a.node.nodeMs - s.before[i].node.nodeMs);
			row.countDiffs = s.after.map((a, i) => a.node.countMs - s.before[i].node.countMs);
			row.nodeDiffMs = median(row.nodeDiffs);
			return row;
		});
		// Every round of the files with Flate streams pooled, and of those without (the control: the
		// two counters differ there in nothing an inflate does, so their spread is the noise).
		const pooled = (flate) => {
			const group = rows.filter((r) => r.streams > 0 === flate);
			return {
				files: group.length,
				nodeDiffMs: spread(group.flatMap((r) => r.nodeDiffs)),
				countInNodeDiffMs: spread(group.flatMap((r) => r.countDiffs)),
			};
		};
		return {
			rows,
			skipped,
			operation,
			rounds,
			commit,
			load: { min: +Math.min(...load).toFixed(1), max: +Math.max(...load).toFixed(1) },
			flate: pooled(true),
			control: pooled(false),
			largestShareAfterPct: Math.max(...rows.map((r) => r.afterSharePct)),
			largestShareBeforePct: Math.max(...rows.map((r) => r.beforeSharePct)),
		};
	} finally {
		emulator?.child.kill('SIGTERM');
		before?.remove();
		if (!keep) fs.rmSync(dir, { recursive: true, force: true });
	}
}

module.exports = { main };
if (require.main === module) {
	main().then(
		(r) => {
			if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(r));
			for (const skip of r.skipped) console.log(`skipped: ${skip}`);
			if (r.rows.length === 0) return;
			console.table(
				r.rows.map((row) => ({
					file: row.file,
					MB: row.MB,
					pages: row.wrongCount === undefined ? row.pages : `${row.pages} (${row.wrongCount}!)`,
					'streams inflated': row.streams,
					'count ms before → after': `${row.beforeCountMs} → ${row.afterCountMs}`,
					'in the node': `${row.beforeCountInNodeMs} → ${row.afterCountInNodeMs}`,
					'check-and-send ms': `${row.beforeNodeMs} → ${row.afterNodeMs}`,
					'count share %': `${row.beforeSharePct} → ${row.afterSharePct}`,
					'after − before, same round': `${row.nodeDiffMs} ms`,
				})),
			);
			const line = (name, g) =>
				console.log(
					`${name} (${g.files} files × ${r.rounds} rounds): check-and-send after − before, same round: median ${g.nodeDiffMs.median} ms (quartiles ${g.nodeDiffMs.p25} / ${g.nodeDiffMs.p75}; the median within ${g.nodeDiffMs.interval.join(' … ')}, 95 %); the count in it: ${g.countInNodeDiffMs.median} ms (${g.countInNodeDiffMs.p25} / ${g.countInNodeDiffMs.p75})`,
				);
			line('files with Flate streams', r.flate);
			line('files without (control)', r.control);
			console.log(
				`${r.operation === 'countPages' ? 'Count Pages' : 'Convert to Markdown'}; medians of ${r.rounds} interleaved rounds; before = the counter of ${r.commit}, after = this build; load average ${r.load.min.toFixed(1)}–${r.load.max.toFixed(1)} on ${os.cpus().length} cores`,
			);
			process.exit(0);
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
