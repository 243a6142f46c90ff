'use strict';
/**
 * Issue 29: the action node's promises over every operation and every document source, not only
 * Submit. One seeded run (and, for the operations that remember what they sent, a re-run) of one
 * operation × source against the hostile emulator — slow answers, a rate limit, answers lost after
 * the service acted, and per seed one opt-in hostility in focus: an answer echoing the request
 * (Authorization included), a redirect of reads to another origin, a wrong-shaped 2xx — and, for
 * the URL source, the user's file server misbehaving (test/support/file-server.js).
 *
 * Each run's violations are sorted by the invariant they break, so that a test per invariant
 * names what fails:
 *
 *   key        the API key appears in no output (JSON or binary), error, log line, nor in a request
 *              to another origin or to the user's file server;
 *   billing    nothing is billed twice in one workflow execution, also across a re-run in a
 *              production execution with Skip Submitted Documents on; reads bill nothing;
 *   budget     no workflow execution bills past the node's Page Budget, and every refused item
 *              names the budget;
 *   deadline   every run ends by its deadline: the URL fetch deadline (60 s, URL_FETCH in
 *              nodes/DocumentOcr/documents/url.ts) and the items' wait timeout, plus an allowance
 *              for the service's slow and rate-limited answers; and no task is read past its own
 *              Wait Timeout (from the moment the service accepted it);
 *   errors     every error (the node's, or an error item) names what failed (the item, the URL or
 *              the task / job) and, for the operations that bill, what was charged: the ID or
 *              "charged / may have been created" when the service charged the item, a statement
 *              ("nothing was sent or charged") when it did not — never "nothing was charged" for
 *              an item that was;
 *   pairedItem every output item has one;
 *   answer     a read outputs only what it asked for: Task → Get and Job → Get the task or job of
 *              the item's ID (with a status), Get Many tasks — never another answer (an echo, `{}`,
 *              an HTML page) passed on as if it were one.
 *
 * How n8n runs the node turns with the seed for the operations that bill (test/support/shapes.js):
 * once, inside Loop Over Items (batches of 1, 2, 7), twice from two inputs, with Retry On Fail, in
 * a sub-workflow called per item (an execution per item), or again as a partial execution from
 * the editor (a second, manual execution). Budget and billing are checked per execution.
 */
const h = require('./helpers');
const secrets = require('./harness/secrets');
const base = require('../scripts/n8n-engine');
const { rng } = require('./invariants');
const { startFileServer, hostileLink } = require('./support/file-server');
const { SHAPES, startShape, runsIn, flatten } = require('./support/shapes');
const { timeStatusReads } = require('./support/status-reads');
const { SENDING } = require('./support/sending');

const INVARIANTS = ['key', 'billing', 'budget', 'deadline', 'errors', 'pairedItem', 'answer'];

/** The test title of each invariant. */
const TITLES = {
	key: 'the key appears in no output, binary, error, log line or request to another server',
	billing:
		'nothing is billed twice in an execution, nor across a re-run (Skip Submitted Documents)',
	budget: 'no execution bills past its Page Budget, and every refused item names the budget',
	deadline: 'every run ends by its deadline',
	errors: 'every error names what failed and what was charged',
	pairedItem: 'pairedItem on every output item',
	answer: 'a read outputs only the task or job it asked for',
};

/** The URL fetch deadline of the node (`URL_FETCH` in nodes/DocumentOcr/documents/url.ts). */
const FETCH_DEADLINE_MS = 60_000;
/** Time the hostile service's answers may add to a run: slow answers, 429s, read retries. */
const REQUEST_ALLOWANCE_MS = 30_000;
/** Wait Timeout of the operations that wait, in minutes (3 s). */
const WAIT_TIMEOUT_MINUTES = 0.05;
/**
 * How long past its Wait Timeout a status read may still be answered (a slow answer, a 429): this,
 * or the node's own lead measured from the run's status reads when they were slower (a loaded
 * machine; support/status-reads.js).
 */
const WAIT_ANSWER_ALLOWANCE_MS = 3_000;

/**
 * The operations that take a document: every operation that bills (test/support/sending.js; its
 * Wait for Completion on for 7 seeds in 10 where it has one), then Count Pages. `params(source,
 * random, options)`: the parameters with the Input Type's fields; whether it waits (`waits`) and
 * remembers what it sent (`remembers`, Skip Submitted Documents); `free`: it bills nothing.
 */
const DOCUMENT_OPERATIONS = {
	...Object.fromEntries(
		Object.entries(SENDING).map(([value, operation]) => [
			value,
			{
				label: operation.label,
				params: (source, random, o) =>
					operation.params({
						...source,
						...(operation.waits ? { waitForCompletion: random() < 0.7 } : {}),
						options: o,
					}),
				remembers: operation.remembers,
				waits: operation.waits ? (p) => p.waitForCompletion : undefined,
			},
		]),
	),
	countPages: {
		label: 'Document → Count Pages',
		params: (source, _random, o) => h.doc('countPages', { ...source, options: o }),
		// Sends nothing to the service: any request to it, or any charge, is a violation.
		free: true,
	},
};

