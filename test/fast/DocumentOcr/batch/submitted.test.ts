/**
 * The Skip Submitted Documents memory (batch/submitted.ts) in the node's static data as n8n hands it
 * over: wrapped in n8n-workflow's ObservableObject, a Proxy that sees every access. Under it, a
 * counting Proxy counts every operation that reaches the stored objects (reads, writes, deletes,
 * key listings, property descriptors), so the cost of one new document is a count, not a time.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { ObservableObject } from 'n8n-workflow';

import { Execution } from '../../../../nodes/DocumentOcr/batch/execution';
import { submissionKey } from '../../../../nodes/DocumentOcr/batch/key';
import { MEMORY_LIMIT } from '../../../../nodes/DocumentOcr/batch/store';
import type { DocumentInput } from '../../../../nodes/DocumentOcr/documents/document';

const NODE = 'node:Document OCR';

/** The most accesses one document may cost: independent of how many are remembered. */
const FEW = 250;

/** Wraps `target` and every object under it in a Proxy that counts each operation on it. */
function counted<T extends object>(target: T, counter: { n: number }): T {
	const record = target as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		const value = record[key];
		if (typeof value === 'object' && value !== null) record[key] = counted(value, counter);
	}
	const count =
		<A extends unknown[], R>(operation: (...args: A) => R) =>
		(...args: A): R => {
			counter.n++;
			return operation(...args);
		};
	return new Proxy<T>(target, {
		get: count(Reflect.get),
		set: count(Reflect.set),
		has: count(Reflect.has),
		deleteProperty: count(Reflect.deleteProperty),
		ownKeys: count(Reflect.ownKeys),
		getOwnPropertyDescriptor: count(Reflect.getOwnPropertyDescriptor),
		defineProperty: count(Reflect.defineProperty),
	});
}

/** A workflow's static data as n8n loads it for an execution: from JSON, then observed. */
function load(saved: string, counter: { n: number }) {
	const plain = JSON.parse(saved) as IDataObject;
	const root = ObservableObject.create(counted(plain, counter), undefined, {
		ignoreEmptyOnFirstChild: true,
	}) as IDataObject;
	counter.n = 0;
	return root;
}

/** Workflow IDs: each execution() is the first of its workflow in this process, unless given one. */
let workflows = 0;

/**
 * One execution of the node over static data `root` (n8n's getWorkflowStaticData('node')), as the
 * first of a fresh n8n process (its memory adopted from `root`), or of `workflowId`'s executions.
 */
function execution(root: IDataObject, workflowId = `wf-${++workflows}`) {
	const ctx = {
		getWorkflow: () => ({ id: workflowId, active: true }),
		getExecutionId: () => `${workflowId}-run`,
		getWorkflowStaticData: () => {
			if (root[NODE] === undefined) root[NODE] = {};
			return root[NODE];
		},
		getNode: () => ({ name: 'Document OCR', type: 'documentOcr', typeVersion: 1 }),
		getMode: () => 'trigger',
	} as unknown as IExecuteFunctions;
	return new Execution(ctx, { concurrency: 16, stopOnFailure: false });
}

/** Submits `key` through the memory; resolves to whether it was sent (false: remembered). */
async function submit(run: Execution, key: string): Promise<boolean> {
	const claim = await run.submitted.claim(0, key, 'task', false);
	if (!('send' in claim)) return false;
	const attempt = Promise.resolve({ id: `tsk_${key.replace(/\W/g, '_')}` });
	claim.sending(attempt);
	await attempt;
	return true;
}

/** The memory of `count` documents as workflows saved it before issue 29 (one flat object). */
function savedBeforeIssue29(count: number): string {
	const submitted: IDataObject = {};
	for (let i = 0; i < count; i++)
		submitted[`task:old:${i}`] = { kind: 'task', id: `tsk_old_${i}`, at: 1_760_000_000_000 + i };
	return JSON.stringify({ [NODE]: { submitted } });
}

/**
 * A memory saved before issue 29, loaded and used by one execution (which may convert it), saved
 * and loaded again: the static data of the next execution.
 */
async function afterOneRun(remembered: number): Promise<string> {
	const root = load(savedBeforeIssue29(remembered), { n: 0 });
	await submit(execution(root), 'task:first-new');
	return JSON.stringify(root);
}

/** Accesses to the stored objects for each of `n` new documents in one execution. */
async function accessesPerNewDocument(saved: string, n: number): Promise<number[]> {
	const counter = { n: 0 };
	const run = execution(load(saved, counter));
	const accesses: number[] = [];
	for (let i = 0; i < n; i++) {
		counter.n = 0;
		expect(await submit(run, `task:new:${i}`)).toBe(true);
		accesses.push(counter.n);
	}
	return accesses;
}

