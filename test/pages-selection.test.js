'use strict';
/**
 * The Pages option (issue 37) in n8n's engine against the emulator, on every operation that sends
 * a document and from each source (binary, Base64, URL): only the pages selected are sent, as a
 * new file, in the document's order — the emulator bills them (it counts `/Type /Page` in what it
 * received) and keeps their text in its ledger; the item says `pagesSent` beside `pagesCounted`
 * (the document's total). A selection that is not one, or a document whose pages cannot be
 * copied, fails the item before any request. The Page Budget counts the pages sent; Skip
 * Submitted Documents tells one selection of a file from another.
 */
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const h = require('./helpers');
const {
	classic,
	pagedTiff,
	overlappingStripsTiff,
	nestedStreams,
} = require('./fixtures/pages/crafted');
const { startFileServer } = require('./support/file-server');
const { withDocument } = require('./support/sources');
const { SENDING, posts: postsIn } = require('./support/sending');
const { heldWhileFirst } = require('./support/gc');

const emu = h.useEmulator({ perTest: true });

/**
 * Watches n8n's event loop while a run goes: a 10 ms timer's longest gap. A reader that held the
 * loop for its whole work would leave one gap as long as the run; one that pauses leaves gaps of a
 * slice of work each. The bound is 1 s or a third of the run, whichever is longer, so that a
 * loaded machine — which stretches every slice and the run alike — passes, and a run that held
 * the loop for most of its time fails.
 */
function watchLoop() {
	const started = Date.now();
	let last = started;
	let longest = 0;
	const timer = setInterval(() => {
		const now = Date.now();
		longest = Math.max(longest, now - last);
		last = now;
	}, 10);
	let ended;
	return {
		stop() {
			ended = Date.now();
			longest = Math.max(longest, ended - last);
			clearInterval(timer);
		},
		expectRunning() {
			expect(longest).toBeLessThan(Math.max(1000, (ended - started) / 3));
		},
	};
}

let files;
beforeAll(async () => {
	files = await startFileServer();
});
afterAll(async () => {
	await files?.close();
});

const PAGE_TEXTS = Array.from({ length: 7 }, (_, i) => `Page ${i + 1} of seven`);
const SEVEN = h.documents.makePdf(PAGE_TEXTS);
const SEPARATOR = h.documents.PAGE_SEPARATOR;

const posts = () => postsIn(emu);

/** The parameters and items of `operation` with `bytes` as the document from `source`. */
function sending(operation, source, bytes, options, name = 'seven.pdf') {
	const { params } = SENDING[operation];
	return withDocument({ params, source, bytes, options, name, files, tag: operation });
}

/** The page texts the emulator received, by its ledger (one entry per billed document). */
const received = () =>
	emu
		.ledger('acme')
		.filter((entry) => entry.delta < 0 && entry.document !== undefined)
		.map((entry) => entry.document.split(SEPARATOR));

describe.each(Object.entries(SENDING))('%s', (operation, { label: name }) => {
	describe.each(['binary', 'base64', 'url'])('from %s', (source) => {
		test(`${name}: page 1 of 7 bills 1 page; "2-3" sends pages 2 and 3 in order; "last"`, async () => {
			for (const [pages, sent, texts] of [
				['1', '1', [PAGE_TEXTS[0]]],
				[' 2 - 3 ', '2-3', [PAGE_TEXTS[1], PAGE_TEXTS[2]]],
				['last', '7', [PAGE_TEXTS[6]]],
			]) {
				const before = h.netCharged(emu);
				const { params, items } = sending(operation, source, SEVEN, { pages });
				const { output, error } = await h.run(emu, params, items);
				expect(error).toBeUndefined();
				expect(h.netCharged(emu) - before).toBe(texts.length);
				expect(output[0].json).toMatchObject({ pagesCounted: 7, pagesSent: sent });
				expect(received().at(-1)).toEqual(texts);
			}
		});

		test(`${name}: bad syntax and pages past the last fail the item before any request`, async () => {
			const bad = ['3-1', 'abc', '0', '8', '1,,2'];
			for (const pages of bad) {
				const { params, items } = sending(operation, source, SEVEN, { pages });
				const { error } = await h.run(emu, params, items);
				expect(error?.message).toMatch(/"Pages"/);
				expect(error.description).toMatch(/Nothing was sent or charged/);
			}
			expect(posts()).toBe(0);
		});
	});
});

