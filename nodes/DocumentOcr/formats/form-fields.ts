/**
 * The form fields of a copy (ISO 32000-1 §12.7.3): a written widget keeps its field, and each field
 * its parent, but a field's /Kids name only the widgets and fields below it that the file holds,
 * so nothing of another page's widgets travels up and back down the tree. The kids are known only
 * once every page is added, so the fields are written last (pdf-file.ts), their sizes kept as they
 * grow; the fields without a parent are the new /AcroForm's /Fields (catalog.ts). A page can be
 * undone (`mark`, `undo`), as the copier's split needs.
 */
import { ENDOBJ } from './pdf-file';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** A field's closing bytes beyond its kids: ` /Kids [`, `]>>` and `endobj`. */
const CLOSING = ' /Kids ['.length + ']>>'.length + ENDOBJ.length;

/** What the fields were before a page was added. */
export interface FieldsMark {
	log: number;
	roots: number;
}

export class FormFields {
	/** Each field's bytes but its /Kids, by its number in the copy. */
	private readonly heads = new Map<number, Buffer>();
	/** The kids written below each field. */
	private readonly kids = new Map<number, number[]>();
	/** The field each kid was given to, in order (undo takes them back). */
	private readonly log: number[] = [];
	/** The fields without a parent (and widgets that are fields of their own), in order. */
	readonly roots: number[] = [];
	/** The bytes of the fields as they would be written now. */
	bytes = 0;

	/** Field `number` is written with `head` (all of it but its /Kids and its end). */
	hold(number: number, head: Buffer): void {
		this.heads.set(number, head);
		this.bytes += head.length + CLOSING;
	}

	/** Object `kid` of the copy is below field `field`. */
	give(field: number, kid: number): void {
		const kids = this.kids.get(field) ?? [];
		this.kids.set(field, kids);
		kids.push(kid);
		this.bytes += `${kid} 0 R`.length + (kids.length > 1 ? 1 : 0);
		this.log.push(field);
	}

	mark(): FieldsMark {
		return { log: this.log.length, roots: this.roots.length };
	}

	/** Back to `mark`, the objects from `next` on no longer in the copy. */
	undo(mark: FieldsMark, next: number): number {
		const undone = this.log.length - mark.log;
		while (this.log.length > mark.log) {
			const kids = this.kids.get(this.log.pop()!)!;
			this.bytes -= `${kids.pop()!} 0 R`.length + (kids.length > 0 ? 1 : 0);
		}
		for (const [number, head] of this.heads)
			if (number >= next) {
				this.bytes -= head.length + CLOSING;
				this.heads.delete(number);
				this.kids.delete(number);
			}
		this.roots.length = mark.roots;
		return undone + this.heads.size;
	}

	/** Each field whole, by its number in the copy. */
	written(): Map<number, Buffer> {
		const out = new Map<number, Buffer>();
		for (const [number, head] of this.heads) {
			const kids = (this.kids.get(number) ?? []).map((kid) => `${kid} 0 R`).join(' ');
			out.set(number, Buffer.concat([head, latin1(` /Kids [${kids}]>>`), ENDOBJ]));
		}
		return out;
	}
}
