/**
 * The PDF Standard Security Handler (ISO 32000-1 §7.6.3-7.6.4; revision 5 from Adobe's Extension
 * Level 3, revision 6 from ISO 32000-2) for a file that opens without a password: its user
 * password is empty, an owner password alone restricts it (bank statements, invoices). Revisions
 * 2 to 6 are read: RC4 of 40 to 128 bits (/V 1, 2), crypt filters (/V 4: /V2, /AESV2, /Identity)
 * and AES-256 (/V 5: /AESV3). The empty password is verified against /U before a key is used: a
 * file whose user password is not empty is refused, never guessed at.
 *
 * Pure: `crypto` gives MD5, SHA-2 and AES-CBC. RC4 is written here, as Node's OpenSSL 3 leaves it
 * to the legacy provider, which n8n's Node does not load.
 */
import { createCipheriv, createDecipheriv, createHash } from 'crypto';
import { Unknown } from './limits';

/**
 * Why a file's encryption is not undone here: a password is needed, a handler or method is not
 * read, or the encrypted data is damaged. An Unknown, so a count gives its message as the reason.
 */
export class CryptError extends Unknown {}

/**
 * The /Encrypt dictionary's values as read from the file (strings as their raw bytes, after the
 * PDF string escapes are undone; the dictionary's own strings are never encrypted).
 */
export interface EncryptValues {
	/** /Filter: the security handler, 'Standard' here. */
	filter?: string;
	subFilter?: string;
	/** /V: the algorithm (1, 2, 4, 5 are read). */
	v?: number;
	/** /R: the Standard handler's revision (2 to 6). */
	r?: number;
	/** /Length: the key's length in bits (/V 2; 40 by default). */
	length?: number;
	o?: Buffer;
	u?: Buffer;
	oe?: Buffer;
	ue?: Buffer;
	perms?: Buffer;
	/** /P: the permissions, a signed 32-bit number (its unsigned form is read the same). */
	p?: number;
	/** /EncryptMetadata (true by default). */
	encryptMetadata?: boolean;
	/** /CF: the crypt filters by name, each its /CFM and /Length (bytes; bits from some writers). */
	cf?: Record<string, { cfm?: string; length?: number }>;
	/** /StmF, /StrF: the filters of streams and strings ('Identity' by default); /EFF: of embedded files (/StmF by default). */
	stmF?: string;
	strF?: string;
	eff?: string;
}

/**
 * A file's decryption (the empty user password verified). What is not encrypted is never handed
 * in: the strings of an object inside an object stream (the object stream is decrypted whole),
 * cross-reference streams, the /Encrypt dictionary's strings, a signature dictionary's /Contents
 * (ISO 32000-2), and a /Type /Metadata stream when `metadataEncrypted` is false. The work is
 * linear in the bytes handed in, which the caller meters (nothing here holds a Work).
 */
export interface Decryption {
	/**
	 * What the file is encrypted with, for a message: 'RC4 40-bit', 'RC4 128-bit' (or another RC4
	 * key's bits), 'AES-128', 'AES-256'; the streams' method, else the strings'; 'no encryption
	 * (/Identity)' when both are /Identity.
	 */
	method: string;
	/** A string of object `num` `gen`: its raw bytes (escapes undone) in, plain bytes out. */
	string(num: number, gen: number, bytes: Buffer): Buffer;
	/**
	 * A stream's data of object `num` `gen`, decrypted with /StmF; `filterName` is the crypt filter
	 * the stream names itself (a /Crypt filter's /DecodeParms /Name, 'Identity' when it has none,
	 * which leaves the data as it is) or, for a /Type /EmbeddedFile stream, `embeddedFilter`.
	 */
	stream(num: number, gen: number, data: Buffer, filterName?: string): Buffer;
	/** The crypt filter of embedded file streams: /EFF, else /StmF ('StdCF' under /V 1 and 2). */
	embeddedFilter: string;
	/** Whether a /Type /Metadata stream is encrypted (/EncryptMetadata; always under /V 1 and 2). */
	metadataEncrypted: boolean;
}

