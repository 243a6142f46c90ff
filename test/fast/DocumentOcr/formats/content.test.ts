/**
 * The content reader (formats/content.ts): which resource names a content stream's operators use,
 * by category, as a page copy keeps them (issue 42). Every operator that names a resource; the
 * names that are operands' parts (in arrays and dictionaries) and the bytes that are not operators
 * at all (strings, comments, an inline image's data) never counted. Every case is read whole, one
 * byte at a time and cut at random points (twenty seeds): the names found, in order, never depend
 * on how the bytes arrive.
 */
import { ContentReader, type Category } from '../../../../nodes/DocumentOcr/formats/content';
import { Work } from '../../../../nodes/DocumentOcr/formats/limits';

type Found = Array<[Category, string]>;

/** The pieces of `bytes` cut at `cuts` sorted points. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
	const sorted = [...new Set(points)].sort((a, b) => a - b);
	const pieces: Buffer[] = [];
	let at = 0;
	for (const point of sorted) {
		pieces.push(bytes.subarray(at, point));
		at = point;
	}
	pieces.push(bytes.subarray(at));
	return pieces;
}

/** A small seeded generator (mulberry32): the same seed, the same cuts. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** What the reader finds in `pieces`, pushed one after the other. */
function read(pieces: Uint8Array[]): Found {
	const found: Found = [];
	const reader = new ContentReader((category, name) => found.push([category, name]), new Work(0));
	for (const piece of pieces) reader.push(piece);
	reader.end();
	return found;
}

/** Every way the bytes are fed: whole, a byte at a time, cut at random points. */
function chunkings(content: string | Buffer): Array<[string, Buffer[]]> {
	const bytes = typeof content === 'string' ? Buffer.from(content, 'latin1') : content;
	const ways: Array<[string, Buffer[]]> = [
		['whole', [bytes]],
		['a byte at a time', [...bytes].map((byte) => Buffer.from([byte]))],
	];
	for (let seed = 1; seed <= 20; seed++) {
		const next = random(seed);
		const points = Array.from({ length: 1 + Math.floor(next() * 12) }, () =>
			Math.floor(next() * bytes.length),
		);
		ways.push([`seed ${seed}`, cut(bytes, points)]);
	}
	return ways;
}

/** What every chunking of `content` finds: the same for all, else the test names the chunking. */
function found(content: string | Buffer): Found {
	const results = chunkings(content).map(([way, pieces]) => [way, read(pieces)] as const);
	const [, whole] = results[0];
	for (const [way, result] of results) expect({ way, result }).toEqual({ way, result: whole });
	return whole;
}

describe('each operator that names a resource, in every chunking', () => {
	test('Do, Tf, sh, scn, SCN, cs, CS, gs, BDC, DP: each its category', () => {
		const ops =
			'q /Im1 Do Q BT /F1 12 Tf ET /Sh1 sh /P1 scn /P2 SCN /CS1 cs /CS2 CS /GS1 gs /OC /MC1 BDC EMC /Tag /MC2 DP';
		expect(found(ops)).toEqual([
			['XObject', 'Im1'],
			['Font', 'F1'],
			['Shading', 'Sh1'],
			['Pattern', 'P1'],
			['Pattern', 'P2'],
			['ColorSpace', 'CS1'],
			['ColorSpace', 'CS2'],
			['ExtGState', 'GS1'],
			['Properties', 'MC1'],
			['Properties', 'MC2'],
		]);
	});

	test('operators that take a name but no resource name none', () => {
		expect(found('/Tag BMC EMC /Tag MP /Perceptual ri 0.5 0.2 0.1 sc 1 0 0 SCN 3 w')).toEqual([]);
	});

	test('Tf takes the font before the size; scn and SCN the pattern after the components', () => {
		expect(found('/F2 9.5 Tf /F3 -12 Tf 0.1 0.2 0.3 /P4 scn 1 /P5 SCN 0.5 scn')).toEqual([
			['Font', 'F2'],
			['Font', 'F3'],
			['Pattern', 'P4'],
			['Pattern', 'P5'],
		]);
	});

	test('no white space between tokens: delimiters end them', () => {
		expect(found('q/Im1 Do/F1 12 Tf/OC/MC1 BDC[(a)1(b)]TJ/Im2 Do')).toEqual([
			['XObject', 'Im1'],
			['Font', 'F1'],
			['Properties', 'MC1'],
			['XObject', 'Im2'],
		]);
	});

	test('a token the stream ends with is read at its end', () => {
		expect(found('/Im1 Do')).toEqual([['XObject', 'Im1']]);
	});

	test('many operands before an operator: the last ones count', () => {
		expect(found(`${'1 '.repeat(200)}/P9 scn ${'/A '.repeat(50)}/Im3 Do`)).toEqual([
			['Pattern', 'P9'],
			['XObject', 'Im3'],
		]);
	});
});

