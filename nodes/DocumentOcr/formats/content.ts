/**
 * What a content stream draws from its resources (ISO 32000-1 §7.8, §8–9, §14.6): its operators
 * read as the decoded bytes arrive, chunk by chunk (the stream is never held whole), and each name
 * an operator takes from a resource dictionary told as it is met. A page copy keeps from its
 * resources only these names (usage.ts), so nothing another page draws travels with it.
 *
 *   Do → XObject   Tf → Font   sh → Shading   scn, SCN → Pattern   cs, CS → ColorSpace
 *   gs → ExtGState   BDC, DP → Properties   BI … ID → ColorSpace (an inline image's /CS)
 *
 * The lexer's grammar (lexer.ts: its byte classes) as a state machine over bytes, so that a token
 * may span two chunks: names, numbers and operators; literal strings (nested parentheses, escapes),
 * hexadecimal strings, comments, arrays and dictionaries (their names are operands' parts, not
 * resources), and an inline image's data, passed over up to `EI` (by its /L where it gives one).
 */
import { CLASS } from './lexer';
import type { Work } from './limits';

/** The resource categories an operator names (a resource dictionary's keys). */
export type Category =
	| 'XObject'
	| 'Font'
	| 'Shading'
	| 'Pattern'
	| 'ColorSpace'
	| 'ExtGState'
	| 'Properties';

/** The category of each operator's last name operand (Tf's is its first of two: see below). */
const OPERATORS: Record<string, Category> = {
	Do: 'XObject',
	Tf: 'Font',
	sh: 'Shading',
	scn: 'Pattern',
	SCN: 'Pattern',
	cs: 'ColorSpace',
	CS: 'ColorSpace',
	gs: 'ExtGState',
	BDC: 'Properties',
	DP: 'Properties',
};

const NORMAL = 0;
const TOKEN = 1;
const NAME = 2;
const COMMENT = 3;
const LITERAL = 4;
const HEX = 5;
const LESS = 6;
const GREATER = 7;
const IMAGE = 8;

/**
 * The operators this reader acts on (OPERATORS, and BI and ID of an inline image), by the code of
 * their bytes (three at most): an operator is looked up without a string made.
 */
const codeOf = (bytes: ArrayLike<number>, length: number) =>
	length > 3 ? -1 : (bytes[0] | ((bytes[1] ?? 0) << 8) | ((bytes[2] ?? 0) << 16)) + (length << 24);
const ACTED_ON: Record<number, string> = Object.fromEntries(
	[...Object.keys(OPERATORS), 'BI', 'ID'].map((op) => [
		codeOf(Buffer.from(op, 'latin1'), op.length),
		op,
	]),
);
const latin1 = (bytes: Uint8Array, length: number) =>
	Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('latin1');
/** Whether a token is true, false or null (an operand, not an operator). */
const isKeyword = (bytes: Uint8Array, length: number) =>
	(length === 4 && (bytes[0] === 0x74 || bytes[0] === 0x6e)) ||
	(length === 5 && bytes[0] === 0x66 && bytes[1] === 0x61);

/**
 * A token's bytes kept: room for 128 at first (names should be at most 127 bytes, §C.2, though
 * readers draw longer ones), grown up to MAX_TOKEN; a longer token is no name, its bytes passed.
 */
const TOKEN_BYTES = 128;
const MAX_TOKEN = 65_536;
/** Operands kept: an operator takes at most a few names; an inline image's dictionary more. */
const OPERANDS = 8;
const IMAGE_OPERANDS = 64;
/** An operand that is neither a name nor a number. */
const OTHER = null;
/** An operand: a name (its text), a number, a boolean, or OTHER. */
export type Operand = string | number | boolean | null;

/** Reads content streams, telling `found` each resource name an operator uses. */
export class ContentReader {
	private state = NORMAL;
	private token = new Uint8Array(TOKEN_BYTES);
	private length = 0;
	/** Arrays and dictionaries open: their parts are one operand. */
	private depth = 0;
	/** A literal string's open parentheses, and whether the byte before was a backslash. */
	private parens = 0;
	private escaped = false;
	private operands: Operand[];
	/** Inside an inline image's dictionary (BI … ID), its entries as operands. */
	private imageDict = false;
	/** Inside an inline image's data: the bytes still to pass over by its /L, or -1 to look for EI. */
	private imageLeft = -1;
	/** The last bytes of an inline image's data: white space, E, I matched so far (0–3). */
	private matched = 0;