/** How a crypt filter turns encrypted bytes into plain ones. */
type Method = 'identity' | 'rc4' | 'aes128' | 'aes256';

/** The 32 bytes a password is padded with (Algorithm 2), the whole of an empty one. */
const PADDING = Buffer.from(
	'28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
	'hex',
);
const EMPTY = Buffer.alloc(0);
const SALT = Buffer.from('sAlT', 'latin1');

/**
 * The decryption of a file with the empty user password, or a CryptError saying why not (a user
 * password is needed; a handler or method not read here, named). `firstId` is the first string
 * of the trailer's /ID (empty when it has none).
 */
export function openDecryption(values: EncryptValues, firstId: Buffer): Decryption {
	if (values.filter !== 'Standard')
		throw new CryptError(
			values.filter === undefined
				? 'the PDF is encrypted, and its /Encrypt dictionary names no security handler (/Filter)'
				: `the PDF is encrypted with the /${values.filter} security handler (a certificate or a plug-in), which is not read here`,
		);
	const v = values.v ?? 0;
	const r = values.r ?? 0;
	if (v !== 1 && v !== 2 && v !== 4 && v !== 5)
		throw new CryptError(
			`the PDF is encrypted with algorithm /V ${v}, which is not read here (1, 2, 4 and 5 are)`,
		);
	const aes256 = r >= 5;
	if (!Number.isInteger(r) || r < 2 || r > 6 || (v === 5) !== aes256)
		throw new CryptError(
			`the PDF is encrypted with revision /R ${r} of the standard security handler under /V ${v}, which is not read here`,
		);
	const bytes = aes256 ? 32 : keyBytes(values, v, r);

	const legacy = v < 4;
	const filter = (name: string): Method => {
		if (name === 'Identity') return 'identity';
		if (legacy) return 'rc4';
		const found = values.cf?.[name];
		if (found === undefined)
			throw new CryptError(
				`the PDF names the crypt filter /${name}, which its /CF does not define`,
			);
		// AES takes a key of its own size: 16 bytes (the object key of a 128-bit file key), 32.
		if ((found.cfm === 'AESV2' && bytes !== 16) || (found.cfm === 'AESV3' && bytes !== 32))
			throw new CryptError(
				`the PDF's crypt filter /${name} uses /${found.cfm} with a key of ${bytes * 8} bits, which is not read here`,
			);
		switch (found.cfm ?? 'None') {
			case 'None':
				return 'identity';
			case 'V2':
				return 'rc4';
			case 'AESV2':
				return 'aes128';
			case 'AESV3':
				return 'aes256';
			default:
				throw new CryptError(
					`the PDF's crypt filter /${name} uses /${found.cfm}, a method not read here (/V2, /AESV2 and /AESV3 are)`,
				);
		}
	};
	const stmF = legacy ? 'StdCF' : (values.stmF ?? 'Identity');
	const strF = legacy ? 'StdCF' : (values.strF ?? 'Identity');
	const streams = filter(stmF);
	const strings = filter(strF);
	const shown = streams !== 'identity' ? streams : strings;
	const method = {
		identity: 'no encryption (/Identity)',
		rc4: `RC4 ${bytes * 8}-bit`,
		aes128: 'AES-128',
		aes256: 'AES-256',
	}[shown];

	// The methods are known first: one not read here is named whatever the password.
	const key = aes256 ? aes256Key(values, r) : rc4Key(values, r, bytes, firstId);
	const decrypt = (how: Method, num: number, gen: number, data: Buffer, what: string): Buffer => {
		if (how === 'identity') return data;
		if (how === 'aes256') return aesCbc('aes-256-cbc', key, data, () => `${what} ${num} ${gen}`);
		const objectKey = createHash('md5')
			.update(key)
			.update(
				Buffer.from([
					num & 0xff,
					(num >> 8) & 0xff,
					(num >> 16) & 0xff,
					gen & 0xff,
					(gen >> 8) & 0xff,
				]),
			)
			.update(how === 'aes128' ? SALT : EMPTY)
			.digest()
			.subarray(0, Math.min(key.length + 5, 16));
		if (how === 'rc4') return rc4(objectKey, data);
		return aesCbc('aes-128-cbc', objectKey, data, () => `${what} ${num} ${gen}`);
	};
	return {
		method,
		string: (num, gen, data) => decrypt(strings, num, gen, data, 'string of object'),
		stream: (num, gen, data, filterName) =>
			decrypt(
				filterName === undefined ? streams : filter(filterName),
				num,
				gen,
				data,
				'stream of object',
			),
		embeddedFilter: legacy ? stmF : (values.eff ?? stmF),
		metadataEncrypted: legacy || values.encryptMetadata !== false,
	};
}

