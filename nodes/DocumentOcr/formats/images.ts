/**
 * The frames of an image that can hold more than one: an animated GIF (its image descriptors), an
 * animated PNG (acTL's frame count, checked against its fcTL chunks) and an animated WEBP (its
 * ANMF chunks). A still image is one frame, read no further than its first bytes or image data.
 * Each reader walks the file's blocks or chunks once, by their lengths.
 */
import { PAGE_LIMITS, Unknown, type Work } from './limits';

const tooMany = (what: string) => new Unknown(`more than ${PAGE_LIMITS.maxImages} ${what}`);

/**
 * The frames of a GIF: its image descriptors, block by block (extensions and the image data's
 * sub-blocks passed over by their sizes) up to the trailer or a block's end at the file's end.
 */
export async function gifFrames(buf: Buffer, work: Work): Promise<number> {
	if (buf.length < 13) throw new Unknown('the GIF header is cut off');
	const colors = (flags: number) => (flags & 0x80 ? 3 * (2 << (flags & 7)) : 0);
	let pos = 13 + colors(buf[10]);
	let frames = 0;
	while (pos < buf.length) {
		if (work.due()) await work.pause();
		work.charge(1);
		const block = buf[pos++];
		if (block === 0x3b) break;
		if (block === 0x2c) {
			if (++frames > PAGE_LIMITS.maxImages) throw tooMany('GIF frames');
			if (pos + 10 > buf.length) throw new Unknown('the GIF is cut off');
			work.charge(10); // the descriptor, read
			// The descriptor (9 bytes), its colour table, the LZW code size, then the data.
			pos += 9 + colors(buf[pos + 8]) + 1;
		} else if (block === 0x21) pos++;
		else
			throw new Unknown(
				`the GIF has an unknown block (0x${block.toString(16)}) at byte ${pos - 1}`,
			);
		// Sub-blocks, each its size then its bytes, up to an empty one.
		for (;;) {
			if (work.due()) await work.pause();
			work.charge(1);
			if (pos >= buf.length) throw new Unknown('the GIF is cut off');
			const size = buf[pos++];
			if (size === 0) break;
			pos += size;
		}
	}
	if (frames === 0) throw new Unknown('the GIF has no image');
	return frames;
}

const PNG_CHUNK = (type: string) => Buffer.from(type, 'latin1').readUInt32BE(0);
const acTL = PNG_CHUNK('acTL');
const fcTL = PNG_CHUNK('fcTL');
const IDAT = PNG_CHUNK('IDAT');
const IEND = PNG_CHUNK('IEND');

/**
 * The frames of a PNG: one for a still image (no acTL before its first IDAT: the walk stops
 * there); an animated one's acTL frame count when its fcTL chunks agree, read to IEND.
 */
export async function pngFrames(buf: Buffer, work: Work): Promise<number> {
	let pos = 8;
	let declared: number | undefined;
	let controls = 0;
	let image = false;
	for (;;) {
		if (work.due()) await work.pause();
		work.charge(8); // the chunk's length and type, read
		if (pos + 12 > buf.length) throw new Unknown('the PNG is cut off');
		const length = buf.readUInt32BE(pos);
		const type = buf.readUInt32BE(pos + 4);
		if (length > 0x7fffffff || pos + 12 + length > buf.length)
			throw new Unknown(`the PNG chunk at byte ${pos} is cut off`);
		if (type === acTL && !image && length >= 8) declared = buf.readUInt32BE(pos + 8);
		else if (type === fcTL && ++controls > PAGE_LIMITS.maxImages) throw tooMany('PNG frames');
		else if (type === IDAT) {
			if (declared === undefined) return 1;
			image = true;
		} else if (type === IEND) break;
		pos += 12 + length;
	}
	if (!image) throw new Unknown('the PNG has no image data');
	if (declared === 0 || declared !== controls)
		throw new Unknown(
			`the animated PNG declares ${declared} frames (acTL) and has ${controls} (fcTL)`,
		);
	return declared!;
}

/**
 * The frames of a WEBP: one unless its VP8X chunk says it is animated; then its ANMF chunks, the
 * RIFF chunks walked by their sizes.
 */
export async function webpFrames(buf: Buffer, work: Work): Promise<number> {
	if (buf.length < 21 || buf.toString('latin1', 12, 16) !== 'VP8X' || !(buf[20] & 0x02)) return 1;
	const end = 8 + buf.readUInt32LE(4);
	if (end > buf.length) throw new Unknown('the WEBP is cut off');
	let pos = 12;
	let frames = 0;
	while (pos < end) {
		if (work.due()) await work.pause();
		work.charge(8); // the chunk's type and size, read
		if (pos + 8 > end) throw new Unknown(`the WEBP chunk at byte ${pos} is cut off`);
		const size = buf.readUInt32LE(pos + 4);
		if (buf.toString('latin1', pos, pos + 4) === 'ANMF' && ++frames > PAGE_LIMITS.maxImages)
			throw tooMany('WEBP frames');
		pos += 8 + size + (size & 1);
	}
	// The last chunk's pad byte may be missing.
	if (pos > end + 1) throw new Unknown('the WEBP is cut off');
	if (frames === 0) throw new Unknown('the animated WEBP has no frame');
	return frames;
}
