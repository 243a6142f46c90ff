/**
 * What the copy tests share (content, usage, pruned, pdf-copy, catalog, encrypted-copy): PDFs built
 * from object bodies (crafted.js's classic table), streams and images marked with a page's words,
 * and a written file read back: its bytes with every Flate stream inflated beside them (so that a
 * marker inside a compressed stream shows), an object's body, the pages' numbers, its checks.
 */
import { countPages } from '../../../../nodes/DocumentOcr/formats';
import type { Written } from '../../../../nodes/DocumentOcr/formats/pdf-write';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const crafted = require('../../../fixtures/pages/crafted.js') as {
	classic(objects: string[], options?: { header?: string; trailer?: string }): Buffer;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlib = require('../../../fixtures/pages/deflate.js') as {
	deflate(bytes: Buffer): Buffer;
	bomb(megabytes: number): Buffer;
	zlibInflate(bytes: Buffer): { data: Buffer } | { error: string };
};

/** A classic PDF of `objects` (object i + 1 is objects[i]); binary data as latin1 text. */
export const classic = crafted.classic;
export const { deflate, bomb } = zlib;

export const L = (text: string) => Buffer.from(text, 'latin1');
export const text = (buf: Buffer) => buf.toString('latin1');
export const joined = (written: Written) => Buffer.concat(written.chunks, written.length);
export const pagesUpTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** A stream object's body: `data` (latin1 text) with a right /Length and the entries `dict`. */
export const stream = (data: string, dict = '') =>
	`<< /Length ${data.length} ${dict}>>\nstream\n${data}\nendstream`;
/** The same, Flate-compressed. */
export const flate = (data: string, dict = '') =>
	stream(text(deflate(L(data))), `/Filter /FlateDecode ${dict}`);
/** An image XObject whose (compressed) samples spell `marker` twenty times. */
export const image = (marker: string) =>
	flate(
		`${marker} `.repeat(20),
		'/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 8 ',
	);
/** A form XObject drawing `ops`, with `resources` (a dictionary or a reference) if given. */
export const form = (ops: string, resources?: string) =>
	stream(
		ops,
		`/Type /XObject /Subtype /Form /BBox [0 0 200 200] ${resources ? `/Resources ${resources} ` : ''}`,
	);

/**
 * The file's text with every Flate stream inflated after it: a marker in a compressed stream is
 * found by a plain search. A stream zlib refuses is left as it is.
 */
export function inflated(buf: Buffer): string {
	const all = text(buf);
	const out = [all];
	const start = /stream\r?\n/g;
	for (let match = start.exec(all); match; match = start.exec(all)) {
		const at = match.index + match[0].length;
		const end = all.indexOf('endstream', at);
		if (end < 0) break;
		for (const cut of [end, end - 1, end - 2]) {
			const result = zlib.zlibInflate(buf.subarray(at, cut));
			if ('data' in result) {
				out.push(text(result.data));
				break;
			}
		}
	}
	return out.join('\n');
}

/** The body of object `num` in a written file. */
export const objectOf = (buf: Buffer, num: number) => {
	const found = new RegExp(`(?:^|\\n)${num} 0 obj\\n([\\s\\S]*?)\\nendobj`).exec(text(buf));
	if (!found) throw new Error(`object ${num} is not in the file`);
	return found[1];
};
/** The number a reference under `key` in `body` names. */
export const refIn = (body: string, key: string) => {
	const found = new RegExp(`/${key} (\\d+) 0 R`).exec(body);
	if (!found) throw new Error(`no /${key} reference in ${body}`);
	return Number(found[1]);
};
/** The new numbers of the pages, from the written root's /Kids. */
export const kidsOf = (buf: Buffer) =>
	[...objectOf(buf, 2).matchAll(/(\d+) 0 R/g)].map((match) => Number(match[1]));
/** The body of the pruned resources of the written page `index` (0-based). */
export const pageResources = (buf: Buffer, index = 0) =>
	objectOf(buf, refIn(objectOf(buf, kidsOf(buf)[index]), 'Resources'));
/** How many times `what` occurs in `all`. */
export const occurrences = (all: string, what: string) => all.split(what).length - 1;

/**
 * A written file checked: its length, every object the cross-reference lists where it says, the
 * pages the package's counter finds, no encryption and no object streams; its bytes.
 */
export async function checkWritten(written: Written, pages: number): Promise<Buffer> {
	const buf = joined(written);
	expect(buf.length).toBe(written.length);
	const all = text(buf);
	const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(all)![1]);
	const [, size] = /^xref\n0 (\d+)\n/.exec(all.slice(startxref))!.map(Number);
	const table = startxref + `xref\n0 ${size}\n`.length;
	for (let num = 1; num < size; num++) {
		const offset = Number(all.slice(table + 20 * num, table + 20 * num + 10));
		expect(all.slice(offset, offset + `${num} 0 obj`.length)).toBe(`${num} 0 obj`);
	}
	expect(await countPages(buf, 'pdf')).toEqual({ pages });
	expect(all).not.toMatch(/\/ObjStm|\/XRef\b|\/Encrypt|\/Prev\b/);
	return buf;
}
