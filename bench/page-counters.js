'use strict';
/**
 * The page counters the benchmarks compare: a build's (its dist/) and an earlier commit's,
 * compiled from git into a temporary folder. The counter's module moved in 98e8ed9
 * (documents/pages.ts → documents/pages/index.ts), then into the formats room
 * (formats/index.ts): every place is looked for, so a build or a commit from before a move is
 * measured too. Since the move the count pauses only through the pause its caller gives (the node
 * gives n8n's sleep(0)); PAUSE is that pause, passed as the fourth argument, which counters from
 * before the move ignore (they pause by themselves).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const MODULE = [
	'nodes/DocumentOcr/formats/index',
	'nodes/DocumentOcr/documents/pages/index',
	'nodes/DocumentOcr/documents/pages',
];
/** The folders the counter's sources are in, at one commit or another. */
const FOLDERS = ['nodes/DocumentOcr/formats', 'nodes/DocumentOcr/documents'];
/** A timer of 0 ms, as n8n's sleep(0) is: what the node's count pauses with. */
const PAUSE = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The path of the page counter's module in `dist` (a build's dist/ folder). */
function counterFile(dist) {
	for (const name of MODULE) {
		const file = path.join(dist, `${name}.js`);
		if (fs.existsSync(file)) return file;
	}
	throw new Error(`${dist} holds no page counter: run "npm run build" first`);
}

/**
 * The counter of `commit`, compiled into a temporary folder: { countPages, module (the whole
 * formats module: selectPages, splitPages...), remove }. Only the
 * folders it can be in are taken (formats/ and documents/ where the commit has them; the counter
 * depends on nothing else), and only its module compiled, in about ten seconds.
 */
function counterAt(commit) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-before-'));
	try {
		const present = FOLDERS.filter(
			(folder) =>
				execFileSync('git', ['ls-tree', '--name-only', commit, folder], {
					cwd: ROOT,
					encoding: 'utf8',
				}).trim() !== '',
		);
		const tar = execFileSync('git', ['archive', commit, ...present], {
			cwd: ROOT,
			maxBuffer: 64 * 1024 * 1024,
		});
		execFileSync('tar', ['-x', '-C', dir], { input: tar });
		const source = MODULE.map((name) => path.join(dir, `${name}.ts`)).find(fs.existsSync);
		if (!source) throw new Error(`${commit} has no page counter`);
		fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
		execFileSync(
			process.execPath,
			[
				path.join(ROOT, 'node_modules/typescript/bin/tsc'),
				...['--outDir', path.join(dir, 'dist'), '--rootDir', dir, '--module', 'commonjs'],
				...['--target', 'es2022', '--lib', 'es2022', '--types', 'node', '--skipLibCheck'],
				'--strict',
				source,
			],
			{ stdio: 'inherit' },
		);
		const module = require(counterFile(path.join(dir, 'dist')));
		return {
			countPages: module.countPages,
			module,
			remove: () => fs.rmSync(dir, { recursive: true, force: true }),
		};
	} catch (error) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

module.exports = { counterFile, counterAt, PAUSE };
