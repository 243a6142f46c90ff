/**
 * The values the object parser (parser.ts) builds of a PDF's objects (ISO 32000-1 §7.3): numbers,
 * booleans, null, strings (their bytes as latin1 text, for a full parser), references, names,
 * arrays, dictionaries, a /Kids array of references as their numbers, keywords; and the tests
 * every reader of them uses.
 */
export interface Ref {
	ref: number;
	gen: number;
}
export type PdfValue =
	| number
	| boolean
	| null
	| string
	| Ref
	| { name: string }
	| PdfValue[]
	| PdfDict
	| RefList
	| { keyword: string };
export interface PdfDict {
	dict: Record<string, PdfValue>;
}
/**
 * A direct /Kids array of references, as the numbers of the objects they name: a page tree's
 * node can list thousands of kids, and an object per reference would hold many times the bytes.
 */
export interface RefList {
	refs: number[];
}

export const isRef = (v: PdfValue | undefined): v is Ref =>
	typeof v === 'object' && v !== null && 'ref' in v;
export const isDict = (v: PdfValue | undefined): v is PdfDict =>
	typeof v === 'object' && v !== null && 'dict' in v;
export const isRefList = (v: PdfValue | undefined): v is RefList =>
	typeof v === 'object' && v !== null && 'refs' in v;
export const nameOf = (v: PdfValue | undefined): string | undefined =>
	typeof v === 'object' && v !== null && 'name' in v ? v.name : undefined;