/** The operations that read (or delete) by ID; `kind` what must exist for them to read. */
const READ_OPERATIONS = {
	get: {
		label: 'Task → Get',
		kind: 'task',
		answer: (json, id) => json.taskId === id && typeof json.status === 'string',
		params: (random) =>
			h.task('get', { taskId: '={{ $json.id }}', simplify: random() < 0.5, options: {} }),
	},
	getMany: {
		label: 'Task → Get Many',
		kind: 'task',
		answer: (json) => typeof json.taskId === 'string' && typeof json.status === 'string',
		single: true,
		params: (random) =>
			h.task('getMany', {
				returnAll: random() < 0.6,
				limit: 5,
				filters: {},
				options: { pageSize: 10 },
			}),
	},
	delete: {
		label: 'Task → Delete',
		kind: 'task',
		params: () => h.task('delete', { taskId: '={{ $json.id }}' }),
	},
	export: {
		label: 'Task → Export',
		kind: 'task',
		params: (random) =>
			h.task('export', {
				taskId: '={{ $json.id }}',
				format: ['docx', 'xlsx', 'pdf'][Math.floor(random() * 3)],
				binaryPropertyName: 'data',
			}),
	},
	jobGet: {
		label: 'Job → Get',
		kind: 'job',
		answer: (json, id) => json.id === id && typeof json.status === 'string',
		params: () => h.job('get', { jobId: '={{ $json.id }}' }),
	},
};

const SOURCES = ['binary', 'base64', 'url'];

/**
 * Every family: an operation with a document source, or a read; the operations that send nothing
 * (Count Pages) last, so that adding one leaves the seeds of the others as they were.
 */
const documentFamilies = (free) =>
	Object.keys(DOCUMENT_OPERATIONS)
		.filter((operation) => !DOCUMENT_OPERATIONS[operation].free === !free)
		.flatMap((operation) => SOURCES.map((source) => ({ operation, source })));
const FAMILIES = [
	...documentFamilies(false),
	...Object.keys(READ_OPERATIONS).map((operation) => ({ operation, source: 'id' })),
	...documentFamilies(true),
].map((f, index) => ({
	...f,
	index,
	label: `${(DOCUMENT_OPERATIONS[f.operation] ?? READ_OPERATIONS[f.operation]).label}${f.source === 'id' ? '' : ` from ${f.source}`}`,
}));

/**
 * The hostility in focus, turning with the seed and the family: with four seeds (the default)
 * every family meets each one. Reads send no submission to lose: their fourth is all three at once.
 */
const FOCI = ['lostAnswer', 'echo', 'redirect', 'wrongShape'];
const READ_FOCI = ['echo', 'redirect', 'wrongShape', 'mixed'];

function hostileOverrides(focus) {
	const low = focus === 'mixed' ? 0.2 : 0.05;
	const high = 0.5;
	return {
		lostAfterAct: focus === 'lostAnswer' ? 0.25 : 0.03,
		echo: focus === 'echo' ? high : low,
		crossOriginRedirect: focus === 'redirect' ? high : low,
		wrongShape: focus === 'wrongShape' ? high : low,
	};
}

/** The key as it could travel: as is, Base64 (Basic auth, data URIs), URL-encoded. */
function keyForms(key) {
	const forms = [key, Buffer.from(key).toString('base64').replace(/=+$/, '')];
	if (encodeURIComponent(key) !== key) forms.push(encodeURIComponent(key));
	return forms;
}

function leakIn(text, forms) {
	const at = forms.map((f) => text.indexOf(f)).find((i) => i >= 0);
	return at === undefined ? undefined : text.slice(Math.max(0, at - 80), at) + '[key]';
}

/**
 * A document of the run: a PDF (small, or with a large filler page) or a PNG, its text its own.
 * With `splits` (Split Large Documents on) the large PDF is a scan past the 10 MB limit instead:
 * 14 pages of 800 kB (11.2 MB, two parts on either surface), each page's text the item's, so
 * that every part names its item.
 */
function makeDocument(random, text, splits = false) {
	const kind = ['pdf', 'pdf', 'pdfLarge', 'png'][Math.floor(random() * 4)];
	if (kind === 'png')
		return { bytes: h.documents.makePng(text), mimeType: 'image/png', extension: 'png', pages: 1 };
	const pages = [text];
	const filler = kind === 'pdfLarge' ? 300_000 + Math.floor(random() * 1e6) : 0;
	if (kind === 'pdfLarge' && splits) {
		const scan = Array.from({ length: 14 }, (_, i) => `${text} page ${i + 1}`);
		const bytes = h.documents.makePdf(scan, { imageBytes: 800_000 });
		return { bytes, mimeType: 'application/pdf', extension: 'pdf', pages: scan.length };
	}
	if (kind === 'pdfLarge') pages.push(`filler ${'x'.repeat(filler)}`);
	else if (random() < 0.5) pages.push('page 2');
	const bytes = h.documents.makePdf(pages);
	return { bytes, mimeType: 'application/pdf', extension: 'pdf', pages: pages.length };
}

