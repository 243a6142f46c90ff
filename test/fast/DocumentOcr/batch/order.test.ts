/** The order rules of one execution (batch/order.ts): turns and the started window. */
import { SubmissionOrder } from '../../../../nodes/DocumentOcr/batch/order';

/** The submission order of an execution: turns and halts send nothing. */
const execution = (stopOnFailure = false) => new SubmissionOrder(stopOnFailure);

/** Lets every pending promise settle. */
const settle = async () => {
	for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('items start at most `ahead` past the submission front', () => {
	test('an item waits until every item `ahead` before it has passed its turn', async () => {
		const state = execution();
		const started: number[] = [];
		for (const item of [3, 4, 5, 9]) void state.nearTurn(item, 3).then(() => started.push(item));
		await settle();
		// The front is item 0: items 0–3 may have started, 4 and beyond wait.
		expect(started).toEqual([3]);
		state.passTurn(1); // out of order: the front stays at 0
		await settle();
		expect(started).toEqual([3]);
		state.passTurn(0); // the front moves past 0 and 1, to 2
		await settle();
		expect(started).toEqual([3, 4, 5]);
		for (let item = 2; item <= 5; item++) state.passTurn(item);
		await settle();
		expect(started).toEqual([3, 4, 5, 9]);
	});

	test('a failure that halts the batch releases every waiting item at once', async () => {
		const state = execution(true);
		const started: number[] = [];
		for (const item of [100, 200]) void state.nearTurn(item, 64).then(() => started.push(item));
		await settle();
		expect(started).toEqual([]);
		state.failed();
		await settle();
		expect(started.sort()).toEqual([100, 200]);
		expect(state.halted).toBe(true);
	});
});
