/**
 * The Page Budget's admission (batch/budget.ts) as a table: a run's submissions in the order they
 * go out — admitted (set against the budget) or refused — and what the execution has spent after
 * each. A split document's first part admits the parts from it on, all or none.
 */
import type { INode } from 'n8n-workflow';

import { PageBudget } from '../../../../nodes/DocumentOcr/batch/budget';
import { BillingLedger } from '../../../../nodes/DocumentOcr/batch/ledger';
import type { PageCount } from '../../../../nodes/DocumentOcr/formats';

const NODE = { name: 'OCR', type: 'n8n-nodes-document-ocr.documentOcr' } as INode;

/** One step: a document going out (its pages, or null: uncounted; or a part), a bill, or a refund. */
type Step =
	| { admit: number; pages: number | null; part?: { index: number; rest: number[] } }
	| { billed: number; pages: number; part?: number }
	| { notSent: number; part?: number };

/** A page count: the pages, or unknown. */
const countOf = (pages: number | null): PageCount =>
	pages === null ? { pages: null, reason: 'not counted' } : { pages };

/** Runs the steps: after each, "ok" or "refused", and the pages spent. */
function run(limit: number | undefined, steps: Step[], memory = {}) {
	const budget = new PageBudget(limit, NODE, new BillingLedger(), memory);
	return steps.map((step) => {
		let said = 'ok';
		try {
			if ('admit' in step) budget.admit(step.admit, countOf(step.pages), step.part);
			else if ('billed' in step) budget.billed(step.billed, step.pages, step.part);
			else budget.notSent(step.notSent, step.part);
		} catch {
			said = 'refused';
		}
		return `${said} ${budget.spent}`;
	});
}

test.each<[string, number | undefined, Step[], string[]]>([
	['no budget: everything goes, nothing counted', undefined, [{ admit: 0, pages: 99 }], ['ok 0']],
	[
		'within the budget, to the page',
		10,
		[
			{ admit: 0, pages: 4 },
			{ admit: 1, pages: 6 },
		],
		['ok 4', 'ok 10'],
	],
	[
		'the document that would pass it is refused, and every one after it',
		10,
		[
			{ admit: 0, pages: 4 },
			{ admit: 1, pages: 7 },
			{ admit: 2, pages: 1 },
		],
		['ok 4', 'refused 4', 'refused 4'],
	],
	['an uncounted document is refused', 10, [{ admit: 0, pages: null }], ['refused 0']],
	[
		'a retried attempt is counted once',
		10,
		[
			{ admit: 0, pages: 6 },
			{ admit: 0, pages: 6 },
		],
		['ok 6', 'ok 6'],
	],
	[
		'a bill above the count raises what was spent; below, it does not lower it',
		10,
		[
			{ admit: 0, pages: 3 },
			{ billed: 0, pages: 5 },
			{ billed: 0, pages: 1 },
		],
		['ok 3', 'ok 5', 'ok 5'],
	],
	[
		'a submission that created nothing spent nothing',
		10,
		[{ admit: 0, pages: 8 }, { notSent: 0 }, { admit: 1, pages: 9 }],
		['ok 8', 'ok 0', 'ok 9'],
	],
	[
		"a split document's first part admits all its parts",
		10,
		[
			{ admit: 0, pages: 4, part: { index: 0, rest: [4, 4, 2] } },
			{ admit: 0, pages: 4, part: { index: 1, rest: [4, 2] } },
		],
		['ok 10', 'ok 10'],
	],
	[
		'or none of them',
		9,
		[
			{ admit: 0, pages: 4, part: { index: 0, rest: [4, 4, 2] } },
			{ admit: 1, pages: 1 },
		],
		['refused 0', 'refused 0'],
	],
	[
		'parts not sent give their pages back',
		10,
		[
			{ admit: 0, pages: 4, part: { index: 0, rest: [4, 4, 2] } },
			{ notSent: 0, part: 1 },
			{ notSent: 0, part: 2 },
			{ admit: 1, pages: 6 },
		],
		['ok 10', 'ok 6', 'ok 4', 'ok 10'],
	],
])('%s', (_name, limit, steps, expected) => {
	expect(run(limit, steps)).toEqual(expected);
});

test("an earlier run's spending counts, and a budget it reached refuses at once", () => {
	const memory = {};
	expect(run(10, [{ admit: 0, pages: 7 }], memory)).toEqual(['ok 7']);
	expect(run(10, [{ admit: 0, pages: 3 }], memory)).toEqual(['ok 10']);
	const reached = {};
	run(10, [{ admit: 0, pages: 11 }], reached);
	expect(run(10, [{ admit: 0, pages: 1 }], reached)).toEqual(['refused 0']);
});
