// Why: `npm run test:browser`: the `npm start` stack driven in Debian's Chromium by @playwright/test (test/browser/).
import { defineConfig } from '@playwright/test';

export default defineConfig({
	testDir: 'test/browser',
	testMatch: '*.spec.ts',
	globalSetup: './test/browser/stack.ts',
	// One n8n, one signed-in page: the steps run in order, each a test.
	workers: 1,
	fullyParallel: false,
	timeout: 120_000,
	expect: { timeout: 60_000 },
	reporter: [['list']],
	// Traces and pictures of a failed step (and Playwright's .last-run.json): beside jest's cache,
	// out of the git tree and the temp directory.
	outputDir: 'node_modules/.cache/browser-check',
	use: {
		testIdAttribute: 'data-test-id', // n8n's
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
		locale: 'en-US',
		timezoneId: 'UTC',
		// The editor's transitions off: Chromium draws every frame in software here (no GPU), and with
		// them it used about 45 s more CPU per check (183 s against 138 s, measured alone).
		reducedMotion: 'reduce',
		actionTimeout: 60_000,
		screenshot: 'only-on-failure',
		trace: 'retain-on-failure',
		launchOptions: {
			executablePath: '/usr/bin/chromium',
			// Without the background-networking flags Chromium keeps dialling Google, which this
			// machine's closed network refuses.
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
			],
		},
	},
});
