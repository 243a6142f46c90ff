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
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { checkSync } from 'recheck';

import { idsOf } from '../../../nodes/DocumentOcr/service/list';
import {
	pagesBilled,
	simplifyTask,
	unwrapList,
	unwrapRecord,
} from '../../../nodes/DocumentOcr/shared/records';
import { fileNameFromDisposition } from '../../../nodes/DocumentOcr/shared/text';
import { parseServiceError, quoteAnswer } from '../../../nodes/DocumentOcr/transport/errors';
import { parseRetryAfter } from '../../../nodes/DocumentOcr/transport/request';
import { redact, scrubAnswer } from '../../../nodes/DocumentOcr/transport/secrets';
import { parseDelivery } from '../../../nodes/DocumentOcr/trigger/delivery';
import { verify } from '../../../nodes/DocumentOcr/trigger/signature';
import { workPerDoubling } from '../support/work';

const NODES = path.join(__dirname, '../../../nodes');

/** Every regular expression literal and `new RegExp('…')` of the product, with where it is. */
function regexes(): Array<{ where: string; source: string; flags: string }> {
	const found: Array<{ where: string; source: string; flags: string }> = [];
	const walk = (dir: string) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(file);
			else if (file.endsWith('.ts')) {
				const text = fs.readFileSync(file, 'utf8');
				const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
				const where = (node: ts.Node) =>
					`${path.relative(NODES, file)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
				const visit = (node: ts.Node) => {
					if (ts.isRegularExpressionLiteral(node)) {
						const literal = node.text;
						const end = literal.lastIndexOf('/');
						found.push({
							where: where(node),
							source: literal.slice(1, end),
							flags: literal.slice(end + 1),
						});
					} else if (
						ts.isNewExpression(node) &&
						ts.isIdentifier(node.expression) &&
						node.expression.text === 'RegExp'
					) {
						const [source, flags] = node.arguments ?? [];
						if (!source || !ts.isStringLiteralLike(source))
							throw new Error(`${where(node)}: a RegExp built at run time cannot be checked`);
						found.push({
							where: where(node),
							source: source.text,
							flags: flags && ts.isStringLiteralLike(flags) ? flags.text : '',
						});
					}
					ts.forEachChild(node, visit);
				};
				visit(sf);
			}
		}
	};
	walk(NODES);
	return found;
}

test('every regular expression of the product is linear (recheck), as a search and as a match', () => {
	const all = regexes();
	expect(all.length).toBeGreaterThan(30);
	const unsafe = all.flatMap(({ where, source, flags }) => {
		// g and y change where a search starts, not what one attempt costs: recheck takes neither.
		const result = checkSync(source, flags.replace(/[gy]/g, ''), { timeout: 10_000 });
		return result.status === 'safe'
			? []
			: [`${where} /${source}/${flags}: ${result.status} ${result.attack?.pattern ?? ''}`];
	});
	expect(unsafe).toEqual([]);
});

const SECRET = 'ocr_live_0123456789abcdefghijkl';
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

function signedHeaders(body: Buffer) {
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
	['an error object quoted, wide', (n) => wide(n, (i) => `v${i}`), (b) => quoteAnswer(b, [SECRET])],
	[
		'an error object quoted, deeply nested',
		(n) => nested(n * 100, 'a', 1),
		(b) => quoteAnswer(b, [SECRET]),
	],
	['a long text quoted', (n) => `${SECRET} `.repeat(n), (b) => quoteAnswer(b, [SECRET])],
	[
		'an answer scrubbed, wide with the key',
		(n) => wide(n, () => `x ${SECRET} x`),
		(b) => scrubAnswer(b, [SECRET]),
	],
	[
		'an answer scrubbed, deeply nested',
		(n) => nested(n, 'a', SECRET),
		(b) => scrubAnswer(b, [SECRET]),
	],
	[
		'an answer scrubbed, a long array',
		(n) => Array(n).fill([SECRET]),
		(b) => scrubAnswer(b, [SECRET]),
	],
	[
		'a text with many Bearer tokens',
		(n) => 'Bearer abc '.repeat(n),
		(t) => redact(t as string, [SECRET]),
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
				secret: SECRET,
				headers: signedHeaders(b as Buffer),
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
		const worst = Math.max(...ratios);
		if (worst > 2.2)
			throw new Error(
				`work ${counts.join(' → ')} (×${ratios.map((r) => r.toFixed(2)).join(', ×')})`,
			);
	});
});