/**
 * The key's length in bytes for RC4 and AES-128: 5 under revision 2; else /Length in bits (40 by
 * default), or under /V 4 the /Length of the stream filter, else of the string filter (bytes;
 * bits when 40 or more, as some writers give it; 128 bits by default), as pdf.js reads it.
 */
function keyBytes(values: EncryptValues, v: number, r: number): number {
	if (r === 2) return 5;
	let bits = values.length ?? 40;
	if (v === 4) {
		const named = values.cf?.[values.stmF ?? 'Identity'] ?? values.cf?.[values.strF ?? 'Identity'];
		const length = named?.length;
		bits = length === undefined ? 128 : length < 40 ? length * 8 : length;
	}
	if (!Number.isInteger(bits) || bits < 40 || bits > 128 || bits % 8 !== 0)
		throw new CryptError(
			`the PDF's key length (${bits} bits) is not a multiple of 8 from 40 to 128`,
		);
	return bits / 8;
}

/** A string of the dictionary that must hold at least `length` bytes. */
function field(values: EncryptValues, key: 'o' | 'u' | 'oe' | 'ue', length: number): Buffer {
	const value = values[key];
	if (value === undefined || value.length < length)
		throw new CryptError(
			`the PDF's /Encrypt dictionary has no /${key.toUpperCase()} of ${length} bytes`,
		);
	return value.subarray(0, length);
}

const refused = () =>
	new CryptError(
		'the PDF opens only with a password (its user password is not empty), which is not asked for here: remove it first (qpdf --password=... --decrypt, or "Print to PDF")',
	);

/**
 * Revisions 2 to 4: the file key of the empty password (Algorithm 2), checked against /U
 * (Algorithm 4 under revision 2: RC4 of the padding; Algorithm 5 under 3 and 4: MD5 of the
 * padding and the ID through 20 rounds of RC4, its first 16 bytes compared).
 */
function rc4Key(values: EncryptValues, r: number, bytes: number, firstId: Buffer): Buffer {
	const p = Buffer.alloc(4);
	p.writeUInt32LE((values.p ?? 0) >>> 0);
	const hash = createHash('md5')
		.update(PADDING)
		.update(field(values, 'o', 32))
		.update(p);
	hash.update(firstId);
	if (r >= 4 && values.encryptMetadata === false) hash.update(Buffer.from([255, 255, 255, 255]));
	let key = hash.digest().subarray(0, bytes);
	if (r >= 3) for (let round = 0; round < 50; round++) key = md5(key).subarray(0, bytes);

	const u = field(values, 'u', r === 2 ? 32 : 16);
	let check: Buffer;
	if (r === 2) check = rc4(key, PADDING);
	else {
		check = rc4(key, md5(Buffer.concat([PADDING, firstId])));
		for (let round = 1; round <= 19; round++) {
			const roundKey = Buffer.from(key);
			for (let i = 0; i < roundKey.length; i++) roundKey[i] ^= round;
			check = rc4(roundKey, check);
		}
	}
	if (!check.equals(u)) throw refused();
	return key;
}

/**
 * Revisions 5 and 6: the empty password checked against /U (the hash of its validation salt,
 * bytes 32-39), then the file key: /UE decrypted with the hash of the key salt (bytes 40-47).
 * Revision 5 hashes with SHA-256 once, revision 6 with Algorithm 2.B. /Perms is not read: the key
 * the checked password gives is the file's, and the permissions are not kept.
 */
