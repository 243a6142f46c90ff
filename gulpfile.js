'use strict';
// Copies what tsc does not: node/credential icons and codex files (*.node.json) into dist/,
// keeping their paths, so `file:` icon references and codex lookups resolve in the package.
const { src, dest } = require('gulp');

const ASSETS = ['nodes/**/*.{svg,png}', 'nodes/**/*.node.json', 'credentials/**/*.{svg,png}'];

function copyAssets() {
	return src(ASSETS, { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
exports.default = copyAssets;
