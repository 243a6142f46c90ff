/**
 * A page selection as printing dialogs take it (issue 37): `1-3, 5, 8-` (8- runs to the last
 * page), `last` for the last page (`last` also ends a range: `4-last`), white space anywhere
 * between the parts, an en dash taken for a hyphen. The pages come back in document order, each
 * once, however the selection lists them. A selection that names no page, a page 0, a range that
 * runs backwards, a page past the document's last or anything else is refused with what is wrong
 * and the syntax that is accepted. Read in one pass; the pages marked in an array as long as the
 * document, so the work is linear in the selection's length and the document's pages.
 */
import { FormatError } from './limits';

/** What every refusal ends with: the syntax accepted. */
export const SELECTION_SYNTAX =
	'Pages are selected as in printing: "1-3, 5, 8-" (8- runs to the last page), and "last" is the last page.';

const refuse = (what: string) => new FormatError(`${what}. ${SELECTION_SYNTAX}`);

/** Shows a part of the selection in a message, cut short when long. */
const shown = (text: string) => `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;

/**
 * The 1-based pages `selection` names in a document of `total` pages, ascending, each once.
 * Throws a FormatError saying what is wrong.
 */
export function parsePageSelection(selection: string, total: number): number[] {
	if (!Number.isInteger(total) || total < 1)
		throw new FormatError(`the document has no pages to select (${total})`);
	// The ranges' starts and ends marked: +1 where a range begins, -1 after it ends.
	const marks = new Int32Array(total + 2);
	let items = 0;
	for (const item of selection.split(',')) {
		const text = item.trim();
		if (text === '') {
			if (selection.trim() === '') throw refuse('The page selection is empty');
			throw refuse(
				`The page selection ${shown(selection.trim())} has an empty part between commas`,
			);
		}
		const [first, last] = rangeOf(text, total);
		marks[first]++;
		marks[last + 1]--;
		items++;
	}
	if (items === 0) throw refuse('The page selection is empty');
	const pages: number[] = [];
	let open = 0;
	for (let page = 1; page <= total; page++) {
		open += marks[page];
		if (open > 0) pages.push(page);
	}
	return pages;
}

/** One part of a selection: a page or a range, as its first and last page. */
function rangeOf(text: string, total: number): [number, number] {
	const dash = text.search(/[-\u2013]/);
	if (dash === -1) {
		const page = pageOf(text, text, total);
		return [page, page];
	}
	const before = text.slice(0, dash).trim();
	const after = text.slice(dash + 1).trim();
	if (before === '')
		throw refuse(
			`${shown(text)} is no range: a range begins with its first page ("3-" runs to the last)`,
		);
	const first = pageOf(before, text, total);
	const last = after === '' ? total : pageOf(after, text, total);
	if (last < first)
		throw refuse(`The range ${shown(text)} runs backwards (${first} after ${last})`);
	return [first, last];
}

/** A page number or `last`, within the document. */
function pageOf(word: string, part: string, total: number): number {
	if (word.toLowerCase() === 'last') return total;
	if (!/^[0-9]+$/.test(word)) throw refuse(`${shown(part)} is not a page number or a range`);
	const page = Number(word);
	if (page === 0) throw refuse(`${shown(part)} names page 0; pages count from 1`);
	if (page > total)
		throw refuse(
			`${shown(part)} names page ${word.length > 12 ? `${word.slice(0, 12)}…` : page}, past the document's last page (${total})`,
		);
	return page;
}
