'use strict';
/**
 * How users fill fields: every number and boolean field of the three nodes, found in their
 * descriptions (top level and inside collections, for every operation that shows it), given by
 * an expression that resolves to nothing (a missing field), null, an empty text, other text, a
 * negative number, a fraction, a numeric text and the text "true" — in n8n-core's engine against
 * the strict emulator.
 *
 * The invariant: a value the field cannot take is a clear error naming the field and what it
 * got, before anything is sent (no request reaches the service, nothing is charged); a value it
 * can take keeps its documented meaning (a numeric text is its number, "true" / "false" are
 * booleans) and the run goes on. Never a silent "off" or default. The action node's per-item
 * fields run over every document source (one seed each: binary, Base64, URL); the fields read
 * once per run (Concurrency, Page Budget) over the binary source.
 */
const h = require('./helpers');
const { startTriggerServer, startPollTrigger } = require('./harness');
const base = require('../scripts/n8n-engine');
const { startFileServer } = require('./support/file-server');

const emu = h.useEmulator({ msPerPage: 2 });

/** The values, as the expression of an item (its `$json.v`) gives them. */
const VALUES = [
	['nothing', undefined],
	['null', null],
	['an empty text', ''],
	['text', 'text'],
	['a negative number', -3],
	['a fraction', 2.5],
	['a numeric text', '7'],
	['the text "true"', 'true'],
];

/** Fields read once per run, from the first item (a run per value). */
const RUN_LEVEL = new Set(['options.concurrency', 'options.pageBudget']);

/** Every number and boolean field of a node's description, with the conditions that show it. */
function fieldsOf(description) {
	const fields = [];
	const walk = (properties, parentShow, prefix) => {
		for (const property of properties) {
			const show = { ...parentShow, ...(property.displayOptions?.show ?? {}) };
			const path = prefix ? `${prefix}.${property.name}` : property.name;
			if (property.type === 'number' || property.type === 'boolean')
				fields.push({ path, property, show });
			if (property.type === 'collection') walk(property.options ?? [], show, path);
		}
	};
	walk(description.properties, {}, '');
	return fields;
}

/** Whether the field can take `value`, by its type and typeOptions (its documented meaning). */
function accepts(property, value) {
	if (property.type === 'boolean')
		return value === true || value === false || value === 'true' || value === 'false';
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) return false;
	const { minValue, maxValue, numberPrecision } = property.typeOptions ?? {};
	if (numberPrecision === 0 && !Number.isInteger(n)) return false;
	return (minValue === undefined || n >= minValue) && (maxValue === undefined || n <= maxValue);
}

/** The error text a value must give: the field's name and what it got. */
const refusal = (property) =>
	new RegExp(`"${property.displayName.replace(/[()]/g, '\\$&')}" must be .+, but it is `);

const SCHEMA = JSON.stringify({ type: 'object', properties: { total: { type: 'number' } } });

/** The action node's parameters for an operation, as the tests' helpers build them. */
const OPERATIONS = {
	// Without waiting (the fields are read all the same), so that each case takes little time.
	'task.submit': () => h.submit({ waitForCompletion: false }),
	'task.submitV2': () =>
		h.submit({ operation: 'submitV2', format: 'markdown', waitForCompletion: false }),
	'task.get': () => h.task('get', { taskId: '={{ $json.id }}' }),
	'task.getMany': () => h.task('getMany', { filters: {}, options: {} }),
	'task.export': () =>
		h.task('export', { taskId: '={{ $json.id }}', format: 'pdf', binaryPropertyName: 'data' }),
	'document.markdown': () => h.doc('markdown'),
	'document.recognize': () => h.doc('recognize'),
	'document.extract': () => h.doc('extract', { schema: SCHEMA }),
	'job.create': () => h.job('create', { waitForCompletion: false }),
};

const SOURCES = {
	binary: {},
	base64: { documentSource: 'base64', base64Data: '={{ $json.b64 }}', fileName: 'doc.pdf' },
	url: { documentSource: 'url', documentUrl: '={{ $json.url }}' },
};

/** Sets `path` (e.g. `options.pageBudget`) in a copy of `parameters`. */
function withField(parameters, path, expression) {
	const copy = JSON.parse(JSON.stringify(parameters));
	const keys = path.split('.');
	let at = copy;
	for (const key of keys.slice(0, -1)) at = at[key] ??= {};
	at[keys.at(-1)] = expression;
	return copy;
}

