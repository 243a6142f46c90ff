'use strict';
/**
 * `npm start` — the main job: real n8n 2.x with this package installed as a community package,
 * the local OCR service emulator as its default service, the demo credentials and every example
 * workflow (examples/*.json) imported, their inbox folders seeded. Ctrl-C (or SIGTERM / SIGHUP
 * from any parent, or the parent going away) stops everything.
 *
 *   npm start                         the demo, state kept in .n8n-local/ between starts
 *   npm start -- --reset              delete .n8n-local/ first (database, credentials, examples, inbox)
 *   npm start -- --host 0.0.0.0       listen on every interface (a remote machine, a container)
 *   npm start -- --port 5678          the editor's port (default 5678, a free one when taken)
 *   npm start -- --smoke              CI's check: a throw-away state, n8n ready, the examples run
 *                                     (07 fired by the emulator's signed webhooks, checked through
 *                                     n8n's public API), everything stopped; exit code 0 or 1
 * The same as environment variables: DEMO_RESET=1, DEMO_HOST, DEMO_PORT, DEMO_SMOKE=1.
 *
 * Only Node's own modules are loaded before the bootstrap (it installs the dev dependencies on a
 * fresh clone) — this file, bootstrap.js and n8n-runtime.js; everything else after it.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { ROOT } = require('./bootstrap');
// Node's own modules only, like the bootstrap: safe before the install.
const rt = require('./n8n-runtime');

const DEFAULT_STATE = path.join(ROOT, '.n8n-local');
const { OWNER, EXAMPLE_INBOX, EXAMPLE_CREDENTIAL, EXAMPLE_WEBHOOK_CREDENTIAL } = rt;
/** Signing secret of the emulator's webhook endpoint that points at this n8n (local demo only). */
const WEBHOOK_SECRET = 'whsec_local_demo_secret_0001';
/** The webhookId of the trigger in examples/07-export-docx-on-ocr-done.json. */
const EXAMPLE_TRIGGER_WEBHOOK = '5b0c4c2e-7d1a-4f6e-9a51-0d8c2f1e9b77';
const TRIGGER_WORKFLOW = 'ocrExampleOnDone';
/** Finished tasks the demo account already has at start, for the housekeeping example (03). */
const HISTORY_TASKS = 8;

const USAGE = `usage: npm start [-- --smoke] [-- --reset] [-- --host ADDRESS] [-- --port N]
  --smoke         start on a throw-away state, run the examples, check them, stop (exit 0 / 1)
  --reset         delete the demo state (.n8n-local/) before starting
  --host ADDRESS  listen address of the editor (default 127.0.0.1; 0.0.0.0 = every interface)
  --port N        editor port (default 5678; a free port when 5678 is taken)
Environment: DEMO_SMOKE=1, DEMO_RESET=1, DEMO_HOST, DEMO_PORT.`;

function parseOptions(argv, env) {
	const options = {
		smoke: env.DEMO_SMOKE === '1' || env.DEMO_SMOKE === 'true',
		reset: env.DEMO_RESET === '1' || env.DEMO_RESET === 'true',
		host: env.DEMO_HOST || '127.0.0.1',
		port: env.DEMO_PORT ? Number(env.DEMO_PORT) : undefined,
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const value = () => {
			const next = argv[++i];
			if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
			return next;
		};
		if (arg === '--smoke') options.smoke = true;
		else if (arg === '--reset') options.reset = true;
		else if (arg === '--host') options.host = value();
		else if (arg === '--port') options.port = Number(value());
		else if (arg === '--help' || arg === '-h') {
			process.stdout.write(`${USAGE}\n`);
			process.exit(0);
		} else throw new Error(`unknown option ${arg}\n${USAGE}`);
	}
	if (options.port !== undefined && !(Number.isInteger(options.port) && options.port > 0))
		throw new Error(`--port must be a port number\n${USAGE}`);
	return options;
}

/** Every file each example reads, seeded once (an existing file — the user's — is left alone). */
function seedInbox(inbox, documents) {
	const files = {
		'welcome-letter.pdf': ['Welcome to Document OCR in n8n.', 'This letter has two pages.'], // 01
		'whiteboard.pdf': ['Meeting notes: ship the OCR node on Friday'], // 01
		'invoices/acme-0042.pdf': [documents.INVOICE_TEXT], // 02, 05
		'first-page/acme-0043.pdf': [
			documents.INVOICE_TEXT.replace('0042', '0043'),
			...[2, 3, 4, 5, 6, 7].map((page) => `Terms and conditions, page ${page} of 7`),
		], // 09: only page 1 is sent
		'to-markdown/board-minutes.pdf': [
			'Board Minutes\nThe board met on Monday.',
			'Decisions: ship it.',
		], // 04
		'by-webhook/scan-0001.pdf': ['Delivery note 0001: 12 boxes received'], // 06 -> 07
		'by-webhook/scan-0002.pdf': ['Delivery note 0002: 3 pallets received'], // 06 -> 07
		// 10: a 15 MB scan of 24 pages, past the 10 MB limit: sent in parts.
		'large-scan/archive-scan.pdf': {
			pages: Array.from({ length: 24 }, (_, i) => `Archive scan, page ${i + 1} of 24`),
			imageBytes: 625_000,
		},
	};
	fs.mkdirSync(path.join(inbox, 'by-webhook', 'exports'), { recursive: true }); // 07 writes here
	for (const [name, pages] of Object.entries(files)) {
		const file = path.join(inbox, name);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		if (fs.existsSync(file)) continue;
		const scan = !Array.isArray(pages);
		fs.writeFileSync(
			file,
			scan
				? documents.makePdf(pages.pages, { imageBytes: pages.imageBytes })
				: documents.makePdf(pages),
		);
	}
}

