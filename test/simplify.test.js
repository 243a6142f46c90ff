'use strict';
/**
 * Simplify (node version 2): lean items of at most ten fields for workflows and AI agents; the
 * raw answer with Simplify off, and always on version 1 (workflows saved before it existed).
 */
const h = require('./helpers');

const emu = h.useEmulator({ fields: 'rich' });
const v2 = { typeVersion: 2 };

let taskId;
beforeAll(async () => {
	const { output } = await h.run(emu, h.submit(), [h.pdfItem('Simple text', 'simple.pdf')]);
	taskId = output[0].json.taskId;
});

test('version 2 Get: Simplify is on by default — at most ten fields, the text and status kept', async () => {
	const { output, error } = await h.run(emu, h.task('get', { taskId }), undefined, v2);
	expect(error).toBeUndefined();
	const json = output[0].json;
	expect(Object.keys(json).length).toBeLessThanOrEqual(10);
	expect(json).toMatchObject({ taskId, status: 'done', filename: 'simple.pdf', pages: 1 });
	expect(json.resultText).toContain('Simple text');
	for (const dropped of ['documentType', 'updatedAt', 'createdAt'])
		expect(json).not.toHaveProperty(dropped);
});

test('version 2 with Simplify off, and version 1: the raw task, every field', async () => {
	const raw = await h.run(emu, h.task('get', { taskId, simplify: false }), undefined, v2);
	const v1 = await h.run(emu, h.task('get', { taskId }));
	for (const { output } of [raw, v1]) {
		expect(output[0].json).toMatchObject({ taskId, documentType: 'general' });
		expect(output[0].json).toHaveProperty('updatedAt');
	}
});

test('version 2 Submit and Get Many: simplified items', async () => {
	const submitted = await h.run(emu, h.submit(), [h.pdfItem('Second', 'second.pdf')], v2);
	expect(Object.keys(submitted.output[0].json).length).toBeLessThanOrEqual(10);
	expect(submitted.output[0].json.resultText).toContain('Second');
	const listed = await h.run(emu, h.task('getMany', { returnAll: false, limit: 5 }), undefined, v2);
	expect(listed.output.length).toBeGreaterThanOrEqual(2);
	for (const { json } of listed.output) {
		expect(json).not.toHaveProperty('documentType');
		expect(json.taskId).toMatch(/\S/);
	}
});

test('version 2 Submit, Provider Sync: the word positions it is chosen for are kept', async () => {
	const params = h.submit({ provider: 'provider-sync' });
	const { output, error } = await h.run(emu, params, [h.pdfItem('Word positions', 'w.pdf')], v2);
	expect(error).toBeUndefined();
	const json = output[0].json;
	expect(Object.keys(json).length).toBeLessThanOrEqual(10);
	expect(json).toMatchObject({ status: 'done', provider: 'provider-sync', pagesBilled: 1 });
	expect(json.words.map((word) => word.text)).toEqual(['Word', 'positions']);
	expect(json.words[0]).toMatchObject({ page: 1, bbox: expect.any(Object) });
	// Task → Get of the same task keeps them too.
	const got = await h.run(emu, h.task('get', { taskId: json.taskId }), undefined, v2);
	expect(got.output[0].json.words).toEqual(json.words);
});

test('version 2 Submit (V2): its bill (creditsUsed, estimatedSeconds) is kept with the finished task', async () => {
	const params = {
		resource: 'task',
		operation: 'submitV2',
		documentSource: 'binary',
		binaryPropertyName: 'data',
		fileName: '',
		format: 'markdown',
		waitForCompletion: true,
		options: {},
	};
	const pdf = h.documents.makePdf(['Credits one', 'Credits two']);
	const { output, error } = await h.run(emu, params, [h.binaryItem(pdf, 'credits.pdf')], v2);
	expect(error).toBeUndefined();
	const json = output[0].json;
	expect(Object.keys(json).length).toBeLessThanOrEqual(10);
	expect(json).toMatchObject({ status: 'done', pages: 2, creditsUsed: 2 });
	expect(json.estimatedSeconds).toEqual(expect.any(Number));
	expect(json.resultText).toContain('Credits two');
	const raw = await h.run(emu, { ...params, simplify: false }, [h.binaryItem(pdf, 'c.pdf')], v2);
	expect(raw.output[0].json).toMatchObject({
		creditsUsed: 2,
		estimatedSeconds: expect.any(Number),
	});
});

test('version 2 Recognize: the text alone, without the block list', async () => {
	const pdf = h.documents.makePdf(['Page one words', 'Page two words']);
	const { output, error } = await h.run(
		emu,
		h.doc('recognize'),
		[h.binaryItem(pdf, 'two.pdf')],
		v2,
	);
	expect(error).toBeUndefined();
	expect(output[0].json).not.toHaveProperty('blocks');
	expect(output[0].json.text).toContain('Page one words');
	expect(output[0].json.text).toContain('Page two words');
	expect(output[0].json.fileName).toBe('two.pdf');
	const raw = await h.run(
		emu,
		h.doc('recognize', { simplify: false }),
		[h.binaryItem(pdf, 'two.pdf')],
		v2,
	);
	expect(Array.isArray(raw.output[0].json.blocks)).toBe(true);
});

test('version 2 Submit (V2), "Pages: 1-2" of a 3-page TIFF: the bill (creditsUsed) is kept beside pagesSent', async () => {
	// The count of a TIFF selection carries a note and an assumption: with pagesSent too, the
	// task has more than ten fields, and what the task cost must not be the one pushed out.
	const { pagedTiff } = require('./fixtures/pages/crafted');
	const tiff = pagedTiff(['first page', 'second page', 'third page']);
	const params = h.submit({ operation: 'submitV2', format: 'markdown', options: { pages: '1-2' } });
	const whole = await h.run(
		emu,
		{ ...params, simplify: false },
		[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
		v2,
	);
	expect(whole.output[0].json).toMatchObject({ pagesSent: '1-2', creditsUsed: 1 });
	const simple = await h.run(
		emu,
		{ ...params, simplify: true },
		[h.binaryItem(tiff, 'scan.tif', 'image/tiff')],
		v2,
	);
	const json = simple.output[0].json;
	expect(Object.keys(json).length).toBeLessThanOrEqual(10);
	expect(json).toMatchObject({ pagesSent: '1-2', creditsUsed: 1 });
});