/** Every (operation, field) pair of the action node, by where each field shows. */
function actionCases() {
	const cases = [];
	for (const { path, property, show } of fieldsOf(base.engine.documentOcr.description)) {
		for (const key of Object.keys(OPERATIONS)) {
			const [resource, operation] = key.split('.');
			if (!show.resource?.includes(resource) || !show.operation?.includes(operation)) continue;
			const typeVersion = show['@version'] ? Math.max(...show['@version']) : 1;
			// Other conditions (e.g. Limit shows with Return All off): their first shown value.
			const conditions = Object.fromEntries(
				Object.entries(show)
					.filter(([name]) => !['resource', 'operation', '@version'].includes(name))
					.map(([name, values]) => [name, values[0]]),
			);
			cases.push({ key, path, property, typeVersion, conditions });
		}
	}
	return cases;
}

const CASES = actionCases();

test('every operation of the node is in OPERATIONS above, so that its fields are checked', () => {
	const { resources } = require('../dist/nodes/DocumentOcr/actions/operations');
	const all = Object.entries(resources).flatMap(([resource, operations]) =>
		Object.keys(operations).map((operation) => `${resource}.${operation}`),
	);
	// Count Pages, Delete and Job → Get have no number or boolean field of their own.
	const without = ['document.countPages', 'task.delete', 'job.get'];
	expect(all.filter((key) => !OPERATIONS[key] && !without.includes(key))).toEqual([]);
});

let files;
let taskId;
beforeAll(async () => {
	files = await startFileServer();
	const { output, error } = await h.run(emu, h.submit(), [h.pdfItem('primed', 'primed.pdf')]);
	if (error) throw error;
	taskId = output[0].json.taskId;
});
afterAll(async () => {
	await files?.close();
});

/** `count` items for the operation and source; item i's `$json.v` is VALUES[i]'s value. */
function itemsFor(key, source, count) {
	return Array.from({ length: count }, (_, i) => {
		const json = i < VALUES.length && VALUES[i][1] !== undefined ? { v: VALUES[i][1] } : {};
		if (['task.get', 'task.export'].includes(key)) return { json: { ...json, id: taskId } };
		if (key === 'task.getMany') return { json };
		const pdf = h.documents.makePdf([`field case ${key} ${source} ${i}`]);
		if (source === 'base64') return { json: { ...json, b64: pdf.toString('base64') } };
		if (source === 'url') {
			const path = `/${key}-${i}-${Math.random().toString(36).slice(2)}.pdf`;
			files.put(path, pdf, { 'content-type': 'application/pdf' });
			return { json: { ...json, url: files.url(path) } };
		}
		return h.binaryItem(pdf, `doc-${i}.pdf`, 'application/pdf', json);
	});
}

/** The outcome of one item: its error text, or undefined when it went through. */
const errorOf = (result, index) =>
	result.output.find((o) => o.pairedItem?.item === index)?.json.error ??
	(result.error && (result.error.context?.itemIndex ?? 0) === index
		? result.error.message
		: undefined);

async function runCase({ key, path, property, typeVersion, conditions }, source, values) {
	const parameters = withField(
		{ ...OPERATIONS[key](), ...conditions, ...(key.includes('.get') ? {} : SOURCES[source]) },
		path,
		'={{ $json.v }}',
	);
	const requests = emu.stats().requests;
	const charged = h.netCharged(emu);
	const result = await h.run(emu, parameters, values, { continueOnFail: true, typeVersion });
	return {
		result,
		requests: emu.stats().requests - requests,
		charged: h.netCharged(emu) - charged,
	};
}

