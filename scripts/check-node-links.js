'use strict';
/**
 * The links the nodes and credentials show in n8n (documentation URLs of this repository's README
 * or docs/) resolve, checked by `npm run lint`. The Markdown files' own links are remark's job
 * (`remark .` with remark-validate-links, .remarkrc.json); this script hands it the nodes' links
 * as one more Markdown file (read from stdin, named node-links.md at the root), so the same
 * checker resolves files and GitHub heading anchors. Links to other sites are not fetched.
 *
 * Usage: node scripts/check-node-links.js   (exit 1 and remark's report when a link is broken)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const REPOSITORY = 'https://github.com/n8n-nodes-document-ocr/n8n-nodes-document-ocr';

/** A URL of this repository as a link from the root: README anchors, files on main. */
function localTarget(url) {
	const blob = `${REPOSITORY}/blob/main/`;
	if (url.startsWith(blob)) return url.slice(blob.length);
	const [page, anchor] = url.split('#');
	if (page !== REPOSITORY && page !== `${REPOSITORY}?tab=readme-ov-file`) return undefined;
	return anchor ? `README.md#${anchor}` : 'README.md';
}

const walk = (dir) =>
	fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return walk(full);
		return /\.(ts|json)$/.test(entry.name) ? [full] : [];
	});

const links = [];
for (const file of ['nodes', 'credentials'].flatMap((folder) => walk(path.join(ROOT, folder)))) {
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	lines.forEach((line, index) => {
		for (const [url] of line.matchAll(/https:\/\/github\.com\/[^\s'"`)]+/g)) {
			const target = localTarget(url);
			if (target) links.push(`- [${path.relative(ROOT, file)}:${index + 1}](${target})`);
		}
	});
}

const remark = spawnSync(
	process.execPath,
	[
		path.join(ROOT, 'node_modules/remark-cli/cli.js'),
		...['--file-path', 'node-links.md', '--quiet', '--frail', '--no-stdout'],
	],
	{ cwd: ROOT, input: `${links.join('\n')}\n`, encoding: 'utf8' },
);
if (remark.status !== 0) {
	process.stderr.write(remark.stderr);
	// remark's line numbers count the list below, one line per link.
	links.forEach((link, index) => console.error(`node-links.md:${index + 1} ${link}`));
	process.exit(1);
}
console.log(`links: the ${links.length} links of the nodes and credentials resolve`);
