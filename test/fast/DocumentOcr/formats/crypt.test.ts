/**
 * The Standard security handler with the empty user password (formats/crypt.ts, issue 42): the
 * encrypted PDFs qpdf writes (test/fixtures/pages/encrypted: RC4 40 and 128 bits, AES-128,
 * AES-256 of revisions 5 and 6, with and without object streams, metadata left in the clear)
 * decrypted to what qpdf decrypts them to; files with a user password refused, whatever the
 * revision; RC4 against published vectors; damaged AES data and the handlers and methods not read
 * here refused with a CryptError that names them.
 */
import { createCipheriv, createDecipheriv, createHash } from 'crypto';
import { Unknown } from '../../../../nodes/DocumentOcr/formats/limits';
import {
	CryptError,
	openDecryption,
	rc4,
	type EncryptValues,
} from '../../../../nodes/DocumentOcr/formats/crypt';

interface Fixture {
	file: string;
	r: number;
	method: string;
	streams?: Array<{ what: string; object: number; plain: string }>;
	strings?: Array<{ object: number; key: string; text: string; plain: string }>;
	bytes: Buffer;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadEncrypted, encryptedFiles } = require('../../../fixtures/pages/encrypted/load.js') as {
	loadEncrypted(): { files: Fixture[]; r6U: string[] };
	encryptedFiles(): string[];
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { zlibInflate } = require('../../../fixtures/pages/deflate.js') as {
	zlibInflate(bytes: Buffer): { data: Buffer } | { error: string };
};

const { files: fixtures, r6U } = loadEncrypted();
const opened = fixtures.filter((f) => f.method !== 'refused');
const refused = fixtures.filter((f) => f.method === 'refused');
const fixture = (file: string) => fixtures.find((f) => f.file === file)!;

// A small reader of the objects the tests need (the /Encrypt dictionary, the /ID, streams and
// strings of uncompressed objects), over the file's bytes as latin1 text.
type Value = number | boolean | null | Buffer | { name: string } | { ref: number } | Value[] | Dict;
interface Dict {
	[key: string]: Value;
}
const isDict = (v: Value): v is Dict =>
	typeof v === 'object' &&
	v !== null &&
	!Buffer.isBuffer(v) &&
	!Array.isArray(v) &&
	!('name' in v) &&
	!('ref' in v);
const nameOf = (v: Value | undefined) =>
	typeof v === 'object' && v !== null && 'name' in v ? (v.name as string) : undefined;

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

class Reader {
	constructor(
		private readonly text: string,
		public pos: number,
	) {}

	private blank(): void {
		for (;;) {
			const space = /^(\s+|%[^\r\n]*)/.exec(this.text.slice(this.pos, this.pos + 256));
			if (!space) return;
			this.pos += space[0].length;
		}
	}

	value(): Value {
		this.blank();
		const rest = this.text.slice(this.pos, this.pos + 512);
		if (rest.startsWith('<<')) {
			this.pos += 2;
			const dict: Dict = {};
			for (this.blank(); !this.text.startsWith('>>', this.pos); this.blank()) {
				const key = nameOf(this.value())!;
				dict[key] = this.value();
			}
			this.pos += 2;
			return dict;
		}
		if (rest[0] === '[') {
			this.pos++;
			const items: Value[] = [];
			for (this.blank(); this.text[this.pos] !== ']'; this.blank()) items.push(this.value());
			this.pos++;
			return items;
		}
		if (rest[0] === '<') {
			const end = this.text.indexOf('>', this.pos);
			const hex = this.text.slice(this.pos + 1, end).replace(/\s/g, '');
			this.pos = end + 1;
			return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
		}
		if (rest[0] === '(') return this.literal();
		if (rest[0] === '/') {
			const name = /^\/[^\s/<>[\]()%{}]*/.exec(rest)![0];
			this.pos += name.length;
			return {
				name: name
					.slice(1)
					.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
			};
		}
		const ref = /^(\d+)\s+(\d+)\s+R(?![A-Za-z])/.exec(rest);
		if (ref) {
			this.pos += ref[0].length;
			return { ref: Number(ref[1]) };
		}
		const word = /^(true|false|null|[+-]?(\d+\.?\d*|\.\d+))/.exec(rest);
		if (!word)
			throw new Error(`the test's reader cannot read ${JSON.stringify(rest.slice(0, 20))}`);
		this.pos += word[0].length;
		return word[0] === 'true'
			? true
			: word[0] === 'false'
				? false
				: word[0] === 'null'
					? null
					: Number(word[0]);
	}

	/** A literal string, its escapes undone. */
	private literal(): Buffer {
		let out = '';
		let depth = 0;
		for (this.pos++; ; this.pos++) {
			const c = this.text[this.pos];
			if (c === ')' && depth-- === 0) break;
			if (c === '(') depth++;
			if (c !== '\\') {
				out += c;
				continue;
			}
			const next = this.text[++this.pos];
			const octal = /^[0-7]{1,3}/.exec(this.text.slice(this.pos, this.pos + 3));
			if (octal) {
				out += String.fromCharCode(parseInt(octal[0], 8) & 0xff);
				this.pos += octal[0].length - 1;
			} else if (next === '\r' && this.text[this.pos + 1] === '\n') this.pos++;
			else if (next !== '\r' && next !== '\n') out += ESCAPES[next] ?? next;
		}
		this.pos++;
		return Buffer.from(out, 'latin1');
	}
}

const textOf = (bytes: Buffer) => bytes.toString('latin1');

/** Where object `num` starts (an uncompressed object: `num 0 obj`). */
function objectAt(bytes: Buffer, num: number): number {
	const match = new RegExp(`(?:^|[\\r\\n\\s])${num} 0 obj\\b`).exec(textOf(bytes));
	if (!match) throw new Error(`object ${num} is not in the file`);
	return match.index + match[0].length;
}
const object = (bytes: Buffer, num: number) =>
	new Reader(textOf(bytes), objectAt(bytes, num)).value();

/** A stream's data as stored in the file (its direct /Length bytes after `stream`). */
function streamData(bytes: Buffer, num: number): Buffer {
	const reader = new Reader(textOf(bytes), objectAt(bytes, num));
	const dict = reader.value() as Dict;
	const start = /^\s*stream\r?\n/.exec(textOf(bytes).slice(reader.pos, reader.pos + 32))!;
	const at = reader.pos + start[0].length;
	return bytes.subarray(at, at + (dict.Length as number));
}

/** The file's last /Encrypt and /ID (the trailer's, or the cross-reference stream's). */
function encryptionOf(bytes: Buffer): { values: EncryptValues; firstId: Buffer } {
	const text = textOf(bytes);
	const ref = [...text.matchAll(/\/Encrypt\s+(\d+)\s+0\s+R/g)].at(-1)!;
	const dict = object(bytes, Number(ref[1])) as Dict;
	const cf = isDict(dict.CF)
		? Object.fromEntries(
				Object.entries(dict.CF).map(([name, filter]) => [
					name,
					{
						cfm: nameOf((filter as Dict).CFM),
						length: (filter as Dict).Length as number | undefined,
					},
				]),
			)
		: undefined;
	const values: EncryptValues = {
		filter: nameOf(dict.Filter),
		subFilter: nameOf(dict.SubFilter),
		v: dict.V as number | undefined,
		r: dict.R as number | undefined,
		length: dict.Length as number | undefined,
		o: dict.O as Buffer | undefined,
		u: dict.U as Buffer | undefined,
		oe: dict.OE as Buffer | undefined,
		ue: dict.UE as Buffer | undefined,
		perms: dict.Perms as Buffer | undefined,
		p: dict.P as number | undefined,
		encryptMetadata: dict.EncryptMetadata as boolean | undefined,
		cf,
		stmF: nameOf(dict.StmF),
		strF: nameOf(dict.StrF),
		eff: nameOf(dict.EFF),
	};
	const idAt = text.lastIndexOf('/ID');
	const id = idAt < 0 ? [] : (new Reader(text, idAt + 3).value() as Buffer[]);
	return { values, firstId: id[0] ?? Buffer.alloc(0) };
}

const open = (f: Fixture) => {
	const { values, firstId } = encryptionOf(f.bytes);
	return openDecryption(values, firstId);
};

describe('the fixtures', () => {
	test('MANIFEST.json lists every encrypted file, each of both kinds and every revision', () => {
		expect(encryptedFiles().sort()).toEqual(fixtures.map((f) => f.file).sort());
		expect([...new Set(opened.map((f) => f.r))].sort()).toEqual([2, 3, 4, 5, 6]);
		expect([...new Set(refused.map((f) => f.r))].sort()).toEqual([2, 3, 4, 5, 6]);
	});

	test('each file is encrypted: its /Encrypt is read, its streams are not plain', () => {
		for (const f of opened) {
			const { values } = encryptionOf(f.bytes);
			expect({ file: f.file, r: values.r, filter: values.filter }).toEqual({
				file: f.file,
				r: f.r,
				filter: 'Standard',
			});
			const content = f.streams![0];
			expect(streamData(f.bytes, content.object)).not.toEqual(Buffer.from(content.plain, 'base64'));
		}
	});
});

describe('a file that opens without a password: its streams and strings as qpdf decrypts them', () => {
	test.each(opened.map((f) => [f.file, f] as const))('%s', (_file, f) => {
		const decryption = open(f);
		expect(decryption.method).toBe(f.method);
		expect(decryption.metadataEncrypted).toBe(!f.file.includes('clear-metadata'));
		for (const { what, object: num, plain } of f.streams!) {
			const data = streamData(f.bytes, num);
			const metadataInClear = what === 'the metadata stream' && !decryption.metadataEncrypted;
			const decrypted = metadataInClear ? data : decryption.stream(num, 0, data);
			expect({ what, data: decrypted.toString('base64') }).toEqual({ what, data: plain });
			// What qpdf gives is the stored data, whose text is the source's: Flate, but metadata
			// left in the clear, which qpdf leaves uncompressed too.
			const inflated = metadataInClear ? { data } : zlibInflate(decrypted);
			if (!('data' in inflated)) throw new Error(`${what}: ${inflated.error}`);
			const text = textOf(inflated.data);
			if (what === 'the first page content stream')
				expect(text).toContain('(Statement, page 1 of 3) Tj');
			if (what === 'the metadata stream')
				expect(text).toContain('<dc:title>Statement of account</dc:title>');
			if (what === 'the object stream that holds /Info')
				expect(text).toContain('/Title (Statement of account)');
		}
		for (const { object: num, key, plain } of f.strings!) {
			const stored = (object(f.bytes, num) as Dict)[key] as Buffer;
			expect(stored.toString('hex')).not.toBe(plain);
			expect({ key, plain: decryption.string(num, 0, stored).toString('hex') }).toEqual({
				key,
				plain,
			});
		}
	});

	test('every way is covered: strings of each method, object streams of each kind', () => {
		expect(new Set(opened.filter((f) => f.strings!.length).map((f) => f.method))).toEqual(
			new Set(['RC4 40-bit', 'RC4 128-bit', 'AES-128', 'AES-256']),
		);
		expect(
			opened
				.filter((f) => f.streams!.length === 3)
				.map((f) => f.method)
				.sort(),
		).toEqual(['AES-128', 'AES-256', 'RC4 128-bit']);
	});

	test('a decryption is of its object: another number or generation gives other bytes', () => {
		for (const f of opened) {
			const { object: num, plain } = f.streams![0];
			const decryption = open(f);
			const data = streamData(f.bytes, num);
			const other = (n: number, gen: number) => {
				try {
					return decryption.stream(n, gen, data).toString('base64');
				} catch (error) {
					return error as Error;
				}
			};
			if (f.method === 'AES-256') expect(other(num + 1, 1)).toBe(plain);
			else {
				expect(other(num + 1, 0)).not.toBe(plain);
				expect(other(num, 1)).not.toBe(plain);
			}
		}
	});

	test('/P read as a signed or as an unsigned 32-bit number opens the same', () => {
		for (const f of opened.filter((f) => f.r <= 4)) {
			const { values, firstId } = encryptionOf(f.bytes);
			expect(values.p).toBe(-4);
			const unsigned = openDecryption({ ...values, p: values.p! >>> 0 }, firstId);
			const { object: num, plain } = f.streams![0];
			expect(unsigned.stream(num, 0, streamData(f.bytes, num)).toString('base64')).toBe(plain);
		}
	});

	test("the crypt filters of /V 4: /Identity leaves data as it is, a stream's own filter is used", () => {
		const f = fixture('aes-128-3.pdf');
		const { values, firstId } = encryptionOf(f.bytes);
		const { object: num, plain } = f.streams![0];
		const data = streamData(f.bytes, num);
		const decryption = openDecryption(values, firstId);
		expect(decryption.stream(num, 0, data, 'Identity')).toBe(data);
		expect(decryption.stream(num, 0, data, 'StdCF').toString('base64')).toBe(plain);
		expect(decryption.embeddedFilter).toBe('StdCF');
		expect(openDecryption({ ...values, eff: 'Identity' }, firstId).embeddedFilter).toBe('Identity');

		// /StmF /Identity: streams as they are, strings still decrypted; the method named is the strings'.
		const identity = openDecryption({ ...values, stmF: undefined }, firstId);
		expect(identity.stream(num, 0, data)).toBe(data);
		expect(identity.method).toBe('AES-128');
		const title = f.strings![0];
		const stored = (object(f.bytes, title.object) as Dict)[title.key] as Buffer;
		expect(identity.string(title.object, 0, stored).toString('hex')).toBe(title.plain);
		const none = openDecryption({ ...values, stmF: 'Identity', strF: 'Identity' }, firstId);
		expect(none.string(title.object, 0, stored)).toBe(stored);
		expect(none.method).toBe('no encryption (/Identity)');
		// /CFM /None is no encryption either.
		const cfNone = { ...values, cf: { StdCF: { cfm: 'None', length: 16 } } };
		expect(openDecryption(cfNone, firstId).stream(num, 0, data)).toBe(data);
	});

	test("under /V 1 and 2 metadata is always encrypted; a stream naming 'Identity' is left as it is", () => {
		const f = fixture('rc4-128-3.pdf');
		const { values, firstId } = encryptionOf(f.bytes);
		const decryption = openDecryption({ ...values, encryptMetadata: false }, firstId);
		expect(decryption.metadataEncrypted).toBe(true);
		const { object: num, plain } = f.streams![0];
		expect(decryption.stream(num, 0, streamData(f.bytes, num), 'Identity')).toEqual(
			streamData(f.bytes, num),
		);
		expect(decryption.stream(num, 0, streamData(f.bytes, num)).toString('base64')).toBe(plain);
	});
});

describe("the keys, derived in the test from the spec's words", () => {
	const PADDING = Buffer.from(
		'28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
		'hex',
	);
	const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
	const le = (n: number, bytes: number) => Buffer.from([n, n >> 8, n >> 16].slice(0, bytes));
	const aes = (key: Buffer, data: Buffer, iv?: Buffer) => {
		const cipher = iv
			? createCipheriv('aes-128-cbc', key, iv)
			: createDecipheriv('aes-128-cbc', key, data.subarray(0, 16));
		const body = iv ? data : data.subarray(16);
		return Buffer.concat([iv ?? Buffer.alloc(0), cipher.update(body), cipher.final()]);
	};

	test.each([
		['rc4-40-3.pdf', 5],
		['aes-128-3.pdf', 16],
	])(
		'%s: an object key is MD5 of the file key, 3 bytes of number, 2 of generation (and sAlT)',
		(file, bytes) => {
			const f = fixture(file);
			const { values, firstId } = encryptionOf(f.bytes);
			// Algorithm 2: MD5 of the padding, /O, /P and the ID; 50 times again under revision 3 and 4.
			const p = Buffer.alloc(4);
			p.writeInt32LE(values.p!);
			let fileKey = md5(PADDING, values.o!, p, firstId).subarray(0, bytes);
			if (f.r >= 3) for (let i = 0; i < 50; i++) fileKey = md5(fileKey).subarray(0, bytes);
			const isAes = f.method === 'AES-128';
			const objectKey = (num: number, gen: number) =>
				md5(fileKey, le(num, 3), le(gen, 2), Buffer.from(isAes ? 'sAlT' : '')).subarray(
					0,
					Math.min(bytes + 5, 16),
				);
			// The test's keys decrypt the file's title as qpdf does...
			const title = f.strings![0];
			const stored = (object(f.bytes, title.object) as Dict)[title.key] as Buffer;
			const key = objectKey(title.object, 0);
			expect((isAes ? aes(key, stored) : rc4(key, stored)).toString('hex')).toBe(title.plain);
			// ...and the module's keys are the test's, for numbers and generations of every byte.
			const decryption = openDecryption(values, firstId);
			const plain = Buffer.from('Statement of account');
			for (const [num, gen] of [
				[0x123456, 0x0102],
				[0x000100, 0],
				[0x010000, 0],
				[7, 0x0100],
				[7, 1],
			]) {
				const key = objectKey(num, gen);
				const encrypted = isAes ? aes(key, plain, Buffer.alloc(16, num)) : rc4(key, plain);
				expect(decryption.string(num, gen, encrypted)).toEqual(plain);
			}
		},
	);

	test('revision 6: the /U of 40 more files verify the empty password (Algorithm 2.B)', () => {
		expect(r6U).toHaveLength(40);
		const { values } = encryptionOf(fixture('aes-256-r6-3.pdf').bytes);
		for (const u of r6U) {
			const decryption = openDecryption(
				{ ...values, u: Buffer.from(u, 'hex'), ue: Buffer.alloc(32) },
				Buffer.alloc(0),
			);
			expect(decryption.method).toBe('AES-256');
		}
	});
});

describe('a file that needs a password is refused, never guessed at', () => {
	test.each(refused.map((f) => [f.file, f] as const))('%s', (_file, f) => {
		expect(() => open(f)).toThrow(CryptError);
		expect(() => open(f)).toThrow(/^the PDF opens only with a password/);
	});

	test('the key depends on what the spec says it does: the /ID, /O, /P, /EncryptMetadata, /U', () => {
		const flip = (bytes: Buffer, at: number) => {
			const copy = Buffer.from(bytes);
			copy[at] ^= 1;
			return copy;
		};
		for (const f of opened) {
			const { values, firstId } = encryptionOf(f.bytes);
			const tampered: Array<[string, EncryptValues, Buffer]> =
				f.r <= 4
					? [
							['/ID', values, flip(firstId, 0)],
							['/O', { ...values, o: flip(values.o!, 31) }, firstId],
							['/P', { ...values, p: -8 }, firstId],
							['/U', { ...values, u: flip(values.u!, 0) }, firstId],
						]
					: [
							['/U hash', { ...values, u: flip(values.u!, 0) }, firstId],
							['/U validation salt', { ...values, u: flip(values.u!, 32) }, firstId],
						];
			if (f.r === 4)
				tampered.push([
					'/EncryptMetadata',
					{ ...values, encryptMetadata: !(values.encryptMetadata ?? true) },
					firstId,
				]);
			for (const [what, changed, id] of tampered)
				expect({ file: f.file, what, refused: refusal(() => openDecryption(changed, id)) }).toEqual(
					{
						file: f.file,
						what,
						refused: 'the PDF opens only with a password',
					},
				);
		}
	});

	test('the message says what to do', () => {
		expect(() => open(refused[0])).toThrow(
			'the PDF opens only with a password (its user password is not empty), which is not asked for here: remove it first (qpdf --password=... --decrypt, or "Print to PDF")',
		);
	});
});

/** The start of a CryptError's message, or what else happened. */
function refusal(run: () => unknown): string {
	try {
		run();
		return 'opened';
	} catch (error) {
		if (!(error instanceof CryptError)) return `not a CryptError: ${String(error)}`;
		return error.message.replace(/ \(.*$/, '');
	}
}

describe('handlers, methods and values not read here are named', () => {
	const { values, firstId } = encryptionOf(fixture('aes-128-3.pdf').bytes);
	const r6 = encryptionOf(fixture('aes-256-r6-3.pdf').bytes).values;
	test.each([
		['no /Filter', { ...values, filter: undefined }, /names no security handler \(\/Filter\)/],
		[
			'a certificate',
			{ ...values, filter: 'Adobe.PubSec', subFilter: 'adbe.pkcs7.s5' },
			/with the \/Adobe\.PubSec security handler/,
		],
		['/V 3', { ...values, v: 3 }, /algorithm \/V 3, which is not read here/],
		['no /V', { ...values, v: undefined }, /algorithm \/V 0/],
		['/R 7', { ...r6, r: 7 }, /revision \/R 7 of the standard security handler under \/V 5/],
		['/R 4 under /V 5', { ...r6, r: 4 }, /revision \/R 4 .* under \/V 5/],
		['/R 6 under /V 4', { ...values, r: 6 }, /revision \/R 6 .* under \/V 4/],
		[
			'a crypt filter of no known method',
			{ ...values, cf: { StdCF: { cfm: 'AESV4' } } },
			/crypt filter \/StdCF uses \/AESV4, a method not read here/,
		],
		[
			'AESV2 with a key of 40 bits',
			{ ...values, cf: { StdCF: { cfm: 'AESV2', length: 5 } } },
			/crypt filter \/StdCF uses \/AESV2 with a key of 40 bits, which is not read here/,
		],
		[
			'AESV3 under /V 4',
			{ ...values, cf: { StdCF: { cfm: 'AESV3', length: 16 } } },
			/crypt filter \/StdCF uses \/AESV3 with a key of 128 bits/,
		],
		[
			'AESV2 under /V 5',
			{ ...r6, cf: { StdCF: { cfm: 'AESV2', length: 32 } } },
			/crypt filter \/StdCF uses \/AESV2 with a key of 256 bits/,
		],
		[
			'a crypt filter /CF lacks',
			{ ...values, strF: 'Other' },
			/names the crypt filter \/Other, which its \/CF does not define/,
		],
		[
			'a key of 41 bits',
			{ ...values, v: 2, r: 3, length: 41, cf: undefined },
			/key length \(41 bits\)/,
		],
		[
			'a key of 256 bits under /V 2',
			{ ...values, v: 2, r: 3, length: 256, cf: undefined },
			/key length \(256 bits\)/,
		],
		['no /O', { ...values, o: undefined }, /has no \/O of 32 bytes/],
		['a short /U', { ...values, u: values.u!.subarray(0, 15) }, /has no \/U of 16 bytes/],
		['no /UE', { ...r6, ue: undefined }, /has no \/UE of 32 bytes/],
		['a short /U under /R 6', { ...r6, u: r6.u!.subarray(0, 40) }, /has no \/U of 48 bytes/],
	] as Array<[string, EncryptValues, RegExp]>)('%s', (_what, changed, message) => {
		let thrown: unknown;
		try {
			openDecryption(changed, firstId);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(CryptError);
		expect(thrown).toBeInstanceOf(Unknown);
		expect((thrown as Error).message).toMatch(message);
	});

	test('a stream naming a crypt filter /CF lacks is refused when it is decrypted', () => {
		const decryption = openDecryption(values, firstId);
		expect(() => decryption.stream(1, 0, Buffer.alloc(32), 'Missing')).toThrow(
			new CryptError('the PDF names the crypt filter /Missing, which its /CF does not define'),
		);
	});

	test('a crypt filter /Length in bytes or in bits; 128 bits when none', () => {
		const f = fixture('rc4-128-clear-metadata-3.pdf');
		const encryption = encryptionOf(f.bytes);
		const { object: num, plain } = f.streams![0];
		const data = streamData(f.bytes, num);
		for (const length of [16, 128, undefined]) {
			const cf = { StdCF: { cfm: 'V2', length } };
			const decryption = openDecryption({ ...encryption.values, cf }, encryption.firstId);
			expect(decryption.stream(num, 0, data).toString('base64')).toBe(plain);
		}
		const cf = { StdCF: { cfm: 'V2', length: 5 } };
		expect(refusal(() => openDecryption({ ...encryption.values, cf }, encryption.firstId))).toBe(
			'the PDF opens only with a password',
		);
	});
});

describe('damaged AES data is refused, naming the object', () => {
	test.each(['aes-128-3.pdf', 'aes-256-r6-3.pdf'])('%s', (file) => {
		const f = fixture(file);
		const decryption = open(f);
		const { object: num, plain } = f.streams![0];
		const data = streamData(f.bytes, num);
		const length = Buffer.from(plain, 'base64').length;
		const pad = 16 - (length % 16);
		expect(pad).toBeGreaterThanOrEqual(2);
		expect(data.length).toBe(16 + length + pad);
		// A byte of the block before the last flips the same byte of the last plain block.
		const changed = (offset: number, xor: number) => {
			const copy = Buffer.from(data);
			copy[data.length - 16 - offset] ^= xor;
			return copy;
		};
		const badPadding = `the encrypted stream of object ${num} 0 does not end in AES padding (damaged data, or the wrong key)`;
		expect(() => decryption.stream(num, 0, changed(1, pad))).toThrow(new CryptError(badPadding));
		expect(() => decryption.stream(num, 0, changed(1, pad ^ 17))).toThrow(
			new CryptError(badPadding),
		);
		expect(() => decryption.stream(num, 0, changed(2, 1))).toThrow(new CryptError(badPadding));
		expect(() => decryption.stream(num, 0, changed(pad, 1))).toThrow(new CryptError(badPadding));
		// The byte before the padding is data: flipped, the data decrypts with that byte flipped in
		// the last block (and the block before it, whose cipher text changed, garbled).
		const flipped = decryption.stream(num, 0, changed(pad + 1, 1));
		const expected = Buffer.from(plain, 'base64');
		expected[length - 1] ^= 1;
		const lastBlock = length + pad - 16;
		expect(flipped.subarray(lastBlock)).toEqual(expected.subarray(lastBlock));
		expect(flipped.subarray(0, lastBlock - 16)).toEqual(expected.subarray(0, lastBlock - 16));
		expect(flipped.subarray(lastBlock - 16, lastBlock)).not.toEqual(
			expected.subarray(lastBlock - 16, lastBlock),
		);

		for (const cut of [
			data.subarray(0, data.length - 1),
			data.subarray(0, 16),
			data.subarray(0, 8),
		])
			expect(() => decryption.stream(num, 0, cut)).toThrow(
				new CryptError(
					`the encrypted stream of object ${num} 0 is ${cut.length} bytes, not an AES initialization vector and whole 16-byte blocks`,
				),
			);
		expect(() => decryption.string(7, 2, Buffer.alloc(33))).toThrow(
			/encrypted string of object 7 2 is 33 bytes/,
		);
		expect(decryption.stream(num, 0, Buffer.alloc(0))).toEqual(Buffer.alloc(0));
	});
});

describe('RC4, written in the module (Node 20-24 lack it without the legacy provider)', () => {
	const hex = (text: string) => Buffer.from(text, 'hex');
	test.each([
		// The classic vectors (Wikipedia's "RC4" article).
		['Key', 'Plaintext', 'bbf316e8d940af0ad3'],
		['Wiki', 'pedia', '1021bf0420'],
		['Secret', 'Attack at dawn', '45a01f645fc35b383552544b9bf5'],
	])('key %s, %s', (key, plain, cipher) => {
		expect(rc4(Buffer.from(key), Buffer.from(plain)).toString('hex')).toBe(cipher);
		expect(rc4(Buffer.from(key), hex(cipher)).toString()).toBe(plain);
	});

	test('RFC 6229: the key streams of a 40-bit and a 128-bit key, at offsets 0 and 4096', () => {
		const stream40 = rc4(hex('0102030405'), Buffer.alloc(4112));
		expect(stream40.subarray(0, 32).toString('hex')).toBe(
			'b2396305f03dc027ccc3524a0a1118a86982944f18fc82d589c403a47a0d0919',
		);
		expect(stream40.subarray(4096).toString('hex')).toBe('ff25b58995996707e51fbdf08b34d875');
		expect(rc4(hex('0102030405060708090a0b0c0d0e0f10'), Buffer.alloc(32)).toString('hex')).toBe(
			'9ac7cc9a609d1ef7b2932899cde41b975248c4959014126a6e8a84f11d1a9e1c',
		);
	});

	test('empty data gives empty data', () => {
		expect(rc4(hex('0102030405'), Buffer.alloc(0))).toEqual(Buffer.alloc(0));
	});
});