describe('the selection and the other settings', () => {
	test('Continue on Fail: a bad selection fails its item, the others are sent', async () => {
		const items = [h.binaryItem(SEVEN, 'a.pdf'), h.binaryItem(SEVEN, 'b.pdf')];
		items[0].json.pages = '9';
		items[1].json.pages = '2';
		const { output, error } = await h.run(
			emu,
			h.submit({ options: { pages: '={{ $json.pages }}' } }),
			items,
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toMatch(/past the document's last page \(7\)/);
		expect(output[1].json).toMatchObject({ pagesCounted: 7, pagesSent: '2' });
		expect(h.netCharged(emu)).toBe(1);
	});

	test('an expression that gives nothing sends every page; a selection of every page sends the document as it is', async () => {
		for (const pages of ['={{ undefined }}', '={{ null }}', '', '   ', '1-7']) {
			const before = h.netCharged(emu);
			const { output, error } = await h.run(emu, h.submit({ options: { pages } }), [
				h.binaryItem(SEVEN, 'seven.pdf'),
			]);
			expect(error).toBeUndefined();
			expect(h.netCharged(emu) - before).toBe(7);
			expect(output[0].json.pagesCounted).toBe(7);
			if (pages === '1-7') expect(output[0].json.pagesSent).toBe('1-7');
			else expect(output[0].json.pagesSent).toBeUndefined();
		}
	});

	test('Simplify (node version 2) keeps pagesSent beside pagesCounted', async () => {
		for (const params of [
			h.submit({ options: { pages: '2-3' } }),
			h.doc('recognize', { options: { pages: '2-3' } }),
		]) {
			const { output, error } = await h.run(
				emu,
				{ ...params, simplify: true },
				[h.binaryItem(SEVEN, 'seven.pdf')],
				{
					typeVersion: 2,
				},
			);
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ pagesCounted: 7, pagesSent: '2-3' });
		}
		expect(h.netCharged(emu)).toBe(4);
	});

	test('a value of another type is an item error naming the field', async () => {
		const { error } = await h.run(emu, h.submit({ options: { pages: '={{ [1, 2] }}' } }), [
			h.binaryItem(SEVEN, 'seven.pdf'),
		]);
		expect(error?.message).toMatch(/the "Pages" option is not text/);
		expect(posts()).toBe(0);
	});

	test('Page Budget 1: one page of a 3-page document is admitted', async () => {
		const three = h.documents.makePdf(['one', 'two', 'three']);
		const { output, error } = await h.run(
			emu,
			h.doc('recognize', { options: { pageBudget: 1, pages: '2' } }),
			[h.binaryItem(three, 'three.pdf')],
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 3, pagesSent: '2' });
		expect(h.netCharged(emu)).toBe(1);
		const whole = await h.run(emu, h.doc('recognize', { options: { pageBudget: 1 } }), [
			h.binaryItem(three, 'three.pdf'),
		]);
		expect(whole.error?.message).toMatch(/Page Budget of 1 page/);
		expect(h.netCharged(emu)).toBe(1);
	});

	test('Skip Submitted Documents: another selection of the same file is sent, the same selection is skipped', async () => {
		const staticData = {};
		const production = { mode: 'cli', staticData };
		const run = async (pages) =>
			await h.run(
				emu,
				h.submit({ options: { skipSubmitted: true, pages } }),
				[h.binaryItem(SEVEN, 'seven.pdf')],
				production,
			);
		const first = await run('1-2');
		expect(first.output[0].json).toMatchObject({ pagesSent: '1-2' });
		const other = await run('3');
		expect(other.output[0].json).toMatchObject({ pagesSent: '3' });
		expect(other.output[0].json.previouslySubmitted).toBeUndefined();
		expect(h.netCharged(emu)).toBe(3);
		const again = await run('1-2');
		expect(again.output[0].json.previouslySubmitted).toBe(true);
		expect(h.netCharged(emu)).toBe(3);
	});

	test('a document whose pages cannot be counted cannot be selected from; nothing is sent', async () => {
		const broken = Buffer.from(
			'%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n',
			'latin1',
		);
		const { error } = await h.run(emu, h.submit({ options: { pages: '1' } }), [
			h.binaryItem(broken, 'broken.pdf'),
		]);
		expect(error?.message).toMatch(/could not be counted.*"Pages" selection cannot be made/);
		expect(posts()).toBe(0);
	});

	const qpdf = (() => {
		try {
			execFileSync('qpdf', ['--version'], { stdio: 'ignore' });
			return true;
		} catch {
			return false;
		}
	})();
	(qpdf ? test : test.skip)(
		'an encrypted PDF: with a user password refused, nothing sent; with an owner password only sent decrypted, the item says so (qpdf --encrypt)',
		async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-selection-'));
			try {
				fs.writeFileSync(path.join(dir, 'plain.pdf'), SEVEN);
				const encrypt = (user, out) =>
					execFileSync('qpdf', [
						'--encrypt',
						user,
						'owner',
						'256',
						'--',
						path.join(dir, 'plain.pdf'),
						path.join(dir, out),
					]);
				encrypt('user', 'locked.pdf');
				encrypt('', 'restricted.pdf');
				const locked = fs.readFileSync(path.join(dir, 'locked.pdf'));
				for (const operation of Object.keys(SENDING)) {
					const { params, items } = sending(operation, 'binary', locked, { pages: '2' });
					const { output, error } = await h.run(emu, params, items, { continueOnFail: true });
					expect(error).toBeUndefined();
					expect(output[0].json.error).toMatch(/opens only with a password/);
				}
				expect(posts()).toBe(0);
				const restricted = fs.readFileSync(path.join(dir, 'restricted.pdf'));
				const { params, items } = sending('recognize', 'binary', restricted, { pages: '2' });
				const { output, error } = await h.run(emu, params, items);
				expect(error).toBeUndefined();
				expect(output[0].json).toMatchObject({
					pagesSent: '2',
					pagesCounted: 7,
					encryptionRemoved: 'AES-256',
				});
				expect(received().at(-1)).toEqual([PAGE_TEXTS[1]]);
				expect(h.netCharged(emu)).toBe(1);
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	);

	test('a URL document too large to keep: its selection is built again when sent, from a second fetch that must match', async () => {
		// Text that does not compress: pages 2 and 3 alone are past the 64 kB kept whole.
		const noise = (i) => randomBytes(30_000).toString('hex') + i;
		const texts = PAGE_TEXTS.map((text, i) => `${text} ${noise(i)}`);
		const big = h.documents.makePdf(texts);
		expect(big.length).toBeGreaterThan(7 * 60_000);
		const at = '/big/seven.pdf';
		files.put(at, big, { 'content-type': 'application/pdf' });
		const fetched = () => files.requests.filter((r) => r.url.startsWith(at)).length;
		const { output, error } = await h.run(
			emu,
			h.doc('markdown', {
				documentSource: 'url',
				documentUrl: files.url(at),
				options: { pages: '2-3' },
			}),
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 7, pagesSent: '2-3' });
		expect(received().at(-1)).toEqual([texts[1], texts[2]]);
		// The count's fetch, the build's, and the send's (each checked against the first).
		expect(fetched()).toBe(3);
		expect(h.netCharged(emu)).toBe(2);
	});

	test('a TIFF: page 2 of 3 is sent as a TIFF of that page', async () => {
		const tiff = pagedTiff(['first page', 'second page', 'third page']);
		const { output, error } = await h.run(emu, h.submit({ options: { pages: '2' } }), [
			h.binaryItem(tiff, 'scan.tif', 'image/tiff'),
		]);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 3, pagesSent: '2' });
		expect(received().at(-1)).toEqual(['second page']);
	});

	test('an image is page 1: "1" sends it, "2" fails the item', async () => {
		const png = h.documents.makePng('a photo');
		const ok = await h.run(emu, h.doc('recognize', { options: { pages: '1' } }), [
			h.binaryItem(png, 'photo.png', 'image/png'),
		]);
		expect(ok.error).toBeUndefined();
		expect(ok.output[0].json).toMatchObject({ pagesCounted: 1, pagesSent: '1' });
		const bad = await h.run(emu, h.doc('recognize', { options: { pages: '2' } }), [
			h.binaryItem(png, 'photo.png', 'image/png'),
		]);
		expect(bad.error?.message).toMatch(/past the document's last page \(1\)/);
		// An animated GIF counted as 3 pages: its frames cannot be sent apart, so "1" is refused
		// (sending the whole file would bill more than the budget admitted).
		const gif = fs.readFileSync(
			path.join(__dirname, 'fixtures', 'pages', 'review', '23-animated-3frames.gif'),
		);
		const frames = await h.run(emu, h.submit({ options: { pages: '1' } }), [
			h.binaryItem(gif, 'anim.gif', 'image/gif'),
		]);
		expect(frames.error?.message).toMatch(/1 of the 3 frames of an animated GIF/);
		expect(posts()).toBe(1);
	});

	test('a TIFF of 160 kB whose page 1 has 20,000 strips each the whole file: "1" fails the item at once, the event loop running (review 37)', async () => {
		const tiff = overlappingStripsTiff({ strips: 20_000 });
		expect(tiff.length).toBeLessThan(200_000);
		const loop = watchLoop();
		let result;
		try {
			result = await h.run(
				emu,
				h.submit({ options: { pages: '1' } }),
				[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
				{ continueOnFail: true },
			);
		} finally {
			loop.stop();
		}
		// Its selection would be 3.2 GB: refused for its overlapping strips, nothing hashed or sent.
		expect(result.output[0].json.error).toMatch(/strips 1 and 2 share bytes of the file/);
		expect(posts()).toBe(0);
		loop.expectRunning();
	});
});

