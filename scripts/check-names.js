'use strict';
/**
 * One name, one thing: no two declarations exported from the product's files (nodes/,
 * credentials/) have the same name, checked by `npm run lint`. Two `Tried` types, two
 * `DocumentKind`s with different members, made a reader ask which one a file means.
 *
 * The exception is a contract every file of one kind fulfils by the same names, as the router
 * reads them: an operation file (`*.operation.ts`: its `properties`, `prepare`, `bills`, `join`,
 * the `Operation` interface of actions/types.ts) and a resource file (`*.resource.ts`: its
 * `operations`, `description`). A name re-exported (`export { name }`) is the same binding, not
 * a second declaration.
 *
 * Usage: node scripts/check-names.js   (exit 1 and one line per name declared twice)
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const CONTRACTS = [
	{ suffix: '.operation.ts', names: ['properties', 'prepare', 'bills', 'join'] },
	{ suffix: '.resource.ts', names: ['operations', 'description'] },
];
const DECLARATION =
	/^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z0-9_$]+)/gm;

function filesIn(dir) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return filesIn(file);
		return file.endsWith('.ts') ? [file] : [];
	});
}

/** Every exported declaration of the product's files: name -> the files that declare it. */
function declarations() {
	const found = new Map();
	for (const file of ['nodes', 'credentials'].flatMap((dir) => filesIn(path.join(ROOT, dir)))) {
		const contract = CONTRACTS.find(({ suffix }) => file.endsWith(suffix));
		const text = fs.readFileSync(file, 'utf8');
		for (const [, name] of text.matchAll(DECLARATION)) {
			if (contract?.names.includes(name)) continue;
			if (!found.has(name)) found.set(name, []);
			found.get(name).push(path.relative(ROOT, file));
		}
	}
	return found;
}

const twice = [...declarations()].filter(([, files]) => files.length > 1);
for (const [name, files] of twice) console.error(`"${name}" is exported by ${files.join(', ')}`);
if (twice.length > 0) {
	console.error('names: give each its own name (one name, one thing)');
	process.exit(1);
}
console.log('names: every exported name of nodes/ and credentials/ is declared once');
