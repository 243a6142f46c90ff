/**
 * Copies of PDFs that open without a password (formats/pdf-write.ts over crypt.ts, issue 42):
 * every encrypted fixture that opens (test/fixtures/pages/encrypted, MANIFEST.json: RC4 40 and
 * 128 bits, AES-128, AES-256 of revisions 5 and 6, object streams, metadata in the clear), each
 * page selected and split: the page's text the source's, its annotation's UTF-16 /Contents
 * decrypted, nothing of the document's (its /Info title, its XMP), no /Encrypt, `decrypted` the
 * method; the user-password files refused. And a file encrypted here (RC4 40-bit, revision 2:
 * the key derived from the spec's algorithms 2-4) with a form and a layer, whose strings in the
 * new catalog (/AcroForm /DA) and in held fields must come out decrypted too.
 */
import { createHash } from 'crypto';
import { FormatError } from '../../../../nodes/DocumentOcr/formats/limits';
import { selectPdfPages, splitPdf } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import { checkWritten, classic, inflated, L, objectOf, text } from './copies';

interface Fixture {
	file: string;
	method: string;
	strings?: Array<{ object: number; key: string; text: string; plain: string }>;
	bytes: Buffer;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadEncrypted } = require('../../../fixtures/pages/encrypted/load.js') as {
	loadEncrypted(): { files: Fixture[] };
};
const { files } = loadEncrypted();
const opened = files.filter((f) => f.method !== 'refused');
const refused = files.filter((f) => f.method === 'refused');

/** The bytes of the string token that follows `/key` in `body`: a hex or a literal string. */
function stringAfter(body: string, key: string): Buffer {
	const hex = new RegExp(`/${key}\\s*<([0-9A-Fa-f\\s]*)>`).exec(body);
	if (hex) return Buffer.from(hex[1].replace(/\s/g, ''), 'hex');
	const literal = new RegExp(`/${key}\\s*\\(((?:\\\\[\\s\\S]|[^\\\\)])*)\\)`).exec(body);
	if (!literal) throw new Error(`no string under /${key} in ${body.slice(0, 200)}`);
	const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
	const plain = literal[1].replace(/\\([0-7]{1,3}|[\s\S])/g, (_all, c: string) =>
		/^[0-7]/.test(c) ? String.fromCharCode(parseInt(c, 8) & 0xff) : (escapes[c] ?? c),
	);
	return L(plain);
}
const utf16 = (value: string) =>
	Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(value, 'utf16le').swap16()]);
/** The text each page of the fixtures' source shows. */
const pageText = (page: number) => `(Statement, page ${page} of 3) Tj`;

describe.each(opened.map((fixture) => [fixture.file, fixture] as const))('%s', (_file, fixture) => {
	test('each page alone: its text, decrypted, nothing of the document, no /Encrypt', async () => {
		for (const page of [1, 2, 3]) {
			const written = await selectPdfPages(fixture.bytes, [page]);
			expect(written.decrypted).toBe(fixture.method);
			const buf = await checkWritten(written, 1);
			const all = inflated(buf);
			expect([1, 2, 3].filter((p) => all.includes(pageText(p)))).toEqual([page]);
			expect(all).not.toMatch(/Statement of account|xmpmeta|make-encrypted|\/Encrypt|\/ID/);
			const annotation = /(\d+) 0 obj\n<<[^\n]*\/Subtype \/Text/.exec(text(buf));
			expect(annotation !== null).toBe(page === 1);
			if (annotation)
				expect(stringAfter(objectOf(buf, Number(annotation[1])), 'Contents')).toEqual(
					utf16('Paid in full: 42 €'),
				);
		}
	});

	test('every page, and a split one page a part', async () => {
		const all = await selectPdfPages(fixture.bytes, [1, 2, 3]);
		expect(all.decrypted).toBe(fixture.method);
		const every = inflated(await checkWritten(all, 3));
		expect([1, 2, 3].map((p) => every.indexOf(pageText(p)) >= 0)).toEqual([true, true, true]);
		const parts = await splitPdf(fixture.bytes, (size) => size <= all.length - 200);
		expect(parts.length).toBeGreaterThan(1);
		expect(parts.flatMap((part) => part.pages)).toEqual([1, 2, 3]);
		for (const part of parts) {
			expect(part.decrypted).toBe(fixture.method);
			const held = inflated(await checkWritten(part, part.pages.length));
			expect([1, 2, 3].filter((p) => held.includes(pageText(p)))).toEqual(part.pages);
		}
	});
});