test('URL documents waiting to be sent with "Pages: 1" hold their selection, not their whole file (review 37)', async () => {
	// Page 1 tiny, page 2 2 MB of text that does not compress.
	const noise = randomBytes(1_000_000).toString('hex');
	const file = h.documents.makePdf(['page one', noise]);
	expect(file.length).toBeGreaterThan(2_000_000);
	files.put('/two-mb.pdf', file, { 'content-type': 'application/pdf' });
	const N = 40;
	const watch = await heldWhileFirst(emu, 'POST /v1/markdown', 1_500);
	const params = h.doc('markdown', {
		documentSource: 'url',
		documentUrl: `=${files.url('/two-mb.pdf')}?n={{ $itemIndex }}`,
		options: { pages: '1', concurrency: 1 },
	});
	const { output, error } = await h.run(
		emu,
		params,
		Array.from({ length: N }, () => ({ json: {} })),
	);
	const held = await watch.held();
	expect(error).toBeUndefined();
	expect(output).toHaveLength(N);
	expect(output[0].json).toMatchObject({ pagesSent: '1', pagesCounted: 2 });
	// The selections are about 1 kB each, copied out of their files; the kept bytes' limit is
	// 32 MB (80 MB were held when the selections were views of their files).
	expect(held).toBeLessThan(32_000_000);
});

