'use strict';
/**
 * The dependency rule that `npm run lint` checks (eslint.layers.config.mjs): the package as it is
 * passes, and a planted import that points up, reaches across node families or closes a circle,
 * a module-level map, or a file in no known layer, each fails it.
 *
 * ESLint runs as `npm run lint` runs it, in a child process (it loads the .mjs config with a
 * dynamic import, which Jest's module system does not do), once on the package and once on a copy
 * of nodes/ and credentials/ with every violation planted (each in its own file).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const ESLINT = path.join(ROOT, 'node_modules/eslint/bin/eslint.js');
const CONFIG = path.join(ROOT, 'eslint.layers.config.mjs');

/** ESLint's problems in `cwd` as lines "relative/file.ts: rule: message". */
function lint(cwd) {
	let output;
	try {
		output = execFileSync(
			process.execPath,
			[ESLINT, '-c', CONFIG, '--format', 'json', 'nodes', 'credentials'],
			{ cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
		);
	} catch (error) {
		if (error.status !== 1) throw error; // 1: problems found; 2: ESLint itself failed
		output = error.stdout;
	}
	return JSON.parse(output).flatMap((result) =>
		result.messages.map(
			(m) =>
				`${path.relative(cwd, result.filePath).split(path.sep).join('/')}: ${m.ruleId}: ${m.message}`,
		),
	);
}

const append = (dir, file, line) =>
	fs.appendFileSync(path.join(dir, 'nodes/DocumentOcr', file), `\n${line}\n`);

const PLANTED = [
	[
		'an import pointing up (transport -> batch)',
		(dir) =>
			append(dir, 'transport/slots.ts', "import type { Execution } from '../batch/execution';"),
		/transport\/slots\.ts: import-x\/no-restricted-paths: .*"\.\.\/batch\/execution".*transport\/ may import only/,
	],
	[
		'transport reaching into documents (below it, but kept apart)',
		(dir) =>
			append(dir, 'transport/endpoints.ts', "import type { KeptBytes } from '../documents/kept';"),
		/transport\/endpoints\.ts: import-x\/no-restricted-paths: .*"\.\.\/documents\/kept".*transport\/ may import only the layers below it \(shared\)/,
	],
	[
		'the format room importing upward (formats -> documents)',
		(dir) => append(dir, 'formats/tiff.ts', "import type { Problem } from '../documents/check';"),
		/formats\/tiff\.ts: import-x\/no-restricted-paths: .*"\.\.\/documents\/check".*formats\/ may import only the layers below it \(shared\)/,
	],
	[
		'the format room importing n8n',
		(dir) => append(dir, 'formats/images.ts', "import { sleep } from 'n8n-workflow';"),
		/formats\/images\.ts: no-restricted-imports: .*formats\/ is pure: no n8n import/,
	],
	[
		'transport reading a format (below it, but kept apart)',
		(dir) => append(dir, 'transport/retry.ts', "import type { Pause } from '../formats/limits';"),
		/transport\/retry\.ts: import-x\/no-restricted-paths: .*"\.\.\/formats\/limits".*transport\/ may import only the layers below it \(shared\)/,
	],
	[
		"a trigger reaching into the action node's operations",
		(dir) => append(dir, 'trigger/events.ts', "import type { SendPhase } from '../actions/types';"),
		/trigger\/events\.ts: import-x\/no-restricted-paths: .*trigger\/ .*may not import actions\//,
	],
	[
		"the poll trigger node importing the action node's router",
		(dir) =>
			append(dir, 'DocumentOcrPollTrigger.node.ts', "import { router } from './actions/router';"),
		/DocumentOcrPollTrigger\.node\.ts: import-x\/no-restricted-paths: .*may not import the action node's actions\//,
	],
	[
		'a circle inside one folder',
		(dir) => {
			append(dir, 'shared/object.ts', "import { safeFileName } from './text';");
			append(dir, 'shared/text.ts', "import { isObject } from './object';");
		},
		/shared\/(object|text)\.ts: import-x\/no-cycle: Dependency cycle/,
	],
	[
		'a module-level WeakMap',
		(dir) => append(dir, 'waiting/wait.ts', 'const pollers = new WeakMap<object, number>();'),
		/waiting\/wait\.ts: no-restricted-syntax: A module-level Map\/WeakMap/,
	],
	[
		'an exported module-level Map',
		(dir) => append(dir, 'batch/key.ts', 'export const seen: Map<string, number> = new Map();'),
		/batch\/key\.ts: no-restricted-syntax: A module-level Map\/WeakMap/,
	],
	[
		'a file in no known layer',
		(dir) => {
			fs.mkdirSync(path.join(dir, 'nodes/DocumentOcr/extra'));
			append(dir, 'extra/helper.ts', 'export const one = 1;');
		},
		/extra\/helper\.ts: no-restricted-syntax: This file is outside the known layers/,
	],
];

let planted;
beforeAll(() => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
	try {
		for (const item of ['nodes', 'credentials', 'tsconfig.json'])
			fs.cpSync(path.join(ROOT, item), path.join(dir, item), { recursive: true });
		// Packages (n8n-workflow) resolve as in the package, so only the planted lines differ.
		fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
		for (const [, plant] of PLANTED) plant(dir);
		planted = lint(dir).join('\n');
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

test('the package as it is: every import points down, no cycle, no module-level map', () => {
	expect(lint(ROOT)).toEqual([]);
});

test.each(PLANTED)('%s fails the check', (_name, _plant, expected) => {
	expect(planted).toMatch(expected);
});
