/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Why: the editor's pages as the browser check uses them: the examples and how each is run, opening workflows and nodes, a quiet page for pictures.
import { join } from 'node:path';
import { type Locator, type Page, expect } from '@playwright/test';

import type { BrowserStack } from './stack';

import { readExamples } from '../../stack/demo-data';
import { DEFAULTS } from '../../stack/local-stack';

export const NODE_TYPE = 'n8n-nodes-website-export.websiteExport';
const TRIGGER_TYPE = 'n8n-nodes-website-export.websiteExportTrigger';
const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';

type Workflow = ReturnType<typeof readExamples>[number];
type WorkflowNode = { name: string; type: string; parameters: Record<string, unknown> };

/**
 * How an example is checked follows from what starts it: a Manual Trigger runs from the canvas
 * (every node green); the Website Export Trigger fetches a test event; anything else (an MCP
 * Server Trigger, started only by MCP clients and proven by the e2e suite) is only opened.
 */
const startedBy = (wf: Workflow): 'manual' | 'poll' | 'open' =>
	wf.nodes.some((n: WorkflowNode) => n.type === MANUAL_TRIGGER_TYPE)
		? 'manual'
		: wf.nodes.some((n: WorkflowNode) => n.type === TRIGGER_TYPE)
			? 'poll'
			: 'open';

/** A Manual Trigger workflow that creates a job: the others read what it makes, so it runs first. */
const createsJob = (wf: Workflow) =>
	startedBy(wf) === 'manual' &&
	wf.nodes.some(
		(n: WorkflowNode) =>
			n.type === NODE_TYPE &&
			n.parameters.resource === 'job' &&
			n.parameters.operation === 'create',
	);

/** Every workflow in examples/, the job export first, then by name. */
export function examplePlan() {
	const all = readExamples(DEFAULTS.examplesDir);
	const ordered = [...all.filter(createsJob), ...all.filter((wf) => !createsJob(wf))];
	const job = ordered[0];
	if (!job || !createsJob(job))
		throw new Error('examples/ has no workflow with a Manual Trigger that creates a job');
	const panelNode: string = job.nodes.find((n: WorkflowNode) => n.type === NODE_TYPE).name;
	return { examples: ordered.map((wf) => ({ wf, kind: startedBy(wf) })), job, panelNode };
}

/** The node whose output ends the run: ours with no outgoing connection (the last one drawn otherwise). */
function lastNodeOf(wf: Workflow): string {
	const runnable = wf.nodes.filter((n: WorkflowNode) => n.type !== STICKY_NOTE_TYPE);
	const leaves = runnable.filter(
		(n: WorkflowNode) =>
			!(wf.connections[n.name]?.main ?? []).some((o: unknown[] | null) => o?.length),
	);
	return (leaves.find((n: WorkflowNode) => n.type === NODE_TYPE) ?? leaves[0] ?? runnable.at(-1))
		.name;
}

const canvasNode = (page: Page, name: string) =>
	page.locator(`[data-test-id="canvas-node"][data-node-name="${name.replace(/"/g, '\\"')}"]`);

/**
 * Goes to an address of the editor: within the loaded editor as its own links do (its router),
 * or by loading it in a page without it. A reload costs about 10 s of CPU (n8n's editor starting
 * again, its node types and all), and the check moves a dozen times.
 */
export async function navigate(page: Page, baseUrl: string, path: string): Promise<void> {
	const routed = await page.evaluate(async (to) => {
		type Router = { push(to: string): Promise<unknown> };
		type VueApp = { config: { globalProperties: { $router?: Router } } };
		const mounted = document.querySelector('#app') as { __vue_app__?: VueApp } | null;
		const router = mounted?.__vue_app__?.config.globalProperties.$router;
		if (!router) return false;
		await router.push(to);
		return true;
	}, path);
	if (!routed) await page.goto(baseUrl + path);
}

export async function openWorkflow(page: Page, baseUrl: string, wf: Workflow): Promise<void> {
	await navigate(page, baseUrl, `/workflow/${wf.id}`);
	await expect(page.getByTestId('canvas-node').first()).toBeVisible();
	await expect(page.getByTestId('workflow-name-input').filter({ hasText: wf.name })).toBeVisible();
}

export async function openNode(page: Page, name: string): Promise<Locator> {
	const ndv = page.getByTestId('ndv');
	if (await ndv.isVisible()) {
		await page.getByTestId('ndv-close-button').click();
		await expect(ndv).toBeHidden();
	}
	await canvasNode(page, name).dblclick();
	await expect(page.getByTestId('node-title-container').filter({ hasText: name })).toBeVisible();
	await expect(page.getByTestId('node-parameters')).toBeVisible();
	return ndv;
}

