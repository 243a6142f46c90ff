/**
 * A content stream's filters (formats/filters.ts `decodedChunks`): ASCIIHex, ASCII85, LZW (both
 * /EarlyChange values), RunLength and Flate, their abbreviations and chains, each against
 * encoders written here (checked on the PDF spec's own examples) or zlib. A chain after Flate
 * gets its input in the 16 kB pieces the inflater gives, cut wherever they fall: shifted a byte
 * at a time, the result never changes. An unknown filter, a predictor or bad data is Unreadable,
 * and a stream decoding past the file's content budget (`Work.content`) is stopped there.
 */
import { decodedChunks, Unreadable } from '../../../../nodes/DocumentOcr/formats/filters';
import { Work } from '../../../../nodes/DocumentOcr/formats/limits';
import { selectPdfPages } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import type { PdfValue } from '../../../../nodes/DocumentOcr/formats/values';
import {
	bomb,
	checkWritten,
	classic,
	deflate,
	image,
	inflated,
	L,
	pageResources,
	stream,
	text,
} from './copies';

/** LZW data (/EarlyChange 1) of `cycles` rounds of codes that each name the string just made. */
function lzwBomb(cycles: number): Buffer {
	const out: number[] = [];
	let held = 0;
	let bits = 0;
	const put = (code: number, width: number) => {
		held = (held << width) | code;
		bits += width;
		for (; bits >= 8; bits -= 8) out.push((held >>> (bits - 8)) & 0xff);
		held &= (1 << bits) - 1;
	};
	put(256, 9);
	for (let c = 0; c < cycles; c++) {
		let width = 9;
		put(0, width);
		for (let next = 258; next < 4095; ) {
			put(next, width);
			next++;
			if (next >= (1 << width) - 1 && width < 12) width++;
		}
		put(256, width);
	}
	put(257, 9);
	if (bits > 0) out.push((held << (8 - bits)) & 0xff);
	return Buffer.from(out);
}

/** RunLength data of `runs` runs of 128 spaces (2 bytes each). */
function runLengthBomb(runs: number): Buffer {
	const out = Buffer.alloc(runs * 2 + 1);
	for (let i = 0; i < runs; i++) [out[2 * i], out[2 * i + 1]] = [129, 0x20];
	out[runs * 2] = 128;
	return out;
}

/** The decoded bytes of `raw` through `filters` (names) with `parms`, and how many chunks came. */
async function decode(
	raw: Buffer,
	filters: string[] | string,
	parms?: PdfValue,
	work = new Work(raw.length),
): Promise<{ data: Buffer; chunks: number }> {
	const names = Array.isArray(filters) ? filters.map((name) => ({ name })) : { name: filters };
	const chunks: Uint8Array[] = [];
	for await (const chunk of decodedChunks(raw, names, parms, work)) chunks.push(chunk);
	return { data: Buffer.concat(chunks), chunks: chunks.length };
}
/** The decoded bytes, as latin1 text (jest compares long strings fast, long Buffers slowly). */
const decoded = async (raw: Buffer, filters: string[] | string, parms?: PdfValue) =>
	text((await decode(raw, filters, parms)).data);

/** ASCII85 (ISO 32000-1 §7.4.3): groups of four bytes as five digits, `z` for four zeros. */
function ascii85(data: Buffer, zeros = true): string {
	let out = '';
	for (let i = 0; i < data.length; i += 4) {
		const group = data.subarray(i, i + 4);
		let value = Buffer.concat([group, Buffer.alloc(4 - group.length)]).readUInt32BE(0);
		if (zeros && group.length === 4 && value === 0) {
			out += 'z';
			continue;
		}
		const digits: number[] = [];
		for (let k = 0; k < 5; k++) {
			digits.unshift(value % 85);
			value = Math.floor(value / 85);
		}
		out += String.fromCharCode(...digits.slice(0, group.length + 1).map((d) => d + 33));
	}
	return `${out}~>`;
}

