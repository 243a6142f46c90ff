'use strict';
/**
 * `npm run bench`: every benchmark, each beside its baseline in the same run, printed and
 * written as a markdown table to bench/results.md (copy the latest into bench/README.md).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureInstalled, build } = require('../scripts/bootstrap');

async function main() {
	ensureInstalled();
	build();
	const rows = [];
	const add = (benchmark, metric, ours, baseline, ratio, target) =>
		rows.push({ benchmark, metric, ours, baseline, ratio, target });

	const sig = require('./signature').main();
	add(
		'Trigger signature',
		`verify one ${sig.bodyBytes}-byte delivery`,
		`${sig.verifyUs} µs`,
		`${sig.bareHmacUs} µs (bare HMAC)`,
		`${(sig.verifyUs / sig.bareHmacUs).toFixed(2)}x`,
		'print',
	);

	const pages = await require('./pages').main();
	add(
		'Page count (issue 31)',
		`count the pages of a ${(pages.largest.bytes / 1e6).toFixed(1)} MB, ${pages.largest.pages}-page PDF (classic xref) before sending it`,
		`${pages.largest.msPerMB} ms/MB`,
		`${pages.largest.emulatorMsPerMB} ms/MB (the emulator's regex, which reads no cross-reference)`,
		`${(pages.largest.msPerMB / pages.largest.emulatorMsPerMB).toFixed(1)}x`,
		'a few ms per MB',
	);

	const blocking = await require('./pages-blocking').main();
	add(
		'Page count, event loop (issue 35)',
		`the longest the count holds the event loop, over ${blocking.rows.length} crafted files of up to 10 MB (one-entry subsections, 100,000 tiny pages, the object scan, long strings, names, comments, nested arrays, 4,000 Flate object streams, TIFF, GIF, APNG and WEBP frames): a 1 ms timer's longest gap`,
		`${blocking.longestBlockMs} ms (${blocking.longestBlockCpuMs} ms of CPU)`,
		`${blocking.idleBlockMs} ms (the timer alone, idle)`,
		'—',
		'≤ 50 ms',
	);
	const { before, after } = blocking.quadratic;
	add(
		'Page count, one-entry subsections (issue 35)',
		`count a ${blocking.quadratic.MB} MB PDF whose cross-reference lists 160,000 one-entry subsections`,
		`${after.ms} ms; longest block ${after.longestBlockMs} ms`,
		before
			? `${before.ms} ms; longest block ${before.longestBlockMs} ms (the counter of ${before.commit})`
			: '— (BENCH_BEFORE=0)',
		before ? `${(before.ms / after.ms).toFixed(0)}x faster` : '—',
		'linear in the file; no block over 50 ms',
	);

	// The same files for both rows, made once.
	const scans = fs.mkdtempSync(path.join(os.tmpdir(), 'inflate-share-'));
	try {
		for (const operation of ['markdown', 'countPages']) {
			const share = await require('./inflate-share').main({ operation, scans });
			const name = operation === 'markdown' ? 'Convert to Markdown' : 'Count Pages';
			const { flate, control } = share.rows.length ? share : {};
			const signed = (ms) => (ms > 0 ? `+${ms}` : `${ms}`);
			add(
				`Page count, platform inflate: ${name} (issue 36)`,
				`the count's share of a real document's ${operation === 'markdown' ? 'check-and-send' : 'Count Pages (nothing sent)'}: scans of 1, 10 and 40 pages (1.6–8.3 MB) from img2pdf, Ghostscript and qpdf (Flate object streams, also linearized), ${name} in n8n-core's engine${operation === 'markdown' ? ' against the emulator answering at once' : ''}; the largest median share over the files, and the node's time after − before in the same round over the files with Flate streams (median, quartiles, the median's 95 % interval)`,
				share.rows.length
					? `DecompressionStream: share ≤ ${share.largestShareAfterPct} %; node ${signed(flate.nodeDiffMs.median)} ms (quartiles ${flate.nodeDiffMs.p25} / ${flate.nodeDiffMs.p75}; the median within ${flate.nodeDiffMs.interval.join(' … ')} ms) beside the files without Flate streams' ${signed(control.nodeDiffMs.median)} ms (${control.nodeDiffMs.interval.join(' … ')}); load ${share.load.min}–${share.load.max}`
					: `skipped: ${share.skipped.join('; ')}`,
				share.rows.length
					? `the synchronous inflate of ${share.commit} (flate.ts), same run: share ≤ ${share.largestShareBeforePct} %`
					: '—',
				'—',
				'no user-visible cost (else flate.ts comes back)',
			);
		}
	} finally {
		fs.rmSync(scans, { recursive: true, force: true });
	}

	const skip = await require('./skip-memory').main();
	add(
		'Skip Submitted Documents memory (n8n-core engine)',
		`ms a new document adds with ${skip.remembered.toLocaleString('en')} remembered (static data through n8n's ObservableObject): ${skip.n} new in one execution / one new per execution`,
		`+${skip.addedMsPerDocumentInBatch} ms / +${skip.addedMsPerSingleDocumentExecution} ms (node time ${skip.batchMs.full} ms / ${skip.singleMs.full} ms)`,
		`nothing remembered, same run: ${skip.batchMs.empty} ms / ${skip.singleMs.empty} ms`,
		'—',
		'≤ 1 ms per new document',
	);

	const memory = await require('./memory').main();
	const node = memory.find((r) => r.mode === 'node');
	const naive = memory.find((r) => r.mode === 'naive');
	const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
	add(
		'Memory',
		`peak RSS growth, one submission at the 10 MB body limit (${mb(node.size)} PDF → ${mb(4 * Math.ceil(node.size / 3))} Base64 body), whole run (n8n storing the input + the submission)`,
		`${mb(node.growth)} (${node.ratio}x file); the submission alone ${mb(node.nodeGrowth)} (${node.nodeRatio}x)`,
		`${mb(naive.growth)} (${naive.ratio}x file, read+Base64+JSON)`,
		`${(naive.growth / node.growth).toFixed(2)}x less`,
		'≤ 4x file (≤ 2.5x before issue 31: the page count holds a PDF or TIFF whole once)',
	);
	const split = memory.find((r) => r.mode === 'split');
	add(
		'Memory',
		`peak RSS growth, a ${mb(split.size)} 40-page scan sent in parts (Split Large Documents), the node's share (n8n storing the input apart)`,
		`${mb(split.nodeGrowth)} (${split.nodeRatio}x file)`,
		'— (without the option the file is refused)',
		'—',
		'≤ 2.5x file',
	);
	for (const r of await require('./split').main())
		add(
			'Pages and splitting',
			`a selection of ${r.selected} pages and the split into ${r.parts} parts of a ${r.mb} MB PDF (${r.name}), ms per MB`,
			`selection ${r.selectMsPerMb}, split ${r.splitMsPerMb}`,
			`SHA-256 of the same bytes ${r.hashMsPerMb}`,
			`${(r.hashMsPerMb / r.splitMsPerMb).toFixed(1)}x the split's speed`,
			'no more than hashing the file once',
		);
	const count = memory.find((r) => r.mode === 'count');
	add(
		'Memory',
		`peak RSS growth, Count Pages of a stored ${mb(count.size)} PDF, the node's share`,
		`${mb(count.nodeGrowth)} (${count.nodeRatio}x file)`,
		'—',
		'—',
		'≤ 2.5x file',
	);

	const urls = await require('./url-memory').main();
	const waiting = urls['this build'].rows.at(-1);
	const waitingBefore = urls.before?.rows.at(-1);
	add(
		'URL documents waiting to be sent (issue 35)',
		`memory per item when the first request goes out, ${waiting.items.toLocaleString('en')} links to 70 kB PDFs: ArrayBuffers + heap`,
		`${waiting.arrayBuffersPerItem} + ${waiting.heapPerItem} bytes`,
		waitingBefore
			? `BENCH_BEFORE_DIST, same run: ${waitingBefore.arrayBuffersPerItem} + ${waitingBefore.heapPerItem} bytes`
			: 'before issue 35 (46611e3): 9,557 + 2,441 bytes',
		'—',
		'no bytes of the file (ArrayBuffers ≤ 0.5 kB); ≤ 2 kB in all',
	);

	const throughput = require('./throughput');
	const perItem = process.env.BENCH_PER_ITEM !== '0';
	const x = (seconds, bound) => `${seconds} s (${(seconds / bound).toFixed(2)}x bound)`;
	const baselineCell = (b, bound, extra = '') =>
		b.error ?? `${x(b.seconds, bound)}${extra}, batched HTTP Request + Wait 1 s loop`;

	const t = await throughput.main({ N: 200, W: 4, T: 250, pages: 'one', inOrder: true, perItem });
	for (const [label, r] of [
		['out of order', t.package],
		['in order', t.packageInOrder],
	]) {
		add(
			`Throughput (real n8n), tasks finishing ${label}`,
			`${t.N} one-page docs, ${t.W} workers × ${t.t} ms; bound ${t.bound} s`,
			x(r.seconds, t.bound),
			baselineCell(t.baseline, t.bound),
			t.baseline.error ? '—' : `${(t.baseline.seconds / r.seconds).toFixed(2)}x faster`,
			'≤ 1.15x bound',
		);
		add(
			`Polling cost (real n8n), tasks finishing ${label}`,
			'status requests per task',
			`${r.pollsPerTask.toFixed(2)}`,
			t.baseline.error ? '—' : `${t.baseline.pollsPerTask.toFixed(2)} (1 s polling)`,
			t.baseline.error ? '—' : `${(t.baseline.pollsPerTask / r.pollsPerTask).toFixed(2)}x fewer`,
			label === 'in order' ? '≤ 2' : 'print',
		);
	}
	if (t.perItem)
		add(
			'Throughput vs one-at-a-time loop (real n8n)',
			'same 200 docs; Loop Over Items → submit → Wait 1 s → GET → If',
			`${t.package.seconds} s`,
			`${t.perItem.seconds} s`,
			`**${(t.perItem.seconds / t.package.seconds).toFixed(1)}x faster**`,
			'≥ 10x',
		);

	const fast = await throughput.main({
		N: 1000,
		W: 32,
		T: 100,
		pages: 'one',
		inOrder: false,
		perItem: false,
	});
	add(
		'Fast service (real n8n)',
		`${fast.N} one-page docs, ${fast.W} workers × ${fast.t} ms; bound ${fast.bound} s`,
		`${x(fast.package.seconds, fast.bound)}; first accepted submission +${fast.package.startMs} ms, end noticed +${fast.package.lateMs} ms; ${fast.package.pollsPerTask.toFixed(2)} status requests/task`,
		baselineCell(fast.baseline, fast.bound),
		fast.baseline.error
			? '—'
			: `${(fast.baseline.seconds / fast.package.seconds).toFixed(2)}x faster`,
		'≤ 1.5x bound',
	);

	const mixed = await throughput.main({
		N: 200,
		W: 4,
		T: 50,
		pages: 'mixed',
		inOrder: false,
		perItem: false,
	});
	add(
		'Out of order, mixed pages (real n8n)',
		`${mixed.N} docs of 1–20 pages (${mixed.totalPages} pages, seeded), ${mixed.W} workers × ${mixed.t} ms/page; bound ${mixed.bound} s`,
		`${x(mixed.package.seconds, mixed.bound)}; ${mixed.package.pollsPerTask.toFixed(2)} status requests/task; end noticed +${mixed.package.lateMs} ms after the service's last finish`,
		mixed.baseline.error ??
			`${x(mixed.baseline.seconds, mixed.bound)}; ${mixed.baseline.pollsPerTask.toFixed(2)} requests/task; end +${mixed.baseline.lateMs} ms (HTTP Request + Wait 1 s loop)`,
		mixed.baseline.error
			? '—'
			: `${(mixed.baseline.pollsPerTask / mixed.package.pollsPerTask).toFixed(2)}x fewer requests`,
		'≤ 2.5 requests/task; end ≤ 1.5 s after the last finish',
	);

	const scale = await require('./scale').main();
	add(
		'Scale (real n8n, filesystem binary mode)',
		`${scale.N} one-page docs in one production execution, ${scale.W} workers × ${scale.t} ms`,
		`${scale.status}, ${scale.done}/${scale.N} done in ${scale.seconds} s; peak RSS growth ${scale.peakRssGrowthMb} MB (the same run with Document OCR disabled: ${scale.controlPeakRssGrowthMb} MB); after the end: ${scale.requestsAfterEnd} requests, ${scale.cpuTicksPer5sAfterEnd} CPU ticks per 5 s (idle: ${scale.idleCpuTicksPer5s})`,
		`n8n HTTP Request nodes, the same 2 requests per doc (submit, read once): ${scale.httpRequestStatus}, ${scale.httpRequestTasksRead} tasks read in ${scale.httpRequestSeconds} s; peak RSS growth ${scale.httpRequestPeakRssGrowthMb} MB`,
		`${(scale.peakRssGrowthMb / scale.httpRequestPeakRssGrowthMb).toFixed(2)}x the growth of n8n's own requests`,
		'completes; ≤ 300 MB; nothing left after',
	);

	const trig = await require('./trigger').main();
	add(
		'Trigger (real n8n)',
		`${trig.events} signed events + ${trig.sent - trig.events} replays, ${trig.concurrency} concurrent`,
		`${trig.eventsPerSecond} deliveries/s; ${trig.executions} runs, lost ${trig.lost}, twice ${trig.runTwice}`,
		'—',
		'—',
		'none lost or twice',
	);

	const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version} (n8n on Node 24), ${new Date().toISOString().slice(0, 10)}`;
	const table = [
		`Machine: ${machine}`,
		'',
		'| Benchmark | Metric | This package | Baseline | Ratio | Target |',
		'|---|---|---|---|---|---|',
		...rows.map(
			(r) =>
				`| ${r.benchmark} | ${r.metric} | ${r.ours} | ${r.baseline} | ${r.ratio} | ${r.target} |`,
		),
		'',
	].join('\n');
	fs.writeFileSync(path.join(__dirname, 'results.md'), table);
	process.stdout.write(`\n${table}\n`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
