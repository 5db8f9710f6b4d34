/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the browser check's global setup: Debian's Chromium, and the `npm start` stack in a throwaway folder for the tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startStack, DEFAULTS } from '../../stack/local-stack';
import * as n8n from '../../stack/n8n/lib';
import { ensureDebianPackage } from '../../stack/n8n/services';

/** Debian's chromium (playwright.config.ts runs it), installed with apt-get when missing (root). */
const CHROMIUM = '/usr/bin/chromium';

/** What the tests read from the environment (set here, in the runner, before any worker starts). */
export interface BrowserStack {
	n8nUrl: string;
	emulator: { baseUrl: string; apiKey: string; demoUser: { email: string; password: string } };
	credentialName: string;
	/** A credential with a wrong password, saved: its dialog shows the failed test. */
	wrongCredentialId: string;
	/** Where the pictures go: docs/ with UPDATE_SCREENSHOTS=1, else a folder removed at the end. */
	shotsDir: string;
}

export default async function globalSetup(): Promise<() => Promise<void>> {
	await ensureDebianPackage(CHROMIUM, ['chromium']);
	const userFolder = mkdtempSync(join(tmpdir(), 'wex-browser-n8n-'));
	const keepShots = process.env.UPDATE_SCREENSHOTS === '1';
	const shotsDir = keepShots
		? join(__dirname, '..', '..', 'docs')
		: mkdtempSync(join(tmpdir(), 'wex-browser-shots-'));
	let stack: Awaited<ReturnType<typeof startStack>> | undefined;
	const removeFolders = () => {
		rmSync(userFolder, { recursive: true, force: true });
		if (!keepShots) rmSync(shotsDir, { recursive: true, force: true });
	};
	// A signal that ends the run (its teardown then never runs) still removes them.
	const disarm = n8n.onInterrupt(removeFolders);
	const teardown = async () => {
		disarm();
		await stack?.stop();
		removeFolders();
	};
	// A set-up that fails stops what it started and removes its folders too (no teardown runs then).
	let ready = false;
	try {
		stack = await startStack({
			userFolder,
			n8nPort: await n8n.getFreePort(), // never collides with a running `npm start`
			// The usual port when free: the credential's picture shows the emulator's usual address.
			emulatorPort: await n8n.getFreePort(DEFAULTS.emulatorPort),
			log: (message: string) => console.log(`[stack] ${message.trim()}`),
		});
		const { emulator } = stack;
		const wrong = await stack.n8n.rest('POST', '/rest/credentials', {
			name: 'Website Export (wrong password)',
			type: 'websiteExportApi',
			data: {
				baseUrl: emulator.baseUrl,
				apiKey: emulator.apiKey,
				email: emulator.demoUser.email,
				password: 'not-the-password',
			},
		});
		const shared: BrowserStack = {
			n8nUrl: stack.n8n.baseUrl,
			emulator: { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, demoUser: emulator.demoUser },
			credentialName: stack.credential.name,
			wrongCredentialId: wrong.id,
			shotsDir,
		};
		process.env.WEX_BROWSER_STACK = JSON.stringify(shared);
		ready = true;
	} finally {
		if (!ready) await teardown();
	}
	return teardown;
}
