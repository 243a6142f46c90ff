'use strict';
/**
 * Debian packages a suite needs (readers, producers), installed when missing: awaited while an
 * apt-get or dpkg runs (.ci/run's background job), then installed with apt-get, without the
 * packages they only recommend.
 */
const { spawnSync } = require('node:child_process');

/**
 * Resolves once every command of `needs` ([command, package]) is found (and `present()`, when
 * given, holds); installs the packages of those missing; throws saying what is missing when
 * apt-get could not install them.
 */
async function ensureDebian(needs, { present = () => true, packages = [] } = {}) {
	const missing = () =>
		needs.filter(([command]) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0);
	const found = () => missing().length === 0 && present();
	const installing = () =>
		spawnSync('sh', ['-c', 'pgrep -x apt-get || pgrep -x dpkg']).status === 0;
	for (let waited = 0; !found() && installing() && waited < 900_000; waited += 2_000)
		await new Promise((resolve) => setTimeout(resolve, 2_000));
	if (found()) return;
	const wanted = [...new Set([...missing().map(([, name]) => name), ...packages])].join(' ');
	process.stdout.write(`» installing ${wanted} (apt-get)\n`);
	// As root (.ci/run), or through sudo without a password (a CI runner's user).
	const apt = process.getuid?.() === 0 ? 'apt-get' : 'sudo -n apt-get';
	spawnSync(
		'sh',
		[
			'-c',
			`${apt} update -qq && ${apt} install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 ${wanted}`,
		],
		{ stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
	);
	if (!found())
		throw new Error(
			`this suite needs ${needs.map(([command]) => command).join(', ')}: ${
				missing()
					.map(([command]) => command)
					.join(', ') || 'what they need'
			} missing, and \`apt-get install -y --no-install-recommends ${wanted}\` did not install it (root and a Debian package mirror are required).`,
		);
}

module.exports = { ensureDebian };
