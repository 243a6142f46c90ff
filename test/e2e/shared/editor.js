'use strict';
/**
 * The editor, as a user sees it: real n8n 2.x with the package installed as a community package,
 * driven by headless Chromium (Debian's /usr/bin/chromium through playwright-core). One pass:
 * sign in through the form, the example workflows, the nodes panel, a new Document OCR node
 * switched through every resource and operation with the UI's own dropdowns (the fields each one
 * should show must be on screen, the other operations' fields must not), the trigger's panel and
 * the credential modal. Screenshots go to a temporary folder, so a test run leaves the tree as it
 * found it; UPDATE_DOCS=1 writes them over docs/ (docs/editor-node.png is the README's) when the
 * editor changed on purpose.
 *
 * Every console error and uncaught page error of the whole pass fails the suite, except the
 * patterns of NOISE below (each with why it is not the package's), and so does any error or
 * warning of the n8n server naming the package (its whole log: every suite of the shared n8n,
 * test/e2e/shared.e2e.js, that ran before this one).
 */
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const rt = require('../../../scripts/n8n-runtime');
const { example, OWNER, CREDENTIAL, KEYS } = require('../../../scripts/n8n-instance');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SHOTS =
	process.env.UPDATE_DOCS === '1'
		? path.resolve(__dirname, '../../../docs')
		: fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'ocr-editor-shots-'));
const ACTION = 'n8n-nodes-document-ocr.documentOcr';
const TRIGGER = 'n8n-nodes-document-ocr.documentOcrTrigger';
const PACKAGE_RE = /document-?ocr/i;
/**
 * n8n adds a "Custom API Call" resource and operation (to every resource) to a node whose
 * credential has `authenticate`, i.e. can authenticate the HTTP Request node
 * (LoadNodesAndCredentials.injectCustomApiCallOptions); it is n8n's, not an action of the package.
 */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

/**
 * Every resource and operation (by value: values are the node's public contract), with the
 * parameters (by name) each must show at least. All the others its description displays are
 * checked too; display names are read from the description n8n serves.
 */
const OPERATIONS = [
	['task', 'submit', ['documentSource', 'binaryPropertyName', 'waitForCompletion']],
	['task', 'submitV2', ['documentSource', 'binaryPropertyName', 'format', 'waitForCompletion']],
	['task', 'get', ['taskId']],
	['task', 'getMany', ['returnAll', 'limit', 'filters']],
	['task', 'delete', ['taskId']],
	['task', 'export', ['taskId', 'format', 'binaryPropertyName']],
	['document', 'markdown', ['documentSource', 'binaryPropertyName', 'outputFile']],
	['document', 'recognize', ['documentSource', 'binaryPropertyName']],
	['document', 'extract', ['documentSource', 'binaryPropertyName', 'schema']],
	['document', 'countPages', ['documentSource', 'binaryPropertyName']],
	['job', 'create', ['documentSource', 'binaryPropertyName', 'jobFields', 'waitForCompletion']],
	['job', 'get', ['jobId']],
];

/**
 * Console errors that are not the package's. Each is matched on its text AND the URL it is about;
 * nothing else is filtered.
 */
const NOISE = [
	{
		// The sign-in page first asks n8n whether a session exists: GET /rest/login answers 401 to a
		// browser that has not signed in yet (n8n's own request, before any node is loaded).
		why: "n8n's session probe on the sign-in page, before signing in",
		test: (e, origin) =>
			e.step === 'sign-in' && e.url === `${origin}/rest/login` && /status of 401/.test(e.text),
	},
	{
		// The pass is offline: every request leaving the n8n instance is aborted (see beforeAll),
		// so Chromium logs "Failed to load resource: net::ERR_…" for it. Seen: the nodes panel's
		// community-node details (n8n's NodeCreator) fetch https://registry.npmjs.org/<package> for
		// the author's name and download count: n8n's own request, not the package's (online, it
		// would be a 404 until the package is published). The blocked URLs are printed at the end.
		why: 'a request outside the n8n instance, aborted by the test (offline pass)',
		test: (e, origin) =>
			!!e.url &&
			!e.url.startsWith(`${origin}/`) &&
			/^Failed to load resource: net::ERR_/.test(e.text),
	},
];

