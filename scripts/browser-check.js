#!/usr/bin/env node
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
'use strict';
/**
 * `npm run test:browser`: the `npm start` stack driven through a real browser.
 *
 * Starts the same stack as `npm start` (scripts/start.js → startStack), in a throwaway n8n
 * folder on free ports, then with Debian's Chromium (installed with apt-get when missing and
 * running as root) and playwright-core:
 *   1. signs in to the editor with the demo login
 *   2. opens the job example's Website Export node            → docs/node-panel.png
 *   3. EVERY workflow in examples/, as imported, the job export first: opened with no node
 *      issues, then, by what starts it (startedBy): a Manual Trigger → "Execute workflow", every
 *      node green (the job example's ZIP in its output → docs/run-output.png); the Website Export
 *      Trigger → Fetch Test Event shows a download            → docs/trigger-panel.png;
 *      any other trigger (an MCP Server Trigger, started only by MCP clients) → not executed
 *   4. switches a Job locator to From List and opens the list → docs/from-list.png
 *   5. opens the credential, saves it (n8n then tests it) and checks secrets stay masked
 *                                                               → docs/credential.png;
 *      opens one with a wrong password: the failed test's banner, Retry and More details
 *   6. adds the Job filter to a Get Many: a job locator with From List (in a tab of its own,
 *      closed unsaved)
 * The screenshots replace the committed ones in docs/ only when asked (--update-screenshots, or
 * UPDATE_SCREENSHOTS=1); otherwise they go to a temporary folder that is removed at the end, so
 * the git tree stays clean. On a failed step the page is saved as
 * docs/browser-check-<step>.tmp.png (gitignored) for you to look at.
 * The last line is `browser-check: N passed, N failed`; the exit code is 1 when any failed.
 *
 *   npm run test:browser [-- --keep-open] [-- --update-screenshots]
 *   (--keep-open: leave the stack running until Ctrl-C)
 */

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const n8n = require('./n8n/lib');
const {
	startStack,
	whenParentExits,
	readExamples,
	DEFAULTS,
	DEMO_OWNER,
	StartError,
} = require('./start');

const REPO = path.resolve(__dirname, '..');
const DOCS = path.join(REPO, 'docs');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
const NODE_TYPE = 'n8n-nodes-website-export.websiteExport';
const TRIGGER_TYPE = 'n8n-nodes-website-export.websiteExportTrigger';
const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';
const STEP_TIMEOUT_MS = 60000;
/** Screenshots leave out hints that pop up on their own (e.g. "You can pin this output ..."): pictures stay the same run to run. */
const SCREENSHOT_STYLE =
	'[role="tooltip"], .el-popper, [data-reka-popper-content-wrapper] { display: none !important; }';

/** @param {string} msg */
function log(msg) {
	console.log(`[browser-check] ${msg}`);
}

/** Debian's chromium at /usr/bin/chromium; installs it (apt-get) when missing and we are root. */
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return { installedMs: 0 };
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isRoot) {
		throw new StartError(
			`${CHROMIUM} is missing. Install Debian's chromium package first:\n\n    sudo apt-get update && sudo apt-get install -y chromium\n`,
		);
	}
	log(`${CHROMIUM} is missing: installing Debian's chromium package (apt-get, about 40 s) ...`);
	const t = Date.now();
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [['update'], ['install', '-y', 'chromium']]) {
		const r = spawnSync('apt-get', args, {
			stdio: ['ignore', 'pipe', 'pipe'],
			env,
			encoding: 'utf8',
			maxBuffer: 64 * 1024 * 1024,
		});
		if (r.status !== 0)
			throw new Error(
				`apt-get ${args.join(' ')} failed (${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`,
			);
	}
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
	const installedMs = Date.now() - t;
	log(`chromium installed in ${(installedMs / 1000).toFixed(1)} s`);
	return { installedMs };
}

function loadPlaywright() {
	try {
		return require('playwright-core');
	} catch {
		throw new StartError(
			'playwright-core is not installed: run `npm ci` first (it is a devDependency).',
		);
	}
}

