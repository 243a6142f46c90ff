/**
 * The dependency rule of nodes/ and credentials/, run by `npm run lint`
 * (`eslint -c eslint.layers.config.mjs nodes credentials`; test/layers.test.js plants each kind of
 * violation and sees it fail). eslint.config.mjs stays the @n8n/node-cli template, which
 * `n8n-node lint` checks in strict mode, so these rules live here.
 *
 * Imports only point down the layers below, never across the two node families (the action
 * node's operations and the triggers' logic), never in a circle; and no module-level WeakMap or
 * Map holds state (executions carry their own: batch/execution.ts).
 *
 *   credentials/                9  may import everything below
 *   node files (*.node.ts)      8  each may import its own family and everything below
 *   actions/   | trigger/       7  the action node's operations | the triggers' logic (not each other)
 *   batch/                      6  one execution of the action node: order, halt, billed IDs, memory
 *   waiting/                    5  polling many records at once
 *   service/                    4  the service client: typed reads and writes, the list walker
 *   transport/                  3  send one request, the retry table, the error map, request slots
 *                                  (not documents/ nor formats/: the bodies it sends are
 *                                  shared/blob.ts's)
 *   documents/                  2  bytes -> checked document, request bodies
 *   formats/                    1  the format room: PDF, TIFF and image pages counted, selected,
 *                                  split; pure (no n8n), imports nothing above shared/
 *   shared/                     0  pure helpers
 */
import tsParser from '@typescript-eslint/parser';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';

const FAMILY = './nodes/DocumentOcr';
const ACTION_NODE = `${FAMILY}/DocumentOcr.node.ts`;
const TRIGGER_NODES = [
	`${FAMILY}/DocumentOcrTrigger.node.ts`,
	`${FAMILY}/DocumentOcrPollTrigger.node.ts`,
];
const NODE_FILES = [ACTION_NODE, ...TRIGGER_NODES];

/** The folders from the bottom up; each may import only the ones before it. */
const LAYERS = ['shared', 'formats', 'documents', 'transport', 'service', 'waiting', 'batch'];
/**
 * Layers below a layer that it still may not import: documents/ builds request bodies and
 * transport/ sends them, and neither needs the other (a body is a shared/blob.ts StreamedBlob);
 * nor does transport/ read a document's format.
 */
const APART = { transport: ['documents', 'formats'] };
const folder = (name) => `${FAMILY}/${name}`;
const below = (layer, rank) =>
	LAYERS.slice(0, rank).filter((other) => !(APART[layer] ?? []).includes(other));

const zones = [
	// Each layer below the node families: nothing above it, the node files and credentials included.
	...LAYERS.map((layer, rank) => ({
		target: folder(layer),
		from: [
			...LAYERS.slice(rank + 1).map(folder),
			...(APART[layer] ?? []).map(folder),
			folder('actions'),
			folder('trigger'),
			...NODE_FILES,
			'./credentials',
		],
		message: `${layer}/ may import only the layers below it (${below(layer, rank).join(', ') || 'none'}).`,
	})),
	// The two node families never import each other, nor the node files above them.
	{
		target: folder('actions'),
		from: [folder('trigger'), ...NODE_FILES, './credentials'],
		message: "actions/ (the action node's operations) may not import trigger/ or a node file.",
	},
	{
		target: folder('trigger'),
		from: [folder('actions'), ...NODE_FILES, './credentials'],
		message: "trigger/ (the triggers' logic) may not import actions/ or a node file.",
	},
	// A node file imports its own family only, and no other node file.
	{
		target: ACTION_NODE,
		from: [folder('trigger'), ...TRIGGER_NODES, './credentials'],
		message: "The action node may not import the triggers' trigger/ or another node file.",
	},
	...TRIGGER_NODES.map((node) => ({
		target: node,
		from: [folder('actions'), ...NODE_FILES.filter((other) => other !== node), './credentials'],
		message: "A trigger node may not import the action node's actions/ or another node file.",
	})),
	// Nothing outside nodes/ and credentials/ (packages in node_modules aside).
	{
		target: ['./nodes', './credentials'],
		from: '.',
		except: ['./nodes', './credentials', './node_modules'],
		message: 'nodes/ and credentials/ import only each other and packages.',
	},
];

/** `const x = new Map()` / `new WeakMap()` at the top of a module, exported or not. */
const MODULE_MAP = [
	'Program > VariableDeclaration',
	'Program > ExportNamedDeclaration > VariableDeclaration',
]
	.map(
		(declaration) =>
			`${declaration} > VariableDeclarator > NewExpression.init[callee.name=/^(Weak)?Map$/]`,
	)
	.join(', ');
const NO_MODULE_MAP = {
	selector: MODULE_MAP,
	message:
		'A module-level Map/WeakMap keeps state across executions: state belongs to an object passed down (batch/execution.ts).',
};

/** Globs (relative, as flat config wants them) of the files that are in a layer. */
const KNOWN_PLACES = [
	...NODE_FILES,
	...[...LAYERS, 'actions', 'trigger'].map((name) => `${folder(name)}/**/*.ts`),
	'./credentials/**/*.ts',
].map((place) => place.slice(2));

export default [
	{ ignores: ['**/*.d.ts'] },
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, sourceType: 'module' },
		// Sources carry disable comments for the template's rules, which this config does not load.
		linterOptions: { reportUnusedDisableDirectives: 'off' },
		plugins: { 'import-x': importX },
		settings: {
			// As @n8n/node-cli's config resolves imports, plus what import-x needs to parse the .ts
			// files it follows (no-cycle reads each imported module; it skips unknown extensions).
			'import-x/resolver-next': [createTypeScriptImportResolver()],
			'import-x/extensions': ['.ts', '.js'],
			'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
		},
		rules: {
			'import-x/no-restricted-paths': ['error', { zones }],
			'import-x/no-cycle': 'error',
			'no-restricted-syntax': ['error', NO_MODULE_MAP],
		},
	},
	{
		// A file in no known layer: the rule above cannot place it, so it is an error of its own.
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		ignores: KNOWN_PLACES,
		rules: {
			'no-restricted-syntax': [
				'error',
				NO_MODULE_MAP,
				{
					selector: 'Program',
					message:
						'This file is outside the known layers: add its folder to eslint.layers.config.mjs.',
				},
			],
		},
	},
	{
		// The format room is pure: no n8n package, so that it reads, writes and is tested alone
		// (documents/ hands it what it needs of n8n, such as the pause of a long read).
		files: ['nodes/DocumentOcr/formats/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							group: ['n8n-workflow', 'n8n-core', 'n8n-*', '@n8n/*'],
							message:
								'formats/ is pure: no n8n import (its caller passes what it needs, e.g. a pause).',
						},
					],
				},
			],
		},
	},
	{
		// Two memories are the process's own, keyed by workflow and node, never by an execution:
		// the webhook trigger's replay memory, shared by every delivery of a trigger (two copies of
		// a delivery arriving at once must not both pass), and the action node's memory, shared by
		// the executions of a workflow that overlap (two must not both send a document).
		files: ['nodes/DocumentOcr/trigger/replay.ts', 'nodes/DocumentOcr/batch/shared.ts'],
		rules: { 'no-restricted-syntax': 'off' },
	},
];
