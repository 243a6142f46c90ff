/**
 * A PDF file being written (the copier's, pdf-copy.ts, fills it): the header, the objects from
 * number 3 on in number order (a stream's data a chunk of its own, the input's bytes where they
 * are not decrypted), the objects written last (form fields, whose /Kids grow as the copy goes),
 * the catalog (1) and the page tree root (2), a classic cross-reference table and the trailer.
 * Its exact size is known at every step, so a split sizes its parts as they grow, and a step
 * can be undone (`mark`, `undo`). Like pdf-lib's PDFWriter, it sizes first, then serializes, and
 * lets the event loop run while it writes the table.
 */
import { Unknown, type Work } from './limits';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
export const ENDOBJ = latin1('\nendobj\n');
const ENDSTREAM = latin1('\nendstream\nendobj\n');

/** What a file was before a step (undo goes back to it). */
export interface FileMark {
	chunks: number;
	offsets: number;
	body: number;
}

/** What closes the file, as its size needs it: the objects written last, its catalog, its pages. */
export interface Closing {
	/** The bytes of the objects written last. */
	lastBytes: number;
	/** The catalog dictionary's length, in bytes. */
	catalogBytes: number;
	/** The pages, and the bytes they take in /Kids (each with a space). */
	count: number;
	kidsBytes: number;
}

/** What closes the file, whole. */
export interface Ending extends Closing {
	/** The catalog dictionary, `catalogBytes` long. */
	catalog: string;
	/** The objects written last, by number, each whole (`N 0 obj` to `endobj`). */
	last: Map<number, Buffer>;
	/** The pages' numbers, in order. */
	kids: number[];
}

export class PdfFile {
	private readonly chunks: Buffer[] = [];
	/** Where each object from 3 on begins, from the body's start; -1 for one written last. */
	private readonly offsets: number[] = [];
	/** The bytes of the objects written so far. */
	body = 0;

	constructor(
		private readonly header: Buffer,
		private readonly work: Work,
	) {}

	/** The number the next object takes. */
	get next(): number {
		return 3 + this.offsets.length;
	}

	/** Writes the next object: its head (all of it but a stream's data, `N 0 obj` included) and data. */
	add(head: Buffer, pieces: number, data?: Buffer): void {
		this.work.charge(head.length + pieces);
		this.offsets.push(this.body);
		this.chunks.push(head);
		this.body += head.length;
		if (data) {
			this.chunks.push(data, ENDSTREAM);
			this.body += data.length + ENDSTREAM.length;
		} else {
			this.chunks.push(ENDOBJ);
			this.body += ENDOBJ.length;
		}
	}

	/** Holds the next number for an object written last (Closing.last). */
	hold(): void {
		this.offsets.push(-1);
	}

	mark(): FileMark {
		return { chunks: this.chunks.length, offsets: this.offsets.length, body: this.body };
	}

	undo(mark: FileMark): void {
		this.chunks.length = mark.chunks;
		this.offsets.length = mark.offsets;
		this.body = mark.body;
	}

	/** The size of the file as it would be finished now. */
	size(closing: Closing): number {
		return this.layout(closing).size;
	}

	private layout({ lastBytes, catalogBytes, count, kidsBytes }: Closing) {
		const catalogObject = `1 0 obj\n\nendobj\n`.length + catalogBytes;
		const rootHead = `2 0 obj\n<< /Type /Pages /Kids [`;
		const rootTail = `] /Count ${count} >>\nendobj\n`;
		const root = rootHead.length + Math.max(0, kidsBytes - 1) + rootTail.length;
		const objects = 3 + this.offsets.length;
		const bodyEnd = this.header.length + this.body + lastBytes;
		const xrefAt = bodyEnd + catalogObject + root;
		const xref = `xref\n0 ${objects}\n`.length + 20 * objects;
		const trailer = `trailer\n<< /Size ${objects} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
		return {
			catalogObject,
			rootHead,
			rootTail,
			objects,
			bodyEnd,
			xrefAt,
			trailer,
			size: xrefAt + xref + trailer.length,
		};
	}

	/** The finished file, as chunks and their length. */
	async finish(closing: Ending): Promise<{ chunks: Buffer[]; length: number }> {
		const { work } = this;
		const layout = this.layout(closing);
		// The objects written last take their places after the body, in number order.
		const offsets = [...this.offsets];
		const last: Buffer[] = [];
		let at = this.body;
		for (const [number, object] of [...closing.last].sort((a, b) => a[0] - b[0])) {
			work.charge(object.length);
			offsets[number - 3] = at;
			last.push(object);
			at += object.length;
		}
		const catalog = latin1(`1 0 obj\n${closing.catalog}\nendobj\n`);
		if (catalog.length !== layout.catalogObject)
			throw new Unknown('the catalog is not the length it was sized at');
		const root = latin1(
			`${layout.rootHead}${closing.kids.map((kid) => `${kid} 0 R`).join(' ')}${layout.rootTail}`,
		);
		const head = `xref\n0 ${layout.objects}\n`;
		const xref = Buffer.alloc(head.length + 20 * layout.objects + layout.trailer.length, 0x20);
		// The entries are charged as they are written (so that the loop below pauses), the rest here.
		work.charge(xref.length - 20 * offsets.length);
		xref.write(head, 0, 'latin1');
		const entry = (i: number, text: string) => xref.write(text, head.length + 20 * i, 'latin1');
		entry(0, '0000000000 65535 f \n');
		const where = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
		entry(1, where(layout.bodyEnd));
		entry(2, where(layout.bodyEnd + catalog.length));
		for (let i = 0; i < offsets.length; i++) {
			work.charge(20);
			if (work.due()) await work.pause();
			entry(3 + i, where(this.header.length + offsets[i]));
		}
		xref.write(layout.trailer, head.length + 20 * layout.objects, 'latin1');
		const chunks = [this.header, ...this.chunks, ...last, catalog, root, xref];
		return { chunks, length: layout.size };
	}
}