/**
 * How an example is checked follows from what starts it:
 *   'manual'  a Manual Trigger: "Execute workflow", every node must finish green
 *   'poll'    the Website Export Trigger: Fetch Test Event must show a download
 *   'open'    anything else (e.g. an MCP Server Trigger, started only by MCP clients and proven by
 *             the e2e suite): opened and checked to have no node issues, never executed
 * Every example is opened and checked for node issues first, whatever its kind.
 */
/**
 * @param {Workflow} wf
 * @returns {'manual' | 'poll' | 'open'}
 */
function startedBy(wf) {
	if (wf.nodes.some((n) => n.type === MANUAL_TRIGGER_TYPE)) return 'manual';
	if (wf.nodes.some((n) => n.type === TRIGGER_TYPE)) return 'poll';
	return 'open';
}

/** A Manual Trigger workflow that creates a job: the others read what it makes, so it runs first. */
/** @param {Workflow} wf */
function createsJob(wf) {
	return wf.nodes.some(
		(n) =>
			n.type === NODE_TYPE &&
			n.parameters &&
			n.parameters.resource === 'job' &&
			n.parameters.operation === 'create',
	);
}

/** Every workflow in examples/, in the order a newcomer would run them: the job export first, then by name. */
function examplePlan() {
	const all = readExamples(DEFAULTS.examplesDir);
	const jobFirst = [
		...all.filter((wf) => startedBy(wf) === 'manual' && createsJob(wf)),
		...all.filter((wf) => !(startedBy(wf) === 'manual' && createsJob(wf))),
	];
	const job = jobFirst[0];
	if (!job || !createsJob(job))
		throw new Error(
			'examples/ has no workflow with a Manual Trigger that creates a job (Job → Create)',
		);
	const ours = job.nodes.filter((n) => n.type === NODE_TYPE);
	return {
		examples: jobFirst.map((wf) => ({ wf, kind: startedBy(wf) })),
		job,
		panelNode: ours[0].name,
	};
}

/** The node of `wf` whose output ends the run: ours with no outgoing connection (the last one drawn otherwise). */
/** @param {Workflow} wf */
function lastNodeOf(wf) {
	const runnable = wf.nodes.filter((n) => n.type !== STICKY_NOTE_TYPE);
	const leaves = runnable.filter(
		(n) =>
			!((wf.connections[n.name] && wf.connections[n.name].main) || []).some(
				(/** @type {unknown[] | null} */ o) => o && o.length,
			),
	);
	return (leaves.find((n) => n.type === NODE_TYPE) || leaves[0] || runnable[runnable.length - 1])
		.name;
}

/**
 * `preferred` when it is free, else a free port.
 * @param {number} preferred
 * @returns {Promise<number>}
 */
async function portOr(preferred) {
	const net = require('node:net');
	const free = await new Promise((resolve) => {
		const s = net.createServer();
		s.once('error', () => resolve(false));
		s.listen(preferred, '127.0.0.1', () => s.close(() => resolve(true)));
	});
	return free ? preferred : n8n.getFreePort();
}

// ---------------------------------------------------------------------------------------------
// page helpers

/** @param {Page} page @param {string} name */
function canvasNode(page, name) {
	return page.locator(
		`[data-test-id="canvas-node"][data-node-name="${name.replace(/"/g, '\\"')}"]`,
	);
}

/** Visible error toasts (n8n shows failures as element-plus notifications). */
/** @param {Page} page */
async function errorToasts(page) {
	const toasts = page.locator('.el-notification');
	const out = [];
	for (let i = 0; i < (await toasts.count()); i++) {
		const t = toasts.nth(i);
		if (!(await t.isVisible())) continue;
		const isError = (await t.locator('.el-notification--error, [class*="error"]').count()) > 0;
		if (isError) out.push((await t.innerText()).replace(/\s+/g, ' ').trim());
	}
	return out;
}

/** @param {Page} page */
async function closeToasts(page) {
	const close = page.locator('.el-notification .el-notification__closeBtn');
	for (let i = (await close.count()) - 1; i >= 0; i--)
		await close
			.nth(i)
			.click()
			.catch(() => {});
	await page
		.locator('.el-notification')
		.first()
		.waitFor({ state: 'detached', timeout: 5000 })
		.catch(() => {});
}

