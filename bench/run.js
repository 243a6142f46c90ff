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

	const memory = await require('./memory').main();
	const node = memory.find((r) => r.mode === 'node');
	const naive = memory.find((r) => r.mode === 'naive');
	const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
	add(
		'Memory',
		`peak RSS growth, one ${mb(node.size)} submission`,
		`${mb(node.growth)} (${node.ratio}x file)`,
		`${mb(naive.growth)} (${naive.ratio}x file, read+Base64+JSON)`,
		`${(naive.growth / node.growth).toFixed(2)}x less`,
		'≤ 3x file',
	);

	const t = await require('./throughput').main();
	for (const [label, r] of [
		['out of order', t.package],
		['in order', t.packageInOrder],
	]) {
		add(
			`Throughput (real n8n), tasks finishing ${label}`,
			`${t.N} one-page docs, ${t.W} workers × ${t.t} ms; bound ${t.bound} s`,
			`${r.seconds} s (${(r.seconds / t.bound).toFixed(2)}x bound)`,
			t.baseline.error ??
				`${t.baseline.seconds} s (${(t.baseline.seconds / t.bound).toFixed(2)}x bound, HTTP Request + Wait 1 s loop)`,
			t.baseline.error ? '—' : `${(t.baseline.seconds / r.seconds).toFixed(2)}x faster`,
			'≤ 1.15x bound',
		);
		add(
			`Polling cost (real n8n), tasks finishing ${label}`,
			'status requests per task',
			`${r.pollsPerTask.toFixed(2)}`,
			t.baseline.error ? '—' : `${t.baseline.pollsPerTask.toFixed(2)} (1 s polling)`,
			t.baseline.error ? '—' : `${(t.baseline.pollsPerTask / r.pollsPerTask).toFixed(2)}x fewer`,
			'≤ 2',
		);
	}
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