/**
 * The items of a document run from `source`, and the plan of each (its text, its URL mode).
 * Some fail at the service (FAIL), some never finish (STUCK, only where the node waits).
 */
function documentItems({ tag, random, source, files, waits, urlModes, splits }) {
	const n = 2 + Math.floor(random() * 3);
	const plans = [];
	const items = [];
	for (let i = 0; i < n; i++) {
		const fate = random();
		const marker = fate < 0.12 ? ' FAIL' : waits && fate < 0.22 ? ' STUCK' : '';
		const text = `${tag} item ${i}${marker}`;
		const doc = makeDocument(random, text, splits);
		const fileName = `${tag.replace(/\W+/g, '-')}-item-${i}.${doc.extension}`;
		const plan = { text, fileName, pages: doc.pages };
		if (source === 'binary') items.push(h.binaryItem(doc.bytes, fileName, doc.mimeType));
		else if (source === 'base64') {
			const b64 = doc.bytes.toString('base64');
			const dataUri = random() < 0.5;
			items.push({
				json: { b64: dataUri ? `data:${doc.mimeType};base64,${b64}` : b64, name: fileName },
			});
		} else {
			const path = `/${fileName}`;
			files.put(path, doc.bytes, { 'content-type': doc.mimeType });
			const mode = urlModes ? urlModes(i) : random() < 0.6 ? 'plain' : hostileLink(random);
			plan.mode = mode;
			plan.url = mode === 'plain' ? files.url(path) : files.hostileUrl(mode, path);
			items.push({ json: { url: `${plan.url}?token=sig-${i}` } });
		}
		plans.push(plan);
	}
	return { items, plans };
}

const SOURCE_PARAMETERS = {
	binary: { documentSource: 'binary', binaryPropertyName: 'data', fileName: '' },
	base64: {
		documentSource: 'base64',
		base64Data: '={{ $json.b64 }}',
		fileName: '={{ $json.name }}',
	},
	url: { documentSource: 'url', documentUrl: '={{ $json.url }}' },
};

/**
 * Runs the node once, unscanned by the harness (the scan is ours, per run, and records instead of
 * throwing), with a deadline: past `budgetMs` the run counts as late, the file server's open
 * answers are dropped and the service stops answering slowly, so the run can end.
 */