	/**
	 * `operands`: those a stream before this one left for the first operator of this one (the
	 * streams of a page's /Contents are one content, divided between tokens).
	 */
	constructor(
		private readonly found: (category: Category, name: string) => void,
		private readonly work: Work,
		operands: Operand[] = [],
	) {
		this.operands = [...operands];
	}

	/** Reads the next bytes of the stream. */
	push(bytes: Uint8Array): void {
		this.work.charge(bytes.length);
		for (let i = 0; i < bytes.length; i++) {
			const c = bytes[i];
			switch (this.state) {
				case TOKEN:
				case NAME:
					if (CLASS[c] === 0) {
						if (this.length === this.token.length && this.length < MAX_TOKEN) this.grow();
						if (this.length < this.token.length) this.token[this.length] = c;
						this.length++;
						continue;
					}
					this.endToken();
					break;
				case COMMENT:
					if (c === 0x0a || c === 0x0d) this.state = NORMAL;
					continue;
				case LITERAL:
					if (this.escaped) this.escaped = false;
					else if (c === 0x5c) this.escaped = true;
					else if (c === 0x28) this.parens++;
					else if (c === 0x29 && --this.parens === 0) {
						this.state = NORMAL;
						this.operand(OTHER);
					}
					continue;
				case HEX:
					if (c === 0x3e) {
						this.state = NORMAL;
						this.operand(OTHER);
					}
					continue;
				case LESS:
					this.state = NORMAL;
					if (c === 0x3c) {
						this.depth++;
						continue;
					}
					this.state = HEX;
					if (c === 0x3e) {
						this.state = NORMAL;
						this.operand(OTHER);
					}
					continue;
				case GREATER:
					this.state = NORMAL;
					if (c === 0x3e) {
						this.close();
						continue;
					}
					break; // a stray `>`: passed over, the byte read as any other
				case IMAGE:
					this.imageByte(c);
					continue;
			}
			this.start(c);
		}
	}

	/** Room for a longer token (its bytes so far kept). */
	private grow(): void {
		const grown = new Uint8Array(this.token.length * 2);
		grown.set(this.token);
		this.token = grown;
	}

	/**
	 * The stream has ended: a token it ends with is read. The operands it leaves for the next
	 * stream of the same content (none where it ends with an operator, as streams do).
	 */
	end(): Operand[] {
		if (this.state === TOKEN || this.state === NAME) this.endToken();
		this.state = NORMAL;
		return this.depth > 0 ? [] : this.operands;
	}

	/** A byte in the normal state: the start of a token, or a delimiter. */
	private start(c: number): void {
		if (CLASS[c] === 1) return;
		if (CLASS[c] === 0) {
			this.state = TOKEN;
			this.token[0] = c;
			this.length = 1;
			return;
		}
		if (c === 0x2f) {
			this.state = NAME;
			this.length = 0;
		} else if (c === 0x25) this.state = COMMENT;
		else if (c === 0x28) {
			this.state = LITERAL;
			this.parens = 1;
			this.escaped = false;
		} else if (c === 0x3c) this.state = LESS;
		else if (c === 0x3e) this.state = GREATER;
		else if (c === 0x5b) this.depth++;
		else if (c === 0x5d) this.close();
	}

	/** An array or dictionary closes: at the outermost level, one operand. */
	private close(): void {
		if (this.depth > 0 && --this.depth === 0) this.operand(OTHER);
	}