test.each(refused.map((fixture) => [fixture.file, fixture] as const))(
	'%s: refused, a password asked for',
	async (_file, fixture) => {
		for (const run of [
			() => selectPdfPages(fixture.bytes, [1]),
			() => splitPdf(fixture.bytes, () => true),
		]) {
			await expect(run()).rejects.toThrow(FormatError);
			await expect(run()).rejects.toThrow(/opens only with a password .* nothing is written$/);
		}
	},
);

/** RC4 (the same function encrypts and decrypts). */
function rc4(key: Buffer, data: Buffer): Buffer {
	const s = Array.from({ length: 256 }, (_, i) => i);
	for (let i = 0, j = 0; i < 256; i++) {
		j = (j + s[i] + key[i % key.length]) & 0xff;
		[s[i], s[j]] = [s[j], s[i]];
	}
	const out = Buffer.alloc(data.length);
	for (let n = 0, i = 0, j = 0; n < data.length; n++) {
		i = (i + 1) & 0xff;
		j = (j + s[i]) & 0xff;
		[s[i], s[j]] = [s[j], s[i]];
		out[n] = data[n] ^ s[(s[i] + s[j]) & 0xff];
	}
	return out;
}
const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
/** The password padding of ISO 32000-1 §7.6.3.3. */
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

/** How an object's body encrypts its strings and its stream's data with its own key. */
interface Sealing {
	/** A string of `value`, encrypted, as a hex string token. */
	string(value: string): string;
	/** A stream of `data`, encrypted, with the entries `dict` and its /Length. */
	stream(data: string, dict?: string): string;
}

/**
 * A file encrypted with RC4 40-bit (revision 2), the empty user password and the owner password
 * "owner" (algorithms 1-4 of §7.6.3): object i + 1 is `objects[i]`, given its sealing; the
 * /Encrypt dictionary is the last object.
 */
function encrypted(objects: Array<(seal: Sealing) => string>): Buffer {
	const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
	const owner = rc4(md5(Buffer.concat([L('owner'), PAD]).subarray(0, 32)).subarray(0, 5), PAD);
	const p = Buffer.alloc(4);
	p.writeInt32LE(-44);
	const key = md5(PAD, owner, p, id).subarray(0, 5);
	const u = rc4(key, PAD);
	const bodies = objects.map((make, i) => {
		const num = i + 1;
		const own = md5(key, Buffer.from([num & 0xff, (num >> 8) & 0xff, num >> 16, 0, 0])).subarray(
			0,
			10,
		);
		return make({
			string: (value) => `<${rc4(own, L(value)).toString('hex')}>`,
			stream: (data, dict = '') =>
				`<< /Length ${data.length} ${dict}>>\nstream\n${text(rc4(own, L(data)))}\nendstream`,
		});
	});
	bodies.push(
		`<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${u.toString('hex')}> /P -44 >>`,
	);
	const hex = id.toString('hex');
	return classic(bodies, { trailer: `/Encrypt ${bodies.length} 0 R /ID [<${hex}> <${hex}>] ` });
}

/**
 * Two pages of a filled form with a hidden layer, encrypted: the form's /DA (in the catalog), the
 * field's name and value, the layer's name, the widget's /Contents and both pages' content.
 */
