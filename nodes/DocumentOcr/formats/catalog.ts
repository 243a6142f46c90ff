/**
 * What a copy's new catalog carries of the document's (issue 42): nothing that reaches other
 * pages (outlines, names, the structure tree, document actions stay out), only what the written
 * pages need to look as they do in the document:
 * - the optional-content configuration (ISO 32000-1 §8.11.4): /OCGs, and /D's /BaseState, /ON and
 *   /OFF, each limited to the groups the written pages use (a group hidden in the document stays
 *   hidden in the copy);
 * - the interactive form (§12.7.2): /Fields (the fields of the written widgets, their chains
 *   limited to them: the copier's), /NeedAppearances, /DA, /Q, and /DR's fonts (a field without an
 *   appearance stream is drawn from its value with them).
 */
import { hexString, stringBytes } from './lexer';
import type { Work } from './limits';
import { nameValue, type Entry } from './objects';
import type { Handle, Source } from './pdf-source';
import type { Resources, Used } from './usage';

/** The document's optional content, by source object numbers. */
interface OptionalContent {
	groups: number[];
	base?: string;
	on: number[];
	off: number[];
}

/** The document's form: its plain entries (copied as they are) and its default resources. */
interface Form {
	plain: Buffer;
	resources?: Resources;
	used: Used;
}

export interface CatalogSource {
	content?: OptionalContent;
	form?: Form;
}

/** Reads what a copy may carry of the catalog of `source`. */
export async function readCatalog(source: Source): Promise<CatalogSource> {
	const catalog = await source.object(source.pdf.root.ref);
	if (!catalog?.layout.entries) return {};
	const out: CatalogSource = {};
	const properties = await source.dict(catalog, 'OCProperties');
	if (properties) {
		const config = await source.dict(properties, 'D');
		out.content = {
			groups: await source.refsOf(properties, 'OCGs'),
			base: config ? nameValue(config.bytes, config.layout.entries?.get('BaseState')) : undefined,
			on: config ? await source.refsOf(config, 'ON') : [],
			off: config ? await source.refsOf(config, 'OFF') : [],
		};
	}
	const form = await source.dict(catalog, 'AcroForm');
	if (form) {
		const defaults = await source.dict(form, 'DR');
		const fonts = defaults && (await source.dict(defaults, 'Font'));
		const names = new Set(fonts?.layout.entries?.keys() ?? []);
		out.form = {
			plain: plainEntries(form, ['NeedAppearances', 'DA', 'Q'], source),
			resources: defaults ? { handle: defaults, key: 'acroform', own: false } : undefined,
			used: new Map([['Font', names]]),
		};
	}
	return out;
}

/**
 * The entries `keys` of a dictionary as bytes, its strings decrypted where the file is encrypted;
 * only entries without references (a value naming an object is left out).
 */
function plainEntries(handle: Handle, keys: string[], source: Source): Buffer {
	const { layout } = handle;
	const pieces: Buffer[] = [];
	for (const key of keys) {
		const entry = layout.entries?.get(key);
		if (!entry || hasRef(layout.refs, entry, source.work)) continue;
		pieces.push(Buffer.from(` /${key} `, 'latin1'));
		pieces.push(plainValue(handle, entry, source));
	}
	return Buffer.concat(pieces);
}

function hasRef(refs: number[], entry: Entry, work: Work): boolean {
	work.charge(refs.length / 3);
	for (let i = 0; i < refs.length; i += 3)
		if (refs[i] >= entry.start && refs[i] < entry.end) return true;
	return false;
}

/** A value without references: as it is, or a string decrypted (written in hexadecimal). */
function plainValue(handle: Handle, entry: Entry, source: Source): Buffer {
	const { bytes } = handle;
	const c = bytes[entry.start];
	const string = c === 0x28 || (c === 0x3c && bytes[entry.start + 1] !== 0x3c);
	if (!string || !source.decryption || handle.layout.strings === undefined)
		return bytes.subarray(entry.start, entry.end);
	const plain = source.decryption.string(
		handle.num,
		handle.gen,
		stringBytes(bytes, entry.start, entry.end),
	);
	return Buffer.from(hexString(plain), 'latin1');
}

