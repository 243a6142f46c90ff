'use strict';
/**
 * Every regular expression of the product — each literal and each `new RegExp('…')` in
 * nodes/**\/*.ts, found with TypeScript's parser — and recheck's verdict on it: whether some input
 * makes it backtrack more than linearly, as a search as well as a match.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { checkSync } = require('recheck');

const NODES = path.join(__dirname, '../../nodes');

/** [{ where, source, flags }] of every regular expression in nodes/. */
function regexes() {
	const found = [];
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(file);
			else if (file.endsWith('.ts')) scan(file);
		}
	};
	const scan = (file) => {
		const sf = ts.createSourceFile(
			file,
			fs.readFileSync(file, 'utf8'),
			ts.ScriptTarget.Latest,
			true,
		);
		const where = (node) =>
			`${path.relative(NODES, file)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
		const visit = (node) => {
			if (ts.isRegularExpressionLiteral(node)) {
				const literal = node.text;
				const end = literal.lastIndexOf('/');
				found.push({
					where: where(node),
					source: literal.slice(1, end),
					flags: literal.slice(end + 1),
				});
			} else if (
				ts.isNewExpression(node) &&
				ts.isIdentifier(node.expression) &&
				node.expression.text === 'RegExp'
			) {
				const [source, flags] = node.arguments ?? [];
				if (!source || !ts.isStringLiteralLike(source))
					throw new Error(`${where(node)}: a RegExp built at run time cannot be checked`);
				found.push({
					where: where(node),
					source: source.text,
					flags: flags && ts.isStringLiteralLike(flags) ? flags.text : '',
				});
			}
			ts.forEachChild(node, visit);
		};
		visit(sf);
	};
	walk(NODES);
	return found;
}

/** recheck's verdict on one: 'safe', or why not with an input that shows it. */
function verdict({ source, flags }) {
	// g and y change where a search starts, not what one attempt costs: recheck takes neither.
	const result = checkSync(source, flags.replace(/[gy]/g, ''), { timeout: 10_000 });
	return result.status === 'safe' ? 'safe' : `${result.status} ${result.attack?.pattern ?? ''}`;
}

module.exports = { regexes, verdict };