describe('a new document costs the same few accesses to static data, whatever is remembered', () => {
	test(`with ${MEMORY_LIMIT.toLocaleString('en')} remembered as with 1,000, through n8n's ObservableObject, across an eviction of the oldest`, async () => {
		// Past MEMORY_LIMIT / 10 new documents: the oldest are forgotten at least once.
		const n = MEMORY_LIMIT / 10 + 50;
		const full = await accessesPerNewDocument(await afterOneRun(MEMORY_LIMIT), n);
		const small = await accessesPerNewDocument(await afterOneRun(1_000), n);
		// A few accesses per generation of the store, never one per remembered key: a walk over
		// them (what a flat object needs to find its oldest key) is thousands for one document.
		expect(Math.max(...full)).toBeLessThanOrEqual(FEW);
		expect(Math.max(...small)).toBeLessThanOrEqual(FEW);
	});

	test('the first new document of a fresh execution costs no walk either', async () => {
		const [first] = await accessesPerNewDocument(await afterOneRun(MEMORY_LIMIT), 1);
		expect(first).toBeLessThanOrEqual(FEW);
	});

	test('a later execution in the same process reads no static data to open the memory', async () => {
		const saved = await afterOneRun(MEMORY_LIMIT);
		const first = execution(load(saved, { n: 0 }), 'wf-later');
		expect(await submit(first, 'task:in-first')).toBe(true);
		first.memory.close();
		const counter = { n: 0 };
		const root = load(saved, counter);
		const later = execution(root, 'wf-later');
		// The memory the first adopted (a walk of its static data, once per process) is shared.
		expect(counter.n).toBeLessThanOrEqual(FEW);
		expect(await submit(later, 'task:in-first')).toBe(false);
		expect(counter.n).toBeLessThanOrEqual(2 * FEW);
	});

	test('a document remembered is found with a few accesses, and not sent', async () => {
		const counter = { n: 0 };
		const run = execution(load(await afterOneRun(MEMORY_LIMIT), counter));
		// The adoption walk of a process's first execution is the test above's; this is the lookup.
		counter.n = 0;
		expect(await submit(run, `task:old:${MEMORY_LIMIT - 1}`)).toBe(false);
		expect(counter.n).toBeLessThanOrEqual(FEW);
	});
});

describe('the memory workflows saved before issue 29 stays readable', () => {
	test('its documents are not sent again; its newest are kept, its oldest forgotten first', async () => {
		const root = load(savedBeforeIssue29(MEMORY_LIMIT), { n: 0 });
		const run = execution(root);
		expect(await submit(run, `task:old:${MEMORY_LIMIT - 1}`)).toBe(false);
		expect(await submit(run, 'task:old:5000')).toBe(false);
		// Full: one new document makes room by forgetting the oldest (not the newest).
		expect(await submit(run, 'task:new')).toBe(true);
		const next = execution(load(JSON.stringify(root), { n: 0 }));
		expect(await submit(next, 'task:new')).toBe(false);
		expect(await submit(next, `task:old:${MEMORY_LIMIT - 2}`)).toBe(false);
		expect(await submit(next, 'task:old:0')).toBe(true);
	});

	test('a new document marks the static data changed, so that n8n saves it', async () => {
		const root = load(await afterOneRun(MEMORY_LIMIT), { n: 0 });
		expect(root.__dataChanged).toBe(false);
		await submit(execution(root), 'task:another');
		expect(root.__dataChanged).toBe(true);
	});

	test(`never more than ${MEMORY_LIMIT.toLocaleString('en')} remembered`, async () => {
		let saved = savedBeforeIssue29(0);
		const root = load(saved, { n: 0 });
		const run = execution(root);
		for (let i = 0; i < MEMORY_LIMIT + 2_500; i++) await submit(run, `task:many:${i}`);
		saved = JSON.stringify(root);
		// Every key the memory holds, whatever its shape: at most MEMORY_LIMIT, the newest.
		const keys = saved.match(/task:many:\d+/g) ?? [];
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys.length).toBeLessThanOrEqual(MEMORY_LIMIT);
		expect(keys.length).toBeGreaterThanOrEqual(MEMORY_LIMIT * 0.9);
		expect(keys).toContain(`task:many:${MEMORY_LIMIT + 2_499}`);
		expect(keys).not.toContain('task:many:0');
	});
});

describe('the key of a document', () => {
	const document = (digest: string): DocumentInput => ({
		kind: 'pdf',
		mimeType: 'application/pdf',
		fileName: 'a.pdf',
		size: 9,
		pageCount: { pages: 1 },
		bytes: { in: 'store', binaryId: 'b', kept: [Buffer.from('%PDF-'), Buffer.from('1.4')] },
		digest,
	});
	const keyOf = async (input: DocumentInput) => {
		const run = execution({});
		jest.spyOn(run.client, 'account').mockResolvedValue('account');
		return await submissionKey(run.client, 0, 'task', { provider: 'provider-async' }, input);
	};

	test('uses the digest the check phase computed, and leaves the kept bytes for the submission', async () => {
		const digest = 'ab'.repeat(32);
		const input = document(digest);
		expect(await keyOf(input)).toMatch(new RegExp(`^task:[0-9a-f]{16}:${digest}$`));
		expect(input.bytes).toMatchObject({ kept: [expect.any(Buffer), expect.any(Buffer)] });
	});

	test('another document, another key; the same settings and account', async () => {
		const one = await keyOf(document('ab'.repeat(32)));
		const other = await keyOf(document('cd'.repeat(32)));
		expect(one.split(':').slice(0, 2)).toEqual(other.split(':').slice(0, 2));
		expect(one).not.toBe(other);
	});
});
