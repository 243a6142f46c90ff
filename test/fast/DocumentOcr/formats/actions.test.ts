/**
 * What an object's actions act on (formats/actions.ts, review 42 a1): a copy keeps an action's
 * references to fields, annotations, layers and structure only where it holds them already, so a
 * button, a link or a note on a selected page never brings another page's content with it.
 */
import { selectPdfPages } from '../../../../nodes/DocumentOcr/formats/pdf-write';
import { checkWritten, classic, inflated, stream } from './copies';

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const TWO = '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 200] >>';

/** Page 1 (3) holds the annotation `annot` (5); page 2 (4) holds note 6; objects 7 on are `more`. */
function doc(annot: string, more: string[] = []): Buffer {
	return classic([
		CATALOG,
		TWO,
		'<< /Type /Page /Parent 2 0 R /Annots [5 0 R] >>',
		'<< /Type /Page /Parent 2 0 R /Annots [6 0 R] >>',
		annot,
		'<< /Type /Annot /Subtype /Screen /Rect [0 0 9 9] /Contents (PAGE-TWO-SCREEN) /P 4 0 R >>',
		...more,
	]);
}

test.each([
	['Rendition', '/S /Rendition /OP 0 /AN 6 0 R'],
	['Movie', '/S /Movie /Annotation 6 0 R'],
	['GoTo3DView', '/S /GoTo3DView /TA 6 0 R /V 0'],
	['Hide, in an /AA trigger', '/S /Named /N /NextPage /Next << /S /Hide /T 6 0 R >>'],
])(
	'a %s action naming another page annotation: that annotation stays out',
	async (_what, action) => {
		const out = await checkWritten(
			await selectPdfPages(
				doc(`<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << ${action} >> >>`),
				[1],
			),
			1,
		);
		expect(inflated(out)).not.toContain('PAGE-TWO-SCREEN');
		// Both pages together: the reference is kept where the copy holds the annotation already.
		const both = await checkWritten(
			await selectPdfPages(doc('<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] >>'), [1, 2]),
			2,
		);
		expect(inflated(both)).toContain('PAGE-TWO-SCREEN');
	},
);

test("a SetOCGState action's layers of other pages stay out; a structure destination (/SD) is left out", async () => {
	const out = await checkWritten(
		await selectPdfPages(
			doc(
				'<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << /S /GoTo /D [3 0 R /Fit] /SD [7 0 R /Fit] /Next << /S /SetOCGState /State [/OFF 8 0 R] >> >> >>',
				[
					'<< /Type /StructElem /S /Figure /Alt (PAGE-TWO-ALT-TEXT) /P 9 0 R >>',
					'<< /Type /OCG /Name (PAGE-TWO-LAYER) >>',
					'<< /Type /StructTreeRoot /K [7 0 R] >>',
				],
			),
			[1],
		),
		1,
	);
	const all = inflated(out);
	expect(all).not.toMatch(/PAGE-TWO-ALT-TEXT|PAGE-TWO-LAYER|StructTreeRoot|\/SD/);
	expect(all).toMatch(/\/State \[\/OFF null\]/);
});

test('a link whose own action is an object of its own: read when that object is written', async () => {
	const out = await checkWritten(
		await selectPdfPages(
			doc('<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A 7 0 R >>', [
				'<< /S /Hide /T 6 0 R >>',
			]),
			[1],
		),
		1,
	);
	expect(inflated(out)).not.toContain('PAGE-TWO-SCREEN');
	expect(inflated(out)).toMatch(/<< \/S \/Hide \/T null >>/);
});

test('stream() is what copies.ts builds: a right /Length', () => {
	expect(stream('q Q')).toBe('<< /Length 3 >>\nstream\nq Q\nendstream');
});
