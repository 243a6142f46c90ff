'use strict';
/**
 * The dependency rule that `npm run lint` checks (scripts/check-layers.js): the package as it is
 * passes, and a planted import that points up, reaches across node families or closes a circle,
 * or a module-level map, each fails it.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { checkLayers } = require('../scripts/check-layers');

const ROOT = path.join(__dirname, '..');

/** A copy of nodes/ and credentials/ with `plant` applied, checked. */
function checkedWith(plant) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
	try {
		for (const folder of ['nodes', 'credentials'])
			fs.cpSync(path.join(ROOT, folder), path.join(dir, folder), { recursive: true });
		plant(dir);
		return checkLayers(dir).problems;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const append = (dir, file, line) =>
	fs.appendFileSync(path.join(dir, 'nodes/DocumentOcr', file), `\n${line}\n`);

test('the package as it is: every import points down, no cycle, no module-level map', () => {
	expect(checkLayers(ROOT).problems).toEqual([]);
});

test.each([
	[
		'an import pointing up (transport -> batch)',
		(dir) =>
			append(dir, 'transport/slots.ts', "import type { Execution } from '../batch/execution';"),
		/transport\/slots\.ts imports .*batch\/execution\.ts: an import pointing up/,
	],
	[
		"a trigger reaching into the action node's operations",
		(dir) => append(dir, 'trigger/events.ts', "import type { Send } from '../actions/types';"),
		/across trigger\/ and actions\//,
	],
	[
		"the poll trigger node importing the action node's router",
		(dir) =>
			append(dir, 'DocumentOcrPollTrigger.node.ts', "import { router } from './actions/router';"),
		/a node reaches into another node's actions\//,
	],
	[
		'a circle inside one folder',
		(dir) => {
			append(dir, 'shared/object.ts', "import { safeFileName } from './text';");
			append(dir, 'shared/text.ts', "import { isObject } from './object';");
		},
		/import cycle: .*shared\/(object|text)\.ts/,
	],
	[
		'a module-level WeakMap',
		(dir) => append(dir, 'waiting/wait.ts', 'const pollers = new WeakMap<object, number>();'),
		/waiting\/wait\.ts keeps a module-level Map\/WeakMap/,
	],
])('%s fails the check', (_name, plant, expected) => {
	const problems = checkedWith(plant);
	expect(problems.join('\n')).toMatch(expected);
});
