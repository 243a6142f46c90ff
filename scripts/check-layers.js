'use strict';
/**
 * The dependency rule of nodes/ and credentials/, checked by `npm run lint`: imports only point
 * down the layers below, never across the two node families (the action node's operations and
 * the triggers' logic), never in a circle; and no module-level WeakMap or Map holds state
 * (executions carry their own: batch/execution.ts).
 *
 *   node files (*.node.ts)      7  each may import its own family and everything below
 *   actions/   | trigger/       6  the action node's operations | the triggers' logic (not each other)
 *   batch/                      5  one execution of the action node: order, halt, billed IDs, memory
 *   waiting/                    4  polling many records at once
 *   service/                    3  the service client: typed reads and writes, the list walker
 *   transport/                  2  send one request, the retry table, the error map, request slots
 *   documents/                  1  bytes -> checked document, request bodies
 *   shared/                     0  pure helpers
 *
 * Usage: node scripts/check-layers.js [root]   (exit 1 and one line per violation)
 */
const fs = require('node:fs');
const path = require('node:path');

const FAMILY = 'nodes/DocumentOcr';
const LAYERS = {
	actions: 6,
	trigger: 6,
	batch: 5,
	waiting: 4,
	service: 3,
	transport: 2,
	documents: 1,
	shared: 0,
};
/** Which family each node file belongs to (the folder it may import at rank 6). */
const NODE_FILES = {
	'DocumentOcr.node.ts': 'actions',
	'DocumentOcrTrigger.node.ts': 'trigger',
	'DocumentOcrPollTrigger.node.ts': 'trigger',
};
/** Module-level maps that are not per-execution state, and why. */
const ALLOWED_MODULE_MAPS = {
	// The webhook trigger's replay memory is the process's own, shared by every delivery of a
	// trigger (two copies of a delivery arriving at once must not both pass): keyed by workflow and
	// node, never by an execution.
	[`${FAMILY}/trigger/replay.ts`]: true,
};

function listFiles(root, dir) {
	const full = path.join(root, dir);
	if (!fs.existsSync(full)) return [];
	return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
		const rel = path.posix.join(dir, entry.name);
		if (entry.isDirectory()) return listFiles(root, rel);
		return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
	});
}

/** The layer of a file: { rank, group }, or undefined for a file outside the known places. */
function layerOf(file) {
	if (file.startsWith('credentials/')) return { rank: 8, group: 'credentials' };
	if (!file.startsWith(`${FAMILY}/`)) return undefined;
	const rest = file.slice(FAMILY.length + 1);
	if (!rest.includes('/')) {
		const family = NODE_FILES[rest];
		return family ? { rank: 7, group: `node:${rest}`, family } : undefined;
	}
	const folder = rest.split('/')[0];
	return folder in LAYERS ? { rank: LAYERS[folder], group: folder } : undefined;
}

/** Relative import specifiers of a source file (import / export ... from, import()). */
function importsOf(source) {
	const found = [];
	const pattern =
		/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']*)'|import\(\s*'(\.[^']*)'\s*\)/g;
	for (let match = pattern.exec(source); match; match = pattern.exec(source))
		found.push(match[1] ?? match[2]);
	return found;
}

function resolveImport(root, from, specifier) {
	const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
	for (const candidate of [`${base}.ts`, `${base}/index.ts`, base])
		if (fs.existsSync(path.join(root, candidate)) && candidate.endsWith('.ts')) return candidate;
	return `${base}.ts`;
}

/** Why importing `to` from `from` breaks the rule, or undefined when it is allowed. */
function violation(from, to) {
	const a = layerOf(from);
	const b = layerOf(to);
	if (!a) return `${from} is outside the known layers (add its folder to scripts/check-layers.js)`;
	if (!b) return `${from} imports ${to}, which is outside the known layers`;
	if (a.group === b.group) return undefined;
	if (a.rank === 7 && b.rank === 6 && b.group !== a.family)
		return `${from} imports ${to}: a node reaches into another node's ${b.group}/`;
	if (a.rank > b.rank) return undefined;
	if (a.rank === b.rank) return `${from} imports ${to}: across ${a.group}/ and ${b.group}/`;
	return `${from} imports ${to}: an import pointing up (${a.group} ${a.rank} -> ${b.group} ${b.rank})`;
}

function findCycles(graph) {
	const cycles = [];
	const state = new Map();
	const stack = [];
	const visit = (file) => {
		state.set(file, 'open');
		stack.push(file);
		for (const next of graph.get(file) ?? []) {
			if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
			else if (!state.has(next)) visit(next);
		}
		stack.pop();
		state.set(file, 'done');
	};
	for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
	return cycles;
}

function checkLayers(root = path.join(__dirname, '..')) {
	const files = [...listFiles(root, 'nodes'), ...listFiles(root, 'credentials')];
	const problems = [];
	const graph = new Map();
	for (const file of files) {
		const source = fs.readFileSync(path.join(root, file), 'utf8');
		const targets = importsOf(source).map((spec) => resolveImport(root, file, spec));
		graph.set(file, targets);
		if (!layerOf(file)) problems.push(violation(file, file));
		for (const target of targets) {
			const why = violation(file, target);
			if (why) problems.push(why);
		}
		if (
			/^(?:export\s+)?(?:const|let|var)\s+\w+\s*(?::[^=]+)?=\s*new\s+(?:Weak)?Map\b/m.test(source)
		) {
			if (!ALLOWED_MODULE_MAPS[file])
				problems.push(
					`${file} keeps a module-level Map/WeakMap: state belongs to an object passed down`,
				);
		}
	}
	for (const cycle of findCycles(graph)) problems.push(`import cycle: ${cycle.join(' -> ')}`);
	return { files: files.length, problems: [...new Set(problems)] };
}

module.exports = { checkLayers };

if (require.main === module) {
	const { files, problems } = checkLayers(
		process.argv[2] ? path.resolve(process.argv[2]) : undefined,
	);
	for (const problem of problems) console.error(`layers: ${problem}`);
	if (problems.length > 0) process.exit(1);
	console.log(`layers: ${files} files, every import points down, no cycle`);
}