function aes256Key(values: EncryptValues, r: number): Buffer {
	const u = field(values, 'u', 48);
	const hash = (salt: Buffer) => (r === 5 ? sha256(salt) : hash2B(salt));
	if (!hash(u.subarray(32, 40)).equals(u.subarray(0, 32))) throw refused();
	const decipher = createDecipheriv('aes-256-cbc', hash(u.subarray(40, 48)), Buffer.alloc(16));
	decipher.setAutoPadding(false);
	return Buffer.concat([decipher.update(field(values, 'ue', 32)), decipher.final()]);
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest();
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

/**
 * ISO 32000-2 Algorithm 2.B for the empty password and the user key: SHA-256 of the salt, then
 * rounds of AES-128-CBC over 64 copies of the hash, each hashed again by SHA-256, -384 or -512 as
 * the first 16 bytes of the output, a 128-bit number, give modulo 3 (the sum of the bytes modulo
 * 3, as 256 is 1 modulo 3). At least 64 rounds, and on while the last byte of the last output is
 * more than the rounds done less 32 (as qpdf and pdf.js count them): 287 at most, as the byte is
 * 255 at most.
 */
function hash2B(salt: Buffer): Buffer {
	let k = sha256(salt);
	let e = EMPTY;
	for (let round = 0; round < 64 || e[e.length - 1] > round - 32; round++) {
		const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
		cipher.setAutoPadding(false);
		const copies = Buffer.concat(Array<Buffer>(64).fill(k));
		e = Buffer.concat([cipher.update(copies), cipher.final()]);
		let sum = 0;
		for (let i = 0; i < 16; i++) sum += e[i];
		k = createHash(['sha256', 'sha384', 'sha512'][sum % 3])
			.update(e)
			.digest();
	}
	return k.subarray(0, 32);
}

/**
 * AES-CBC data as PDF writes it (the 16-byte initialization vector, then whole blocks, the last
 * padded as PKCS#5 says), decrypted; empty data stays empty. `what` names the data in an error.
 */
function aesCbc(
	cipher: 'aes-128-cbc' | 'aes-256-cbc',
	key: Buffer,
	data: Buffer,
	what: () => string,
): Buffer {
	if (data.length === 0) return data;
	if (data.length < 32 || data.length % 16 !== 0)
		throw new CryptError(
			`the encrypted ${what()} is ${data.length} bytes, not an AES initialization vector and whole 16-byte blocks`,
		);
	const decipher = createDecipheriv(cipher, key, data.subarray(0, 16));
	decipher.setAutoPadding(false);
	const plain = Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
	const pad = plain[plain.length - 1];
	let padded = pad >= 1 && pad <= 16;
	for (let i = 1; padded && i <= pad; i++) padded = plain[plain.length - i] === pad;
	if (!padded)
		throw new CryptError(
			`the encrypted ${what()} does not end in AES padding (damaged data, or the wrong key)`,
		);
	return plain.subarray(0, plain.length - pad);
}

/** RC4 (the same function encrypts and decrypts): `data` through the key stream of `key`. */
export function rc4(key: Buffer, data: Buffer): Buffer {
	const s = new Uint8Array(256);
	for (let i = 0; i < 256; i++) s[i] = i;
	for (let i = 0, j = 0; i < 256; i++) {
		j = (j + s[i] + key[i % key.length]) & 0xff;
		const t = s[i];
		s[i] = s[j];
		s[j] = t;
	}
	const out = Buffer.allocUnsafe(data.length);
	for (let n = 0, i = 0, j = 0; n < data.length; n++) {
		i = (i + 1) & 0xff;
		j = (j + s[i]) & 0xff;
		const t = s[i];
		s[i] = s[j];
		s[j] = t;
		out[n] = data[n] ^ s[(s[i] + s[j]) & 0xff];
	}
	return out;
}
