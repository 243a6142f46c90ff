'use strict';
/**
 * jest globalSetup/globalTeardown of the secret scan (test/harness/secrets.js): gives the workers
 * a folder for their counters, then prints the totals of the whole run.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function setup() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-secret-scan-'));
	process.env.OCR_SECRET_SCAN_DIR = dir;
}

async function teardown() {
	const dir = process.env.OCR_SECRET_SCAN_DIR;
	if (!dir || !fs.existsSync(dir)) return;
	const total = { scans: 0, logLines: 0, bytes: 0, leaks: 0, planted: 0 };
	const leaks = [];
	for (const file of fs.readdirSync(dir)) {
		const counts = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
		for (const key of Object.keys(total)) total[key] += counts[key] ?? 0;
		leaks.push(...(counts.leakDetails ?? []));
	}
	fs.rmSync(dir, { recursive: true, force: true });
	process.stdout.write(
		`\nSecret scan: ${total.scans} outputs/errors and ${total.logLines} log lines scanned ` +
			`(${(total.bytes / 1e6).toFixed(1)} MB) for API keys and webhook secrets — ${total.leaks} leak(s)` +
			(total.planted
				? ` (and ${total.planted} planted by the scan's self-check, all caught)`
				: '') +
			'.\n',
	);
	for (const leak of leaks) process.stdout.write(`  leak in ${leak.where}: ${leak.context}\n`);
	return total;
}

module.exports = setup;
module.exports.setup = setup;
module.exports.teardown = teardown;