/** RunLength (§7.4.5): runs of two to 128 equal bytes as 257 - n and the byte, else literals. */
function runLength(data: Buffer): Buffer {
	const out: number[] = [];
	let i = 0;
	while (i < data.length) {
		let run = 1;
		while (i + run < data.length && data[i + run] === data[i] && run < 128) run++;
		if (run >= 2) {
			out.push(257 - run, data[i]);
			i += run;
			continue;
		}
		const literal: number[] = [];
		while (i < data.length && literal.length < 128 && data[i + 1] !== data[i])
			literal.push(data[i++]);
		out.push(literal.length - 1, ...literal);
	}
	out.push(128);
	return Buffer.from(out);
}

/**
 * LZW (§7.4.4): 9- to 12-bit codes after a clear code, one entry a code; the width grows one code
 * early with /EarlyChange 1; a clear code before the table fills. Checked below on §7.4.4.2's
 * example, and against pdf.js's decoder when written.
 */
function lzw(data: Buffer, early: 0 | 1): Buffer {
	let table = new Map<number, number>();
	let next = 258;
	let width = 9;
	const bits: number[] = [];
	const put = (code: number) => {
		for (let b = width - 1; b >= 0; b--) bits.push((code >> b) & 1);
	};
	put(256);
	let prefix = -1;
	for (const c of data) {
		if (prefix < 0) {
			prefix = c;
			continue;
		}
		const known = table.get(prefix * 256 + c);
		if (known !== undefined) {
			prefix = known;
			continue;
		}
		put(prefix);
		table.set(prefix * 256 + c, next++);
		if (next + early > 1 << width && width < 12) width++;
		if (next === 4094) {
			put(256);
			[table, next, width] = [new Map(), 258, 9];
		}
		prefix = c;
	}
	if (prefix >= 0) put(prefix);
	put(257);
	const out = Buffer.alloc(Math.ceil(bits.length / 8));
	bits.forEach((bit, i) => (out[i >> 3] |= bit << (7 - (i & 7))));
	return out;
}

/** Bytes of a content stream's kind: operators and numbers, `n` of them, the same for a seed. */
function contentLike(n: number, seed = 1): Buffer {
	const words = [
		'q',
		'Q',
		'/Im1 Do',
		'0 0 m',
		'12.5 700 l',
		'S',
		'BT',
		'/F1 9 Tf',
		'(text) Tj',
		'ET',
	];
	const out: string[] = [];
	let state = seed;
	for (let length = 0; length < n; length += out[out.length - 1].length + 1) {
		state = (state * 1103515245 + 12345) & 0x7fffffff;
		out.push(`${words[state % words.length]} ${state % 997}`);
	}
	return L(out.join(' ').slice(0, n));
}
/** Bytes of every value, in no order (little to gain for LZW, none for RunLength). */
const noisy = (n: number) =>
	Buffer.from(Array.from({ length: n }, (_, i) => (i * 181 + (i >> 3) * 7) & 0xff));

