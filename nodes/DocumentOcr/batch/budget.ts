import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PagesSent } from '../documents/select';
import type { PageCount } from '../formats';
import { isFieldSet, itemFields, numberField } from '../shared/validate';
import { mayHaveCreated } from '../transport/errors';
import type { BillingLedger } from './ledger';
import { billedLine } from './ledger';

/**
 * The Page Budget: the most pages the node may bill in one workflow execution, over every run of
 * the node in it (each batch of a Loop Over Items, each of its inputs, a Retry On Fail). What it
 * has spent is kept in the node's context, which n8n keeps for the whole execution (and only for
 * it: a sub-workflow's execution, a partial execution from the editor and the next execution
 * each start at zero). Every document's pages are counted in the check phase
 * (formats/index.ts; a document of unknown count is refused there while a budget is set). Right
 * before a document goes out — in item order, with its request slot in hand — its count is set
 * against what the execution has spent: never less than the pages counted for each document the
 * service accepted or may have, and more where the service says it billed more. A document that
 * would pass the budget is not sent, and from then on nothing more is, in this run or any later
 * run of the node in the execution: every later item fails the same way. Since documents go out
 * one at a time against what went out before, concurrency cannot pass the budget.
 */

export const pageBudgetOption: INodeProperties = {
	displayName: 'Page Budget',
	name: 'pageBudget',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 100,
	description:
		"The most pages this node may bill in one workflow execution, over all its runs in it (every batch of a Loop Over Items, a Retry On Fail). Each document's pages are counted before it is sent; a document that would pass the budget is not sent, and nothing more is sent after it in the execution. Documents whose pages cannot be counted are not sent while a budget is set. A sub-workflow's execution has a budget of its own.",
};

/**
 * The Page Budget option as the node holds it (read once per run, from the first item); undefined
 * when the option is not added. Set, it must give a whole number of pages: an expression that
 * gives nothing is an error, never "no budget".
 */
export function pageBudgetOf(ctx: IExecuteFunctions): number | undefined {
	const fields = itemFields(ctx, 0);
	const path = 'options.pageBudget';
	return isFieldSet(fields, path) ? numberField(fields, pageBudgetOption, { path }) : undefined;
}

/** What the Page Budget has spent in this workflow execution, in the node's context. */
interface Spent {
	/** Pages set against the budget by the earlier runs of the node. */
	pages: number;
	/** A run of the node refused a document for the budget: nothing more is sent. */
	reached?: boolean;
}

function plural(pages: number): string {
	return `${pages} page${pages === 1 ? '' : 's'}`;
}

/**
 * A part of a split document as the budget sees it: its place, and the pages of the parts from
 * it on (itself first), which the first of them to go out admits all or none.
 */
export interface BudgetPart {
	index: number;
	rest: number[];
}

/** What a submission spends under: its item, or its item's part (a split document). */
const spender = (itemIndex: number, part?: number) =>
	part === undefined ? `${itemIndex}` : `${itemIndex}.${part}`;

export class PageBudget {
	/**
	 * Pages set against the budget in this run, by submission (./spender: an item's, or a part's
	 * of a split document): counted when its document went out, raised to what the service says
	 * it billed when that is more.
	 */
	private readonly spentBy = new Map<string, number>();

	/** Pages earlier runs of the node in this execution spent. */
	private readonly before: number;

	/** The first item the budget refused: nothing is sent after it (-1: an earlier run's). */
	private refusedAt?: number;

	/** The errors of the items refused, to name what the run billed once it is over. */
	private readonly refusals: NodeOperationError[] = [];

	/**
	 * @param memory the node's context for this execution (`getContext('node')`): what earlier
	 *   runs spent, updated as this run spends.
	 */
	constructor(
		readonly limit: number | undefined,
		private readonly node: INode,
		private readonly ledger: BillingLedger,
		private readonly memory: IDataObject,
	) {
		const spent = memory.pageBudget as Spent | undefined;
		this.before = spent?.pages ?? 0;
		if (spent?.reached) this.refusedAt = -1;
	}

	/** Pages spent in this execution so far (billed, or counted where the bill is not known). */
	get spent(): number {
		let sum = this.before;
		for (const pages of this.spentBy.values()) sum += pages;
		return sum;
	}