/**
 * The demo account's history: finished tasks from "earlier" (the emulator keeps none across
 * starts), submitted through the service's own API, so that housekeeping (03) has work to do.
 */
async function seedHistory(emu, key, documents) {
	const ids = [];
	for (let i = 1; i <= HISTORY_TASKS; i++) {
		const response = await fetch(`${emu.url}/api/ocr`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				imageBase64: documents
					.makePdf([`Archived scan ${i} of ${HISTORY_TASKS}`])
					.toString('base64'),
				filename: `archive-${String(i).padStart(2, '0')}.pdf`,
			}),
		});
		const body = await response.json();
		if (!response.ok || !body.taskId)
			throw new Error(`seeding the demo's task history failed: ${response.status}`);
		ids.push(body.taskId);
	}
	await Promise.all(ids.map((id) => emu.waitForTask(id, { timeoutMs: 60_000, status: 'done' })));
}

/** The credentials and workflows the demo imports, as n8n's CLI takes them. */
function desiredWorkspace({ emu, key, inbox }) {
	const examples = path.join(ROOT, 'examples');
	return {
		credentials: [
			{
				...EXAMPLE_CREDENTIAL,
				type: 'documentOcrApi',
				data: { apiKey: key, baseUrl: emu.url, apiUrl: '' },
			},
			{
				...EXAMPLE_WEBHOOK_CREDENTIAL,
				type: 'documentOcrWebhookApi',
				data: { secret: WEBHOOK_SECRET },
			},
		].map((credential) => ({
			id: credential.id,
			name: credential.name,
			text: JSON.stringify(credential),
		})),
		workflows: fs
			.readdirSync(examples)
			.filter((file) => file.endsWith('.json'))
			.sort()
			.map((file) => {
				const text = fs
					.readFileSync(path.join(examples, file), 'utf8')
					.split(EXAMPLE_INBOX)
					.join(inbox);
				const { id, name } = JSON.parse(text);
				return { id, name, text };
			}),
	};
}

async function portOr(preferred, host, rt) {
	const net = require('node:net');
	const free = await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(preferred, host, () => server.close(() => resolve(true)));
	});
	return free ? preferred : await rt.freePort();
}