const refs = (numbers: number[]) => numbers.map((n) => `${n} 0 R`).join(' ');

/** A list of references as catalogText writes it: its count and its length in bytes. */
class RefList {
	count = 0;
	private bytes = 0;
	add(number: number, sign: 1 | -1): void {
		this.count += sign;
		this.bytes += sign * `${number} 0 R`.length;
	}
	get length(): number {
		return this.bytes + Math.max(0, this.count - 1);
	}
}

/**
 * The length of the new catalog's text as the copy grows, kept as objects are numbered and
 * undone: a split sizes its part after every page, and the catalog's lists (the layers written,
 * the root fields) grow with the pages, so its text is not made again each time.
 */
export class CatalogTally {
	private readonly groups = new RefList();
	private readonly on = new RefList();
	private readonly off = new RefList();
	private readonly fields = new RefList();
	/** Which lists each source object is in: 1 /OCGs, 2 /ON, 4 /OFF. */
	private readonly lists = new Map<number, number>();

	constructor(private readonly source: CatalogSource) {
		const { content } = source;
		const mark = (list: number[], bit: number) => {
			for (const num of list) this.lists.set(num, (this.lists.get(num) ?? 0) | bit);
		};
		if (content) {
			mark(content.groups, 1);
			mark(content.on, 2);
			mark(content.off, 4);
		}
	}

	/** Source object `num` is numbered `number` in the copy (sign 1), or no longer (-1). */
	numbered(num: number, number: number, sign: 1 | -1): void {
		const bits = this.lists.get(num);
		if (bits === undefined) return;
		if (bits & 1) this.groups.add(number, sign);
		if (bits & 2) this.on.add(number, sign);
		if (bits & 4) this.off.add(number, sign);
	}

	/** A root field written (1), or undone (-1). */
	field(number: number, sign: 1 | -1): void {
		this.fields.add(number, sign);
	}

	/** The length catalogText gives now, with the form's default resources numbered `defaults`. */
	length(defaults: number | undefined): number {
		let length = '<< /Type /Catalog /Pages 2 0 R >>'.length;
		const { content, form } = this.source;
		if (content && this.groups.count > 0)
			length +=
				` /OCProperties << /OCGs [] /D <<${baseState(content)} /ON [] /OFF [] >> >>`.length +
				this.groups.length +
				this.on.length +
				this.off.length;
		if (form && this.fields.count > 0) {
			const dr = defaults === undefined ? '' : ` /DR ${defaults} 0 R`;
			length += ` /AcroForm << /Fields []${dr} >>`.length + this.fields.length + form.plain.length;
		}
		return length;
	}
}

/** /D's /BaseState as written, where it is a plain name. */
const baseState = (content: OptionalContent) =>
	/^[A-Za-z]+$/.test(content.base ?? '') ? ` /BaseState /${content.base}` : '';

/**
 * The new catalog's text: `numbered` gives an object's number in the copy (undefined if not
 * written), `fields` the root fields written and `defaults` the number of the form's default
 * resources there.
 */
export function catalogText(
	source: CatalogSource,
	numbered: (num: number) => number | undefined,
	fields: number[],
	defaults: number | undefined,
	work: Work,
): string {
	let text = '<< /Type /Catalog /Pages 2 0 R';
	const { content, form } = source;
	if (content) {
		const written = (list: number[]) => {
			work.charge(list.length);
			return list.map(numbered).filter((n): n is number => n !== undefined);
		};
		const groups = written(content.groups);
		if (groups.length > 0) {
			const base = baseState(content);
			text += ` /OCProperties << /OCGs [${refs(groups)}] /D <<${base} /ON [${refs(written(content.on))}] /OFF [${refs(written(content.off))}] >> >>`;
		}
	}
	if (form && fields.length > 0) {
		work.charge(fields.length);
		const dr = defaults === undefined ? '' : ` /DR ${defaults} 0 R`;
		text += ` /AcroForm << /Fields [${refs(fields)}]${dr}${form.plain.toString('latin1')} >>`;
	}
	return `${text} >>`;
}
