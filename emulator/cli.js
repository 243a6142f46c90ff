#!/usr/bin/env node
'use strict';
/**
 * node emulator/cli.js [--port 5680] [--host 127.0.0.1] [--workers 2] [--ms-per-page 300]
 *   [--sync-ms-per-page 10] [--api-port N --separate-api-server] [--log]
 *   [--webhook URL --webhook-secret S] [--error-shape flat|nested|code|text] [--list-shape ...]
 *   [--fields spec|rich] [--completion-order random|fifo] [--list-order newest|oldest]
 *   [--profile hostile [--seed N] [--time-scale F]]   (see ./profiles.js)
 * Prints one JSON line {"url","apiUrl","adminUrl","keys","keyNames"} and runs until SIGINT/SIGTERM.
 */
const { startEmulator, KEYS } = require('./index.js');

function parseArgs(argv) {
	const out = {};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (!a.startsWith('--')) continue;
		let [k, v] = a.slice(2).split(/=(.*)/s);
		if (v === undefined) {
			const next = argv[i + 1];
			if (next !== undefined && !next.startsWith('--')) {
				v = next;
				i++;
			} else v = 'true';
		}
		out[k.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = v;
	}
	return out;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	const num = (v, d) => (v === undefined ? d : Number(v));
	const options = {
		host: a.host || '127.0.0.1',
		port: num(a.port, 5680),
		workers: num(a.workers, 2),
		msPerPage: num(a.msPerPage, 300),
		syncMsPerPage: num(a.syncMsPerPage, 10),
		log: a.log === 'true',
		separateApiServer: a.separateApiServer === 'true' || a.apiPort !== undefined,
		apiPort: num(a.apiPort, 0),
		shapes: {},
	};
	if (a.errorShape) options.shapes.error = a.errorShape;
	if (a.listShape) options.shapes.list = a.listShape;
	if (a.taskShape) options.shapes.task = a.taskShape;
	if (a.fields) options.fields = a.fields;
	if (a.completionOrder) options.completionOrder = a.completionOrder;
	if (a.timestampFormat) options.timestampFormat = a.timestampFormat;
	if (a.listOrder) options.listOrder = a.listOrder;
	if (a.profile) {
		options.profile = a.profile;
		options.seed = num(a.seed, 42);
		options.timeScale = num(a.timeScale, 1);
	}
	if (a.webhook) options.webhooks = [{ url: a.webhook, secret: a.webhookSecret || '' }];
	const emu = await startEmulator(options);
	process.stdout.write(
		JSON.stringify({
			url: emu.url,
			apiUrl: emu.apiUrl,
			adminUrl: `${emu.url}/__emulator`,
			keys: emu.keys,
			keyNames: KEYS,
		}) + '\n',
	);
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		await emu.close();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
