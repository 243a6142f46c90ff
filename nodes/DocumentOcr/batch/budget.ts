import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PageCount } from '../documents/pages';
import { mayHaveCreated } from '../transport/errors';
import type { BillingLedger } from './ledger';
import { billedLine } from './ledger';

/**
 * The Page Budget of one execution: the most pages the node may bill in it. Every document's
 * pages are counted in the check phase (documents/pages.ts; a document of unknown count is
 * refused there while a budget is set). Right before a document goes out — in item order, with
 * its request slot in hand — its count is set against what the execution has spent: pages the
 * service said it billed, else the pages counted for documents it accepted or may have. A
 * document that would pass the budget is not sent, and from then on nothing more is: every later
 * item fails the same way. Since documents go out one at a time against what went out before,
 * concurrency cannot pass the budget. Where the service bills more than was counted, the item
 * says so (`pageFields`) and later documents are set against what it billed.
 */

export const pageBudgetOption: INodeProperties = {
	displayName: 'Page Budget',
	name: 'pageBudget',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 100,
	description:
		"The most pages this node may bill in one execution. Each document's pages are counted before it is sent; a document that would pass the budget is not sent, and nothing more is sent after it. Documents whose pages cannot be counted are not sent while a budget is set.",
};

/** The Page Budget option as the node holds it (read once per execution, from the first item). */
export function pageBudgetOf(ctx: IExecuteFunctions): number | undefined {
	const options = ctx.getNodeParameter('options', 0, {}) as { pageBudget?: unknown };
	const raw = options?.pageBudget;
	if (raw === undefined || raw === null || raw === '') return undefined;
	const budget = Number(raw);
	if (!Number.isInteger(budget) || budget < 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Page Budget must be a whole number of pages, at least 1 (it is "${String(raw)}")`,
			{ description: "Nothing was sent or charged. Set it in the node's options, or remove it." },
		);
	}
	return budget;
}

function plural(pages: number): string {
	return `${pages} page${pages === 1 ? '' : 's'}`;
}

export class PageBudget {
	/**
	 * Pages set against the budget, by item: counted when its document went out, replaced by
	 * what the service billed once it says.
	 */
	private readonly spentBy = new Map<number, number>();

	/** The first item the budget refused: nothing is sent after it. */
	private refusedAt?: number;

	/** The errors of the items refused, to name what the run billed once it is over. */
	private readonly refusals: NodeOperationError[] = [];

	constructor(
		readonly limit: number | undefined,
		private readonly node: INode,
		private readonly ledger: BillingLedger,
	) {}

	/** Pages spent in this execution so far (billed, or counted where the bill is not known). */
	get spent(): number {
		let sum = 0;
		for (const pages of this.spentBy.values()) sum += pages;
		return sum;
	}

	/**
	 * The last moment before `itemIndex`'s document goes out (in item order): sets its counted
	 * pages against the budget, or throws — the document would pass it, or an earlier one did.
	 * Called again for a retried attempt, which is already counted.
	 */
	admit(itemIndex: number, count: PageCount) {
		if (this.limit === undefined || this.spentBy.has(itemIndex)) return;
		const spent = this.spent;
		if (this.refusedAt === undefined && count.pages !== null && spent + count.pages <= this.limit) {
			this.spentBy.set(itemIndex, count.pages);
			return;
		}
		this.refusedAt ??= itemIndex;
		throw this.refusal(itemIndex, count, spent);
	}

	/** The service answered `itemIndex`'s submission: what it billed, when it says, is what counts. */
	billed(itemIndex: number, pages: number | undefined) {
		if (this.spentBy.has(itemIndex) && pages !== undefined && pages >= 0)
			this.spentBy.set(itemIndex, pages);
	}

	/** `itemIndex`'s submission certainly created nothing (refused, or never sent): it spent nothing. */
	notSent(itemIndex: number) {
		this.spentBy.delete(itemIndex);
	}

	/**
	 * Names in every refused item's error what the execution billed, once every submission of
	 * the run has its answer (the router calls it when the send phase is over): submissions that
	 * were still under way when an item was refused are named too.
	 */
	nameBilled() {
		const billed = [...this.ledger.created].sort((a, b) => a.itemIndex - b.itemIndex);
		const named = billed.length
			? `Billed in this execution: ${billed.map(billedLine).join('; ')}.`
			: 'Nothing was billed in this execution.';
		for (const error of this.refusals) error.description = `${named} ${REFUSED_ADVICE}`;
	}

	private refusal(itemIndex: number, count: PageCount, spent: number): NodeOperationError {
		const limit = this.limit!;
		const pages = count.pages === null ? 'pages that could not be counted' : plural(count.pages);
		const why =
			this.refusedAt === itemIndex
				? `its ${pages} would pass the Page Budget of ${plural(limit)}`
				: `the Page Budget of ${plural(limit)} was reached at item ${this.refusedAt} (this document has ${pages})`;
		const error = new NodeOperationError(
			this.node,
			`Item ${itemIndex} was not sent: ${why}; ${plural(spent)} billed so far in this execution`,
			{ description: REFUSED_ADVICE, itemIndex },
		);
		error.context.pageBudget = limit;
		error.context.pagesBilledSoFar = spent;
		error.context.pages = count.pages;
		this.refusals.push(error);
		return error;
	}
}

const REFUSED_ADVICE =
	"Nothing was sent for this item, and the node sends nothing more in this execution. To send it, raise \"Page Budget\" in the node's options for one run, or send large documents another way first (Document → Count Pages, then an If node on 'pages').";

/**
 * What a billing output item says of its pages: `pagesCounted` before sending (null when the
 * count is unknown), `pagesBilled` when the service says what it billed, and `pageCountNote` when
 * the two differ.
 */
export function pageFields(count: PageCount, billed: number | undefined): IDataObject {
	const fields: IDataObject = { pagesCounted: count.pages };
	if (billed === undefined) return fields;
	fields.pagesBilled = billed;
	if (count.pages !== null && billed !== count.pages)
		fields.pageCountNote = `${plural(count.pages)} counted before sending; the service billed ${plural(billed)}`;
	return fields;
}

/**
 * A submission that failed and certainly created nothing (refused, never sent) spent no pages of
 * the Page Budget; one whose answer was lost may have, and stays counted.
 */
export function spentOnlyIfCreated(
	run: { budget: Pick<PageBudget, 'notSent'> },
	itemIndex: number,
	attempt: Promise<unknown>,
) {
	attempt.catch((error: unknown) => {
		if (!mayHaveCreated(error)) run.budget.notSent(itemIndex);
	});
}
