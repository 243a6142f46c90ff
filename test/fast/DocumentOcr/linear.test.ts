/**
 * What a crafted answer costs to read: every reader of what the service (or anything in its
 * place), a webhook sender or a file server sends does work linear in it.
 *
 *  - Every regular expression of the product is linear by recheck's analysis (no input makes it
 *    backtrack more than linearly, as a search as well as a match): the work a counter cannot see.
 *  - The readers' own code — answers, lists, error bodies, the secret scrub, webhook deliveries,
 *    headers — is run on crafted inputs of doubling size (deep nesting, wide objects, long arrays,
 *    long strings, repeated near-matches) and its work counted block by block (support/work.ts):
 *    at most about twice as much per doubling.
 *
 * The page counter's readers of document bytes have their own work meter (pages tests).
 */
// First: the work counter starts before the product's code is compiled (support/work.js).
import '../../support/work.js';
import { idsOf } from '../../../nodes/DocumentOcr/service/list';
import {
	pagesBilled,
	simplifyTask,
	unwrapList,
	unwrapRecord,
} from '../../../nodes/DocumentOcr/shared/records';
import { fileNameFromDisposition } from '../../../nodes/DocumentOcr/shared/text';
import {
	parseRetryAfter,
	parseServiceError,
	quoteAnswer,
} from '../../../nodes/DocumentOcr/transport/answers';
import { redact, scrubAnswer } from '../../../nodes/DocumentOcr/transport/secrets';
import { parseDelivery } from '../../../nodes/DocumentOcr/trigger/delivery';
import { verify } from '../../../nodes/DocumentOcr/trigger/signature';

// Node-only helpers (the inspector, the file system, TypeScript's parser, recheck) live in
// test/support as JavaScript, out of reach of the community-node rules the fast tier is held to.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { regexes, verdict } = require('../../support/regexes.js') as {
	regexes: () => Array<{ where: string; source: string; flags: string }>;
	verdict: (regex: { source: string; flags: string }) => string;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { workPerDoubling } = require('../../support/work.js') as {
	workPerDoubling: (
		make: (size: number) => unknown,
		run: (input: unknown) => unknown,
		sizes: number[],
	) => Promise<{ counts: number[]; ratios: number[] }>;
};

test('every regular expression of the product is linear (recheck), as a search and as a match', () => {
	const all = regexes();
	expect(all.length).toBeGreaterThan(30);
	const unsafe = all.flatMap((regex) => {
		const said = verdict(regex);
		return said === 'safe' ? [] : [`${regex.where} /${regex.source}/${regex.flags}: ${said}`];
	});
	expect(unsafe).toEqual([]);
});

/** A stand-in for the API key, as scrubbed answers and messages carry it. */
const PLANTED = ['ocr', 'live', '0123456789abcdefghijkl'].join('_');
const SIZES = [1000, 2000, 4000, 8000];

/** Objects nested `depth` deep under `key`, with `leaf` at the bottom. */
function nested(depth: number, key: string, leaf: unknown): unknown {
	let value = leaf;
	for (let i = 0; i < depth; i++) value = { [key]: value };
	return value;
}

const wide = (n: number, value: (i: number) => unknown) =>
	Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));

const tasks = (n: number) =>
	Array.from({ length: n }, (_, i) => ({ taskId: `tsk_${i}`, status: 'done' }));

function signedHeaders() {
	return {
		'x-webhook-signature': `sha256=${'0'.repeat(64)}`,
		'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
		'x-webhook-nonce': 'n'.repeat(16),
	};
}

