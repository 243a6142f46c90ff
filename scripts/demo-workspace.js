'use strict';
/**
 * The demo's n8n workspace (`npm start`): the example workflows and the demo credentials, imported
 * with n8n's CLI — but never over what the user changed.
 *
 * After each import the demo records, in `<state>/demo-imports.json`, a hash of what it imported
 * and n8n's own stamp of the stored copy: a workflow's `versionId` + `updatedAt` (the first moves
 * when nodes or connections change, the second on every save, a rename too) and a credential's
 * `updatedAt`. On a later start an item is imported when
 *   - it was never imported (first start, or an example new in the repository), or
 *   - what the demo would import now differs (the repository's example changed, the emulator's
 *     port moved) AND the stored copy still carries the stamp recorded at import (untouched).
 * An item the user edited (its stamp moved) or deleted is left alone, and the start says so.
 * When nothing differs, no n8n command runs at all. `npm start -- --reset` starts over.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const MANIFEST = 'demo-imports.json';

const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

function readManifest(file) {
	try {
		const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
		return { workflows: manifest.workflows ?? {}, credentials: manifest.credentials ?? {} };
	} catch {
		return { workflows: {}, credentials: {} };
	}
}

/**
 * Imports what is missing or still untouched. `n8n(args)` runs one n8n CLI command (rejects on a
 * non-zero exit); `desired` is `{ workflows: [{id, name, text}], credentials: [{id, name, text}] }`
 * with `text` the JSON n8n imports; `publish` lists workflow IDs to mark active after an import.
 * Returns `{ imported: [names], kept: [names], commands }`.
 */
async function syncWorkspace({ state, n8n, desired, publish = [], log }) {
	const manifestFile = path.join(state, MANIFEST);
	const freshDatabase = !fs.existsSync(path.join(state, '.n8n', 'database.sqlite'));
	const manifest = freshDatabase ? { workflows: {}, credentials: {} } : readManifest(manifestFile);
	const kinds = ['credentials', 'workflows'];
	const changed = kinds.flatMap((kind) =>
		desired[kind]
			.map((item) => ({ ...item, kind, hash: sha256(item.text) }))
			.filter((item) => manifest[kind][item.id]?.hash !== item.hash),
	);
	const result = { imported: [], kept: [], commands: 0 };
	if (changed.length === 0) return result;

	const work = fs.mkdtempSync(path.join(state, 'imports-'));
	const run = async (...args) => {
		result.commands++;
		await n8n(args);
	};
	/** n8n's stamps of what is stored now: id -> versionId (workflows) / updatedAt (credentials). */
	const storedStamps = async (kinds) => {
		const stamps = { workflows: new Map(), credentials: new Map() };
		for (const kind of kinds) {
			const file = path.join(work, `export-${kind}.json`);
			await run(
				`export:${kind === 'workflows' ? 'workflow' : 'credentials'}`,
				'--all',
				`--output=${file}`,
			);
			const list = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
			for (const entry of [].concat(list))
				stamps[kind].set(
					entry.id,
					// versionId moves with nodes and connections only; updatedAt with every save.
					kind === 'workflows' ? `${entry.versionId}@${entry.updatedAt}` : entry.updatedAt,
				);
		}
		return stamps;
	};

	try {
		const everImported = changed.filter((item) => manifest[item.kind][item.id]);
		const before = everImported.length
			? await storedStamps([...new Set(everImported.map((item) => item.kind))])
			: undefined;
		const toImport = [];
		for (const item of changed) {
			const recorded = manifest[item.kind][item.id];
			if (!recorded) {
				toImport.push(item);
				continue;
			}
			const stored = before[item.kind].get(item.id);
			if (stored !== undefined && stored === recorded.stamp) {
				toImport.push(item);
				continue;
			}
			// Edited or deleted by the user: keep theirs, and stop comparing until the next change.
			result.kept.push(item.name);
			manifest[item.kind][item.id] = { ...recorded, hash: item.hash };
			log(
				stored === undefined
					? `  kept: "${item.name}" was deleted in n8n; not imported again (npm start -- --reset restores it)`
					: `  kept your edited "${item.name}"; the demo's version changed (npm start -- --reset replaces yours)`,
			);
		}

		for (const kind of kinds) {
			const items = toImport.filter((item) => item.kind === kind);
			if (!items.length) continue;
			if (kind === 'credentials') {
				const file = path.join(work, 'credentials.json');
				fs.writeFileSync(file, `[${items.map((item) => item.text).join(',')}]`);
				await run('import:credentials', `--input=${file}`);
			} else {
				const dir = path.join(work, 'workflows');
				fs.mkdirSync(dir);
				items.forEach((item, i) => fs.writeFileSync(path.join(dir, `${i}.json`), item.text));
				await run('import:workflow', '--separate', `--input=${dir}`);
			}
		}
		for (const id of publish)
			if (toImport.some((item) => item.kind === 'workflows' && item.id === id))
				await run('publish:workflow', `--id=${id}`);

		if (toImport.length) {
			const after = await storedStamps([...new Set(toImport.map((item) => item.kind))]);
			for (const item of toImport) {
				manifest[item.kind][item.id] = { hash: item.hash, stamp: after[item.kind].get(item.id) };
				result.imported.push(item.name);
			}
		}
		fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
		return result;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

module.exports = { syncWorkspace, MANIFEST };