/** Parameters of a node description shown for `values` (n8n's show/hide rules, @version too). */
function shownParameters(properties, values, version = 1) {
	const all = { ...values };
	const matches = (key, allowed) => {
		if (allowed.some((v) => v !== null && typeof v === 'object'))
			throw new Error(`unsupported displayOptions condition on ${key}: ${JSON.stringify(allowed)}`);
		const value = key === '@version' ? version : all[key];
		return allowed.includes(value);
	};
	const displayed = (p) => {
		const { show = {}, hide = {} } = p.displayOptions ?? {};
		return (
			Object.entries(show).every(([key, allowed]) => matches(key, allowed)) &&
			!Object.entries(hide).some(([key, allowed]) => matches(key, allowed))
		);
	};
	// Fill in the defaults of the parameters shown until nothing changes (a parameter may be shown
	// by another one's default, e.g. Input Binary Field by Input Type = Binary File).
	for (let changed = true; changed; ) {
		changed = false;
		for (const p of properties)
			if (!(p.name in all) && displayed(p)) {
				all[p.name] = p.default;
				changed = true;
			}
	}
	return properties.filter((p) => p.type !== 'hidden' && displayed(p));
}

const kebab = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const plainText = (html) =>
	html
		.replace(/<[^>]+>/g, '')
		.replace(/\s+/g, ' ')
		.trim();

const chromiumAvailable = fs.existsSync(CHROMIUM);
/** The shared instance (its workflows 02 and 07 are imported by this suite, or another). */
let shared;

/** Before the shared instance's one import: its workflows. */
async function prepare(instance) {
	shared = instance;
	// 02 for the README's screenshots; 07 holds both nodes (the trigger and an action). Its
	// webhook secret is the one trigger.js imports (the same credential ID).
	return {
		workflows: [example('02-invoice-automation.json'), example('07-export-docx-on-ocr-done.json')],
	};
}