/** Waits until the page is quiet (no network, fonts loaded, no spinner in `scope`), closes toasts. */
/** @param {Page} page @param {Locator} [scope] */
async function settle(page, scope) {
	await page.waitForLoadState('networkidle');
	await page.evaluate(() => document.fonts.ready);
	const spinner = (scope || page.locator('body')).locator(
		'.el-loading-mask, [class*="spinner"]:visible, .n8n-spinner',
	);
	await spinner
		.first()
		.waitFor({ state: 'hidden', timeout: 15000 })
		.catch(() => {});
	const errors = await errorToasts(page);
	if (errors.length) throw new Error(`error toast: ${errors.join(' | ')}`);
	await closeToasts(page);
	// no hover effects (tooltips, a parameter's Fixed/Expression toggle) in the picture
	await page.mouse.move(2, 2);
	await page
		.waitForFunction(
			() =>
				[
					...document.querySelectorAll('[data-test-id="ndv"] [data-test-id="radio-button-fixed"]'),
				].every((e) => !e.checkVisibility({ opacityProperty: true, visibilityProperty: true })),
			null,
			{ timeout: 5000 },
		)
		.catch(() => {});
}

/** The value a node parameter's input shows (a select shows its option's display name). */
/** @param {Page} page @param {string} name */
function paramValue(page, name) {
	return page.getByTestId(`parameter-input-${name}`).locator('input').first().inputValue();
}

/** @param {Page} page @param {string} name */
async function openNode(page, name) {
	const ndv = page.getByTestId('ndv');
	if (await ndv.isVisible()) {
		await page.getByTestId('ndv-close-button').click();
		await ndv.waitFor({ state: 'hidden' });
	}
	await canvasNode(page, name).dblclick();
	await ndv.waitFor();
	await page.getByTestId('node-title-container').filter({ hasText: name }).waitFor();
	await page.getByTestId('node-parameters').waitFor();
	return ndv;
}

/** @param {Page} page @param {string} baseUrl @param {Workflow} wf */
async function openWorkflow(page, baseUrl, wf) {
	await page.goto(`${baseUrl}/workflow/${wf.id}`);
	await page.getByTestId('canvas-node').first().waitFor();
	await page.getByTestId('workflow-name-input').filter({ hasText: wf.name }).waitFor();
}

/** @param {Locator} locator @param {RegExp} re @param {string} what */
async function expectText(locator, re, what) {
	const text = await locator.innerText();
	if (!re.test(text)) throw new Error(`${what}: expected ${re} in:\n${text.slice(0, 600)}`);
	return text;
}

/** The canvas nodes that show n8n's issue marker, each with its hover text (e.g. `Parameter "Job" is required`). */
/** @param {Page} page */
async function nodeIssues(page) {
	await page.waitForLoadState('networkidle');
	const marked = page.locator('[data-test-id="canvas-node"]:has([data-test-id="node-issues"])');
	const found = [];
	for (let i = 0; i < (await marked.count()); i++) {
		const node = marked.nth(i);
		await node.getByTestId('node-issues').first().hover();
		const tip = await page
			.locator(
				'[role="tooltip"]:visible, .el-popper:visible, [data-reka-popper-content-wrapper]:visible',
			)
			.filter({ hasText: /\S/ })
			.last()
			.innerText({ timeout: 3000 })
			.catch(() => '');
		found.push(
			`${await node.getAttribute('data-node-name')}${tip ? `: ${tip.replace(/\s+/g, ' ').trim()}` : ''}`,
		);
	}
	await page.mouse.move(2, 2);
	return found;
}

/** "Execute workflow" in the open workflow: resolves when every node of `wf` is green, throws on a red node or an error toast. */
/** @param {Page} page @param {Workflow} wf */
async function executeFromEditor(page, wf) {
	const runNodes = wf.nodes.filter((n) => n.type !== STICKY_NOTE_TYPE).map((n) => n.name);
	await page.getByTestId('execute-workflow-button').click();
	const done = Promise.all(
		runNodes.map((n) => canvasNode(page, n).getByTestId('canvas-node-status-success').waitFor()),
	);
	const redNode = page
		.locator('[data-test-id="canvas-node"]:has([data-test-id="canvas-node-status-mark-error"])')
		.first();
	const failed = Promise.race([
		redNode.waitFor(),
		page.locator('.el-notification:has([class*="error"])').first().waitFor(),
	]).then(async () => {
		const node = (await redNode.count()) ? await redNode.getAttribute('data-node-name') : 'unknown';
		throw new Error(
			`the run failed (node: ${node}; toasts: ${(await errorToasts(page)).join(' | ') || 'none'})`,
		);
	});
	failed.catch(() => {}); // settles when the page closes
	await Promise.race([done, failed]);
	return runNodes.length;
}