	/**
	 * The last moment before `itemIndex`'s document goes out (in item order): sets its counted
	 * pages against the budget, or throws — the document would pass it, or an earlier one did.
	 * Called again for a retried attempt, which is already counted. A part of a split document
	 * (`part`) that is the first of its document to go out admits the parts from it on, all or
	 * none: each of them is set against the budget now, under its own name.
	 */
	admit(itemIndex: number, count: PageCount, part?: BudgetPart) {
		if (this.limit === undefined || this.spentBy.has(spender(itemIndex, part?.index))) return;
		const spent = this.spent;
		const pages = part ? part.rest.reduce((sum, p) => sum + p, 0) : count.pages;
		if (this.refusedAt === undefined && pages !== null && spent + pages <= this.limit) {
			if (!part) this.spend(spender(itemIndex), pages);
			else part.rest.forEach((p, j) => this.spend(spender(itemIndex, part.index + j), p));
			return;
		}
		this.refusedAt ??= itemIndex;
		this.keep();
		throw this.refusal(itemIndex, pages, spent);
	}

	/**
	 * The service answered `itemIndex`'s submission with the pages it billed (a page count, never
	 * another unit): more than were counted raises what the document spent; fewer never lowers it.
	 */
	billed(itemIndex: number, pages: number | undefined, part?: number) {
		const key = spender(itemIndex, part);
		const counted = this.spentBy.get(key);
		if (counted !== undefined && pages !== undefined && pages > counted) this.spend(key, pages);
	}

	/**
	 * `itemIndex`'s submission (or its part's) certainly created nothing (refused, or never sent):
	 * it spent nothing.
	 */
	notSent(itemIndex: number, part?: number) {
		if (this.spentBy.delete(spender(itemIndex, part))) this.keep();
	}

	private spend(key: string, pages: number) {
		this.spentBy.set(key, pages);
		this.keep();
	}

	/** Writes what the execution has spent to the node's context, at once: the run may fail next. */
	private keep() {
		if (this.limit === undefined) return;
		const spent: Spent = { pages: this.spent };
		if (this.refusedAt !== undefined) spent.reached = true;
		this.memory.pageBudget = spent as unknown as IDataObject;
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

	private refusal(itemIndex: number, counted: number | null, spent: number): NodeOperationError {
		const limit = this.limit!;
		const pages = counted === null ? 'pages that could not be counted' : plural(counted);
		const why =
			this.refusedAt === itemIndex
				? `its ${pages} would pass the Page Budget of ${plural(limit)}`
				: this.refusedAt === -1
					? `the Page Budget of ${plural(limit)} was reached earlier in this workflow execution, by an earlier run or try of this node (this document has ${pages})`
					: `the Page Budget of ${plural(limit)} was reached at item ${this.refusedAt} (this document has ${pages})`;
		const error = new NodeOperationError(
			this.node,
			`Item ${itemIndex} was not sent: ${why}; ${plural(spent)} billed so far in this workflow execution`,
			{ description: REFUSED_ADVICE, itemIndex },
		);
		error.context.pageBudget = limit;
		error.context.pagesBilledSoFar = spent;
		error.context.pages = counted;
		this.refusals.push(error);
		return error;
	}
}

const REFUSED_ADVICE =
	"Nothing was sent for this item, and the node sends nothing more in this execution. To send it, raise \"Page Budget\" in the node's options for one run, or send large documents another way first (Document → Count Pages, then an If node on 'pages').";

/**
 * What a billing output item says of its pages: `pagesCounted` before sending (null when the
 * count is unknown; `pageCountAssumption` when it rests on one), `pagesBilled` when the service
 * says what it billed, and `pageCountNote` when the pages sent and billed differ. With the Pages
 * option (`selection`), `pagesCounted` is the document's total and `pagesSent` the pages sent
 * ("2-3, 5"); `count` is then the selection's count, what the service should bill.
 */
export function pageFields(
	count: PageCount,
	billed: number | undefined,
	selection?: PagesSent,
): IDataObject {
	const fields: IDataObject = { pagesCounted: selection ? selection.pagesCounted : count.pages };
	if (selection) fields.pagesSent = selection.pagesSent;
	// Pages copied out of a PDF that opens without a password were sent unencrypted.
	if (selection?.encryptionRemoved) fields.encryptionRemoved = selection.encryptionRemoved;
	// A count that rests on an assumption (frames of an animated image, TIFF directories) says so.
	if (count.pages !== null && count.assumed) fields.pageCountAssumption = count.assumed;
	if (billed === undefined) return fields;
	fields.pagesBilled = billed;
	if (count.pages !== null && billed !== count.pages)
		fields.pageCountNote = `${plural(count.pages)} ${selection ? 'sent' : 'counted before sending'}; the service billed ${plural(billed)}`;
	return fields;
}

/**
 * A submission that failed and certainly created nothing (refused, never sent) spent no pages of
 * the Page Budget; one whose answer was lost may have, and stays counted.
 */
export function spentOnlyIfCreated(
	run: { budget: Pick<PageBudget, 'notSent'> },
	itemIndex: number,
	posting: Promise<unknown>,
	part?: number,
) {
	posting.catch((error: unknown) => {
		if (!mayHaveCreated(error)) run.budget.notSent(itemIndex, part);
	});
}