	private endToken(): void {
		const { length, token } = this;
		const name = this.state === NAME;
		this.state = NORMAL;
		// The parts of an array or a dictionary are no operand (an inline image's entries are).
		if (this.depth > 0 && !this.imageDict) return;
		if (length > token.length) return this.operand(OTHER);
		const first = token[0];
		if (
			!name &&
			((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e)
		)
			// A number: its value is read only in an inline image's dictionary (its /L).
			return this.operand(this.imageDict ? Number(latin1(token, length)) : OTHER);
		if (name) {
			const text = latin1(token, length);
			return this.operand(text.includes('#') ? decodeName(text) : text);
		}
		// An operator: only those this reader acts on are made a string.
		const known = ACTED_ON[codeOf(length < 3 ? token.subarray(0, length) : token, length)];
		if (known) this.operator(known);
		else if (isKeyword(token, length))
			this.operand(length === 4 && token[0] === 0x74 ? true : OTHER);
		else if (this.imageDict) this.operand(OTHER);
		else this.operands.length = 0;
	}

	private operand(value: Operand): void {
		if (this.depth > 0) return;
		if (this.operands.length === (this.imageDict ? IMAGE_OPERANDS : OPERANDS))
			this.operands.shift();
		this.operands.push(value);
	}

	private operator(op: string): void {
		const { operands } = this;
		if (this.imageDict) {
			if (op === 'ID') this.imageData();
			else operands.length = 0;
			return;
		}
		const category = OPERATORS[op];
		// Tf takes a font and a size; the others name their resource last.
		const name = op === 'Tf' ? operands[operands.length - 2] : operands[operands.length - 1];
		if (category && typeof name === 'string') this.found(category, name);
		operands.length = 0;
		if (op === 'BI') this.imageDict = true;
	}

	/**
	 * `ID`: the inline image's dictionary is read (its /CS a colour space's resource name where it
	 * is not a device space, its /L the data's length where it gives one); its data follows.
	 */
	private imageData(): void {
		const entries = new Map<string, Operand>();
		const { operands } = this;
		for (let i = 0; i + 1 < operands.length; i += 2)
			if (typeof operands[i] === 'string') entries.set(operands[i] as string, operands[i + 1]);
		const value = (short: string, long: string) => entries.get(short) ?? entries.get(long);
		const space = value('CS', 'ColorSpace');
		if (typeof space === 'string') this.found('ColorSpace', space);
		const length = value('L', 'Length');
		this.length = 0;
		this.imageDict = false;
		this.operands = [];
		this.imageLeft =
			typeof length === 'number' && length >= 0 ? Math.floor(length) : unfilteredLength(value);
		this.matched = 0;
		this.state = IMAGE;
	}

	/** A byte of an inline image's data (the one white space after ID first): EI ends it. */
	private imageByte(c: number): void {
		if (this.imageLeft > 0) {
			// The data's length is known: EI may follow it at once.
			if (--this.imageLeft === 0) this.matched = 1;
			return;
		}
		// White space, `E`, `I`, then white space or a delimiter (or the stream's end).
		const m = this.matched;
		if (m === 3 && CLASS[c] !== 0) {
			this.state = NORMAL;
			this.operands.length = 0;
			this.start(c);
			return;
		}
		if (CLASS[c] === 1) this.matched = 1;
		else if (m === 1 && c === 0x45) this.matched = 2;
		else if (m === 2 && c === 0x49) this.matched = 3;
		else this.matched = 0;
	}
}

/** Components of the device colour spaces an inline image names (its abbreviations too). */
const COMPONENTS: Record<string, number> = {
	G: 1,
	DeviceGray: 1,
	CalGray: 1,
	RGB: 3,
	DeviceRGB: 3,
	CalRGB: 3,
	CMYK: 4,
	DeviceCMYK: 4,
};

/**
 * The data length of an inline image without a filter (§8.9.7): its rows of its width times its
 * components times its bits per component, each row whole bytes; -1 when a filter or a colour
 * space named in the resources leaves it unknown (its data then ends at `EI`).
 */
function unfilteredLength(value: (short: string, long: string) => Operand | undefined): number {
	if (value('F', 'Filter') !== undefined) return -1;
	const width = value('W', 'Width');
	const height = value('H', 'Height');
	const mask = value('IM', 'ImageMask') === true;
	const bits = mask ? 1 : value('BPC', 'BitsPerComponent');
	const space = value('CS', 'ColorSpace');
	const components = mask ? 1 : typeof space === 'string' ? COMPONENTS[space] : undefined;
	if (typeof width !== 'number' || typeof height !== 'number' || typeof bits !== 'number')
		return -1;
	if (!components || !(width > 0) || !(height > 0) || ![1, 2, 4, 8, 16].includes(bits)) return -1;
	return Math.ceil((width * components * bits) / 8) * height;
}

/** A name's `#xx` escapes decoded. */
function decodeName(text: string): string {
	return text.replace(/#([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
		String.fromCharCode(parseInt(hex, 16)),
	);
}
