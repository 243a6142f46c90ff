/**
 * Pages of a PDF copied into a new PDF (issues 37, 42): `selectPdfPages` writes the pages a
 * selection names, `pdfParts` cuts the document in page order into as few parts as fit a limit,
 * one part at a time (`splitPdf` gathers them). Exactly the chosen pages leave: each carries what
 * it draws and nothing of any other page (the copier, pdf-copy.ts), and looks as it does in the
 * document (its hidden layers hidden, its form values kept: catalog.ts).
 *
 * The PDF is opened as its pages are counted (pdf-source.ts: the same cross-reference, the same
 * page tree); a document whose pages are not certain, or that opens only with a password, is
 * refused, never written with a wrong page; one that opens without a password is written
 * decrypted (`decrypted` says how it was encrypted). The output is a list of chunks (a stream's
 * bytes are the input's, not copied, where they are not decrypted) and its length, so the memory
 * a copy holds beyond the input is its dictionaries and cross-reference. The work is metered
 * (Work) and linear: each object is read once for each file it is written to.
 */
import { readCatalog } from './catalog';
import { FormatError, Unknown, type Pause } from './limits';
import { Copier, type Copied, type CopyContext } from './pdf-copy';
import { Source } from './pdf-source';
import { Usages } from './usage';

/** A written file: its chunks, in order, and their length; how the source was encrypted, if it was. */
export interface Written {
	chunks: Buffer[];
	length: number;
	/** The encryption the source opened without a password had ('AES-128', say): the file has none. */
	decrypted?: string;
}

/** A part of a split: the pages it holds (1-based, in order; `first` and `last` of them) and its file. */
export interface WrittenPart extends Written {
	first: number;
	last: number;
	pages: number[];
}

/** What a split takes beside the written files' options: the pages to split (all by default). */
export interface SplitOptions extends WriteOptions {
	/** The pages to cut into parts (1-based, ascending, each once: formats/ranges.ts gives them so). */
	pages?: number[];
}

export interface WriteOptions {
	/** Cancels the work (a FormatError). */
	signal?: AbortSignal;
	/** Lets the event loop run during a long copy (documents/ gives n8n's sleep). */
	pause?: Pause;
	/** Told the work the copy took (the meter's reading: tests hold it linear). */
	measured?: (work: number) => void;
	/**
	 * The most bytes a selection (or a part of a split) may take: one that passes it stops at once
	 * with a FormatError. Unlimited by default; whatever it is, no file written passes twice the
	 * input and a megabyte (pdf-copy.ts), so no crafted file makes a copy much larger than itself.
	 */
	maxBytes?: number;
}

/**
 * A new PDF of the pages `pages` names (1-based, ascending, each once: formats/ranges.ts gives
 * them so) of the PDF `bytes`. Throws a FormatError when the PDF cannot be copied.
 */
export async function selectPdfPages(
	bytes: Buffer,
	pages: number[],
	options: WriteOptions = {},
): Promise<Written> {
	try {
		const context = await open(bytes, options);
		checkSelection(pages, context.source.pageObjects.length);
		const copier = new Copier(context, options.maxBytes);
		for (const page of pages) await copier.add(page - 1);
		const { chunks, length } = await copier.finish();
		options.measured?.(context.source.work.done);
		return { chunks, length, ...decrypted(context) };
	} catch (error) {
		throw refusal(error);
	}
}

/**
 * The PDF `bytes` cut in page order into as few parts as possible, each a file whose size in
 * bytes `fits` (the caller says what the limit is on: a Base64 body is 4/3 of the file, say),
 * given one at a time: a part is written once the next page does not fit it, and let go by the
 * caller before the next is written. Adding a page to a part adds only the objects the part does
 * not hold yet (a font shared by its pages is counted once), so each part is sized as it grows. A
 * page that does not fit alone is a FormatError naming it.
 */
export async function* pdfParts(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): AsyncGenerator<WrittenPart> {
	let context: CopyContext;
	let order: number[];
	try {
		context = await open(bytes, options);
		order = options.pages ?? context.source.pageObjects.map((_, index) => index + 1);
		if (options.pages) checkSelection(order, context.source.pageObjects.length);
	} catch (error) {
		throw refusal(error);
	}
	let copier = new Copier(context);
	for (const page of order) {
		let done: Copier | undefined;
		try {
			const index = page - 1;
			const mark = copier.mark();
			await copier.add(index);
			if (fits(copier.size())) continue;
			if (copier.pageCount() > 1) {
				copier.undo(mark);
				done = copier;
				copier = new Copier(context);
				await copier.add(index);
			}
			if (!fits(copier.size()))
				throw new FormatError(
					`page ${page} alone makes a PDF of ${copier.size()} bytes, more than the limit allows, so the document cannot be split to fit`,
				);
		} catch (error) {
			throw refusal(error);
		}
		if (done) yield await finished(done, options, context);
	}
	yield await finished(copier, options, context);
	options.measured?.(context.source.work.done);
}

/** Every part of pdfParts, gathered. */
export async function splitPdf(
	bytes: Buffer,
	fits: (size: number) => boolean,
	options: SplitOptions = {},
): Promise<WrittenPart[]> {
	const parts: WrittenPart[] = [];
	for await (const part of pdfParts(bytes, fits, options)) parts.push(part);
	return parts;
}

/** A part finished: maxBytes is checked on each (a split sizes its parts by `fits`). */
async function finished(
	copier: Copier,
	options: SplitOptions,
	context: CopyContext,
): Promise<WrittenPart> {
	let written: Copied;
	try {
		written = await copier.finish();
	} catch (error) {
		throw refusal(error);
	}
	const { pages } = written;
	const part = {
		...written,
		first: pages[0],
		last: pages[pages.length - 1],
		...decrypted(context),
	};
	if (part.length > (options.maxBytes ?? Infinity))
		throw new FormatError(
			`pages ${part.first} to ${part.last} make a PDF of ${part.length} bytes, more than the limit of ${options.maxBytes} allows`,
		);
	return part;
}

async function open(bytes: Buffer, options: WriteOptions): Promise<CopyContext> {
	const source = await Source.open(bytes, options);
	return { source, usages: new Usages(source), catalog: await readCatalog(source) };
}

const decrypted = ({ source }: CopyContext) =>
	source.decryption ? { decrypted: source.decryption.method } : {};

/** The selection's pages checked: whole numbers within the document, ascending, each once. */
function checkSelection(pages: number[], total: number): void {
	if (pages.length === 0) throw new FormatError('no page is selected');
	let before = 0;
	for (const page of pages) {
		if (!Number.isInteger(page) || page < 1 || page > total)
			throw new FormatError(`page ${page} is not a page of the document (1 to ${total})`);
		if (page <= before)
			throw new FormatError('the pages are not in document order, each once (formats/ranges.ts)');
		before = page;
	}
}

/** An error of a copy: a reader's (Unknown) becomes a FormatError saying nothing is written. */
function refusal(error: unknown): FormatError {
	if (error instanceof FormatError) return error;
	const why = error instanceof Unknown ? error.message : `${(error as Error)?.message ?? error}`;
	return new FormatError(
		`the PDF cannot be copied page by page (${why}); nothing is written rather than a wrong page`,
	);
}
