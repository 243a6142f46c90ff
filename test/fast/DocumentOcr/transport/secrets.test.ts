/** The API key never leaves an answer or a message (transport/secrets.ts). */
import { redact, scrubAnswer } from '../../../../nodes/DocumentOcr/transport/secrets';

describe('secrets', () => {
	test('secrets are redacted from any text', () => {
		expect(redact('Bearer ocr_live_abc123 failed', ['ocr_live_abc123'])).not.toContain(
			'ocr_live_abc123',
		);
	});

	test('an answer read as bytes is scrubbed of the key like any other', () => {
		const key = 'ocr_live_abc123';
		const echo = `authorization: Bearer ${key}\nx-api-key: ${key}\n`;
		const fromBuffer = scrubAnswer(Buffer.from(echo), [key]) as Buffer;
		expect(fromBuffer.toString()).toBe('authorization: Bearer [redacted]\nx-api-key: [redacted]\n');
		const bytes = Buffer.from(echo);
		const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
		expect(String(scrubAnswer(arrayBuffer, [key]))).not.toContain(key);
		const file = Buffer.from([0x50, 0x4b, 3, 4, 0, 1, 2]);
		expect(scrubAnswer(file, [key])).toBe(file);
	});
});