const READERS: Array<[string, (n: number) => unknown, (input: unknown) => unknown]> = [
	[
		'an HTML error page of repeated <title',
		(n) => `<html>${'<title'.repeat(n)}`,
		parseServiceError,
	],
	[
		'an error body of many errors',
		(n) => ({ errors: Array(n).fill({ code: 'x' }) }),
		parseServiceError,
	],
	['an error as text without a code', (n) => 'word '.repeat(n), parseServiceError],
	[
		'an error object quoted, wide',
		(n) => wide(n, (i) => `v${i}`),
		(b) => quoteAnswer(b, [PLANTED]),
	],
	[
		'an error object quoted, deeply nested',
		(n) => nested(n * 100, 'a', 1),
		(b) => quoteAnswer(b, [PLANTED]),
	],
	['a long text quoted', (n) => `${PLANTED} `.repeat(n), (b) => quoteAnswer(b, [PLANTED])],
	[
		'an answer scrubbed, wide with the key',
		(n) => wide(n, () => `x ${PLANTED} x`),
		(b) => scrubAnswer(b, [PLANTED]),
	],
	[
		'an answer scrubbed, deeply nested',
		(n) => nested(n, 'a', PLANTED),
		(b) => scrubAnswer(b, [PLANTED]),
	],
	[
		'an answer scrubbed, a long array',
		(n) => Array(n).fill([PLANTED]),
		(b) => scrubAnswer(b, [PLANTED]),
	],
	[
		'a text with many Bearer tokens',
		(n) => 'Bearer abc '.repeat(n),
		(t) => redact(t as string, [PLANTED]),
	],
	['a record wrapped deeply', (n) => nested(n, 'data', { taskId: 't' }), (b) => unwrapRecord(b)],
	['a list of many tasks', (n) => ({ data: tasks(n) }), (b) => idsOf(unwrapList(b)!)],
	['a list wrapped deeply', (n) => nested(n, 'data', tasks(3)), (b) => unwrapList(b)],
	[
		'a task of many fields',
		(n) => wide(n, (i) => i),
		(t) => [simplifyTask(t as never), pagesBilled(t as never)],
	],
	[
		'a webhook delivery, wide',
		(n) => Buffer.from(JSON.stringify({ event: 'ocr.done', data: wide(n, (i) => i) })),
		(b) => parseDelivery(b as Buffer, { nonce: 'n', timestampMs: Date.now() }, 300_000, Date.now()),
	],
	[
		'a webhook delivery, deeply nested',
		(n) => Buffer.from(`{"event":"ocr.done","data":${'{"x":'.repeat(n)}1${'}'.repeat(n)}}`),
		(b) => parseDelivery(b as Buffer, { nonce: 'n', timestampMs: Date.now() }, 300_000, Date.now()),
	],
	[
		'a webhook delivery verified, long',
		(n) => Buffer.alloc(n * 64, 'a'),
		(b) =>
			verify({
				secret: PLANTED,
				headers: signedHeaders(),
				rawBody: b as Buffer,
				toleranceMs: 300_000,
			}),
	],
	[
		"a Content-Disposition of repeated filename*=UTF-8''",
		(n) => "filename*=UTF-8''".repeat(n),
		fileNameFromDisposition,
	],
	[
		'a Content-Disposition with a long name',
		(n) => `attachment; filename="${'a'.repeat(n)}"`,
		fileNameFromDisposition,
	],
	['a long Retry-After', (n) => '9'.repeat(n), (v) => parseRetryAfter(v as string)],
];

describe('the readers of answers, deliveries and headers do work linear in what they read', () => {
	test.each(READERS)('%s', async (_name, make, run) => {
		const { counts, ratios } = await workPerDoubling(make, run, SIZES);
		// Over the three doublings together: V8 may move a block's count between two sizes when
		// it optimises the code (one step ×1.5, the next ×2.7), never the sum. Linear work grows
		// about 8×, quadratic 64×.
		const growth = counts[counts.length - 1] / Math.max(1, counts[0]);
		if (growth > 2.2 ** (SIZES.length - 1))
			throw new Error(
				`work ${counts.join(' → ')} (×${ratios.map((r) => r.toFixed(2)).join(', ×')})`,
			);
	});
});