describe('each filter against a known encoding', () => {
	test('ASCIIHexDecode: pairs of digits either case, white space passed over, > the end', async () => {
		expect(await decoded(L('48 65\n6c6C\t6F>'), 'ASCIIHexDecode')).toBe('Hello');
		// An odd last digit is followed by a 0; what follows > is not data.
		expect(await decoded(L('4142 4>ZZZ'), 'AHx')).toBe('AB@');
		expect(await decoded(L('41'), 'AHx')).toBe('A');
	});

	test('ASCII85Decode: the spec example, z, a partial last group, ~>', async () => {
		const man = L('Man is distinguished');
		expect(ascii85(man)).toBe('9jqo^BlbD-BleB1DJ+*+F(f,q~>');
		expect(await decoded(L('9jqo^BlbD-BleB1DJ+*+F(f,q~>'), 'ASCII85Decode')).toBe(text(man));
		expect(await decoded(L('z 9jq\no^ z~>'), 'A85')).toBe('\0\0\0\0Man \0\0\0\0');
		for (let n = 1; n <= 4; n++) {
			const data = L('abcdefgh'.slice(0, 4 + n));
			expect(await decoded(L(ascii85(data)), 'A85')).toBe(text(data));
		}
		// Without ~>, the data ends with the stream; after it, nothing is data.
		expect(await decoded(L('9jqo^'), 'A85')).toBe('Man ');
		expect(await decoded(L('9jqo^~>9jqo^'), 'A85')).toBe('Man ');
	});

	test("LZWDecode: the spec's example (§7.4.4.2), and both /EarlyChange values", async () => {
		const example = Buffer.from([0x2d, 0x2d, 0x2d, 0x2d, 0x2d, 0x41, 0x2d, 0x2d, 0x2d, 0x42]);
		expect(lzw(example, 1).toString('hex')).toBe('800b6050220c0c8501');
		expect(await decoded(Buffer.from('800b6050220c0c8501', 'hex'), 'LZWDecode')).toBe(
			text(example),
		);
		// Long enough for 10-, 11- and 12-bit codes and a clear code when the table fills.
		const data = contentLike(60_000);
		const early = { dict: { EarlyChange: 1 } };
		const late = { dict: { EarlyChange: 0 } };
		expect(await decoded(lzw(data, 1), 'LZWDecode')).toBe(text(data));
		expect(await decoded(lzw(data, 1), 'LZW', early)).toBe(text(data));
		expect(await decoded(lzw(data, 0), 'LZW', late)).toBe(text(data));
		// The value matters: read with the other one, the codes are misread.
		await expect(decoded(lzw(data, 0), 'LZW', early)).rejects.toThrow(Unreadable);
	});

	test('RunLengthDecode: literals, runs, 128 the end', async () => {
		expect(await decoded(Buffer.from([2, 0x61, 0x62, 0x63, 254, 0x78, 128, 0, 0x7a]), 'RL')).toBe(
			'abcxxx',
		);
		for (const data of [contentLike(5000), noisy(5000), Buffer.alloc(1000, 7)])
			expect(await decoded(runLength(data), 'RunLengthDecode')).toBe(text(data));
	});

	test('FlateDecode, and no filter at all', async () => {
		const data = contentLike(100_000);
		expect(await decoded(deflate(data), 'FlateDecode')).toBe(text(data));
		expect(await decoded(deflate(data), 'Fl')).toBe(text(data));
		expect(await decoded(data, [])).toBe(text(data));
	});

	test('chains in the order given: [/A85 /Fl], [/AHx /LZW /RL]; /Crypt passed over', async () => {
		const data = contentLike(20_000);
		expect(await decoded(L(ascii85(deflate(data))), ['ASCII85Decode', 'FlateDecode'])).toBe(
			text(data),
		);
		const three = L(lzw(runLength(data), 1).toString('hex'));
		expect(await decoded(three, ['AHx', 'LZW', 'RL'])).toBe(text(data));
		expect(await decoded(deflate(data), ['Crypt', 'FlateDecode'])).toBe(text(data));
	});
});

describe('after Flate, a filter reads its input in pieces: cut anywhere, the same bytes', () => {
	/** The data, and its encoding preceded by `shift` bytes the filter passes over (or shifted). */
	type Made = { raw: Buffer; data: Buffer; parms?: PdfValue };
	const hex = (shift: number, data = noisy(40_000)): Made => ({
		raw: L(' '.repeat(shift) + data.toString('hex') + '>'),
		data,
	});
	const a85 = (shift: number, data = Buffer.concat([noisy(30_000), Buffer.alloc(4000)])): Made => ({
		raw: L('\n'.repeat(shift) + ascii85(data)),
		data,
	});
	const codes = (shift: number, data = contentLike(80_000 + shift, shift + 1)): Made => ({
		raw: lzw(data, 0),
		data,
		parms: [null, { dict: { EarlyChange: 0 } }],
	});
	const runs = (shift: number): Made => {
		const data = Buffer.concat([
			noisy(shift),
			contentLike(30_000),
			Buffer.alloc(9000, 1),
			noisy(2e4),
		]);
		return { raw: runLength(data), data };
	};

	test.each([
		['ASCIIHexDecode', hex],
		['ASCII85Decode', a85],
		['LZWDecode', codes],
		['RunLengthDecode', runs],
	])('%s', async (name, make) => {
		for (const shift of [0, 1, 2, 3, 5, 7, 11]) {
			const { raw, data, parms } = make(shift);
			const { data: out, chunks } = await decode(deflate(raw), ['FlateDecode', name], parms);
			expect({ shift, same: out.equals(data), length: out.length }).toEqual({
				shift,
				same: true,
				length: data.length,
			});
			expect(chunks).toBeGreaterThan(1);
		}
	});
});