/**
 * One example as imported: opened with no node issues, then run as its kind says (see startedBy).
 * `shot(name, locator)` takes the pictures of the job example (its run output) and the trigger.
 * @param {Page} page
 * @param {string} baseUrl
 * @param {{ wf: Workflow, kind: ReturnType<typeof startedBy> }} example
 * @param {Shot} shot
 */
async function checkExample(page, baseUrl, { wf, kind }, shot) {
	await openWorkflow(page, baseUrl, wf);
	const issues = await nodeIssues(page);
	if (issues.length) throw new Error(`node issues as imported: ${issues.join(' | ')}`);
	if (kind === 'open') return 'no node issues; not executed (started only from outside the editor)';
	if (kind === 'poll') return fetchTestEvent(page, wf, shot);
	const ran = await executeFromEditor(page, wf);
	const lastNode = lastNodeOf(wf);
	const ndv = await openNode(page, lastNode);
	const output = page.getByTestId('output-panel');
	await output.getByTestId('node-run-status-success').waitFor();
	const count = output.getByTestId('ndv-items-count');
	let detail = (await count.count())
		? (await count.innerText()).trim()
		: 'no items (explained in its sticky note)';
	if (createsJob(wf)) {
		await expectText(count, /^[1-9]\d* items?/, 'output item count');
		const binary = output.getByTestId('ndv-binary-data_0');
		detail += `, binary: ${(await expectText(binary, /\.zip/, 'binary output')).replace(/\s+/g, ' ').slice(0, 120)}`;
		await settle(page, ndv);
		detail += ` → ${await shot('run-output.png', ndv)}`;
	}
	return `${ran} nodes succeeded; "${lastNode}" output: ${detail}`;
}

/** Fetch Test Event on the trigger of `wf`: the newest valid download (the job example made one). */
/** @param {Page} page @param {Workflow} wf @param {Shot} shot */
async function fetchTestEvent(page, wf, shot) {
	const triggerNode = wf.nodes.find((n) => n.type === TRIGGER_TYPE).name;
	const ndv = await openNode(page, triggerNode);
	const event = await paramValue(page, 'event');
	if (event !== 'Download Ready') throw new Error(`Event shows "${event}"`);
	await page.getByTestId('trigger-execute-button').click();
	const output = page.getByTestId('output-panel');
	const count = await output.getByTestId('ndv-items-count').innerText({ timeout: 30000 });
	await output.getByTestId('radio-button-schema').click();
	await output.getByText('download_link').first().waitFor();
	await settle(page, ndv);
	return `"${triggerNode}" (Event: ${event}), Fetch Test Event: ${count.trim()} → ${await shot('trigger-panel.png', ndv)}`;
}

/**
 * A Job locator switched to From List (in a tab of its own, closed unsaved): the list the
 * service returns. The example's value is an expression, which From List does not take, so the
 * parameter is made Fixed first.
 * @param {BrowserContext} context
 * @param {string} baseUrl
 * @param {Shot} shot
 */