async function guardedRun({
	emu,
	files,
	parameters,
	items,
	continueOnFail,
	staticData,
	mode,
	budgetMs,
	shape,
	subSaved,
	onExecution,
	overlap,
}) {
	const log = [];
	const listener = (level, message, meta) =>
		log.push(
			`${level} ${typeof message === 'string' ? message : secrets.serialise(message)} ${meta === undefined ? '' : secrets.serialise(meta)}`,
		);
	secrets.listeners.add(listener);
	secrets.register(h.FULL_KEY);
	const started = Date.now();
	const nodeSettings = {
		typeVersion: 1,
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
	const credentials = h.credentials(emu);
	const handle = shape
		? startShape(shape, {
				parameters,
				nodeSettings,
				items,
				credentials,
				staticData,
				mode,
				subSaved,
				onExecution,
				...overlap,
			})
		: base.runNode({ parameters, items, credentials, nodeSettings, staticData, mode });
	let timer;
	const late = new Promise((resolve) => (timer = setTimeout(() => resolve('late'), budgetMs)));
	let result = await Promise.race([handle.promise, late]);
	clearTimeout(timer);
	let overran = false;
	if (result === 'late') {
		overran = true;
		files?.dropConnections();
		emu.options.latency = null;
		let cancelTimer;
		const cancelled = new Promise(
			(resolve) =>
				(cancelTimer = setTimeout(() => {
					handle.cancel();
					resolve(handle.promise);
				}, 30_000)),
		);
		result = await Promise.race([handle.promise, cancelled]);
		clearTimeout(cancelTimer);
	}
	const ms = Date.now() - started;
	secrets.listeners.delete(listener);
	// A workflow shape: its executions' outputs and errors as one run's, item indexes of the input.
	if (shape && result?.executions) {
		const flat = result.executions.map(flatten);
		const errors = flat.map((f) => f.error).filter(Boolean);
		if (result.executions.parentError && errors.length === 0)
			errors.push(result.executions.parentError);
		result = {
			executions: result.executions,
			output: flat.flatMap((f) => f.output),
			error: errors[0],
			errors,
		};
	}
	if (process.env.INVARIANT_OPS_DEBUG)
		process.stderr.write(
			`${JSON.stringify({ output: result.output?.map((o) => [o.json, Object.keys(o.binary ?? {})]), error: result.error?.message })}\n`,
		);
	// The harness's own record of the run's log lines: drained here, counted in the summary.
	let harnessLog;
	try {
		secrets.assertLogsClean();
	} catch (error) {
		harnessLog = error.message;
	}
	return { ...result, ms, overran, log, harnessLog };
}

/** The faults that fired in a run, counted by kind. */
function firedFaults(emu) {
	const fired = {};
	for (const f of emu.faults.log) fired[f.kind] = (fired[f.kind] ?? 0) + 1;
	if (process.env.INVARIANT_OPS_DEBUG)
		fired.log = emu.faults.log.map((f) => `${f.kind} ${f.method} ${f.path}`);
	return fired;
}

/** The task or job a charge created, as the emulator keeps it. */
function recordOf(emu, id) {
	return emu.getTask(id) ?? emu.jobMap.get(id);
}

/** What a run gave each item, in short: its error, or the fields that identify its result. */
function outcomesOf(result) {
	const outcomes = new Map();
	const say = (index, text) =>
		outcomes.set(index, `${outcomes.get(index) ?? ''}${text}`.slice(0, 200));
	for (const item of result.output ?? []) {
		const json = item.json ?? {};
		say(
			item.pairedItem?.item,
			json.error !== undefined
				? `error: ${json.error}`
				: `output ${JSON.stringify({ taskId: json.taskId, id: json.id, status: json.status, previouslySubmitted: json.previouslySubmitted })}`,
		);
	}
	for (const error of result.errors ?? (result.error ? [result.error] : []))
		say(error.context?.itemIndex, `the node's error: ${error.message}`);
	return outcomes;
}

/**
 * Whether `result` tells the user of charge `c` to item `index`: an output item or an error names
 * its ID, or an error of the item says it was charged (or may have been).
 */
function acknowledged(result, index, c) {
	if ((result.output ?? []).some((item) => JSON.stringify(item.json ?? {}).includes(c.taskId)))
		return true;
	return errorsOf(result).some(
		(error) =>
			error.text.includes(c.taskId) ||
			(error.itemIndex === index &&
				CHARGE_WORDS.test(error.text) &&
				!NOTHING_CHARGED.test(error.text)),
	);
}

/** The item a ledger entry belongs to: its document carries the run's tag and the item's index. */
function itemOfCharge(tag, entry) {
	if (typeof entry.document !== 'string' || !entry.document.includes(tag)) return -1;
	const match = new RegExp(`${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} item (\\d+)`).exec(
		entry.document,
	);
	return match ? Number(match[1]) : -1;
}

/** The node's charges to alice (the key's user) from ledger position `from`, net of refunds. */
function chargesSince(emu, from) {
	const ledger = emu.ledger('acme').filter((e) => e.user === 'alice' && e.seq > from);
	const refunded = new Set(ledger.filter((e) => e.reason === 'refund').map((e) => e.taskId));
	return ledger.filter((e) => e.reason === 'submit' && !refunded.has(e.taskId));
}

const ledgerMark = (emu) => Math.max(0, ...emu.ledger().map((e) => e.seq));

/** The errors of a run as { itemIndex, text, where }: the node's error and every error item. */
function errorsOf(result) {
	const errors = [];
	for (const e of result.errors ?? (result.error ? [result.error] : [])) {
		errors.push({
			itemIndex: e.context?.itemIndex,
			message: String(e.message ?? ''),
			text: `${e.message ?? ''}\n${e.description ?? ''}`,
			where: "the node's error",
		});
	}
	for (const item of result.output ?? [])
		if (item.json?.error !== undefined)
			errors.push({
				itemIndex: item.pairedItem?.item,
				message: String(item.json.error ?? ''),
				// The ID fields the node puts on an error item (errorJson) name what was created.
				text: `${item.json.error}\n${item.json.description ?? ''}\n${['taskId', 'id', 'jobId']
					.filter((k) => item.json[k] !== undefined)
					.map((k) => `${k}: ${item.json[k]}`)
					.join(', ')}`,
				where: `the error item of item ${item.pairedItem?.item}`,
			});
	return errors;
}

const CHARGE_WORDS = /charg|bill|may have been created|may exist/i;
const NOTHING_CHARGED =
	/nothing (was|has been) (sent or )?(charged|billed)|not (been )?(charged|billed)/i;

/**
 * Checks one run: the key, pairedItem, the deadline and the error messages. `names(itemIndex)`
 * the strings that identify an item (its URL, its ID); `charged(itemIndex)` its charges this run
 * (undefined for the operations that cannot bill); `elsewhere(itemIndex, charge)`, for
 * executions that overlap, whether another of them tells the user of the charge.
 */
async function checkRun({
	v,
	label,
	result,
	budgetMs,
	budgetText,
	emu,
	files,
	names,
	charged,
	chargedBefore,
	elsewhere,
	forms,
	describeItem,
	strictNames = false,
}) {
	// key: output JSON, error, binary data, log lines, other origins, the user's file server.
	const where = [
		['its output', secrets.serialise(result.output ?? [])],
		['its error', secrets.serialise(result.error ?? {})],
	];
	for (const item of result.output ?? [])
		for (const [property, binary] of Object.entries(item.binary ?? {})) {
			const bytes = await h.readBinary(binary).catch(() => Buffer.alloc(0));
			where.push([
				`the binary "${property}" of item ${item.pairedItem?.item}`,
				bytes.toString('latin1'),
			]);
		}
	for (const line of result.log) where.push(['a log line', line]);
	for (const [what, text] of where) {
		// Counted by the harness's scan as well, so that the run's summary line shows the leaks.
		try {
			secrets.scan(`${label}: ${what}`, text);
		} catch {
			// Recorded below, as this invariant's violation.
		}
		const leak = leakIn(text, forms);
		if (leak) v.key.push(`${label}: the key is in ${what}: …${leak}`);
	}
	if (result.harnessLog) v.key.push(`${label}: ${result.harnessLog}`);
	for (const request of emu.otherOriginLog.splice(0)) {
		const leak = leakIn(secrets.serialise(request.headers), forms);
		if (leak)
			v.key.push(
				`${label}: the key was sent to another origin (${request.method} ${request.url}, redirected there by the service): …${leak}`,
			);
	}
	for (const request of files?.requests.splice(0) ?? []) {
		const leak = leakIn(secrets.serialise(request.headers), forms);
		if (leak) v.key.push(`${label}: the key was sent to the user's file server (${request.url})`);
	}

	// pairedItem.
	for (const item of result.output ?? [])
		if (!item.pairedItem || typeof item.pairedItem.item !== 'number')
			v.pairedItem.push(
				`${label}: an output item has no pairedItem: ${JSON.stringify(item.json).slice(0, 120)}`,
			);

	// deadline.
	const got = () =>
		[...outcomesOf(result)]
			.map(
				([i, text]) =>
					`item ${i}${describeItem && typeof i === 'number' ? ` (${describeItem(i)})` : ''}: ${text}`,
			)
			.join('; ');
	if (result.overran)
		v.deadline.push(
			`${label}: still running ${budgetMs / 1000} s after it started (${budgetText}); it ended only when the test dropped its connections, after ${(result.ms / 1000).toFixed(1)} s, with ${got() || 'no output'}`,
		);
	else if (result.ms > budgetMs)
		v.deadline.push(
			`${label}: took ${(result.ms / 1000).toFixed(1)} s, past its ${budgetMs / 1000} s (${budgetText})`,
		);

	// errors.
	for (const error of errorsOf(result)) {
		const index = error.itemIndex;
		const ids = typeof index === 'number' ? names(index) : [];
		const about =
			typeof index === 'number' && describeItem ? ` (item ${index}: ${describeItem(index)})` : '';
		const named =
			/\bitems? \d+\b/i.test(error.text) || ids.some((id) => id && error.text.includes(id));
		if (error.message.trim().length < 3)
			v.errors.push(
				`${label}: ${error.where} has an empty message${about}: ${JSON.stringify(error.text.slice(0, 300))}`,
			);
		// The item is named by its words, or by n8n (an error item is paired with its item, the
		// node's error carries its itemIndex) — except a read's, which must name the ID it read.
		else if (!named && (strictNames || typeof index !== 'number'))
			v.errors.push(
				`${label}: ${error.where} names neither the item, its URL nor its task${about}: ${JSON.stringify(error.text.slice(0, 300))}`,
			);
		if (!charged || typeof index !== 'number') continue;
		const charges = charged(index);
		const before = chargedBefore?.(index) ?? [];
		if (charges.length === 0 && before.some((c) => error.text.includes(c.taskId))) continue;
		if (charges.length > 0) {
			const saysIt =
				charges.some((c) => error.text.includes(c.taskId)) ||
				(CHARGE_WORDS.test(error.text) && !NOTHING_CHARGED.test(error.text));
			if (!saysIt && !(elsewhere && charges.every((c) => elsewhere(index, c))))
				v.errors.push(
					`${label}: ${error.where}${about}: item ${index} was charged (${charges.map((c) => `${c.taskId} on ${c.endpoint}`).join(', ')}), and its error does not say so: ${JSON.stringify(error.text.slice(0, 300))}`,
				);
		} else if (!CHARGE_WORDS.test(error.text))
			v.errors.push(
				`${label}: ${error.where} does not say what was charged (nothing, for item ${index})${about}: ${JSON.stringify(error.text.slice(0, 300))}`,
			);
	}
}

function emulatorOptions(seed, focus) {
	return {
		profile: 'hostile',
		seed,
		timeScale: 0.02,
		backlog: 30,
		rateLimit: { perSecond: 10, burst: 4 },
		workers: 4,
		msPerPage: 8,
		syncMsPerPage: 5,
		syncTimeoutMs: 300,
		maxPageSize: 10,
		hostile: hostileOverrides(focus),
	};
}

/**
 * One seed of a family. `urlModes(itemIndex)`: the URL mode of each item (the default draws plain
 * files and the modes that end by themselves); `focus` forces the hostility in focus;
 * `allowanceMs` the time the service's answers may add to the deadline; `fileServer` the file
 * server's options. Returns { label, focus, runs, violations, fired }.
 */
async function opsRun(
	family,
	seed,
	{
		urlModes,
		focus: forced,
		fetchDeadlineMs = FETCH_DEADLINE_MS,
		allowanceMs = REQUEST_ALLOWANCE_MS,
		fileServer,
	} = {},
) {
	const { startEmulator } = require('../emulator');
	const random = rng(seed * 100 + family.index + 1);
	const foci = READ_OPERATIONS[family.operation] ? READ_FOCI : FOCI;
	const focus = forced ?? foci[(seed - 1 + family.index) % foci.length];
	const tag = `S${seed}F${family.index}`;
	const label = `seed ${seed} (${focus})`;
	const v = Object.fromEntries(INVARIANTS.map((name) => [name, []]));
	const forms = keyForms(h.FULL_KEY);
	const emu = await startEmulator(emulatorOptions(seed, focus));
	const files = family.source === 'url' ? await startFileServer(fileServer) : undefined;
	const runs = [];
	const reads = timeStatusReads();
	try {
		const continueOnFail = random() < 0.5;
		const concurrency = [1, 2, 5][Math.floor(random() * 3)];
		const read = READ_OPERATIONS[family.operation];
		if (read) {
			const ids = await prime(emu, read.kind, tag);
			const parameters = read.params(random);
			const items = read.single
				? [{ json: {} }]
				: ids.map((id) => ({ json: { id } })).sort(() => random() - 0.5);
			parameters.options = { ...(parameters.options ?? {}), concurrency };
			const from = ledgerMark(emu);
			const budgetMs = allowanceMs;
			const budgetText = `${allowanceMs / 1000} s for the service's slow and rate-limited answers`;
			const result = await guardedRun({ emu, files, parameters, items, continueOnFail, budgetMs });
			runs.push({ ms: result.ms, budgetMs });
			await checkRun({
				v,
				label,
				result,
				budgetMs,
				budgetText,
				emu,
				files,
				forms,
				names: (i) => [items[i]?.json.id],
				describeItem: (i) => String(items[i]?.json.id ?? 'the list'),
				strictNames: !read.single,
			});
			if (read.answer)
				for (const item of result.output ?? []) {
					const asked = items[item.pairedItem?.item]?.json.id;
					if (item.json?.error === undefined && !read.answer(item.json ?? {}, asked))
						v.answer.push(
							`${label}: item ${item.pairedItem?.item}${asked ? ` (${asked})` : ''} output an answer that is not ${read.kind === 'job' ? 'the job' : asked ? 'the task' : 'a task'} asked for: ${JSON.stringify(item.json).slice(0, 300)}`,
						);
				}
			const billed = chargesSince(emu, from);
			if (billed.length)
				v.billing.push(
					`${label}: a read billed ${billed.length} document(s): ${billed.map((c) => `${c.taskId} on ${c.endpoint}`).join(', ')}`,
				);
			return { label, focus, runs, violations: v, fired: firedFaults(emu) };
		}

		const operation = DOCUMENT_OPERATIONS[family.operation];
		const options = { concurrency };
		if (operation.remembers) options.skipSubmitted = true;
		const parameters = operation.params(SOURCE_PARAMETERS[family.source], random, options);
		const waits = operation.waits?.(parameters) ?? false;
		if (waits) options.waitTimeout = WAIT_TIMEOUT_MINUTES;
		// Every operation that bills splits documents past the limit (Split Large Documents, issue
		// 37): its large PDFs are 11.2 MB scans, sent in two parts (one part of page 1 on the even
		// seeds, which select page 1). No draw of the seed changes.
		const splits = !operation.free;
		if (splits) options.splitLargeDocuments = true;
		const { items, plans } = documentItems({
			tag,
			random,
			source: family.source,
			files,
			waits,
			urlModes,
			splits,
		});
		// On the even seeds an operation that bills sends only some pages of each document (the
		// Pages option, issue 37): page 1 (seeds 2, 6, ...), or page 1 and the last (seeds 4, 8, ...;
		// two pages apart in a split scan, one page of a one-page document). The tag is on page 1,
		// so every charge still names its item. Decided by the seed, not drawn, so the seeds' other
		// draws stay as they were.
		const selects = !operation.free && seed % 2 === 0;
		const several = seed % 4 === 0;
		if (selects) options.pages = several ? '1, last' : '1';
		const sent = (plan) => (!selects ? plan.pages : several ? Math.min(2, plan.pages) : 1);
		// On half the runs of an operation that bills, a Page Budget of a third to four fifths of the
		// items' pages (as sent).
		const pagesInAll = plans.reduce((sum, plan) => sum + sent(plan), 0);
		const pageBudget =
			random() < 0.5 || operation.free
				? undefined
				: Math.max(1, Math.floor(pagesInAll * (0.33 + random() * 0.47)));
		if (pageBudget !== undefined) options.pageBudget = pageBudget;
		const budgetText = [
			family.source === 'url' && `the ${fetchDeadlineMs / 1000} s URL fetch deadline`,
			waits && `the ${WAIT_TIMEOUT_MINUTES * 60} s Wait Timeout`,
			`${allowanceMs / 1000} s for the service's slow and rate-limited answers`,
		]
			.filter(Boolean)
			.join(' + ');
		// How n8n runs the node, turning with the seed (operations that bill): each run of the node
		// in the workflow has the deadline of one.
		// An operation that remembers what it sent meets overlapping executions every fourth seed
		// (issue 43); INVARIANT_OPS_SHAPE runs one shape only.
		const shape = operation.free
			? undefined
			: (process.env.INVARIANT_OPS_SHAPE ??
				(operation.remembers && seed % 4 === 0
					? 'overlap'
					: SHAPES[(seed - 1 + family.index) % SHAPES.length]));
		const budgetMs =
			((family.source === 'url' ? fetchDeadlineMs : 0) +
				(waits ? WAIT_TIMEOUT_MINUTES * 60_000 : 0) +
				allowanceMs) *
			(shape ? runsIn(shape, items.length) : 1);
		// A production execution (n8n saves the static data after it, also after a failure), and,
		// for the operations that remember what they sent, the same workflow run again. A partial
		// execution is its own re-run: a manual execution after a manual one.
		const staticData = {};
		const subSaved = { staticData: {} };
		const rounds = operation.remembers && shape !== 'partial' ? 2 : 1;
		// Overlapping executions (2–4 by the seed) save what they remember as n8n does; the re-run is
		// as many again, in the same process — or, on odd seeds, in a restarted one (another
		// workflow ID here: nothing shared in memory, only what was saved).
		const copies = 2 + (seed % 3);
		const saved = { staticData: {} };
		const overlapOf = (round) => ({
			copies,
			saved,
			workflowId: `overlap-${tag}${round > 1 && seed % 2 === 1 ? '-restarted' : ''}`,
		});
		// Overlapping executions of an operation that remembers nothing each bill their documents.
		const billsAllowed = shape === 'overlap' && !operation.remembers ? copies : 1;
		const perItem = new Map();
		const outcomes = new Map();
		const shown = shape && shape !== 'single' ? `${label}, ${shape}` : label;
		for (let round = 1; round <= rounds; round++) {
			const from = ledgerMark(emu);
			const requestsBefore = emu.stats().requests;
			// Where each execution the test started began in the service's ledger.
			const marks = [];
			const result = await guardedRun({
				emu,
				files,
				parameters,
				items,
				continueOnFail,
				staticData,
				mode: 'cli',
				budgetMs,
				shape,
				subSaved,
				onExecution: () => marks.push(ledgerMark(emu)),
				overlap: overlapOf(round),
			});
			runs.push({ ms: result.ms, budgetMs });
			const charges = chargesSince(emu, from);
			// The execution each charge belongs to: a sub-workflow's by its item, the others by time.
			const executionOf = (c) =>
				shape === 'subWorkflow'
					? itemOfCharge(tag, c)
					: marks.filter((mark) => mark < c.seq).length - 1;
			const runLabel = rounds > 1 ? `${shown}, ${round === 1 ? 'first run' : 're-run'}` : shown;
			if (operation.free && (charges.length > 0 || emu.stats().requests > requestsBefore))
				v.billing.push(
					`${runLabel}: an operation that sends nothing made ${emu.stats().requests - requestsBefore} request(s) to the service and ${charges.length} charge(s)`,
				);
			// budget: the pages each execution was charged (net of refunds), and every refusal's words.
			if (pageBudget !== undefined) {
				// Overlapping executions' charges cannot be told apart: their sum against their budgets.
				const groupOf = (c) => (shape === 'overlap' ? `s 0–${copies - 1}` : ` ${executionOf(c)}`);
				const most = shape === 'overlap' ? pageBudget * copies : pageBudget;
				const spentBy = new Map();
				for (const c of charges) spentBy.set(groupOf(c), (spentBy.get(groupOf(c)) ?? 0) - c.delta);
				for (const [execution, spent] of spentBy)
					if (spent > most)
						v.budget.push(
							`${runLabel}: execution${execution} was charged ${spent} pages with a Page Budget of ${pageBudget}${shape === 'overlap' ? ' each' : ''}: ${charges
								.filter((c) => groupOf(c) === execution)
								.map((c) => `${c.taskId} (${-c.delta})`)
								.join(', ')}`,
						);
				for (const error of errorsOf(result))
					if (
						/Page Budget/.test(error.message) &&
						!error.message.includes(`Page Budget of ${pageBudget} page`)
					)
						v.budget.push(`${runLabel}: ${error.where} does not name the budget: ${error.message}`);
			}
			// Each item's own wait: no status read of its task past the Wait Timeout from the moment
			// the service accepted it (less the time an answer takes). The emulator logs task reads.
			if (waits) {
				const ended = Date.now();
				for (const c of charges) {
					const deadline = Date.parse(c.at) + WAIT_TIMEOUT_MINUTES * 60_000;
					const late = emu
						.stats()
						.pollLog.filter((p) => p.taskId === c.taskId && p.at <= ended)
						.map((p) => p.at - deadline)
						.filter((ms) => ms > Math.max(WAIT_ANSWER_ALLOWANCE_MS, reads.leadMs()));
					if (late.length)
						v.deadline.push(
							`${runLabel}: item ${itemOfCharge(tag, c)}'s task ${c.taskId} was still read ${Math.max(...late)} ms after its ${WAIT_TIMEOUT_MINUTES * 60} s Wait Timeout`,
						);
				}
			}
			for (const c of charges) {
				const index = itemOfCharge(tag, c);
				if (index < 0) {
					v.billing.push(`${runLabel}: a charge for a document of no item: ${c.taskId}`);
					continue;
				}
				if (!perItem.has(index)) perItem.set(index, []);
				perItem.get(index).push({ ...c, round, execution: executionOf(c) });
			}
			for (const [index, text] of outcomesOf(result)) {
				if (!outcomes.has(index)) outcomes.set(index, []);
				outcomes.get(index).push(text);
			}
			await checkRun({
				v,
				label: runLabel,
				result,
				budgetMs,
				budgetText,
				emu,
				files,
				forms,
				names: (i) => [
					plans[i]?.url && new URL(plans[i].url).pathname,
					plans[i]?.fileName,
					...charges.filter((c) => itemOfCharge(tag, c) === i).map((c) => c.taskId),
				],
				charged: (i) => charges.filter((c) => itemOfCharge(tag, c) === i),
				// Overlapping executions send the same items: a charge cannot be told to one of them,
				// and one that sent nothing says so truly. The charge's ID must then reach the user
				// in some execution's output or error, or an error of the item say it was charged.
				elsewhere: shape === 'overlap' ? (i, c) => acknowledged(result, i, c) : undefined,
				// A re-run may answer from what it remembers: the earlier charge, named by its ID.
				chargedBefore: (i) => (perItem.get(i) ?? []).filter((c) => c.round < round),
				describeItem: (i) =>
					[plans[i]?.text, plans[i]?.mode && `URL ${plans[i].mode}`].filter(Boolean).join(', '),
			});
		}
		for (const [index, every] of perItem) {
			// A split document's parts are billed once each: charges are told apart by the first page
			// they carried (a part sent again carries the same pages).
			const parts = new Map();
			for (const c of every) {
				const first = String(c.document).split(h.documents.PAGE_SEPARATOR)[0];
				if (!parts.has(first)) parts.set(first, []);
				parts.get(first).push(c);
			}
			// A partial execution is a manual run after a manual run: n8n keeps no node memory
			// between them, so each is held to "once" on its own.
			const groups = [...parts.values()].flatMap((all) =>
				shape === 'partial' ? [0, 1].map((e) => all.filter((c) => c.execution === e)) : [all],
			);
			for (const charges of groups) {
				// A document whose task the service failed is sent again on the next run, by design
				// (money.test.js): not a second bill for one result.
				const billed = charges.filter(
					(c, i) => i === charges.length - 1 || recordOf(emu, c.taskId)?.status !== 'failed',
				);
				if (billed.length > billsAllowed)
					v.billing.push(
						`${shown}: item ${index} (${plans[index].text}${plans[index].mode ? `, URL ${plans[index].mode}` : ''}) was billed ${billed.length} times: ${billed.map((c) => `${c.taskId} on ${c.endpoint} (${c.round === 1 ? 'first run' : 're-run'}, execution ${c.execution})`).join(', ')}; what the runs gave it: ${JSON.stringify(outcomes.get(index) ?? [])}`,
					);
			}
		}
		return { label, focus, runs, violations: v, fired: firedFaults(emu) };
	} finally {
		reads.stop();
		await files?.close();
		await emu.close();
	}
}

/**
 * Tasks (or jobs) for a read to find, made before the hostile parts are switched on: done ones, one
 * that never finishes, one that failed; and IDs that do not exist.
 */
async function prime(emu, kind, tag) {
	const rules = emu.faults.rules;
	const latency = emu.options.latency;
	emu.faults.rules = [];
	emu.options.latency = null;
	try {
		const items = ['done A', 'done B', 'FAIL', 'STUCK'].map((what, i) =>
			h.pdfItem(`${tag} primed ${i} ${what}`, `primed-${i}.pdf`),
		);
		const parameters =
			kind === 'job'
				? h.job('create', { waitForCompletion: false })
				: h.submit({ waitForCompletion: false });
		const { output, error } = await h.run(emu, parameters, items);
		if (error) throw new Error(`priming the ${kind}s failed: ${error.message}`);
		const ids = output.map((o) => o.json.taskId ?? o.json.id ?? o.json.jobId);
		await emu.waitFor(
			() =>
				ids.slice(0, 3).every((id) => {
					const record = kind === 'job' ? emu.jobMap.get(id) : emu.getTask(id);
					return record && ['done', 'failed'].includes(record.status);
				}),
			{ timeoutMs: 120_000 },
		);
		return [...ids, kind === 'job' ? 'job_missing0' : 'tsk_missing0'];
	} finally {
		emu.faults.rules = rules;
		emu.options.latency = latency;
		emu.buckets.clear();
	}
}

/** The violations of one invariant over a family's seeds. */
function violationsOf(results, invariant) {
	return results.flatMap((r) => r.violations[invariant]);
}

module.exports = {
	FAMILIES,
	INVARIANTS,
	TITLES,
	FETCH_DEADLINE_MS,
	REQUEST_ALLOWANCE_MS,
	opsRun,
	violationsOf,
	keyForms,
};
