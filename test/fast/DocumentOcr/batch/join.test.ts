/**
 * A split document's parts joined into its item's one output (batch/join.ts: joinParts), as a
 * table: text in page order with a blank line between parts, lists joined, counts summed, a
 * field only some parts have left out, Extract's data merged, each part named in `parts`, and the
 * document's page fields.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Join } from '../../../../nodes/DocumentOcr/batch/join';
import { joinParts } from '../../../../nodes/DocumentOcr/batch/join';
import type { DocumentInput } from '../../../../nodes/DocumentOcr/documents/document';
import { join as taskJoin } from '../../../../nodes/DocumentOcr/actions/task/submit.operation';
import { join as jobJoin } from '../../../../nodes/DocumentOcr/actions/job/create.operation';
import { join as extractJoin } from '../../../../nodes/DocumentOcr/actions/document/extract.operation';

/** A document of 5 pages split into parts of pages 1-2 and 3-5. */
function split(pages: number | null = 5): DocumentInput {
	const part = (index: number, sent: string): DocumentInput => ({
		kind: 'pdf',
		mimeType: 'application/pdf',
		fileName: 'scan.pdf',
		size: 1,
		digest: `${index}`,
		pageCount: { pages: 1 },
		bytes: { in: 'memory', bytes: Buffer.alloc(1) },
		selection: { pagesSent: sent, pagesCounted: 5 },
		part: { index, of: 2, rest: [] },
	});
	return {
		kind: 'pdf',
		mimeType: 'application/pdf',
		fileName: 'scan.pdf',
		size: 2,
		digest: 'd',
		pageCount: pages === null ? { pages: null, reason: 'unknown' } : { pages },
		bytes: { in: 'memory', bytes: Buffer.alloc(2) },
		selection: { pagesSent: '1-5', pagesCounted: 5 },
		parts: [part(0, '1-2'), part(1, '3-5')],
	};
}

test.each<[string, Join, IDataObject[], IDataObject]>([
	[
		'text in page order, a blank line between parts; lists joined; the first part`s other fields',
		taskJoin,
		[
			{ taskId: 't1', status: 'done', resultText: 'one', words: [1] },
			{ taskId: 't2', status: 'done', resultText: 'two', words: [2, 3] },
		],
		{ status: 'done', resultText: 'one\n\ntwo', words: [1, 2, 3] },
	],
	[
		'a text field only some parts have is left out, never one part`s alone',
		taskJoin,
		[{ taskId: 't1', resultText: 'one' }, { taskId: 't2' }],
		{ resultText: undefined },
	],
	[
		'counts summed where every part says them; the slowest estimate',
		taskJoin,
		[
			{ taskId: 't1', pages: 2, creditsUsed: 2, estimatedSeconds: 3 },
			{ taskId: 't2', pages: 3, creditsUsed: 3, estimatedSeconds: 9 },
		],
		{ pages: 5, creditsUsed: 5, estimatedSeconds: 9 },
	],
	[
		'a path into an object: a job`s result text',
		jobJoin,
		[
			{ id: 'j1', result: { text: 'a', blocks: [1] } },
			{ id: 'j2', result: { text: 'b', blocks: [2] } },
		],
		{ result: { text: 'a\n\nb', blocks: [1, 2] } },
	],
	[
		'Extract: data merged (the first value of each key in page order, lists joined)',
		extractJoin,
		[
			{ id: 'e1', data: { total: 10, lines: ['a'], vendor: null } },
			{ id: 'e2', data: { total: 99, lines: ['b'], vendor: 'ACME' } },
		],
		{ data: { total: 10, lines: ['a', 'b'], vendor: 'ACME' } },
	],
])('%s', (_name, join, outputs, expected) => {
	const json = joinParts(split(), outputs, join);
	for (const [key, value] of Object.entries(expected)) expect(json[key]).toEqual(value);
});

test('each part named in `parts`: its ID, pages sent and what it says of itself', () => {
	const json = joinParts(
		split(),
		[
			{ taskId: 't1', status: 'done', pagesBilled: 2, previouslySubmitted: true },
			{ taskId: 't2', status: 'done', pagesBilled: 3 },
		],
		taskJoin,
	);
	expect(json.parts).toEqual([
		{ pagesSent: '1-2', taskId: 't1', status: 'done', pagesBilled: 2, previouslySubmitted: true },
		{ pagesSent: '3-5', taskId: 't2', status: 'done', pagesBilled: 3 },
	]);
	expect(json.taskId).toBeUndefined();
	// Only when every part was submitted before is the document.
	expect(json.previouslySubmitted).toBeUndefined();
});

test.each<[string, number | null, Array<number | undefined>, IDataObject]>([
	['the bill summed when every part says it', 5, [2, 3], { pagesBilled: 5 }],
	[
		'a bill that differs from the pages counted is said',
		5,
		[2, 4],
		{ pagesBilled: 6, pageCountNote: '5 pages sent; the service billed 6' },
	],
	['no sum when a part does not say it', 5, [2, undefined], { pagesBilled: undefined }],
])('the page fields: %s', (_name, pages, billed, expected) => {
	const outputs = billed.map((pagesBilled, i) => ({ taskId: `t${i}`, pagesBilled }));
	const json = joinParts(split(pages), outputs, taskJoin);
	expect(json.pagesCounted).toBe(5);
	expect(json.pagesSent).toBe('1-5');
	for (const [key, value] of Object.entries(expected)) expect(json[key]).toEqual(value);
});