test('a PDF of 1.2 MB whose page 1 names 10,000 form XObjects whose /Length each run to the end: "1" fails the item without stopping the event loop (review 37)', async () => {
	const pdf = nestedStreams(10_000);
	expect(pdf.length).toBeLessThan(1_400_000);
	const loop = watchLoop();
	let result;
	try {
		result = await h.run(
			emu,
			h.doc('recognize', { options: { pages: '1' } }),
			[h.binaryItem(pdf, 'two.pdf')],
			{ continueOnFail: true },
		);
	} finally {
		loop.stop();
	}
	// Its selection would be 4.5 GB: refused (past the 10 MB limit at the latest) before it is
	// hashed, nothing sent.
	expect(result.output[0].json.error).toBeDefined();
	expect(h.hits(emu, 'POST /v1/ocr')).toBe(0);
	loop.expectRunning();
});

describe('a selection bills the pages selected, whatever the file carries besides', () => {
	const content = (words) => {
		const ops = `BT /F1 12 Tf 72 712 Td (${words}) Tj ET`;
		return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
	};
	const RES = '/MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >>';

	test('a link on the selected page to a page no longer in the tree: page 1 of 2 bills 1 page, under a Page Budget of 1', async () => {
		const doc = classic([
			'<< /Type /Catalog /Pages 2 0 R >>',
			'<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 5 0 R /Annots [8 0 R] >>`,
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 6 0 R >>`,
			content('page one'),
			content('page two'),
			'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
			'<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /Dest [9 0 R /Fit] >>',
			`<< /Type /Page /Parent 2 0 R ${RES} /Contents 10 0 R >>`,
			content('deleted page secret'),
		]);
		const { output, error } = await h.run(
			emu,
			h.doc('recognize', { options: { pageBudget: 1, pages: '1' } }),
			[h.binaryItem(doc, 'two.pdf')],
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 2, pagesSent: '1' });
		expect(h.netCharged(emu)).toBe(1);
	});

	test('a /Length that runs over the next page is no length: page 1 is sent with its own data, billed 1 page', async () => {
		const one = 'BT /F1 12 Tf 72 712 Td (page one) Tj ET';
		const two = 'BT /F1 12 Tf 72 712 Td (page two) Tj ET';
		const inside =
			`${one}\nendstream\nendobj\n` +
			'4 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>\nendobj\n' +
			`6 0 obj\n<< /Length ${two.length} >>\nstream\n${two}`;
		let text = '%PDF-1.4\n';
		const at = [];
		const put = (num, body) => {
			at[num] = text.length;
			text += `${num} 0 obj\n${body}\nendobj\n`;
		};
		put(1, '<< /Type /Catalog /Pages 2 0 R >>');
		put(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>');
		put(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>');
		put(7, '<< >>');
		at[5] = text.length;
		text += `5 0 obj\n<< /Length ${inside.length} >>\nstream\n`;
		at[4] = text.length + inside.indexOf('4 0 obj');
		at[6] = text.length + inside.indexOf('6 0 obj');
		text += `${inside}\nendstream\nendobj\n`;
		const xref = text.length;
		text += 'xref\n0 8\n0000000000 65535 f \n';
		for (let num = 1; num < 8; num++) text += `${String(at[num]).padStart(10, '0')} 00000 n \n`;
		text += `trailer\n<< /Size 8 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
		const { output } = await h.run(
			emu,
			h.doc('recognize', { options: { pageBudget: 1, pages: '1' } }),
			[h.binaryItem(Buffer.from(text, 'latin1'), 'two.pdf')],
			{ continueOnFail: true },
		);
		expect(output[0].json.error).toBeUndefined();
		expect(output[0].json).toMatchObject({ pagesCounted: 2, pagesSent: '1' });
		expect(h.netCharged(emu)).toBe(1);
		// The data of page 1's stream ends at its first `endstream`: page 2 did not travel in it.
		expect(received().at(-1)).toEqual(['page one']);
	});
});
