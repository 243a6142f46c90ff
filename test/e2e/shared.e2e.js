'use strict';
/**
 * One real n8n 2.x shared by the end-to-end suites that need no environment of their own
 * (test/e2e/shared/*.js): one instance — one user folder, database, emulator and package install,
 * every suite's credentials in one `import:credentials`, every suite's workflows in one
 * `import:workflow`, one `n8n start` and owner — then each suite as a `describe` block, in order.
 *
 * A suite module exports `name`, `prepare(n8n)` (called before the imports: it starts its own
 * servers, queues its credentials with the instance's import helpers and returns
 * `{ workflows, publish }`) and `describeTests()` (its hooks and tests, unchanged). A suite that
 * needs its own environment (env variables, a restart, another n8n) keeps a file of its own.
 *
 * `E2E_SHARED_SUITES=server,trigger,money` runs only those suites (the pull-request gate).
 * `close()` scans every n8n log of the instance for every key and secret any suite gave it.
 */
const { createInstance } = require('../../scripts/n8n-instance');

/** In run order: trigger.js removes its emulator webhooks at its end, before the others submit. */
const SUITES = ['server', 'trigger', 'money', 'agent', 'editor'];
const chosen = process.env.E2E_SHARED_SUITES
	? process.env.E2E_SHARED_SUITES.split(',').map((name) => name.trim())
	: SUITES;
const unknown = chosen.filter((name) => !SUITES.includes(name));
if (unknown.length) throw new Error(`E2E_SHARED_SUITES: no suite ${unknown.join(', ')}`);
const suites = SUITES.filter((name) => chosen.includes(name)).map((name) =>
	require(`./shared/${name}`),
);

let n8n;

beforeAll(async () => {
	n8n = await createInstance({ label: 'shared' });
	// The emulator's credential (full key), which every suite's workflows use.
	await n8n.importCredential();
	const workflows = new Map();
	const publish = [];
	for (const suite of suites) {
		const prepared = (await suite.prepare(n8n)) ?? {};
		for (const workflow of prepared.workflows ?? []) {
			const known = workflows.get(workflow.id);
			if (known && JSON.stringify(known) !== JSON.stringify(workflow))
				throw new Error(`${suite.name}: workflow ${workflow.id} differs from another suite's`);
			workflows.set(workflow.id, workflow);
		}
		publish.push(...(prepared.publish ?? []));
	}
	// The queued credentials are imported (in one call) before the workflows.
	await n8n.importWorkflows([...workflows.values()]);
	for (const id of publish) await n8n.publish(id);
	await n8n.startServer();
	await n8n.setupOwner();
});

afterAll(async () => {
	await n8n?.close();
});

for (const suite of suites) describe(suite.name, () => suite.describeTests());