const sealedForm = () =>
	encrypted([
		(seal) =>
			`<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R] /DA ${seal.string('/Helv 0 Tf 0 g')} /NeedAppearances true /DR << /Font << /Helv 5 0 R >> >> >> /OCProperties << /OCGs [8 0 R] /D << /OFF [8 0 R] >> >> >>`,
		() => '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 300 200] >>',
		() =>
			'<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /Properties << /oc1 8 0 R >> >> /Contents 6 0 R /Annots [9 0 R] >>',
		() => '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 10 0 R >>',
		() => '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
		(seal) =>
			seal.stream(
				'BT /F1 12 Tf 20 150 Td (SEALED PAGE ONE) Tj ET /OC /oc1 BDC BT (SEALED NOTE) Tj ET EMC',
			),
		(seal) =>
			`<< /FT /Tx /T ${seal.string('name')} /V ${seal.string('JANE DOE (1234)')} /DA ${seal.string('/Helv 14 Tf 0 g')} /Kids [9 0 R] >>`,
		(seal) => `<< /Type /OCG /Name ${seal.string('Hidden notes')} >>`,
		(seal) =>
			`<< /Type /Annot /Subtype /Widget /Rect [100 100 280 130] /Parent 7 0 R /P 3 0 R /Contents ${seal.string('Tip: your name')} >>`,
		(seal) => seal.stream('BT /F1 12 Tf 20 150 Td (SEALED PAGE TWO) Tj ET'),
	]);

describe('a form with a layer, encrypted here: every string of the copy decrypted', () => {
	test("page 1: the form's /DA, the field, the layer, the widget, the content", async () => {
		const written = await selectPdfPages(sealedForm(), [1]);
		expect(written.decrypted).toBe('RC4 40-bit');
		const buf = await checkWritten(written, 1);
		const all = text(buf);
		expect(all).toContain('BT /F1 12 Tf 20 150 Td (SEALED PAGE ONE) Tj ET');
		expect(all).not.toContain('SEALED PAGE TWO');
		const catalog = objectOf(buf, 1);
		expect(text(stringAfter(catalog.replace(/\/Fields \[[^\]]*\]/, ''), 'DA'))).toBe(
			'/Helv 0 Tf 0 g',
		);
		const field = objectOf(buf, Number(/\/Fields \[(\d+) 0 R\]/.exec(catalog)![1]));
		expect(['T', 'V', 'DA'].map((key) => text(stringAfter(field, key)))).toEqual([
			'name',
			'JANE DOE (1234)',
			'/Helv 14 Tf 0 g',
		]);
		const widget = /\/Kids \[(\d+) 0 R\]/.exec(field)![1];
		expect(text(stringAfter(objectOf(buf, Number(widget)), 'Contents'))).toBe('Tip: your name');
		const group = /\/OCGs \[(\d+) 0 R\]/.exec(catalog)![1];
		expect(text(stringAfter(objectOf(buf, Number(group)), 'Name'))).toBe('Hidden notes');
		expect(catalog).toContain(`/OFF [${group} 0 R]`);
	});

	test('page 2: its content decrypted, no form, no layer', async () => {
		const buf = await checkWritten(await selectPdfPages(sealedForm(), [2]), 1);
		expect(text(buf)).toContain('BT /F1 12 Tf 20 150 Td (SEALED PAGE TWO) Tj ET');
		expect(objectOf(buf, 1)).toBe('<< /Type /Catalog /Pages 2 0 R >>');
		expect(text(buf)).not.toMatch(/SEALED PAGE ONE|\/FT|\/OCG/);
	});
});

test("a signature given directly as a field's /V: its /Contents copied as signed, its other strings decrypted (review 42, e2)", async () => {
	// ISO 32000-2 §7.6.2: a signature dictionary's /Contents is never encrypted.
	const signed = encrypted([
		() => '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>',
		() => '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 300 200] >>',
		() => '<< /Type /Page /Parent 2 0 R /Annots [4 0 R] >>',
		(seal) =>
			`<< /Type /Annot /Subtype /Widget /FT /Sig /T ${seal.string('signature')} /Rect [0 0 9 9] /P 3 0 R /V << /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 10 20 30] /Contents <3082deadbeef> /Name ${seal.string('SIGNER-ONE')} >> >>`,
	]);
	const buf = await checkWritten(await selectPdfPages(signed, [1]), 1);
	expect(text(buf)).toContain('/Contents <3082deadbeef>');
	const widget = objectOf(buf, Number(/\/Fields \[(\d+) 0 R\]/.exec(objectOf(buf, 1))![1]));
	expect(text(stringAfter(widget, 'Name'))).toBe('SIGNER-ONE');
	expect(text(stringAfter(widget, 'T'))).toBe('signature');
});