describe('what cannot be read is Unreadable, saying why', () => {
	test.each([
		['an image filter', L('data'), 'JBIG2Decode', /encoded with \/JBIG2Decode, which is not read/],
		['DCT', L('data'), 'DCTDecode', /\/DCTDecode/],
		['a byte not hexadecimal', L('41 4G>'), 'ASCIIHexDecode', /not hexadecimal/],
		['a byte not base 85', L('9jqo^v~>'), 'ASCII85Decode', /not base 85/],
		['one digit left over', L('9jqo^9~>'), 'ASCII85Decode', /ends inside a base-85 group/],
		['a group past 2^32', L('uuuuu~>'), 'ASCII85Decode', /past 2\^32/],
		[
			'an LZW code not yet defined',
			Buffer.from([0x80, 0x4b, 0x00]),
			'LZW',
			/LZW code out of order/,
		],
	])('%s', async (_what, raw, filter, message) => {
		await expect(decoded(raw, filter)).rejects.toThrow(Unreadable);
		await expect(decoded(raw, filter)).rejects.toThrow(message);
	});

	test('a predictor', async () => {
		const parms = { dict: { Predictor: 12, Columns: 3 } };
		await expect(decoded(deflate(L('q Q')), 'Fl', parms)).rejects.toThrow(/\/Predictor 12/);
	});

	test('a filter that is not a name', async () => {
		const chunks = decodedChunks(L('x'), 7, undefined, new Work(1));
		await expect(chunks.next()).rejects.toThrow(/encoded with \/\?/);
	});
});

describe('Flate data that stops making sense ends the content, as readers draw it', () => {
	test('data damaged after its start: what came before is read, nothing is Unreadable', async () => {
		const whole = deflate(contentLike(5000));
		const cut = await decoded(whole.subarray(0, 900), 'Fl');
		expect(cut.length).toBeGreaterThan(0);
		expect(text(contentLike(5000)).startsWith(cut)).toBe(true);
		expect(await decoded(L('not zlib at all'), 'FlateDecode')).toBe('');
	});
});

describe('the content budget', () => {
	test('every decoded byte counts against it and is charged', async () => {
		const data = contentLike(50_000);
		const raw = deflate(data);
		const work = new Work(raw.length);
		const [budget, done] = [work.content, work.done];
		await decode(raw, 'FlateDecode', undefined, work);
		expect(budget - work.content).toBe(data.length);
		expect(work.done - done).toBe(raw.length + data.length);
	});

	test.each([
		['LZWDecode', () => lzwBomb(4), 'LZW: each code names the string just made'],
		['RunLengthDecode', () => runLengthBomb(200_000), 'RunLength: 2 bytes make 128'],
	])(
		'a %s bomb gives 64 kB at a time and is stopped at the budget (review 42, c1): %s',
		async (filter, make) => {
			const raw = make();
			const work = new Work(raw.length);
			const budget = work.content;
			let largest = 0;
			let given = 0;
			const reading = (async () => {
				for await (const chunk of decodedChunks(raw, { name: filter }, undefined, work)) {
					largest = Math.max(largest, chunk.length);
					given += chunk.length;
				}
			})();
			await expect(reading).rejects.toThrow(/decode to more bytes than a file of its size may/);
			expect(largest).toBeLessThanOrEqual(65_536 + 4096);
			expect(given).toBeLessThan(budget + 65_536 + 4096);
		},
	);

	test('a bomb is stopped soon after the budget, not inflated whole', async () => {
		const raw = bomb(64);
		const work = new Work(raw.length);
		const budget = work.content;
		expect(budget).toBeLessThan(16 << 20);
		await expect(decode(raw, 'FlateDecode', undefined, work)).rejects.toThrow(
			/decode to more bytes than a file of its size may/,
		);
		expect(work.done).toBeLessThan(budget + (1 << 20));
	});
});