async function pickFromList(context, baseUrl, shot) {
	/** @param {any} n a workflow node (untyped JSON) */
	const jobLocator = (n) =>
		n.type === NODE_TYPE && n.parameters.resource === 'job' && n.parameters.recordId;
	const wf = readExamples(DEFAULTS.examplesDir).find((w) => w.nodes.some(jobLocator));
	if (!wf) throw new Error('examples/ has no Website Export node that picks a job');
	const nodeName = wf.nodes.find(jobLocator).name;
	const tab = await context.newPage();
	try {
		await openWorkflow(tab, baseUrl, wf);
		const ndv = await openNode(tab, nodeName);
		await settle(tab, ndv);
		const locator = ndv.getByTestId('resource-locator-recordId');
		await locator.hover(); // shows the parameter's Fixed / Expression toggle
		await ndv
			.getByTestId('recordId-parameter-input-options-container')
			.getByTestId('radio-button-fixed')
			.click();
		await locator.getByTestId('rlc-mode-selector').click();
		await tab
			.locator('.el-select-dropdown__item:visible, [role="option"]:visible')
			.filter({ hasText: /^\s*From list\s*$/i })
			.first()
			.click();
		await locator.getByTestId('rlc-input').first().click();
		const items = tab.getByTestId('rlc-item');
		await items.first().waitFor();
		const first = (await items.first().innerText()).trim();
		if (!/^#\d+ · /.test(first)) throw new Error(`the first list item reads "${first}"`);
		// The list is a popover outside the panel's element: the page is shot, open list and all.
		return `"${nodeName}": ${await items.count()} job(s) From List, the first "${first}" → ${await shot('from-list.png', tab, '[role="tooltip"] { display: none !important; }')}`;
	} catch (e) {
		await tab
			.screenshot({ path: path.join(DOCS, 'browser-check-from-list-tab.tmp.png') })
			.catch(() => {});
		throw e;
	} finally {
		await tab.close();
	}
}

/**
 * What the credential dialog shows when the test fails (README → Credentials): n8n tests a saved
 * credential when its dialog opens; a red banner with Retry, the node's reason under More details.
 * @param {Page} page
 * @param {Stack} stack
 */
async function credentialTestFailure(page, stack) {
	const { emulator } = stack;
	const data = {
		baseUrl: emulator.baseUrl,
		apiKey: emulator.apiKey,
		email: emulator.demoUser.email,
		password: 'not-the-password',
	};
	const wrong = await stack.n8n.rest('POST', '/rest/credentials', {
		name: 'Website Export (wrong password)',
		type: 'websiteExportApi',
		data,
	});
	await page.goto(`${stack.n8n.baseUrl}/home/credentials/${wrong.id}`);
	const modal = page.getByTestId('editCredential-modal');
	await modal.getByText('Couldn’t connect with these settings').waitFor({ timeout: 30000 });
	await modal.getByRole('button', { name: 'Retry' }).first().waitFor();
	await modal.getByText('More details').click();
	const reason = modal.getByText(/^Login failed \(/);
	await reason.waitFor();
	return `opened, tested: "Couldn’t connect with these settings", Retry; More details: "${(await reason.innerText()).trim()}"`;
}

// ---------------------------------------------------------------------------------------------

/**
 * @typedef {import('playwright-core').Page} Page
 * @typedef {import('playwright-core').Locator} Locator
 * @typedef {import('playwright-core').BrowserContext} BrowserContext
 * @typedef {import('./start').Stack} Stack
 * @typedef {ReturnType<typeof readExamples>[number]} Workflow
 * @typedef {(name: string, target: Page | Locator, style?: string) => Promise<string>} Shot
 * @typedef {{ name: string, ok: boolean, ms?: number, detail?: string, error?: string }} StepResult
 * @typedef {(name: string, fn: () => Promise<string | undefined>) => Promise<boolean>} Step
 */

/**
 * The throwaway folders of one run, the screenshot taker, and their removal.
 * @param {boolean} updateScreenshots pictures go to docs/ (else to a folder removed at the end)
 */
function workspace(updateScreenshots) {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'wex-browser-n8n-'));
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wex-browser-profile-'));
	const shotsDir = updateScreenshots
		? DOCS
		: fs.mkdtempSync(path.join(os.tmpdir(), 'wex-browser-shots-'));
	/** Takes a picture of `target` (a page or an element) and says where it went. @type {Shot} */
	const shot = async (name, target, style = SCREENSHOT_STYLE) => {
		await target.screenshot({ path: path.join(shotsDir, name), style });
		return updateScreenshots
			? `docs/${name}`
			: `${name} (not kept: --update-screenshots writes docs/)`;
	};
	const remove = () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		fs.rmSync(userDataDir, { recursive: true, force: true });
		if (shotsDir !== DOCS) fs.rmSync(shotsDir, { recursive: true, force: true });
	};
	return { userFolder, userDataDir, shot, remove };
}

/**
 * The step runner: each step's result is recorded and logged; a failed step leaves a picture of the page.
 * @param {Page} page
 * @param {StepResult[]} results
 * @returns {Step}
 */
