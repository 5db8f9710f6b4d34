/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the editor as a user meets it, in Chromium: sign-in, the node panel, every example run from the canvas, From List, the credential dialog (pictures in docs/).
import { type BrowserContext, type Locator, type Page, expect, test } from '@playwright/test';

import type { BrowserStack } from './stack';
import {
	NODE_TYPE,
	checkExample,
	examplePlan,
	navigate,
	openNode,
	openWorkflow,
	settle,
	shot,
} from './workflows';

import { DEMO_OWNER, readExamples } from '../../stack/demo-data';
import { DEFAULTS } from '../../stack/local-stack';

const stack = JSON.parse(process.env.WEX_BROWSER_STACK ?? '{}') as BrowserStack;
const plan = examplePlan();

test.describe.configure({ mode: 'serial' });

let context: BrowserContext;
let page: Page;
test.beforeAll(async ({ browser }) => {
	context = await browser.newContext();
	page = await context.newPage();
});
test.afterAll(async () => await context.close());

test('sign in', async () => {
	// The editor's first load (its bundle parsed and its node types fetched) shares 2 cores with the
	// other lanes of test:all: it once took over the 2 minutes a step gets.
	test.setTimeout(300_000);
	await page.goto(`${stack.n8nUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(DEMO_OWNER.email);
	await page.getByTestId('password').locator('input').fill(DEMO_OWNER.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/home\//);
	await expect(page.getByTestId('resources-list-item-workflow').first()).toBeVisible();
});

test('node panel', async () => {
	await openWorkflow(page, stack.n8nUrl, plan.job);
	const ndv = await openNode(page, plan.panelNode);
	await expect(page.getByTestId('parameter-input-resource').locator('input').first()).toHaveValue(
		/\S/,
	);
	await expect(page.getByTestId('parameter-input-operation').locator('input').first()).toHaveValue(
		/\S/,
	);
	await expect(page.getByTestId('node-credentials-select').locator('input').first()).toHaveValue(
		stack.credentialName,
	);
	await settle(page, ndv);
	await shot(stack, 'node-panel.png', ndv);
});

// Every example as imported, the job export first (the others read the job and download it makes).
for (const example of plan.examples) {
	test(`example "${example.wf.name}" (${example.kind})`, async () => {
		await checkExample(page, stack, example);
	});
}

/**
 * Edits on the page, then left unsaved as a user leaves them (a tab of their own loaded the
 * editor again: about 15 s of Chromium's CPU each).
 */
async function unsaved(use: (tab: Page) => Promise<void>): Promise<void> {
	await use(page);
	// Away from the workflow, answering n8n's question as a user does when it asks (it asks only
	// once it has marked the edits unsaved, which a loaded machine may not have done yet).
	const leaving = navigate(page, stack.n8nUrl, '/home/workflows');
	const leave = page.getByRole('button', { name: 'Leave without saving' });
	await expect(leave.or(page.getByRole('heading', { name: 'Overview' }))).toBeVisible();
	if (await leave.isVisible()) await leave.click();
	await leaving;
}

/** The first item of an open From List: the job of the run above, `#<id> · <url>`. */
async function expectJobList(tab: Page, locator: Locator): Promise<void> {
	await locator.getByTestId('rlc-input').first().click();
	await expect(tab.getByTestId('rlc-item').first()).toHaveText(/^\s*#\d+ · /);
}

test('from list', async () => {
	const picksJob = (node: { type: string; parameters: Record<string, unknown> }) =>
		node.type === NODE_TYPE && node.parameters.resource === 'job' && !!node.parameters.recordId;
	const wf = readExamples(DEFAULTS.examplesDir).find((w) => w.nodes.some(picksJob));
	expect(wf, 'an example whose Website Export node picks a job').toBeDefined();
	await unsaved(async (tab) => {
		await openWorkflow(tab, stack.n8nUrl, wf!);
		const ndv = await openNode(tab, wf!.nodes.find(picksJob)!.name);
		await settle(tab, ndv);
		const locator = ndv.getByTestId('resource-locator-recordId');
		// The example's value is an expression, which From List does not take: Fixed first.
		await locator.hover();
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
		await expectJobList(tab, locator);
		// The list is a popover outside the panel's element: the page is shot, open list and all.
		await shot(stack, 'from-list.png', tab, '[role="tooltip"] { display: none !important; }');
	});
});

test('credential', async () => {
	if (!(await page.getByTestId('credential-edit-button').isVisible())) {
		await openWorkflow(page, stack.n8nUrl, plan.job);
		await openNode(page, plan.panelNode);
	}
	await page.getByTestId('credential-edit-button').click();
	const modal = page.getByTestId('editCredential-modal');
	await expect(modal.getByTestId('parameter-input-baseUrl').locator('input')).toHaveValue(
		stack.emulator.baseUrl,
	);
	// Save makes n8n test the credential against the service.
	await modal.getByTestId('credential-save-button').click();
	await expect(modal.getByText('Connection tested successfully')).toBeVisible();
	// Secrets: masked inputs, and the real values never reach the browser.
	const secrets = [stack.emulator.apiKey, stack.emulator.demoUser.password];
	for (const field of ['apiKey', 'password']) {
		const input = modal.getByTestId(`parameter-input-${field}`).locator('input');
		await expect(input).toHaveAttribute('type', 'password');
		expect(secrets).not.toContain(await input.inputValue());
	}
	const html = await page.content();
	expect(secrets.filter((secret) => html.includes(secret))).toEqual([]);
	await settle(page, modal);
	await shot(stack, 'credential.png', modal);
});

test('credential test failure', async () => {
	await page.keyboard.press('Escape'); // the dialog of the test before
	await navigate(page, stack.n8nUrl, `/home/credentials/${stack.wrongCredentialId}`);
	const modal = page.getByTestId('editCredential-modal');
	await expect(modal.getByText('Couldn’t connect with these settings')).toBeVisible();
	await expect(modal.getByRole('button', { name: 'Retry' }).first()).toBeVisible();
	await modal.getByText('More details').click();
	await expect(modal.getByText(/^Login failed \(/)).toBeVisible();
	await page.keyboard.press('Escape');
	await expect(modal).toBeHidden();
});

test('job in a filter', async () => {
	// A Get Many with filters (options and downloads filter by job; jobs do not).
	const example = readExamples(DEFAULTS.examplesDir)
		.map((wf) => ({
			wf,
			node: wf.nodes.find(
				(n: { type: string; parameters: Record<string, unknown> }) =>
					n.type === NODE_TYPE &&
					n.parameters.resource !== 'job' &&
					n.parameters.operation === 'getAll' &&
					!!n.parameters.filters,
			),
		}))
		.find(({ node }) => node);
	expect(example, 'an example with a Get Many with filters').toBeDefined();
	await unsaved(async (tab) => {
		await openWorkflow(tab, stack.n8nUrl, example!.wf);
		const ndv = await openNode(tab, example!.node.name);
		await settle(tab, ndv);
		// One option left: a button that adds it; several: a select of them.
		await ndv.getByTestId('collection-parameter-add').first().click();
		const choice = tab
			.getByTestId('collection-parameter-option')
			.filter({ hasText: /^Job( ID)?$/ });
		if (await choice.count()) await choice.first().click();
		const locator = ndv.getByTestId('resource-locator-jobId');
		await expect(locator, 'the job locator, not a plain Job ID field').toBeVisible();
		await expectJobList(tab, locator);
	});
});
