/** File type by magic bytes, and sizes as the README states them (10 MB = 10,000,000 bytes). */

import {
	detectKind,
	formatBytes,
	MAX_BODY_BYTES,
} from '../../../../nodes/DocumentOcr/documents/check';

const bytes = (...parts: Array<string | number[]>) =>
	Buffer.concat(
		parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))),
	);

describe('magic bytes', () => {
	test.each([
		['pdf', bytes('%PDF-1.7\n')],
		['pdf', bytes('\n\n%PDF-1.4')], // a header within the first 1024 bytes
		['png', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
		['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0])],
		['webp', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ')],
		['tiff', bytes('II*\u0000')],
		['tiff', bytes('MM\u0000*')],
		['tiff', bytes('II+\u0000', [8, 0, 0, 0])], // BigTIFF, little endian
		['tiff', bytes('MM\u0000+', [0, 8, 0, 0])], // BigTIFF, big endian
		['gif', bytes('GIF89a')],
	])('%s', (kind, head) => {
		expect(detectKind(head)).toBe(kind);
	});

	test.each([
		['text', bytes('hello world')],
		['a ZIP (docx)', bytes('PK\u0003\u0004')],
		['RIFF that is not WEBP', bytes('RIFF', [0, 0, 0, 0], 'WAVE')],
		['TIFF-like with a mixed byte order', bytes('IM+\u0000')],
		['empty', Buffer.alloc(0)],
	])('%s is refused', (_label, head) => {
		expect(detectKind(head)).toBeNull();
	});
});

test('the body limit is 10,000,000 bytes, shown in decimal MB', () => {
	expect(MAX_BODY_BYTES).toBe(10_000_000);
	expect(formatBytes(10_000_000)).toBe('10.00 MB');
});
