/** The pages of a TIFF: its chain of image file directories (classic and BigTIFF, either byte order). */
import { PAGE_LIMITS, Unknown, type Work } from './limits';

export async function countTiffPages(buf: Buffer, work: Work): Promise<number> {
	return (await tiffDirectories(buf, work)).offsets.length;
}

/** A TIFF's image directories: where each begins, in order; its byte order and whether BigTIFF. */
export interface TiffDirectories {
	offsets: number[];
	le: boolean;
	big: boolean;
}

export async function tiffDirectories(buf: Buffer, work: Work): Promise<TiffDirectories> {
	if (buf.length < 8) throw new Unknown('the TIFF header is cut off');
	const le = buf[0] === 0x49;
	const u16 = (o: number) => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
	const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
	const u64 = (o: number) => {
		const value = le ? buf.readBigUInt64LE(o) : buf.readBigUInt64BE(o);
		return value > BigInt(buf.length) ? buf.length : Number(value);
	};
	const version = u16(2);
	const big = version === 43;
	if (!big && version !== 42) throw new Unknown(`not a TIFF (version ${version})`);
	if (big && (buf.length < 16 || u16(4) !== 8))
		throw new Unknown('the BigTIFF header is not the one of its specification');
	// The directories' offsets seen, a bit per byte of the file: an eighth of its size at most.
	const seen = new Uint8Array(Math.floor(buf.length / 8) + 1);
	work.charge(seen.length);
	let offset = big ? u64(8) : u32(4);
	const offsets: number[] = [];
	let pages = 0;
	while (offset !== 0) {
		if (work.due()) await work.pause();
		const head = big ? 8 : 2;
		work.charge(2 * head); // the directory's entry count and its next offset, read
		const entry = big ? 20 : 12;
		if (offset + head > buf.length)
			throw new Unknown(`a TIFF image directory at byte ${offset} is past the end of the file`);
		const byte = Math.floor(offset / 8);
		const bit = 1 << offset % 8;
		if (seen[byte] & bit) throw new Unknown('the TIFF image directories form a loop');
		seen[byte] |= bit;
		if (pages >= PAGE_LIMITS.maxImages)
			throw new Unknown(`more than ${PAGE_LIMITS.maxImages} TIFF image directories`);
		const entries = big ? u64(offset) : u16(offset);
		const next = offset + head + entries * entry;
		if (next + (big ? 8 : 4) > buf.length)
			throw new Unknown(`the TIFF image directory at byte ${offset} is cut off`);
		pages++;
		offsets.push(offset);
		offset = big ? u64(next) : u32(next);
	}
	if (pages === 0) throw new Unknown('the TIFF has no image directory');
	return { offsets, le, big };
}
