'use strict';
/**
 * The figures each reliability suite prints. They go to the terminal (not through jest's console,
 * which buffers and decorates) and are collected in reliability-results.md for the issue notes.
 */
const fs = require('node:fs');
const path = require('node:path');

const RESULTS = path.resolve(__dirname, '../../reliability-results.md');

function write(text) {
	process.stdout.write(`\n${text}\n`);
	fs.appendFileSync(RESULTS, `${text}\n\n`);
}

/** A markdown table under a heading: rows are arrays of cells. */
function table(title, headers, rows) {
	const line = (cells) => `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
	write(
		[`### ${title}`, '', line(headers), line(headers.map(() => '---')), ...rows.map(line)].join(
			'\n',
		),
	);
}

/** Heading + key: value lines. */
function figures(title, values) {
	write([`### ${title}`, '', ...Object.entries(values).map(([k, v]) => `- ${k}: ${v}`)].join('\n'));
}

/**
 * jest globalSetup: start a fresh results file for this run — unless RELIABILITY_RESULTS_KEEP is
 * set: .ci/run starts the file itself and runs queue-poll.rel.js in a second jest beside the
 * others, both appending to it.
 */
module.exports = async function globalSetup() {
	await require('../harness/summary').setup();
	if (!process.env.RELIABILITY_RESULTS_KEEP)
		fs.writeFileSync(RESULTS, `# Reliability run ${new Date().toISOString()}\n\n`);
};
module.exports.table = table;
module.exports.figures = figures;
