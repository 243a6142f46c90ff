/**
 * Runs `count` jobs with at most `limit` in flight and returns their results in input order.
 * When `shouldStop()` turns true, jobs not yet started are skipped (their slot stays undefined).
 */
export async function runPool<R>(
	count: number,
	limit: number,
	job: (index: number) => Promise<R>,
	shouldStop: () => boolean = () => false,
): Promise<Array<R | undefined>> {
	const results: Array<R | undefined> = new Array(count);
	let next = 0;
	const worker = async () => {
		while (next < count && !shouldStop()) {
			const index = next++;
			results[index] = await job(index);
		}
	};
	const size = Math.max(1, Math.min(Math.floor(limit) || 1, count));
	await Promise.all(Array.from({ length: size }, worker));
	return results;
}
