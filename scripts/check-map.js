'use strict';
/**
 * docs/development.md stays true to the repository, checked by `npm run lint`:
 *  - its map (the code block under "## The map") names every file of the repository exactly once
 *    (tracked files and new ones not ignored by .gitignore, as `git ls-files` lists them), and
 *    names no file or folder that does not exist;
 *  - every file name the page mentions elsewhere (the map's descriptions, the recipes) is a file
 *    of the repository, or one a command writes (GENERATED);
 *  - its arrows (the code block under "## The layers") are exactly the imports between the
 *    folders of nodes/ and credentials/: an arrow no import draws, or an import no arrow shows,
 *    fails. Which imports are allowed at all is the ESLint rule's (eslint.layers.config.mjs).
 *
 * The map is a tree, two spaces of indentation per level:
 *
 *   folder/                 what it holds            a folder; the lines below it, two spaces in,
 *     file.ts               what it holds            are its files and folders
 *     a.ts, b.ts            what they hold           several names, comma-separated
 *     sub/file.ts           what it holds            a path below the folder
 *     *.pdf                 what they are            a glob (data files of one kind: fixtures)
 *                           more of a description    a line indented further than a name can be
 *
 * A name is separated from its description by two spaces or more.
 *
 * Usage: node scripts/check-map.js   (exit 1 and one line per problem when the page is not true)
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const PAGE = 'docs/development.md';

/** Files the page may name that are written by a command, not kept in the repository. */
const GENERATED = [
	/^dist\//, // npm run build
	/^bench\/results\.md$/, // npm run bench
	/^reliability-results\.md$/, // npm run test:reliability
	/^node-links\.md$/, // the nodes' links as scripts/check-node-links.js hands them to remark
];

/**
 * Files of the repository the map need not name, each with its reason. Kept empty where a glob in
 * the map can say it instead, so that what is left out shows on the page.
 */
const EXCLUDED = [];