function describeTests() {
	(chromiumAvailable || process.env.CI ? describe : describe.skip)(
		'the editor in headless Chromium (screenshots; UPDATE_DOCS=1 updates docs/)',
		() => {
			let n8n;
			let browser;
			let page;
			let origin;
			/** The descriptions n8n serves to the editor. */
			let action;
			let trigger;
			let credentialType;
			/** What the editor is doing, recorded with each console message. */
			let step = 'sign-in';
			const consoleErrors = [];
			const packageWarnings = [];
			const pageErrors = [];
			const blocked = new Set();
			const shots = [];
			let started = Date.now();

			const ndv = () => page.locator('[data-test-id="ndv"]');
			const parametersPanel = () => ndv().locator('[data-test-id="node-parameters"]');

			async function screenshot(name) {
				const file = path.join(SHOTS, name);
				// No hover or focus decorations (the pointer is where the last click was).
				await page.mouse.move(1100, 700);
				await page.evaluate(() => document.activeElement?.blur());
				await page.waitForTimeout(300); // transitions of the panel
				await page.screenshot({ path: file });
				expect(fs.statSync(file).size).toBeGreaterThan(10_000);
				shots.push(name);
			}

			/**
			 * Waits until the label of every parameter in `expected` is on screen in the open panel and
			 * none of `absent` is; reports what is missing or extra by display name.
			 */
			async function expectFields(expected, absent = []) {
				const missing = [];
				for (const p of expected) {
					const text = p.type === 'notice' ? plainText(p.displayName) : p.displayName;
					const label =
						p.type === 'notice'
							? parametersPanel().getByText(text.slice(0, 60))
							: parametersPanel().getByText(text, { exact: true });
					try {
						await label.first().waitFor({ state: 'visible', timeout: 120_000 });
					} catch {
						missing.push(`${p.name} ("${text}")`);
					}
				}
				const shownNames = new Set(expected.map((p) => p.displayName));
				const extra = [];
				for (const p of absent) {
					if (shownNames.has(p.displayName) || p.type === 'notice') continue;
					const count = await parametersPanel()
						.getByText(p.displayName, { exact: true })
						.filter({ visible: true })
						.count();
					if (count) extra.push(`${p.name} ("${p.displayName}")`);
				}
				expect({ missing, extra }).toEqual({ missing: [], extra: [] });
			}

			/** Picks `name` in the options dropdown of parameter `param` of the open panel. */
			async function choose(param, name) {
				const input = ndv().locator(`[data-test-id="parameter-input-${param}"]`);
				await input.click();
				const popper = page.locator('.el-select__popper:visible');
				await popper
					.locator('li[role="option"]')
					.filter({ has: page.locator('.option-headline').getByText(name, { exact: true }) })
					.click();
				await popper.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
				await expect(input.locator('input').inputValue()).resolves.toBe(name);
			}

			beforeAll(async () => {
				started = Date.now();
				n8n = shared;
				const { chromium } = require('playwright-core');
				browser = await chromium.launch({
					executablePath: CHROMIUM,
					args: [
						'--no-sandbox',
						'--disable-gpu',
						'--disable-quic',
						'--no-first-run',
						'--disable-background-networking',
						'--disable-component-update',
						'--disable-sync',
					],
				});
				origin = n8n.url;
				const { cookie } = n8n;
				// A node added from the nodes panel gets the newest credential of its type (n8n's
				// editor): saved again unchanged, the emulator's (full key) is that one, as when this
				// suite's own instance had no other (the shared one has the other suites' too).
				const saved = await request(`${origin}/rest/credentials/${CREDENTIAL.id}`, {
					method: 'PATCH',
					headers: { cookie, 'browser-id': rt.BROWSER_ID, 'content-type': 'application/json' },
					body: JSON.stringify({
						name: CREDENTIAL.name,
						type: 'documentOcrApi',
						data: { apiKey: KEYS.full, baseUrl: n8n.emu.url, apiUrl: '' },
					}),
				});
				expect(saved.statusCode).toBe(200);
				await saved.body.dump();
				const types = async (route) => {
					const response = await request(`${origin}${route}`, { headers: { cookie } });
					expect(response.statusCode).toBe(200);
					return response.body.json();
				};
				const nodeTypes = await types('/types/nodes.json');
				action = nodeTypes.find((t) => t.name === ACTION);
				trigger = nodeTypes.find((t) => t.name === TRIGGER);
				credentialType = (await types('/types/credentials.json')).find(
					(t) => t.name === 'documentOcrApi',
				);
				expect([!!action, !!trigger, !!credentialType]).toEqual([true, true, true]);

				const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
				// A wait for the editor to show something only guards a hang (each returns once it
				// does): generous, so that a loaded machine never ends one that is merely slow.
				context.setDefaultTimeout(120_000);
				// Offline and deterministic: nothing leaves the n8n instance (see NOISE).
				await context.route(
					(url) => url.origin !== origin,
					(route) => {
						blocked.add(route.request().url());
						return route.abort('blockedbyclient');
					},
				);
				page = await context.newPage();
				page.on('console', (message) => {
					const entry = {
						step,
						type: message.type(),
						text: message.text(),
						url: message.location().url,
					};
					if (entry.type === 'error') consoleErrors.push(entry);
					else if (entry.type === 'warning' && PACKAGE_RE.test(entry.text))
						packageWarnings.push(entry);
				});
				page.on('pageerror', (error) =>
					pageErrors.push({ step, text: String(error.stack || error) }),
				);

				// Sign in through the form: n8n binds its session cookie to the browser that signed in.
				await page.goto(`${origin}/signin`, { waitUntil: 'networkidle' });
				await page
					.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]')
					.first()
					.fill(OWNER.email);
				await page.locator('input[type="password"]').first().fill(OWNER.password);
				await page.locator('input[type="password"]').first().press('Enter');
				await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 120_000 });
				fs.mkdirSync(SHOTS, { recursive: true });
			});

			afterAll(async () => {
				await browser?.close();
				const lines = [
					`\nEditor suite: ${((Date.now() - started) / 1000).toFixed(0)} s, ${shots.length} screenshots in ${SHOTS}: ${shots.join(', ')}`,
				];
				if (blocked.size) lines.push(`Blocked requests outside n8n: ${[...blocked].join(', ')}`);
				process.stdout.write(`${lines.join('\n')}\n`);
			});

			test('the example workflow and its Document OCR node (the README screenshots)', async () => {
				step = 'workflow 02';
				await page.goto(`${origin}/workflow/ocrExampleInvoic`, { waitUntil: 'networkidle' });
				await page.getByText('Extract invoice').first().waitFor({ timeout: 120_000 });
				await page.keyboard.press('Escape');
				await page.waitForTimeout(1500); // canvas fade-in
				await screenshot('editor-workflow.png');

				step = 'workflow 02: Extract invoice';
				await page
					.locator('[data-test-id="canvas-node"]', { hasText: 'Extract invoice' })
					.first()
					.dblclick();
				const node = example('02-invoice-automation.json').nodes.find(
					(n) => n.name === 'Extract invoice',
				);
				await expectFields(shownParameters(action.properties, node.parameters));
				await page.waitForTimeout(700);
				await screenshot('editor-node.png');
				await ndv().locator('[data-test-id="ndv-close-button"]').click();
				await ndv().waitFor({ state: 'hidden' });
			});

			// n8n's nodes panel ranks a search by a fuzzy match on each node's display name and
			// codex aliases, plus the popularity n8n ships for its own nodes: the words users type
			// for this service list the action node first (not Zoho CRM, not the poll trigger).
			test.each(['OCR', 'ocr', 'text recognition', 'scan'])(
				'typing "%s" in the nodes panel lists the action node first',
				async (query) => {
					step = `nodes panel: "${query}"`;
					await page.goto(`${origin}/workflow/ocrExampleOnDone`, { waitUntil: 'networkidle' });
					await page.getByText('Export as DOCX').first().waitFor({ timeout: 120_000 });
					await page.keyboard.press('Escape');
					await page.locator('[data-test-id="node-creator-plus-button"]').click();
					await page.locator('[data-test-id="node-creator-search-bar"]').fill(query);
					const names = page.locator(
						'[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]',
					);
					await names.getByText(action.displayName, { exact: true }).first().waitFor();
					// Exact: "OCR Document Poll Trigger" contains the action's name.
					expect((await names.allInnerTexts()).map((t) => t.trim())[0]).toBe(action.displayName);
					await page.keyboard.press('Escape');
				},
			);

			test('the nodes panel finds the node by its name and lists every operation as an action', async () => {
				step = 'nodes panel';
				await page.goto(`${origin}/workflow/ocrExampleOnDone`, { waitUntil: 'networkidle' });
				await page.getByText('Export as DOCX').first().waitFor({ timeout: 120_000 });
				await page.keyboard.press('Escape');
				await page.locator('[data-test-id="node-creator-plus-button"]').click();
				await page.locator('[data-test-id="node-creator-search-bar"]').fill(action.displayName);
				const creator = page.locator('[data-test-id="node-creator"]');
				await creator
					.locator('[data-test-id="item-iterator-item"]')
					.filter({ has: page.getByText(action.displayName, { exact: true }) })
					.first()
					.click();
				const actions = action.properties
					.filter((p) => p.name === 'operation')
					.flatMap((p) =>
						p.options.filter((o) => o.value !== CUSTOM_API_CALL).map((o) => o.action),
					);
				expect(actions).toHaveLength(OPERATIONS.length);
				for (const name of actions)
					await creator
						.locator('[data-test-id="node-creator-item-name"]')
						.getByText(name, { exact: true })
						.waitFor({ timeout: 120_000 });
				await creator.getByText(`Actions (${actions.length})`).waitFor();
				await screenshot('editor-nodes-panel.png');

				step = 'nodes panel: add Submit';
				const submit = action.properties
					.find((p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'task')
					.options.find((o) => o.value === 'submit').action;
				await creator
					.locator('[data-test-id="item-iterator-item"]')
					.filter({ has: page.getByText(submit, { exact: true }) })
					.first()
					.click();
				await ndv().locator('[data-test-id="parameter-input-operation"]').waitFor();
			});

			test('the node description offers exactly the resources and operations of this pass', () => {
				const offered = action.properties
					.filter((p) => p.name === 'operation')
					.flatMap((p) =>
						p.options
							.filter((o) => o.value !== CUSTOM_API_CALL)
							.map((o) => `${p.displayOptions.show.resource[0]}:${o.value}`),
					);
				const resources = action.properties
					.find((p) => p.name === 'resource')
					.options.filter((o) => o.value !== CUSTOM_API_CALL);
				expect(offered.sort()).toEqual(OPERATIONS.map(([r, o]) => `${r}:${o}`).sort());
				expect(resources.map((o) => o.value).sort()).toEqual(
					[...new Set(OPERATIONS.map(([r]) => r))].sort(),
				);
			});

			test.each(OPERATIONS)(
				'%s: %s — picked in the dropdowns, shows its fields',
				async (resource, operation, mustShow) => {
					step = `${resource}:${operation}`;
					const resourceName = action.properties
						.find((p) => p.name === 'resource')
						.options.find((o) => o.value === resource).name;
					const operationName = action.properties
						.find(
							(p) => p.name === 'operation' && p.displayOptions.show.resource.includes(resource),
						)
						.options.find((o) => o.value === operation).name;
					await choose('resource', resourceName);
					await choose('operation', operationName);

					// The node was added from the nodes panel: n8n gives it the newest version (2).
					const shown = shownParameters(action.properties, { resource, operation }, 2);
					const shownNames = shown.map((p) => p.name);
					expect(mustShow.filter((name) => !shownNames.includes(name))).toEqual([]);
					await expectFields(
						shown,
						action.properties.filter((p) => !shown.includes(p)),
					);
					await screenshot(`editor-${resource}-${kebab(operation)}.png`);
					if (resource === 'task' && operation === 'get') await fromList();
				},
			);

			/** The Task field's From List: the newest tasks, listed by the node's search, in the editor. */
			async function fromList() {
				step = 'task:get From List';
				n8n.emu.addFinishedTasks(3);
				const locator = ndv().locator('[data-test-id="resource-locator-taskId"]');
				await locator.getByPlaceholder('Select a task...').click();
				// The tasks of the emulator's strict profile are listed as "<taskId> · done".
				await page
					.getByText(/· done$/)
					.first()
					.waitFor({ timeout: 120_000 });
				await screenshot('editor-task-from-list.png');
				// Closes the list (Escape would close the whole panel too).
				await parametersPanel().getByText('Operation', { exact: true }).first().click();
				await page
					.getByText(/· done$/)
					.first()
					.waitFor({ state: 'hidden', timeout: 120_000 });
			}

			test('Custom API Call (added by n8n) — picked in the dropdown, points to the HTTP Request node', async () => {
				step = 'custom API call';
				const name = action.properties
					.find((p) => p.name === 'resource')
					.options.find((o) => o.value === CUSTOM_API_CALL).name;
				await choose('resource', name);
				await parametersPanel().getByText('HTTP Request').first().waitFor({ timeout: 120_000 });
			});

			test('the credential modal of the Document OCR API credential', async () => {
				step = 'credential modal';
				await ndv().locator('[data-test-id="credential-edit-button"]').click();
				const modal = page.locator('[data-test-id="editCredential-modal"]');
				await modal.waitFor();
				// (n8n adds its own fields, e.g. Allowed HTTP Request Domains: shown ones are checked too.)
				for (const p of shownParameters(credentialType.properties, {})) {
					const field = modal.locator(`[data-test-id="${p.name}"]`);
					await field.waitFor({ timeout: 120_000 });
					expect(await field.innerText()).toContain(p.displayName);
				}
				// Opening it runs the credential's test against the emulator.
				await modal
					.locator('[data-test-id="credentials-config-container-test-success"]')
					.waitFor({ timeout: 120_000 });
				await screenshot('editor-credential.png');
				await page.keyboard.press('Escape'); // closes the modal, and sometimes the panel under it
				await modal.waitFor({ state: 'hidden' });
				if (await ndv().isVisible())
					await ndv().locator('[data-test-id="ndv-close-button"]').click();
				await ndv().waitFor({ state: 'hidden' });
			});

			test("the trigger's panel", async () => {
				step = 'trigger';
				await page
					.locator('[data-test-id="canvas-node"]', { hasText: 'On ocr.done' })
					.first()
					.dblclick();
				const node = example('07-export-docx-on-ocr-done.json').nodes.find(
					(n) => n.type === TRIGGER,
				);
				await expectFields(shownParameters(trigger.properties, node.parameters));
				await ndv().getByText('Webhook URLs').first().waitFor();
				await screenshot('editor-trigger.png');
				await ndv().locator('[data-test-id="ndv-close-button"]').click();
				await ndv().waitFor({ state: 'hidden' });
			});

			test('no console error or page error in the whole pass (noise listed in NOISE)', () => {
				step = 'done';
				const noiseOf = (e) => NOISE.find((n) => n.test(e, origin));
				const filtered = consoleErrors.filter((e) => noiseOf(e));
				const errors = consoleErrors.filter((e) => !filtered.includes(e));
				if (filtered.length)
					process.stdout.write(
						`\nConsole errors filtered as n8n's own (see NOISE):\n${filtered
							.map((e) => `  [${e.step}] ${e.text} — ${e.url} (${noiseOf(e).why})`)
							.join('\n')}\n`,
					);
				expect(errors).toEqual([]);
				expect(pageErrors).toEqual([]);
				expect(packageWarnings).toEqual([]);
			});

			test('the n8n server logged no error or warning naming the package', () => {
				const problems = fs
					.readFileSync(path.join(n8n.userFolder, 'server.log'), 'utf8')
					.split('\n')
					.filter((line) => /"level":"(error|warn)"/.test(line))
					.map((line) => JSON.parse(line).message)
					.filter((message) => PACKAGE_RE.test(message.split(n8n.runtime.dir).join('')));
				expect(problems).toEqual([]);
			});
		},
	);
}

module.exports = { name: 'editor', prepare, describeTests };
