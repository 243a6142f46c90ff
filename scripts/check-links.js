'use strict';
/**
 * Every link of the documentation resolves, checked by `npm run lint` (so CI checks it): in the
 * Markdown files of the repository (README, CHANGELOG, docs/, bench/, emulator/, examples/), each
 * relative link names a file that exists and, with `#anchor`, a heading of that file (GitHub's
 * slugs); the links the nodes and credentials show in n8n (documentation URLs of this repository's
 * README or docs/) resolve the same way. Links to other sites are not fetched: CI runs offline.
 *
 * Usage: node scripts/check-links.js   (exit 1 and one line per broken link)
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const REPOSITORY = 'https://github.com/n8n-nodes-document-ocr/n8n-nodes-document-ocr';

function markdownFiles() {
	const top = ['README.md', 'CHANGELOG.md'];
	const folders = ['docs', 'bench', 'emulator', 'examples'];
	const inFolders = folders.flatMap((folder) => {
		const dir = path.join(ROOT, folder);
		if (!fs.existsSync(dir)) return [];
		return fs
			.readdirSync(dir)
			.filter((name) => name.endsWith('.md'))
			.map((name) => path.join(folder, name));
	});
	return [...top.filter((f) => fs.existsSync(path.join(ROOT, f))), ...inFolders];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
	return heading
		.trim()
		.toLowerCase()
		.replace(/<[^>]+>/g, '')
		.replace(/[`*_]/g, '')
		.replace(/[^\p{L}\p{N}\s-]/gu, '')
		.replace(/\s/g, '-');
}

function anchorsOf(file) {
	const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	const seen = new Map();
	const anchors = new Set();
	for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
		const base = slug(match[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n === 0 ? base : `${base}-${n}`);
	}
	return anchors;
}

/** Why `target` (relative to `from`) does not resolve, or undefined when it does. */
function broken(from, target) {
	const [file, anchor] = target.split('#');
	const resolved = file ? path.resolve(path.dirname(from), decodeURIComponent(file)) : from;
	if (!fs.existsSync(resolved)) return `no such file: ${path.relative(ROOT, resolved)}`;
	if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor.toLowerCase()))
		return `no heading #${anchor} in ${path.relative(ROOT, resolved)}`;
	return undefined;
}

/** This repository's URLs as local targets: README anchors and files on main. */
function localTarget(url) {
	if (url.startsWith(`${REPOSITORY}?tab=readme-ov-file#`))
		return `README.md#${url.split('#')[1]}`;
	const blob = `${REPOSITORY}/blob/main/`;
	if (url.startsWith(blob)) return url.slice(blob.length);
	return undefined;
}

function checkLinks() {
	const problems = [];
	for (const rel of markdownFiles()) {
		const file = path.join(ROOT, rel);
		const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
		for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
			const target = match[1];
			if (/^(https?:|mailto:)/.test(target)) {
				const local = localTarget(target);
				const why = local && broken(path.join(ROOT, 'README.md'), local);
				if (why) problems.push(`${rel}: ${target}: ${why}`);
				continue;
			}
			const why = broken(file, target);
			if (why) problems.push(`${rel}: ${target}: ${why}`);
		}
	}
	for (const folder of ['nodes', 'credentials']) {
		const walk = (dir) =>
			fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
				const full = path.join(dir, e.name);
				return e.isDirectory() ? walk(full) : /\.(ts|json)$/.test(e.name) ? [full] : [];
			});
		for (const file of walk(path.join(ROOT, folder))) {
			const text = fs.readFileSync(file, 'utf8');
			for (const match of text.matchAll(/https:\/\/github\.com\/[^\s'"`)]+/g)) {
				const local = localTarget(match[0]);
				const why = local && broken(path.join(ROOT, 'README.md'), local);
				if (why) problems.push(`${path.relative(ROOT, file)}: ${match[0]}: ${why}`);
			}
		}
	}
	return problems;
}

module.exports = { checkLinks, slug };

if (require.main === module) {
	const problems = checkLinks();
	for (const problem of problems) console.error(`links: ${problem}`);
	if (problems.length > 0) process.exit(1);
	console.log(`links: every link of ${markdownFiles().length} Markdown files and of the nodes resolves`);
}