describe('BDC and DP: a name of /Properties, or a property list given inline', () => {
	test('a name is a resource; an inline dictionary is not, nor the names inside it', () => {
		const ops =
			'/OC /oc1 BDC EMC /Span << /MCID 0 /ActualText (x) /Im1 /Im2 >> BDC EMC /P<</MCID 3>>BDC EMC /Tag << /OC /oc2 >> DP';
		expect(found(ops)).toEqual([['Properties', 'oc1']]);
	});

	test('nested dictionaries and arrays inside a property list are one operand', () => {
		expect(
			found(
				'/Artifact << /Attached [/Top /Bottom] /BBox [0 0 1 1] /X << /Y /Z >> >> BDC EMC /OC /oc3 BDC',
			),
		).toEqual([['Properties', 'oc3']]);
	});
});

describe('names', () => {
	test('#xx escapes decoded, as resource dictionaries decode their keys', () => {
		expect(found('/Im#31 Do /My#20Form Do /A#2fB Do /#41 Do /X#zz Do /F#231 9 Tf')).toEqual([
			['XObject', 'Im1'],
			['XObject', 'My Form'],
			['XObject', 'A/B'],
			['XObject', 'A'],
			['XObject', 'X#zz'],
			['Font', 'F#1'],
		]);
	});

	test('names inside arrays and dictionaries are not operands', () => {
		const ops =
			'[/Foo] TJ [/Im9] Do /Im1 [/Foo] Do << /Im2 /X >> Do [[/A] /B] /Im3 Do [ /Im4 Do ] TJ';
		expect(found(ops)).toEqual([['XObject', 'Im3']]);
	});

	test('a name longer than 127 bytes is a name (objects.ts reads such keys; pdf.js and poppler draw them)', () => {
		// ISO 32000's 127 bytes is a portability note, not a rule of the syntax: a resource dictionary
		// whose key is this long is read by the copier, so the page's use of it must be seen too.
		const long = `Im${'0123456789'.repeat(13)}`;
		expect(found(`/${long} Do /F${'x'.repeat(200)} 12 Tf`)).toEqual([
			['XObject', long],
			['Font', `F${'x'.repeat(200)}`],
		]);
	});

	test('an empty name names nothing that exists, and is read as any other', () => {
		expect(found('/ Do /Im1 Do')).toEqual([
			['XObject', ''],
			['XObject', 'Im1'],
		]);
	});
});

describe('strings and comments hold no operators', () => {
	test('a literal string with escaped and nested parentheses', () => {
		const ops = String.raw`(Do\) /X Do) Tj (a\\) /X1 Do (nested (paren /X2 Do) still /X3 Do) Tj (\(/X4 Do) Tj /X5 Do`;
		expect(found(ops)).toEqual([
			['XObject', 'X1'],
			['XObject', 'X5'],
		]);
	});

	test('a string over lines, with an octal escape and a backslash at the end of a line', () => {
		expect(found('(line one\\\n/X Do\\051 still) Tj (\\\\\\)) Tj /Im1 Do')).toEqual([
			['XObject', 'Im1'],
		]);
	});

	test('hexadecimal strings, empty ones, and << inside none', () => {
		expect(found('<2F58 20446F> Tj <> Tj <2f4e616d65> Tj [<41> 10 <42>] TJ /Im1 Do')).toEqual([
			['XObject', 'Im1'],
		]);
	});

	test('comments to the end of the line, LF or CR', () => {
		expect(
			found('% /X1 Do\n/X2 Do %(unclosed /X3 Do\r/X4 Do %<< /X5 Do\r\n/F1 1 Tf%\n/X6 Do'),
		).toEqual([
			['XObject', 'X2'],
			['XObject', 'X4'],
			['Font', 'F1'],
			['XObject', 'X6'],
		]);
	});

	test('a stray > or ] is passed over', () => {
		expect(found('> /Im1 Do ] /Im2 Do >> /Im3 Do')).toEqual([
			['XObject', 'Im1'],
			['XObject', 'Im2'],
			['XObject', 'Im3'],
		]);
	});
});

