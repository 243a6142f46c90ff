/**
 * Where the page counter keeps object locations (formats/locations.ts): typed arrays
 * bounded by what the file can hold, a Map beyond them, entries kept in the Map while the
 * arrays did not reach them still found once the arrays grow past them, and growth that copies
 * each element a few times however many sections list the numbers.
 */
import { Work } from '../../../../nodes/DocumentOcr/formats/limits';
import {
	Locations,
	NumberSet,
	maxObjectsIn,
} from '../../../../nodes/DocumentOcr/formats/locations';

const work = () => new Work(10_000_000);

describe('Locations', () => {
	test('offsets, free entries and objects in streams read back as set', () => {
		const objects = new Locations(maxObjectsIn(1_000_000), work());
		objects.set(1, { offset: 15 });
		objects.set(2, { offset: -1 });
		objects.set(3, { stream: 9, index: 4 });
		expect(objects.get(1)).toEqual({ offset: 15 });
		expect(objects.get(2)).toEqual({ offset: -1 });
		expect(objects.get(3)).toEqual({ stream: 9, index: 4 });
		expect(objects.has(4)).toBe(false);
		objects.delete(3);
		expect(objects.has(3)).toBe(false);
	});

	test('values past 32 bits and numbers past what the file can hold are kept too', () => {
		const objects = new Locations(maxObjectsIn(1000), work());
		objects.set(1, { offset: 2 ** 40 });
		objects.set(2, { stream: 2 ** 33, index: 1 });
		objects.set(5000, { offset: 7 });
		expect(objects.get(1)).toEqual({ offset: 2 ** 40 });
		expect(objects.get(2)).toEqual({ stream: 2 ** 33, index: 1 });
		expect(objects.get(5000)).toEqual({ offset: 7 });
		objects.set(1, { offset: 3 });
		expect(objects.get(1)).toEqual({ offset: 3 });
	});

	test('an entry set far ahead is still found after the arrays grow past it', () => {
		const objects = new Locations(maxObjectsIn(10_000_000), work());
		objects.set(50_000, { offset: 99 });
		for (let num = 0; num < 60_000; num++) if (num !== 50_000) objects.set(num, { offset: num });
		expect(objects.get(50_000)).toEqual({ offset: 99 });
		expect(objects.get(59_999)).toEqual({ offset: 59_999 });
	});

	test('sections of one entry each, in order: each element copied a few times, not once per section', () => {
		const n = 40_000;
		const meter = work();
		const objects = new Locations(maxObjectsIn(10_000_000), meter);
		for (let num = 0; num < n; num++) {
			objects.reserve(num, 1);
			objects.set(num, { offset: num });
		}
		expect(objects.get(n - 1)).toEqual({ offset: n - 1 });
		// Growth to twice the size: the sizes copied add up to less than 4n (n²/2 when each section
		// grew the arrays to its own end).
		expect(meter.done).toBeLessThan(4 * n);
	});

	test('a reserved section is filled without growing again; a far or huge one is not reserved', () => {
		const objects = new Locations(maxObjectsIn(1_000_000), work());
		objects.reserve(0, 40_000);
		for (let num = 0; num < 40_000; num++) objects.set(num, { offset: num });
		expect(objects.get(39_999)).toEqual({ offset: 39_999 });
		objects.reserve(90_000, 5); // far beyond the entries: left to the Map
		objects.set(90_001, { offset: 1 });
		expect(objects.get(90_001)).toEqual({ offset: 1 });
		objects.reserve(0, 10 ** 9); // past what the file can hold: nothing allocated
		expect(objects.get(0)).toEqual({ offset: 0 });
	});
});

describe('NumberSet', () => {
	test('a number added far ahead is still there after the bytes grow past it', () => {
		const seen = new NumberSet(work());
		seen.add(50_000);
		for (let num = 0; num < 60_000; num++) if (num !== 50_000) seen.add(num);
		expect(seen.has(50_000)).toBe(true);
		expect(seen.has(60_000)).toBe(false);
	});
});

describe('Locations past what the file can hold', () => {
	test('numbers beyond the arrays are kept up to a bound, then the count is unknown', () => {
		const objects = new Locations(maxObjectsIn(1000), work()); // 164 numbers in the arrays
		const bound = (maxObjectsIn(1000) >> 3) + 1024;
		for (let i = 0; i < bound; i++) objects.set(10_000 + 7 * i, { offset: 1 });
		expect(() => objects.set(1_000_000, { offset: 1 })).toThrow(
			/more objects than a file of its size can hold/,
		);
		objects.set(10_000, { offset: 2 }); // one already kept is replaced
		expect(objects.get(10_000)).toEqual({ offset: 2 });
	});
});
