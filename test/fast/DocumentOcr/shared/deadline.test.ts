/**
 * The deadline of a read from a user's file server (shared/deadline.ts) counts the time spent
 * waiting on the server, not the time the reader holds what arrived: on a fake clock.
 */
import { ReadDeadline } from '../../../../nodes/DocumentOcr/shared/deadline';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const advance = async (ms: number) => await jest.advanceTimersByTimeAsync(ms);

test('a read that only waits: the deadline expires at its time and aborts the signal', async () => {
	const deadline = new ReadDeadline(1_000);
	await advance(999);
	expect(deadline.expired).toBe(false);
	expect(deadline.signal.aborted).toBe(false);
	await advance(1);
	expect(deadline.expired).toBe(true);
	expect(deadline.signal.aborted).toBe(true);
});

test('time the reader holds a chunk does not count: a long hold, then the rest of the waiting', async () => {
	const deadline = new ReadDeadline(1_000);
	await advance(600); // waiting for the headers and the first chunk
	deadline.pause();
	await advance(60_000); // the chunk goes into a slow upload
	expect(deadline.expired).toBe(false);
	expect(deadline.waited).toBe(600);
	deadline.resume();
	await advance(399);
	expect(deadline.expired).toBe(false);
	await advance(1);
	expect(deadline.expired).toBe(true);
	expect(deadline.waited).toBe(1_000);
});

test('many short waits between long holds add up (a server that drips): it expires all the same', async () => {
	const deadline = new ReadDeadline(1_000);
	let rounds = 0;
	while (!deadline.expired && rounds < 100) {
		await advance(100); // waiting for the next byte
		deadline.pause();
		await advance(5_000); // the byte held
		deadline.resume();
		rounds++;
	}
	// 100 ms of waiting per round: the tenth round's waiting reaches the deadline.
	expect(rounds).toBe(10);
	expect(deadline.expired).toBe(true);
});

test('pause and resume are idempotent', async () => {
	const deadline = new ReadDeadline(1_000);
	deadline.pause();
	deadline.pause();
	await advance(5_000);
	deadline.resume();
	deadline.resume();
	await advance(999);
	expect(deadline.expired).toBe(false);
	await advance(1);
	expect(deadline.expired).toBe(true);
});

test('end() stops the clock: no expiry later, and no timer left behind', async () => {
	const deadline = new ReadDeadline(1_000);
	await advance(500);
	deadline.end();
	expect(jest.getTimerCount()).toBe(0);
	await advance(5_000);
	expect(deadline.expired).toBe(false);
});

test('paused, the clock leaves no timer running past the sleep it had armed', async () => {
	const deadline = new ReadDeadline(1_000);
	await advance(200);
	deadline.pause();
	await advance(1_000); // the armed sleep ends, sees the pause and is not re-armed
	expect(jest.getTimerCount()).toBe(0);
	deadline.resume();
	expect(jest.getTimerCount()).toBe(1);
	await advance(800);
	expect(deadline.expired).toBe(true);
});

test('the execution cancelled: the signal aborts, and it is not an expiry', async () => {
	const cancel = new AbortController();
	const deadline = new ReadDeadline(1_000, cancel.signal);
	cancel.abort();
	expect(deadline.signal.aborted).toBe(true);
	expect(deadline.expired).toBe(false);
	const already = new ReadDeadline(1_000, cancel.signal);
	expect(already.signal.aborted).toBe(true);
	await advance(2_000);
	expect(already.expired).toBe(false);
});
