/**
 * Every loop of the page counter's readers charges the work meter (issue 35), so that the meter
 * the doubling test reads (work.test.ts) sees all the work: each `for`, `while` and `do`, each
 * iteration method (map, filter, ...), search (indexOf, includes, ...) and regular expression in
 * formats/*.ts, found in the sources (test/fixtures/pages/loops.js),
 * calls a charging function in its text or the 3 lines around it, or is listed below with why it
 * needs no charge of its own. A new loop that does neither fails here.
 */

interface Loop {
	file: string;
	line: number;
	kind: string;
	source: string;
	text: string;
	around: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loopsOfReaders } = require('../../../fixtures/pages/loops.js') as {
	loopsOfReaders(): Loop[];
};

/** Calls that charge the meter: Work.charge, the parser's reads (which spend what they pass over). */
const CHARGES =
	/\b(charge|spend|advance|failed|skipSpace|unsigned|value|skip|skipRegular|skipContainer|reference|objHeader|lookup|literal|token|readSection|decodeStream|inflate|inflateZlib|streamData|read|kids|name)\(|work\.done \+=/;

/** Loops without a charge of their own: [file, the loop's first line, why]. */
const CHARGED_ELSEWHERE: Array<[string, string, string]> = [
	[
		'streams.ts',
		'for (let i = 0; i < rowBytes; i++) {',
		"the row's bytes: charged by the loop over rows",
	],
	[
		'streams.ts',
		"const names = filters.map((f) => nameOf(f) ?? '?');",
		'the /Filter array: charged as it was parsed',
	],
	['streams.ts', '![1, 2, 4, 8, 16].includes(bits)', 'five numbers'],
	[
		'locations.ts',
		'for (const [n, where] of moved) {',
		"the Map's entries: charged by grow() before it",
	],
	[
		'locations.ts',
		'for (const n of [...this.sparse])',
		"the Set's numbers: charged by add() before it",
	],
	[
		'locations.ts',
		'const moved = [...this.sparse].filter(([n]) => n >= 0 && n < size);',
		"the Map's entries: charged by grow() before it",
	],
	['pdf.ts', 'for (const view of views) {', 'two readings of the offsets at most'],
	['tiff-write.ts', 'for (const page of pages) {', 'each page: charged by readPage'],
	[
		'tiff-write.ts',
		'for (const [p, page] of pages.entries()) {',
		'each page: its directory charged by directoryOf, its pieces by forPieces',
	],
	['tiff-write.ts', 'for (const number of order) {', 'each page: charged by readPage'],
	[
		'tiff-write.ts',
		'const order = options.pages ?? source.offsets.map((_, index) => index + 1);',
		'one number per directory: the directories were read (and charged) when the file was opened',
	],
	[
		'tiff-write.ts',
		'page.entries.forEach((entry, i) => {',
		"a page's entries: charged with its directory in directoryOf",
	],
	[
		'tiff-write.ts',
		'pages.reduce((sum, page) => sum + page.dataBytes, 0),',
		'one number per page: charged by readPage',
	],
	[
		'tiff-page.ts',
		'for (let i = 0; i < count; i++) {',
		"a directory's entries: charged (12 bytes each) before the loop",
	],
	[
		'tiff-page.ts',
		'for (; at < to && (at & 7) !== 0; at++) if (taken(at)) return at;',
		"a piece's bytes, a unit per 8: charged by overlapping before mark",
	],
	[
		'tiff-page.ts',
		'for (let byte = at >> 3; byte < full; byte++)',
		"a piece's bytes, a unit per 8: charged by overlapping before mark",
	],
	[
		'tiff-page.ts',
		'for (at = Math.max(at, 8 * full); at < to; at++) if (taken(at)) return at;',
		"a piece's bytes, a unit per 8: charged by overlapping before mark",
	],
	[
		'pdf-write.ts',
		'for (const page of order) {',
		'each page: charged by Part.write for each object it adds',
	],
	[
		'pdf-write.ts',
		'for (const page of pages) {',
		'the selection, once: a page each, fewer than the pages counted',
	],
	[
		'ranges.ts',
		"for (const item of selection.split(',')) {",
		"a page selection's text, which a user types: linear in it (ranges.test.ts), no file read",
	],
	[
		'ranges.ts',
		'for (let page = 1; page <= total; page++) {',
		"the document's pages, once: counted before (its count's work)",
	],
	['ranges.ts', 'if (!/^[0-9]+$/.test(word))', 'one part of a selection: linear in it'],
	[
		'pdf.ts',
		"const header = buf.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1');",
		'the first 1024 bytes',
	],
	[
		'words.ts',
		'for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;',
		"a word of the table, or a decoded name: charged as the name's bytes",
	],
	['words.ts', 'while (this.slots[at] !== -1) at = (at + 1) & 63;', 'the module loading: 64 slots'],
	['words.ts', 'for (let at = hash & 63; ; at = (at + 1) & 63) {', 'the 64 slots of the table'],
	[
		'words.ts',
		'while (k < word.length && word.charCodeAt(k) === buf[start + k]) k++;',
		'a word of the table (16 letters at most)',
	],
	['words.ts', 'this.values = words.map(make);', 'the module loading: the words of the table'],
	['words.ts', 'words.forEach((word, i) => {', 'the module loading: the words of the table'],
	[
		'xref.ts',
		'for (let k = 0; k < width; k++) v = v * 256 + data[at + k];',
		'a field of 8 bytes at most: charged with its row',
	],
	['xref.ts', 'for (let k = 0; k < 16; k++) {', '16 bytes: charged by advance(18) after it'],
	[
		'xref.ts',
		'while (p >= low && test(buf[p])) p--;',
		'the 24 bytes before `obj`: charged with the hit',
	],
	[
		'xref.ts',
		'for (let k = start; isDigit(buf[k]); k++) num = num * 10 + buf[k] - 0x30;',
		'ten digits at most (headerBefore): charged with the hit',
	],
	[
		'xref.ts',
		"!w.every((x) => typeof x === 'number' && x >= 0 && x <= 8)",
		'the three numbers of /W',
	],
	[
		'xref.ts',
		"const trailerAt = buf.lastIndexOf('trailer', buf.length, 'latin1');",
		"the file once: charged at the scan's start",
	],
	[
		'crypt.ts',
		'if (r >= 3) for (let round = 0; round < 50; round++)',
		'the 50 MD5 rounds of a file key, once a file',
	],
	['crypt.ts', 'for (let round = 1; round <= 19; round++) {', "the 19 RC4 rounds of /U's check"],
	['crypt.ts', 'for (let i = 0; i < roundKey.length; i++)', 'a round key: 16 bytes at most'],
	[
		'crypt.ts',
		'for (let round = 0; round < 64 || e[e.length - 1] > round - 32; round++) {',
		'the rounds of Algorithm 2.B: 287 at most (the last byte, 255 at most, is no more than the rounds done less 32 by then)',
	],
	['crypt.ts', 'for (let i = 0; i < 16; i++) sum += e[i];', '16 bytes'],
	['crypt.ts', 'for (let i = 1; padded && i <= pad; i++)', 'the AES padding: 16 bytes at most'],
	['crypt.ts', 'for (let i = 0; i < 256; i++) s[i] = i;', "RC4's 256-byte state"],
	['crypt.ts', 'for (let i = 0, j = 0; i < 256; i++) {', "RC4's key schedule: 256 steps"],
	[
		'crypt.ts',
		'for (let n = 0, i = 0, j = 0; n < data.length; n++) {',
		"a string's or stream's bytes through RC4: charged by the caller, which reads (and charges) them before it decrypts them (crypt.ts holds no meter)",
	],
	['catalog.ts', `for (const key of keys) {`, "the form's three plain entries"],
	[
		'catalog.ts',
		`const refs = (numbers: number[])`,
		'the groups and fields written: charged by catalogText before',
	],
	[
		'content.ts',
		`return this.operand(text.includes('#')`,
		'a name of 128 bytes at most: charged with the bytes push() reads',
	],
	[
		'streams.ts',
		'for (;;) {',
		"a content stream's chunks, fed to zlib: charged by decodedChunks (filters.ts) as they come out",
	],
	[
		'content.ts',
		`[...Object.keys(OPERATORS), 'BI', 'ID'].map((op) => [`,
		'the module loading: twelve operators',
	],
	[
		'content.ts',
		`return text.replace(/#([0-9A-Fa-f]{2})/g`,
		'a name of 128 bytes at most: charged with the bytes push() reads',
	],
	[
		'encryption.ts',
		`for (const [name, value] of Object.entries(filters.dict))`,
		"the /Encrypt dictionary's crypt filters: charged as the parser read them",
	],
	['filters.ts', `else if (c === 0x7a && this.group.length === 0)`, 'four bytes'],
	['filters.ts', `while (this.group.length < 5)`, 'five digits at most'],
	['filters.ts', `for (const digit of this.group)`, 'five digits'],
	['filters.ts', `for (let k = 0; k < n - 1; k++)`, 'four bytes at most'],
	[
		'filters.ts',
		`for (let k = 0; k < -this.pending; k++)`,
		'a run of 128 bytes at most: charged by decodedChunks as decoded bytes',
	],
	[
		'filters.ts',
		`for (let i = 0; i < 256; i++) {`,
		"the LZW table's 256 first codes, once a stream",
	],
	[
		'filters.ts',
		`while (this.held >= this.width && !this.done) {`,
		"the codes of a byte's bits: charged by decodedChunks as decoded bytes",
	],
	[
		'filters.ts',
		`for (let at = code; at >= 0; at = this.prefix[at])`,
		"a code's bytes (4096 at most): charged by decodedChunks as decoded bytes",
	],
	[
		'filters.ts',
		`for (let k = n - 1; k >= 0; k--)`,
		"a code's bytes (4096 at most): charged by decodedChunks as decoded bytes",
	],
	[
		'form-fields.ts',
		`while (this.log.length > mark.log) {`,
		'the kids given since the mark: the count is returned to the copier, which charges it',
	],
	[
		'form-fields.ts',
		`for (const [number, head] of this.heads)`,
		'the fields: their count is returned to the copier, which charges it; written(): charged by PdfFile.finish with their bytes',
	],
	[
		'form-fields.ts',
		`const kids = (this.kids.get(number)`,
		"a field's kids: charged by PdfFile.finish with the field's bytes",
	],
	[
		'lexer.ts',
		`for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS_OF[c] = 1;`,
		'the module loading: six bytes',
	],
	[
		'lexer.ts',
		`for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS_OF[c] = 2;`,
		'the module loading: ten bytes',
	],
	[
		'lexer.ts',
		`while (pos < end) {`,
		'white space and comments (blank), a literal string: the lexer measures; its callers charge the bytes it passes over',
	],
	[
		'lexer.ts',
		`while (pos < end && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;`,
		"a comment's bytes: charged by blank's callers",
	],
	[
		'lexer.ts',
		`while (pos < end && CLASS_OF[bytes[pos]] === 0) pos++;`,
		"a regular token's bytes: charged by its callers",
	],
	[
		'lexer.ts',
		`while (level > 0) {`,
		"a container's bytes (containerEnd): charged by the parser's skipContainer",
	],
	[
		'lexer.ts',
		`for (let at = pos + 1; at < end; at++) if (bytes[at] === 0x3e)`,
		"a hex string's bytes: charged by its callers",
	],
	[
		'lexer.ts',
		`while (at < end && digit(bytes[at])) at++;`,
		"a reference's digits: charged by its callers",
	],
	[
		'lexer.ts',
		`while (pos < end && bytes[pos] !== 0x5d) {`,
		"a /Kids array's references: charged by the parser's kids() with the array",
	],
	[
		'lexer.ts',
		`for (; at < word.length; at++) {`,
		"a number's bytes: charged by the parser before",
	],
	[
		'lexer.ts',
		`while (pos < end && digit(bytes[pos])) value`,
		'digits: charged by the callers with the token',
	],
	[
		'lexer.ts',
		`for (let at = start + 1; at < end - 1; at++) {`,
		"a string's bytes: charged by its callers (the full parser, the copier)",
	],
	['lexer.ts', `for (let k = 0; k < 2 && bytes[at + 1]`, 'an octal escape: three digits at most'],
	[
		'lexer.ts',
		`for (let k = 0; k < word.length; k++) if (bytes[pos + k]`,
		'a keyword: nine bytes at most',
	],
	['lexer.ts', `while (pos < at + 4 &&`, 'four bytes at most'],
	['lexer.ts', `if (!text.includes('#')) return text;`, "a name's bytes: charged by its callers"],
	[
		'lexer.ts',
		`return text.replace(/#([0-9A-Fa-f]{2})/g`,
		'a name with #xx escapes: charged by its callers',
	],
	[
		'lexer.ts',
		`const found = view.indexOf(ENDSTREAM);`,
		'the bytes searched: told to `searched`, which charges them',
	],
	[
		'objects.ts',
		`while (this.pos < end && CLASS[bytes[this.pos]] === 0) this.pos++;`,
		'a name or a word: charged with the object scanObject reads',
	],
	[
		'pdf-copy.ts',
		`while (this.head < this.queue.length) {`,
		'the objects a page adds: each charged as it is written',
	],
	['pdf-copy.ts', `for (const key of INHERITED) {`, 'the four inherited attributes'],
	['pdf-copy.ts', `const left = ['B', 'Parent', 'Resources'].map(`, 'three entries'],
	[
		'pdf-file.ts',
		`\`\${layout.rootHead}\${closing.kids.map(`,
		"the pages' numbers: charged with the cross-reference's bytes after",
	],
	['pdf-source.ts', `const version = /^%PDF-`, 'the first 16 bytes'],
	[
		'pdf-source.ts',
		`return /^\\d+$/.test(text)`,
		"a /Length's value: charged with the object scanObject read (20 bytes when indirect)",
	],
	[
		'pdf-write.ts',
		`for (const page of pages) await copier.add(page - 1);`,
		'each page: charged by the copier for each object it adds',
	],
	[
		'pdf-write.ts',
		`order = options.pages ?? context.source.pageObjects.map(`,
		'one number per page: the page tree was walked (and charged) when the file was opened',
	],
	[
		'pruned.ts',
		`for (const category of CATEGORIES) {`,
		"the seven categories; each one's names charged after its loop",
	],
	['render.ts', `while (low < high) {`, "a binary search: the log of an object's references"],
	['render.ts', `.filter((entry): entry is Entry`, 'the entries a copy leaves out: five at most'],
	[
		'render.ts',
		`.flatMap((entry) => [entry.key, entry.end]);`,
		'the entries a copy leaves out: five at most',
	],
	[
		'usage.ts',
		`for (const stream of await this.appearances(annot))`,
		"an annotation's appearances: three, or its states, each read by the content reader",
	],
	[
		'usage.ts',
		`for (const group of groups) {`,
		'the streams of a holder: each read by the content reader, which charges its bytes',
	],
	[
		'usage.ts',
		`for (const num of group) {`,
		'the streams of a holder: each read by the content reader, which charges its bytes',
	],
	[
		'usage.ts',
		`for (const [category, name] of found) {`,
		'the names a content stream used: charged with its bytes by the content reader',
	],
	['usage.ts', `for (const key of ['N', 'R', 'D']) {`, "an annotation's three appearances"],
	[
		'usage.ts',
		`for (const stream of ref !== undefined`,
		"an appearance's states: charged by values() before",
	],
	['usage.ts', `for (const category of CATEGORIES) {`, 'the seven categories'],
	[
		'xref.ts',
		`for (let i = 0; i < count; i++) {`,
		"a subsection's entries: each charged by the parser reads of readEntry",
	],
	[
		'actions.ts',
		"for (const key of ['A', 'Next']) {",
		"an action's two entries; each action laid out (and charged) by scanObject",
	],
	[
		'actions.ts',
		'for (const key of triggers?.layout.entries?.keys() ?? []) {',
		"an /AA's triggers: laid out (and charged) by scanObject",
	],
	[
		'catalog.ts',
		'for (const num of list) this.lists.set(',
		"the document's layers, once a copy: charged as the parser read their /OCProperties",
	],
	['catalog.ts', "/^[A-Za-z]+$/.test(content.base ?? '')", "/BaseState's name, a few letters"],
	['render.ts', 'const weakly = weak?.some(', "an object's actions' targets: a few"],
	['usage.ts', 'for (const name of DEFAULT_SPACES)', 'three names'],
	[
		'usage.ts',
		'for (const [category, name] of known.names)',
		'the names a stream read before named (1,000 at most): charged when it was read',
	],
	[
		'content.ts',
		'for (let i = 0; i + 1 < operands.length; i += 2)',
		"an inline image's dictionary: 64 operands at most",
	],
	['content.ts', 'if (!components || !(width > 0)', 'five numbers'],
	[
		'filters.ts',
		'for (let at = 0; at < bytes.length; at += CHUNK)',
		"a stream's data in chunks: each charged by decodedChunks as it is given",
	],
	[
		'filters.ts',
		'for (let out = decoder.pull();',
		'the decoded chunks: each charged by decodedChunks as it is given',
	],
	[
		'filters.ts',
		'while (this.at < input.length && this.out.length < CHUNK',
		'a chunk of input, as decoded: charged by decodedChunks (the raw bytes before, each decoded chunk as it comes)',
	],
	[
		'lexer.ts',
		'while (bytes[eol] === 0x20 || bytes[eol] === 0x09) eol++;',
		"the spaces after `stream`: charged with the stream's search",
	],
	['usage.ts', 'for (const category of CATEGORIES)', 'the seven categories'],
	[
		'usage.ts',
		'for (const [more, named] of inner.names)',
		'the names a holder lacks: found (and charged) by the content reader',
	],
	[
		'usage.ts',
		'for (const stream of streams)',
		'the streams of a holder: each read by the content reader, which charges its bytes',
	],
	[
		'usage.ts',
		'for (const [category, name] of found)',
		'the names a content stream used: charged with its bytes by the content reader',
	],
	[
		'usage.ts',
		'inner.streams.map((num) => [num]),',
		'the streams a name draws: few, each read by the content reader',
	],
];

describe("every loop of the page counter's readers charges the work meter", () => {
	const loops = loopsOfReaders();
	const listed = (loop: Loop) =>
		CHARGED_ELSEWHERE.find(
			([file, source]) => file === loop.file && loop.source.startsWith(source),
		);

	test('each loop charges, or is listed with why', () => {
		expect(loops.length).toBeGreaterThan(40);
		const unexplained = loops
			.filter((loop) => !CHARGES.test(loop.text) && !CHARGES.test(loop.around) && !listed(loop))
			.map((loop) => `${loop.file}:${loop.line} ${loop.source}`);
		expect(unexplained).toEqual([]);
	});

	test('every loop listed is still there', () => {
		const stale = CHARGED_ELSEWHERE.filter(
			([file, source]) =>
				!loops.some((loop) => loop.file === file && loop.source.startsWith(source)),
		).map(([file, source]) => `${file}: ${source}`);
		expect(stale).toEqual([]);
	});
});
