'use strict';
/**
 * A jest reporter: at the end of a run, the five slowest test files with their times. When
 * CI_TIMINGS names a file, every file's time is appended to it as `seconds<TAB>tier<TAB>file`
 * (.ci/run prints the five slowest of the whole CI run from it).
 */
const fs = require('node:fs');
const path = require('node:path');

class TimingsReporter {
	constructor(globalConfig, options = {}) {
		this.rootDir = globalConfig.rootDir;
		this.tier = options.tier ?? 'jest';
		this.files = [];
	}

	onTestResult(test, result) {
		const { start, end } = result.perfStats ?? {};
		const seconds = start && end ? (end - start) / 1000 : 0;
		const file = path.relative(this.rootDir, result.testFilePath);
		const tier = test.context?.config?.displayName?.name ?? this.tier;
		this.files.push({ seconds, tier, file, failed: result.numFailingTests > 0 });
	}

	onRunComplete() {
		if (!this.files.length) return;
		const slowest = [...this.files].sort((a, b) => b.seconds - a.seconds).slice(0, 5);
		const total = this.files.reduce((sum, f) => sum + f.seconds, 0);
		process.stdout.write(
			`\nSlowest test files (${this.tier}: ${this.files.length} files, ${total.toFixed(0)} s in all):\n` +
				slowest
					.map((f) => `  ${f.seconds.toFixed(1).padStart(7)} s  ${f.tier.padEnd(11)} ${f.file}`)
					.join('\n') +
				'\n',
		);
		if (process.env.CI_TIMINGS)
			fs.appendFileSync(
				process.env.CI_TIMINGS,
				this.files.map((f) => `${f.seconds.toFixed(1)}\t${f.tier}\t${f.file}\n`).join(''),
			);
	}
}

module.exports = TimingsReporter;