describe('the action node: every number and boolean field, as an expression', () => {
	const perItem = CASES.filter((c) => !RUN_LEVEL.has(c.path));
	const documentKeys = new Set(['task.get', 'task.getMany', 'task.export']);
	const rows = perItem.flatMap((c) =>
		(documentKeys.has(c.key) ? ['binary'] : Object.keys(SOURCES)).map((source) => [
			`${c.key} ${c.path} from ${source}`,
			c,
			source,
		]),
	);
	test.each(rows)('%s: refused before sending, or its meaning', async (_name, c, source) => {
		const items = itemsFor(c.key, source, VALUES.length);
		const { result, charged } = await runCase(c, source, items);
		const violations = [];
		let refused = 0;
		VALUES.forEach(([what, value], index) => {
			const error = errorOf(result, index);
			if (accepts(c.property, value)) {
				if (error && refusal(c.property).test(error))
					violations.push(`${what} (${JSON.stringify(value)}) is valid, yet refused: ${error}`);
			} else {
				refused++;
				if (!error || !refusal(c.property).test(error))
					violations.push(
						`${what} (${JSON.stringify(value)}): expected an error naming "${c.property.displayName}", got ${error ?? 'no error'}`,
					);
			}
		});
		expect(violations).toEqual([]);
		// Refused items cost nothing: only the accepted ones may be charged (one page each).
		const accepted = VALUES.length - refused;
		expect(charged).toBeLessThanOrEqual(accepted);
	});

	const runLevel = CASES.filter((c) => RUN_LEVEL.has(c.path));
	test.each(runLevel.map((c) => [`${c.key} ${c.path}`, c]))(
		'%s (read once per run): refused before anything is sent, or its meaning',
		async (_name, c) => {
			const violations = [];
			for (const [what, value] of VALUES) {
				const items = itemsFor(c.key, 'binary', 1);
				items[0].json = { ...items[0].json };
				if (value === undefined) delete items[0].json.v;
				else items[0].json.v = value;
				const { result, requests, charged } = await runCase(c, 'binary', items);
				const error = errorOf(result, 0);
				if (accepts(c.property, value)) {
					if (error && refusal(c.property).test(error))
						violations.push(`${what} is valid, yet refused: ${error}`);
				} else if (!error || !refusal(c.property).test(error) || requests || charged)
					violations.push(
						`${what}: expected an error naming "${c.property.displayName}" with nothing sent; got ${error ?? 'no error'}, ${requests} request(s), ${charged} page(s)`,
					);
			}
			expect(violations).toEqual([]);
		},
	);
});

describe('the triggers: every number and boolean field, as an expression', () => {
	const expressionOf = (value) =>
		value === undefined ? '={{ ({}).missing }}' : `={{ ${JSON.stringify(value)} }}`;

	test.each(
		fieldsOf(base.engine.documentOcrPollTrigger.description)
			.filter((f) => f.path !== 'events')
			.map((f) => [f.path, f]),
	)(
		'Poll Trigger %s: a poll with a value it cannot take fails naming the field',
		async (_path, f) => {
			const violations = [];
			for (const [what, value] of VALUES) {
				const trigger = startPollTrigger({
					parameters: withField(
						{ events: ['ocr.done', 'ocr.failed'], includeTaskDetails: false, options: {} },
						f.path,
						expressionOf(value),
					),
					credentials: h.credentials(emu),
				});
				const polled = await trigger.poll();
				const error = polled.error?.message;
				if (accepts(f.property, value)) {
					if (error) violations.push(`${what} is valid, yet the poll failed: ${error}`);
				} else if (!error || !refusal(f.property).test(error))
					violations.push(`${what}: expected an error naming the field, got ${error ?? 'none'}`);
			}
			expect(violations).toEqual([]);
		},
	);

	test.each(
		fieldsOf(base.engine.documentOcrTrigger.description)
			.filter((f) => f.path !== 'events')
			.map((f) => [f.path, f]),
	)(
		'Webhook Trigger %s: a delivery with a setting it cannot take starts nothing (500), a valid one runs',
		async (_path, f) => {
			const crypto = require('node:crypto');
			const { request } = require('undici');
			const { signatureHeader } = require('../emulator/sign');
			const secret = 'whsec_fields_0123456789abcdef';
			const violations = [];
			for (const [what, value] of VALUES) {
				const trigger = await startTriggerServer({
					parameters: withField(
						{ events: ['ocr.done', 'ocr.failed'], includeTaskDetails: false, options: {} },
						f.path,
						expressionOf(value),
					),
					credentials: { documentOcrWebhookApi: { secret }, documentOcrApi: h.credentials(emu) },
				});
				try {
					const body = JSON.stringify({ event: 'ocr.done', data: { taskId, status: 'done' } });
					const timestamp = String(Math.floor(Date.now() / 1000));
					const nonce = crypto.randomBytes(16).toString('hex');
					const response = await request(trigger.url, {
						method: 'POST',
						body,
						headers: {
							'content-type': 'application/json',
							'x-webhook-timestamp': timestamp,
							'x-webhook-nonce': nonce,
							'x-webhook-signature': signatureHeader(secret, timestamp, nonce, body),
						},
					});
					await response.body.text();
					const started = trigger.executions.length;
					if (accepts(f.property, value)) {
						if (response.statusCode !== 200)
							violations.push(`${what} is valid, yet the delivery got ${response.statusCode}`);
					} else if (response.statusCode !== 500 || started > 0)
						violations.push(
							`${what}: expected 500 and no run, got ${response.statusCode} and ${started} run(s)`,
						);
				} finally {
					await trigger.close();
				}
			}
			expect(violations).toEqual([]);
		},
	);
});
