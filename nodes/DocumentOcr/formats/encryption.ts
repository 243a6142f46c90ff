/**
 * An encrypted PDF opened, when it opens without a password (crypt.ts, the Standard Security
 * Handler with the empty user password): the /Encrypt dictionary and the trailer's /ID read whole
 * (a full parser: every key, strings as their bytes), then the file's decryption, or why there is
 * none (a user password, a handler or method not read here).
 */
import { CryptError, openDecryption, type Decryption, type EncryptValues } from './crypt';
import { Unknown, type Work } from './limits';
import { Parser } from './parser';
import { isDict, isRef, nameOf, type PdfValue } from './values';
import type { ObjectReader } from './pdf';

/** The decryption of the file `reader` reads, whose newest trailer names /Encrypt. */
export async function readDecryption(
	reader: ObjectReader,
	work: Work,
): Promise<Decryption | { refused: string }> {
	let failure: unknown;
	try {
		const trailer = fullValue(reader.bytes, reader.trailerAt!, work);
		if (!isDict(trailer)) throw new Unknown('the trailer is not a dictionary');
		let encrypt = trailer.dict.Encrypt;
		if (isRef(encrypt)) {
			const where = reader.locate(encrypt.ref);
			if (!where || !where.inFile) throw new Unknown('the /Encrypt dictionary cannot be found');
			encrypt = fullValue(where.bytes, where.at, work);
		}
		if (!isDict(encrypt)) throw new Unknown('the /Encrypt entry is not a dictionary');
		const ids = trailer.dict.ID;
		const first = Array.isArray(ids) && typeof ids[0] === 'string' ? ids[0] : '';
		return openDecryption(valuesOf(encrypt.dict), Buffer.from(first, 'latin1'));
	} catch (error) {
		failure = error;
	}
	if (failure instanceof CryptError || failure instanceof Unknown)
		return { refused: failure.message };
	throw failure;
}

/** The value at `at` read by a full parser (every key; strings as latin1 text of their bytes). */
function fullValue(bytes: Buffer, at: number, work: Work): PdfValue {
	const parser = new Parser(bytes, work).at(at);
	parser.full = true;
	return parser.value();
}

const text = (value: PdfValue | undefined) =>
	typeof value === 'string' ? Buffer.from(value, 'latin1') : undefined;
const number = (value: PdfValue | undefined) => (typeof value === 'number' ? value : undefined);

/** The /Encrypt dictionary's values, as crypt.ts takes them. */
function valuesOf(dict: Record<string, PdfValue>): EncryptValues {
	const cf: Record<string, { cfm?: string; length?: number }> = {};
	const filters = dict.CF;
	if (isDict(filters))
		for (const [name, value] of Object.entries(filters.dict))
			if (isDict(value))
				cf[name] = { cfm: nameOf(value.dict.CFM), length: number(value.dict.Length) };
	return {
		filter: nameOf(dict.Filter),
		subFilter: nameOf(dict.SubFilter),
		v: number(dict.V),
		r: number(dict.R),
		length: number(dict.Length),
		o: text(dict.O),
		u: text(dict.U),
		oe: text(dict.OE),
		ue: text(dict.UE),
		perms: text(dict.Perms),
		p: number(dict.P),
		encryptMetadata: typeof dict.EncryptMetadata === 'boolean' ? dict.EncryptMetadata : undefined,
		cf,
		stmF: nameOf(dict.StmF),
		strF: nameOf(dict.StrF),
		eff: nameOf(dict.EFF),
	};
}