async function main() {
	const options = parseOptions(process.argv.slice(2), process.env);
	const started = Date.now();
	const say = (line) => process.stdout.write(`${line}\n`);

	// Stop everything on a signal from any parent (a terminal's Ctrl-C, an IDE's stop button or a
	// supervisor signalling npm's PID), and when the parent goes away.
	let bootstrap; // the child process that installs the dev dependencies and builds, while it runs
	let stop = async (code) => {
		try {
			if (bootstrap) process.kill(-bootstrap.pid, 'SIGTERM'); // its npm install too
		} catch {
			// already gone
		}
		await rt.stopAll(); // an install or n8n command under way
		process.exit(code);
	};
	// package.json starts this file with `exec`, so that npm's child is this process and not a
	// `sh -c` that would hold back the SIGINT / SIGTERM npm passes on when its own PID is signalled.
	const parent = process.ppid;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(0));
	setInterval(() => {
		if (process.ppid !== parent) void stop(0); // the parent was killed outright
	}, 500).unref();

	const state = options.smoke
		? fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-demo-smoke-'))
		: DEFAULT_STATE;
	if (options.reset && !options.smoke) {
		fs.rmSync(state, { recursive: true, force: true });
		say(`» demo state reset (${state} deleted)`);
	}

	// Node 24 and n8n (a first start: ~5 minutes, mostly network and disk) install at the same time
	// as the dev dependencies and the build (scripts/bootstrap.js --build, in a child process so that
	// this one goes on with the runtime's install meanwhile): neither needs the other.
	const runtimeReady = rt
		.ensureNode24()
		.then(async (node24) => ({ node24, runtime: await rt.ensureN8n(node24) }));
	runtimeReady.catch(() => {}); // its error is reported where it is awaited, below
	const bootstrapCode = await new Promise((resolve) => {
		bootstrap = spawn(process.execPath, [path.join(__dirname, 'bootstrap.js'), '--build'], {
			stdio: ['ignore', 'inherit', 'inherit'],
			detached: true, // its own process group: stop() ends its npm install with it
		});
		bootstrap.on('error', () => resolve(1));
		bootstrap.on('exit', (code) => resolve(code ?? 1));
	});
	bootstrap = undefined;
	if (bootstrapCode !== 0) {
		await rt.stopAll(); // the runtime's install, when it is still under way
		process.exit(bootstrapCode);
	}
	// CI (.ci/run) starts its next tiers on this line, while n8n may still be installing.
	rt.log('» dev dependencies installed and the package built (dist/)');
	const { syncWorkspace } = require('./demo-workspace');
	const { startEmulator, KEYS } = require('../emulator');
	const documents = require('../emulator/documents');

	const { node24, runtime } = await runtimeReady;
	rt.log(`» n8n ${runtime.version} on Node 24 (${rt.CACHE})`);

	const filesDir = path.join(state, 'files');
	const inbox = path.join(filesDir, 'ocr-inbox');
	seedInbox(inbox, documents);
	rt.installPackage(state);
	rt.log('» package packed and installed as a community package');

	const emu = await startEmulator({
		port: options.smoke ? 0 : await portOr(5680, '127.0.0.1', rt),
		workers: 2,
		msPerPage: 300,
	});
	await seedHistory(emu, KEYS.full, documents);
	rt.log(
		`» OCR service emulator on ${emu.url} (${HISTORY_TASKS} finished tasks in the account's history)`,
	);
	const port = options.smoke
		? await rt.freePort()
		: (options.port ?? (await portOr(5678, options.host, rt)));
	const env = rt.n8nEnv(node24, {
		userFolder: state,
		port,
		brokerPort: await rt.freePort(),
		filesDir,
		extra: { N8N_LISTEN_ADDRESS: options.host },
	});

	let server;
	let stopping = false;
	stop = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		rt.log('» stopping n8n and the emulator');
		await rt.stopAll();
		await rt.stopServer(server?.child);
		await emu.close();
		if (options.smoke) fs.rmSync(state, { recursive: true, force: true });
		process.exit(code);
	};

	const cliEnv = { ...env, N8N_RUNNERS_BROKER_PORT: String(await rt.freePort()) };
	let commandCount = 0;
	const n8n = async (args) => {
		const logFile = path.join(
			state,
			`cli-${++commandCount}-${args[0].replace(/[^a-z]/gi, '')}.log`,
		);
		const result = await rt.n8nCommand(runtime, node24, cliEnv, args, logFile);
		if (result.code !== 0)
			throw new Error(`n8n ${args[0]} failed (exit ${result.code}); see ${logFile}`);
		return result.output;
	};
	const sync = await syncWorkspace({
		state,
		n8n,
		desired: desiredWorkspace({ emu, key: KEYS.full, inbox }),
		publish: [TRIGGER_WORKFLOW], // active: the emulator delivers ocr.done to it
		log: rt.log,
	});
	rt.log(
		sync.imported.length
			? `» imported ${sync.imported.length} item(s): ${sync.imported.join(', ')}`
			: '» credentials and examples: as you left them (nothing to import)',
	);

	emu.addWebhook({
		url: `http://127.0.0.1:${port}/webhook/${EXAMPLE_TRIGGER_WEBHOOK}/webhook`,
		secret: WEBHOOK_SECRET,
	});
	rt.log('» starting n8n');
	server = await rt.startServer(runtime, node24, env, path.join(state, 'n8n.log'));
	server.child.on('exit', (code) => {
		if (!stopping) {
			rt.log(`✖ n8n exited (code ${code}); see ${path.join(state, 'n8n.log')}`);
			void stop(1);
		}
	});
	const admin = await rt.setupOwner(server.url, OWNER);
	const seconds = Math.round((Date.now() - started) / 1000);

	if (options.smoke) {
		const { smokeCheck } = require('./smoke');
		let code = 0;
		try {
			await smokeCheck({
				rt,
				server,
				admin,
				n8n,
				emu,
				inbox,
				say,
				readySeconds: seconds,
				triggerWorkflow: TRIGGER_WORKFLOW,
			});
		} catch (error) {
			say(`✖ smoke check failed: ${error.message}`);
			code = 1;
		}
		await stop(code);
		return;
	}

	const wildcard = ['0.0.0.0', '::', ''].includes(options.host);
	const shown = wildcard ? `http://${os.hostname()}:${port}` : server.url;
	say(`
  n8n is ready: ${shown}   (started in ${seconds} s${wildcard ? `; listening on every interface` : ''})
  Sign in:      ${OWNER.email} / ${OWNER.password}

  Credential "${EXAMPLE_CREDENTIAL.name}" points at ${emu.url} (key ${KEYS.full}).
  Example workflows (Overview → Workflows), each ready to run on the seeded inbox:
    01 scheduled ingestion of a folder of scans     05 invoice fields by JSON Schema
    02 invoice automation                           06 submit without waiting (→ 07 by webhook)
    03 task housekeeping (keeps the newest 5)       07 export finished tasks as DOCX (trigger,
    04 folder of PDFs to Markdown files                active; the emulator signs its deliveries)
    09 the first page of each invoice (Pages: 1; the other six pages are not sent or billed)
  Inbox: ${inbox}
  Demo state (database, files, logs): ${state}   — reset: npm start -- --reset

  Ctrl-C stops n8n and the emulator.
`);
}

main().catch((error) => {
	process.stderr.write(`✖ ${error.message}\n`);
	process.exit(1);
});