/**
 * One page whose content stream is `encoded` (with the dictionary entries `dict`) and draws /Im1
 * of a resource dictionary it shares (object 5) with /Im2, which it does not draw: a copy that
 * reads the content wrong either refuses (shared resources) or drops /Im1.
 */
const encodedPage = (encoded: Buffer, dict: string) =>
	classic([
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 200] >>',
		'<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 4 0 R >>',
		stream(text(encoded), dict),
		'<< /XObject << /Im1 6 0 R /Im2 7 0 R >> >>',
		image('IMAGE-THE-PAGE-DRAWS'),
		image('IMAGE-IT-DOES-NOT'),
	]);

/** The page of `encodedPage` copied: its resources hold /Im1 alone, its image is there. */
async function copiesIm1(encoded: Buffer, dict: string): Promise<void> {
	const out = await checkWritten(await selectPdfPages(encodedPage(encoded, dict), [1]), 1);
	expect(pageResources(out)).toMatch(/^<< \/XObject << \/Im1 \d+ 0 R >> >>$/);
	expect(inflated(out)).toContain('IMAGE-THE-PAGE-DRAWS');
	expect(inflated(out)).not.toContain('IMAGE-IT-DOES-NOT');
}

describe("a page's content stream in each filter, read by the copy", () => {
	const ops = Buffer.concat([contentLike(6000), L(' q 200 0 0 200 0 0 cm /Im1 Do Q')]);

	test.each([
		['ASCIIHexDecode', L(ops.toString('hex')), '/Filter /ASCIIHexDecode '],
		['ASCII85Decode', L(ascii85(ops)), '/Filter /ASCII85Decode '],
		['LZWDecode', lzw(ops, 1), '/Filter /LZWDecode '],
		[
			'LZWDecode, /EarlyChange 1',
			lzw(ops, 1),
			'/Filter /LZWDecode /DecodeParms << /EarlyChange 1 >> ',
		],
		['RunLengthDecode', runLength(ops), '/Filter /RunLengthDecode '],
		['[/A85 /Fl]', L(ascii85(deflate(ops))), '/Filter [/A85 /Fl] '],
		[
			'[/ASCII85Decode /FlateDecode] with [null null]',
			L(ascii85(deflate(ops))),
			'/Filter [/ASCII85Decode /FlateDecode] /DecodeParms [null null] ',
		],
	])('%s', async (_name, encoded, dict) => {
		await copiesIm1(encoded, dict);
	});

	test('FlateDecode whose Adler-32 is wrong or missing: read as pdf.js, poppler and MuPDF read it', async () => {
		// The readers a service renders with inflate the data and pass over the checksum; the
		// copy refuses the whole selection (the page shares its resources) for want of 4 bytes.
		const good = deflate(ops);
		const wrong = Buffer.from(good);
		wrong[wrong.length - 1] ^= 0xff;
		for (const data of [wrong, good.subarray(0, good.length - 4)])
			await copiesIm1(data, '/Filter /FlateDecode ');
	});

	test('LZWDecode, /EarlyChange 0: the copy reads the stream with the value its dictionary gives', async () => {
		// decodedChunks reads /EarlyChange 0 right (above); the copy must hand it the value too.
		await copiesIm1(lzw(ops, 0), '/Filter /LZWDecode /DecodeParms << /EarlyChange 0 >> ');
	});
});