/** Image data with every byte but the ones that would end it (white space, E, I in a row). */
const BINARY = Buffer.from(
	Array.from({ length: 512 }, (_, i) => i & 0xff).filter((b) => b !== 0x45 && b !== 0x49),
);

describe('an inline image: its /CS a colour space resource, nothing in its data counted', () => {
	test('data holding operators, names, strings, comments and dictionary brackets', () => {
		const data = ' /Im7 Do (unclosed << /Im8 Do % /F1 1 Tf [ /P1 scn ';
		const ops = `q BI /W 4 /H 1 /CS /CS9 /BPC 8 ID ${data}\nEI Q /Im1 Do`;
		expect(found(ops)).toEqual([
			['ColorSpace', 'CS9'],
			['XObject', 'Im1'],
		]);
	});

	test('binary data of every byte value', () => {
		const content = Buffer.concat([
			Buffer.from('BI /W 10 /H 50 /ColorSpace /Cs1 /BPC 8 /F /DCT ID ', 'latin1'),
			BINARY,
			Buffer.from(' Do /Im6 Do\nEI /Im1 Do', 'latin1'),
		]);
		expect(found(content)).toEqual([
			['ColorSpace', 'Cs1'],
			['XObject', 'Im1'],
		]);
	});

	test('entries whose values are arrays and dictionaries', () => {
		const ops =
			'BI /W 1 /H 1 /BPC 1 /IM true /D [1 0] /DP << /K -1 /Columns 1 >> /F [/AHx] ID 00>\nEI BI /W 1 /H 1 /CS /CS3 /BPC 8 ID \x00 EI /Im2 Do';
		expect(found(ops)).toEqual([
			['ColorSpace', 'CS3'],
			['XObject', 'Im2'],
		]);
	});

	test('/L (or /Length): the data is passed over by its length, an EI inside it included', () => {
		const inside = ' EI /Im7 Do ';
		const ops = (key: string) =>
			`BI /W ${inside.length} /H 1 /CS /Cs2 /BPC 8 /${key} ${inside.length} ID ${inside}\nEI /Im1 Do`;
		for (const key of ['L', 'Length'])
			expect(found(ops(key))).toEqual([
				['ColorSpace', 'Cs2'],
				['XObject', 'Im1'],
			]);
		// Without /L, the first white space, E, I, white space ends the data (as readers take it).
		expect(found(`BI /W 1 /H 1 /BPC 8 ID ${inside}\nEI /Im1 Do`)).toEqual([
			['XObject', 'Im7'],
			['XObject', 'Im1'],
		]);
	});

	test('no filter and a device colour space: the data is passed over by its size, an EI inside it included (review 42, b1)', () => {
		// 2 rows of 6 samples of 1 component (/G), 8 bits: 12 bytes, holding "\nEI (" and "/Im7 Do".
		const data = '\nEI (/Im7 Do';
		expect(data.length).toBe(12);
		// (A device space's name is told too: no resource dictionary holds it.)
		for (const [space, width] of [
			['G', 6],
			['DeviceRGB', 2],
		] as const)
			expect(found(`BI /W ${width} /H 2 /CS /${space} /BPC 8 ID ${data}EI /Im1 Do`)).toEqual([
				['ColorSpace', space],
				['XObject', 'Im1'],
			]);
		// An image mask: one bit a sample, rows of whole bytes (9 samples: 2 bytes a row).
		expect(found(`BI /W 9 /H 6 /IM true ID ${data}\nEI /Im1 Do`)).toEqual([['XObject', 'Im1']]);
	});

	test('EI followed by a delimiter, or at the end of the stream', () => {
		expect(found('BI /W 1 /H 1 ID x EI/Im1 Do BI /W 1 /H 1 ID y EI')).toEqual([['XObject', 'Im1']]);
		expect(found('BI ID \x00EIx EI2 EI\n/Im2 Do')).toEqual([['XObject', 'Im2']]);
	});

	test('two images in a row, the operands before BI forgotten', () => {
		const ops = '/Im5 BI /W 1 /H 1 /CS /A ID a EI Do BI /CS /B ID b EI /Im1 Do';
		expect(found(ops)).toEqual([
			['ColorSpace', 'A'],
			['ColorSpace', 'B'],
			['XObject', 'Im1'],
		]);
	});
});

describe('the work: every byte is charged', () => {
	test('the meter grows by the bytes pushed', () => {
		const work = new Work(0);
		const reader = new ContentReader(() => undefined, work);
		const before = work.done;
		reader.push(Buffer.from('/Im1 Do '.repeat(1000), 'latin1'));
		expect(work.done - before).toBe(8000);
	});
});