/** A file name in running text: a path or a name with an extension (not `*.x`, `<name>.x`, `.x`). */
const FILE_TOKEN =
	/(?<![\w.<>/*@-])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|js|mjs|json|md|yml|sh|png|pdf|tif|gif))(?![\w/-])/g;

function repositoryFiles() {
	let listed;
	try {
		listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
			cwd: ROOT,
			encoding: 'utf8',
			maxBuffer: 16 * 1024 * 1024,
		});
	} catch (error) {
		console.error(`map: cannot list the repository's files (git ls-files): ${error.message}`);
		process.exit(2);
	}
	const files = listed
		.split('\0')
		.filter((file) => file && fs.existsSync(path.join(ROOT, file)))
		.filter((file) => !EXCLUDED.some(({ pattern }) => pattern.test(file)));
	return [...new Set(files)].sort();
}

/** The lines of the code block that follows `heading`, with their line numbers in the page. */
function blockAfter(lines, heading) {
	const at = lines.findIndex((line) => line.trim() === heading);
	const open = lines.findIndex((line, index) => index > at && line.startsWith('```'));
	const close = lines.findIndex((line, index) => index > open && line.startsWith('```'));
	if (at < 0 || open < 0 || close < 0) return undefined;
	return lines.slice(open + 1, close).map((text, index) => ({ text, number: open + 2 + index }));
}

const globRegex = (glob) =>
	new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

/** Every file and folder the map names, and the descriptions with the folder each is about. */
function readMap(block, files, problems) {
	const named = new Map(files.map((file) => [file, []]));
	const folders = new Set(files.flatMap((file) => parents(file)));
	const descriptions = [];
	const open = []; // the folders above the current line: { indent, path }
	let lastIndent = -2;
	for (const { text, number } of block) {
		if (text.trim() === '') continue;
		const [, spaces, names, description = ''] = /^( *)(\S.*?)(?: {2,}(.*))?$/.exec(text);
		const indent = spaces.length;
		if (indent > lastIndent + 2) {
			// A description going on from the line before.
			descriptions.push({ text: text.trim(), number, folder: open.at(-1)?.path ?? '' });
			continue;
		}
		while (open.length && open.at(-1).indent >= indent) open.pop();
		const folder = open.at(-1)?.path ?? '';
		if (indent !== (open.at(-1)?.indent ?? -2) + 2) {
			problems.push(`${PAGE}:${number}: "${names}" is not two spaces in from its folder`);
		}
		lastIndent = indent;
		descriptions.push({ text: description, number, folder });
		for (const name of names.split(/,\s*/)) {
			const full = folder + name;
			if (name.endsWith('/')) {
				if (!folders.has(full))
					problems.push(`${PAGE}:${number}: the map names ${full}, which is no folder`);
				open.push({ indent, path: full });
			} else if (name.includes('*')) {
				const matching = files.filter((file) => globRegex(full).test(file));
				if (!matching.length) problems.push(`${PAGE}:${number}: the map's ${full} matches no file`);
				for (const file of matching) named.get(file).push(number);
			} else if (named.has(full)) {
				named.get(full).push(number);
			} else {
				problems.push(`${PAGE}:${number}: the map names ${full}, which is no file`);
			}
		}
	}
	for (const [file, numbers] of named) {
		if (numbers.length === 0) problems.push(`${PAGE}: the map does not name ${file}`);
		if (numbers.length > 1) {
			problems.push(
				`${PAGE}: the map names ${file} ${numbers.length} times (lines ${numbers.join(', ')})`,
			);
		}
	}
	return descriptions;
}

/** The folders a path lies in, each with its trailing slash: a/b/c.ts -> a/, a/b/. */
function parents(file) {
	const parts = file.split('/').slice(0, -1);
	return parts.map((_, index) => `${parts.slice(0, index + 1).join('/')}/`);
}

/** Every file name in `text` is a file of the repository (or one a command writes). */
function checkMentions(text, number, folder, files, problems) {
	for (const [, written] of text.replace(/https?:\/\/\S+/g, '').matchAll(FILE_TOKEN)) {
		// A Markdown link's target is relative to the page's folder.
		const token = /^\.\.?\//.test(written)
			? path.posix.join(path.posix.dirname(PAGE), written)
			: written;
		const known =
			GENERATED.some((pattern) => pattern.test(token)) ||
			files.some((file) => file === token || file === folder + token || file.endsWith(`/${token}`));
		if (!known)
			problems.push(`${PAGE}:${number}: names ${written}, which is no file of the repository`);
	}
}

/** The layer a file of nodes/ or credentials/ belongs to, as the arrows name it. */
function layerOf(file) {
	if (file.startsWith('credentials/')) return 'credentials/';
	const inFamily =
		/^nodes\/DocumentOcr\/(?:([^/]+)\/)?[^/]+$/.exec(file) ??
		/^nodes\/DocumentOcr\/([^/]+)\//.exec(file);
	if (!inFamily) return undefined;
	return inFamily[1] ? `${inFamily[1]}/` : 'node files';
}

/** The imports between layers, as `from -> to`, read from the sources' relative imports. */
function importsBetweenLayers(files) {
	const arrows = new Set();
	for (const file of files.filter((name) => name.endsWith('.ts') && layerOf(name))) {
		const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
		for (const [, target] of source.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
			const resolved = path.posix.join(path.posix.dirname(file), target);
			const from = layerOf(file);
			// A folder's index.ts when no file of the name exists (`'../formats'` is formats/index.ts).
			const imported = [`${resolved}.ts`, `${resolved}/index.ts`].find((name) =>
				files.includes(name),
			);
			const to = layerOf(imported ?? `${resolved}.ts`);
			if (to && to !== from) arrows.add(`${from} -> ${to}`);
		}
	}
	return arrows;
}

/** The arrows the page draws: `from -> to, to (a note) | to`, one line per importing layer. */
function drawnArrows(block, problems) {
	const arrows = new Map();
	for (const { text, number } of block) {
		const match = /^(.+?)\s+->\s+(.+)$/.exec(text.trim());
		if (!match) {
			if (text.trim())
				problems.push(`${PAGE}:${number}: not an arrow ("layer -> layers"): ${text.trim()}`);
			continue;
		}
		const targets = match[2].replace(/\([^)]*\)/g, '').split(/[,|]/);
		for (const target of targets.map((t) => t.trim()).filter(Boolean)) {
			arrows.set(`${match[1].trim()} -> ${target}`, number);
		}
	}
	return arrows;
}

const problems = [];
const page = fs.readFileSync(path.join(ROOT, PAGE), 'utf8').split('\n');
const files = repositoryFiles();

const map = blockAfter(page, '## The map');
const layers = blockAfter(page, '## The layers');
if (!map) problems.push(`${PAGE}: no code block after the heading "## The map"`);
if (!layers) problems.push(`${PAGE}: no code block after the heading "## The layers"`);

if (map) {
	for (const { text, number, folder } of readMap(map, files, problems)) {
		checkMentions(text, number, folder, files, problems);
	}
	const inMap = new Set(map.map(({ number }) => number));
	page.forEach((line, index) => {
		if (!inMap.has(index + 1)) checkMentions(line, index + 1, '', files, problems);
	});
}

if (layers) {
	const drawn = drawnArrows(layers, problems);
	const found = importsBetweenLayers(files);
	for (const [arrow, number] of drawn) {
		if (!found.has(arrow))
			problems.push(`${PAGE}:${number}: the arrow ${arrow} is drawn, but no file imports so`);
	}
	for (const arrow of found) {
		if (!drawn.has(arrow))
			problems.push(`${PAGE}: ${arrow} is imported, but not drawn under "## The layers"`);
	}
}

if (problems.length) {
	for (const problem of problems) console.error(problem);
	console.error(
		`map: ${problems.length} problem(s); the map and its format: ${PAGE}, scripts/check-map.js`,
	);
	process.exit(1);
}
console.log(
	`map: ${PAGE} names each of the ${files.length} files once, every file it mentions exists, its arrows are the imports`,
);