function stepRunner(page, results) {
	return async (name, fn) => {
		const ts = Date.now();
		try {
			const detail = await fn();
			results.push({ name, ok: true, ms: Date.now() - ts, detail });
			log(
				`ok   ${name} (${((Date.now() - ts) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`,
			);
			return true;
		} catch (e) {
			const shot = path.join(DOCS, `browser-check-${name.replace(/[^a-z0-9]+/gi, '-')}.tmp.png`);
			await page.screenshot({ path: shot }).catch(() => {});
			results.push({ name, ok: false, ms: Date.now() - ts, error: e.message });
			log(
				`FAIL ${name}: ${e.message.split('\n').slice(0, 8).join('\n     ')}\n     page: ${path.relative(REPO, shot)}`,
			);
			return false;
		}
	};
}

/**
 * Sign in with the demo login; answers how many workflows the home page lists.
 * @param {Page} page
 * @param {string} baseUrl
 */
async function signIn(page, baseUrl) {
	await page.goto(`${baseUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(DEMO_OWNER.email);
	await page.getByTestId('password').locator('input').fill(DEMO_OWNER.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/home\//);
	const list = page.getByTestId('resources-list-item-workflow');
	await list.first().waitFor();
	return `${await list.count()} workflows listed`;
}

/**
 * The job example's Website Export node: Resource → Operation and the credential shown.
 * @param {Page} page
 * @param {Stack} stack
 * @param {ReturnType<typeof examplePlan>} plan
 * @param {Shot} shot
 */
async function nodePanel(page, stack, plan, shot) {
	await openWorkflow(page, stack.n8n.baseUrl, plan.job);
	const ndv = await openNode(page, plan.panelNode);
	const shown = `${await paramValue(page, 'resource')} → ${await paramValue(page, 'operation')}`;
	if (!/\S → \S/.test(shown)) throw new Error(`Resource/Operation show "${shown}"`);
	const select = page.getByTestId('node-credentials-select').locator('input').first();
	await select.waitFor();
	const cred = await select.inputValue();
	if (cred !== stack.credential.name)
		throw new Error(`credential select shows "${cred}", expected "${stack.credential.name}"`);
	await settle(page, ndv);
	return `"${plan.panelNode}" (${shown}) with credential "${cred}" → ${await shot('node-panel.png', ndv)}`;
}

/**
 * The credential from a node panel: saved (n8n then tests it), its secrets masked and never sent.
 * @param {Page} page
 * @param {Stack} stack
 * @param {ReturnType<typeof examplePlan>} plan
 * @param {Shot} shot
 */
async function credentialDialog(page, stack, plan, shot) {
	// from a node panel: the pencil beside the credential
	if (!(await page.getByTestId('credential-edit-button').isVisible())) {
		await openWorkflow(page, stack.n8n.baseUrl, plan.job);
		await openNode(page, plan.panelNode);
	}
	await page.getByTestId('credential-edit-button').click();
	const modal = page.getByTestId('editCredential-modal');
	await modal.waitFor();
	const baseUrlInput = modal.getByTestId('parameter-input-baseUrl').locator('input');
	if ((await baseUrlInput.inputValue()) !== stack.emulator.baseUrl)
		throw new Error(`Base URL shows ${await baseUrlInput.inputValue()}`);
	// Save makes n8n test the credential against the emulator
	await modal.getByTestId('credential-save-button').click();
	await modal.getByText('Connection tested successfully').waitFor({ timeout: 30000 });
	// secrets: masked inputs, and the real values never reach the browser
	const secrets = [stack.emulator.apiKey, stack.emulator.demoUser.password];
	for (const field of ['apiKey', 'password']) {
		const input = modal.getByTestId(`parameter-input-${field}`).locator('input');
		if ((await input.getAttribute('type')) !== 'password')
			throw new Error(`${field} is not a password field`);
		if (secrets.includes(await input.inputValue()))
			throw new Error(`${field}: the real secret was sent to the browser`);
	}
	const html = await page.content();
	const leaked = secrets.filter((s) => html.includes(s));
	if (leaked.length) throw new Error('a secret appears in the page');
	await settle(page, modal);
	return `connection tested successfully, API key and password masked → ${await shot('credential.png', modal)}`;
}

/** An example's Get Many with filters (options and downloads filter by job; jobs do not). */
function getManyExample() {
	for (const wf of readExamples(DEFAULTS.examplesDir)) {
		const node = wf.nodes.find(
			(n) =>
				n.type === NODE_TYPE &&
				n.parameters.resource !== 'job' &&
				n.parameters.operation === 'getAll' &&
				n.parameters.filters,
		);
		if (node) return { wf, node };
	}
	throw new Error('examples/ has no Get Many with filters');
}

/**
 * The Job filter added to a Get Many, in a tab of its own closed unsaved: a job locator (From List).
 * @param {BrowserContext} context
 * @param {string} baseUrl
 */
async function addJobFilter(context, baseUrl) {
	const { wf, node } = getManyExample();
	const tab = await context.newPage();
	try {
		await openWorkflow(tab, baseUrl, wf);
		const ndv = await openNode(tab, node.name);
		await settle(tab, ndv);
		// One option left: a button that adds it; several: a select of them.
		await ndv.getByTestId('collection-parameter-add').first().click();
		const choice = tab
			.getByTestId('collection-parameter-option')
			.filter({ hasText: /^Job( ID)?$/ });
		if (await choice.count()) await choice.first().click();
		const locator = ndv.getByTestId('resource-locator-jobId');
		const plain = ndv.getByTestId('parameter-input-jobId');
		await locator.or(plain).first().waitFor();
		if (!(await locator.count()))
			throw new Error('a plain Job ID field shows, not the job locator');
		await locator.getByTestId('rlc-input').first().click();
		const items = tab.getByTestId('rlc-item');
		await items.first().waitFor();
		const first = (await items.first().innerText()).trim();
		if (!/^#\d+ · /.test(first)) throw new Error(`the first list item reads "${first}"`);
		return `"${node.name}": job locator, ${await items.count()} job(s) From List, the first "${first}"`;
	} catch (e) {
		await tab
			.screenshot({ path: path.join(DOCS, 'browser-check-job-in-a-filter.tmp.png') })
			.catch(() => {});
		throw e;
	} finally {
		await tab.close();
	}
}

/**
 * Every step after the sign-in, in order (see the top of this file).
 * @param {{ page: Page, context: BrowserContext, stack: Stack, plan: ReturnType<typeof examplePlan>,
 *   shot: Shot, step: Step }} run
 */
async function signedInSteps({ page, context, stack, plan, shot, step }) {
	const baseUrl = stack.n8n.baseUrl;
	await step('node panel', () => nodePanel(page, stack, plan, shot));
	// Every example as imported, the job export first (the others read the job and download it makes).
	for (const example of plan.examples) {
		await step(`example "${example.wf.name}" (${example.kind})`, () =>
			checkExample(page, baseUrl, example, shot),
		);
	}
	// Records are picked with resource locators: the job of the run above, From List.
	await step('from list', () => pickFromList(context, baseUrl, shot));
	await step('credential', () => credentialDialog(page, stack, plan, shot));
	await step('credential test failure', () => credentialTestFailure(page, stack));
	// The Job ID inside a Get Many filter: a job locator (From List), in a tab of its own, closed unsaved.
	await step('job in a filter', () => addJobFilter(context, baseUrl));
}

/**
 * Headless Chromium with its own profile in `userDataDir`.
 * @param {import('playwright-core').BrowserType} browserType
 * @param {string} userDataDir
 */
async function launchBrowser(browserType, userDataDir) {
	const context = await browserType.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
		locale: 'en-US',
		timezoneId: 'UTC',
	});
	context.setDefaultTimeout(STEP_TIMEOUT_MS);
	const page = context.pages()[0] || (await context.newPage());
	return { context, page };
}

/**
 * The stack on free ports (the emulator on 54321 when free: the credential screenshot shows it).
 * @param {string} userFolder
 * @param {Record<string, number>} timings
 */
async function startCheckedStack(userFolder, timings) {
	const t = Date.now();
	const stack = await startStack({
		userFolder,
		n8nPort: await n8n.getFreePort(), // never collides with a running `npm start`
		emulatorPort: await portOr(DEFAULTS.emulatorPort),
		log: (m) => log(m.trim()),
	});
	timings.stackMs = Date.now() - t;
	log(
		`stack ready in ${(timings.stackMs / 1000).toFixed(1)} s: n8n ${stack.n8n.baseUrl}, emulator ${stack.emulator.baseUrl}`,
	);
	return stack;
}

/**
 * The stack, the browser and every step; results go to `results`, durations to `timings`.
 * @param {ReturnType<typeof workspace>} ws
 * @param {{ stack?: Stack, context?: BrowserContext }} held what cleanup() must close
 * @param {StepResult[]} results
 * @param {Record<string, number>} timings
 * @param {boolean} keepOpen
 */
async function checkAll(ws, held, results, timings, keepOpen) {
	const chromium = ensureChromium();
	timings.chromiumInstallMs = chromium.installedMs;
	const { chromium: browserType, selectors } = loadPlaywright();
	selectors.setTestIdAttribute('data-test-id'); // n8n's attribute
	const plan = examplePlan();
	const stack = await startCheckedStack(ws.userFolder, timings);
	held.stack = stack;
	const t = Date.now();
	const { context, page } = await launchBrowser(browserType, ws.userDataDir);
	held.context = context;
	timings.browserLaunchMs = Date.now() - t;
	/** @type {string[]} */
	const pageErrors = [];
	page.on('pageerror', (e) => pageErrors.push(e.message));
	const step = stepRunner(page, results);
	if (await step('sign in', () => signIn(page, stack.n8n.baseUrl)))
		await signedInSteps({ page, context, stack, plan, shot: ws.shot, step });
	if (pageErrors.length)
		log(`page errors (not failing the check): ${pageErrors.slice(0, 5).join(' | ')}`);
	if (keepOpen) {
		log(
			`--keep-open: ${stack.n8n.baseUrl} (${DEMO_OWNER.email} / ${DEMO_OWNER.password}); Ctrl-C to stop`,
		);
		await new Promise(() => {});
	}
}

/**
 * The timings line and the summary line; sets the exit code.
 * @param {StepResult[]} results
 * @param {Record<string, number>} timings
 * @param {number} t0
 */
function report(results, timings, t0) {
	const passed = results.filter((r) => r.ok).length;
	const failed = results.length - passed;
	log(
		`timings: total ${((Date.now() - t0) / 1000).toFixed(1)} s, stack ${((timings.stackMs || 0) / 1000).toFixed(1)} s, ` +
			`browser launch ${((timings.browserLaunchMs || 0) / 1000).toFixed(1)} s, stop ${(timings.stopMs / 1000).toFixed(1)} s` +
			(timings.chromiumInstallMs
				? `, chromium install ${(timings.chromiumInstallMs / 1000).toFixed(1)} s`
				: ''),
	);
	console.log(`browser-check: ${passed} passed, ${failed} failed`);
	process.exitCode = failed || !passed ? 1 : 0;
}

/** @param {string[]} argv */
async function main(argv) {
	const keepOpen = argv.includes('--keep-open');
	const updateScreenshots =
		argv.includes('--update-screenshots') || process.env.UPDATE_SCREENSHOTS === '1';
	const t0 = Date.now();
	/** @type {StepResult[]} */
	const results = [];
	/** @type {Record<string, number>} */
	const timings = {};
	const ws = workspace(updateScreenshots);
	/** @type {{ stack?: Stack, context?: BrowserContext }} */
	const held = {};
	const cleanup = async () => {
		if (held.context) await held.context.close().catch(() => {});
		if (held.stack) await held.stack.stop();
		ws.remove();
	};
	let interrupted = false;
	/** @param {string} why */
	const interrupt = (why) => {
		if (interrupted) return;
		interrupted = true;
		log(`${why}: stopping`);
		Promise.all([n8n.killActiveRuns('SIGTERM'), cleanup()]).finally(() => process.exit(130));
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => interrupt(sig));
	whenParentExits(() => interrupt('the parent process exited'));
	try {
		await checkAll(ws, held, results, timings, keepOpen);
	} catch (e) {
		results.push({ name: 'setup', ok: false, error: e.message });
		log(`FAIL setup: ${e instanceof StartError ? e.message : e.stack || e}`);
	} finally {
		const t = Date.now();
		await cleanup();
		timings.stopMs = Date.now() - t;
	}
	report(results, timings, t0);
}

if (require.main === module) main(process.argv.slice(2));