/** No error toast, then none at all, no spinner in `scope`, no hover effect: a picture that is the same each run. */
export async function settle(page: Page, scope: Locator): Promise<void> {
	await page.waitForLoadState('networkidle');
	await page.evaluate(() => document.fonts.ready);
	await expect(scope.locator('.el-loading-mask, .n8n-spinner')).toHaveCount(0);
	await expect(
		page.locator('.el-notification--error, .el-notification:has([class*="error"])'),
	).toHaveCount(0);
	const close = page.locator('.el-notification .el-notification__closeBtn');
	for (const button of await close.all()) await button.click().catch(() => undefined);
	await expect(page.locator('.el-notification')).toHaveCount(0);
	await page.mouse.move(2, 2);
}

/** Hints that pop up on their own (e.g. "You can pin this output…") are left out of the pictures. */
const HIDE_POPUPS =
	'[role="tooltip"], .el-popper, [data-reka-popper-content-wrapper] { display: none !important; }';

/** A picture of `target` into the stack's pictures folder (docs/ with UPDATE_SCREENSHOTS=1). */
export async function shot(
	stack: BrowserStack,
	name: string,
	target: Page | Locator,
	style = HIDE_POPUPS,
): Promise<void> {
	await target.screenshot({ path: join(stack.shotsDir, name), style });
}

/** The canvas nodes that show n8n's issue marker. */
async function nodeIssues(page: Page): Promise<string[]> {
	await page.waitForLoadState('networkidle');
	const marked = page.locator('[data-test-id="canvas-node"]:has([data-test-id="node-issues"])');
	return await Promise.all(
		(await marked.all()).map(async (node) => String(await node.getAttribute('data-node-name'))),
	);
}

/** "Execute workflow": every node of `wf` green, or the red node's name. */
async function executeFromEditor(page: Page, wf: Workflow): Promise<void> {
	await page.getByTestId('execute-workflow-button').click();
	const red = page.locator(
		'[data-test-id="canvas-node"]:has([data-test-id="canvas-node-status-mark-error"])',
	);
	for (const node of wf.nodes.filter((n: WorkflowNode) => n.type !== STICKY_NOTE_TYPE)) {
		await expect(
			canvasNode(page, node.name).getByTestId('canvas-node-status-success').or(red.first()),
		).toBeVisible();
		await expect(red, 'nodes that failed').toHaveCount(0);
	}
}

/** One example as imported: opened with no node issues, then run as what starts it says. */
export async function checkExample(
	page: Page,
	stack: BrowserStack,
	{ wf, kind }: { wf: Workflow; kind: ReturnType<typeof startedBy> },
): Promise<void> {
	await openWorkflow(page, stack.n8nUrl, wf);
	expect(await nodeIssues(page), 'nodes with issues as imported').toEqual([]);
	if (kind === 'open') return;
	if (kind === 'poll') return await fetchTestEvent(page, stack, wf);
	await executeFromEditor(page, wf);
	const ndv = await openNode(page, lastNodeOf(wf));
	const output = page.getByTestId('output-panel');
	await expect(output.getByTestId('node-run-status-success')).toBeVisible();
	if (!createsJob(wf)) return;
	await expect(output.getByTestId('ndv-items-count')).toHaveText(/^\s*[1-9]\d* items?/);
	await expect(output.getByTestId('ndv-binary-data_0')).toContainText('.zip');
	await settle(page, ndv);
	await shot(stack, 'run-output.png', ndv);
}

/** Fetch Test Event on the trigger: the newest valid download (the job example made one). */
async function fetchTestEvent(page: Page, stack: BrowserStack, wf: Workflow): Promise<void> {
	const ndv = await openNode(
		page,
		wf.nodes.find((n: WorkflowNode) => n.type === TRIGGER_TYPE).name,
	);
	await expect(page.getByTestId('parameter-input-event').locator('input').first()).toHaveValue(
		'Download Ready',
	);
	await page.getByTestId('trigger-execute-button').click();
	const output = page.getByTestId('output-panel');
	await expect(output.getByTestId('ndv-items-count')).toBeVisible();
	await output.getByTestId('radio-button-schema').click();
	await expect(output.getByText('download_link').first()).toBeVisible();
	await settle(page, ndv);
	await shot(stack, 'trigger-panel.png', ndv);
}
