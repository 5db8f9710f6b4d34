/* eslint-disable @n8n/community-nodes/no-dangerous-functions -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the one way the tooling loads its ES-module libraries (execa, get-port) wherever it runs:
// tsx, jest's tests, jest's global setup.

/** A real import(): TypeScript would compile a plain import() into require(). */
const nativeImport = new Function('specifier', 'return import(specifier)') as <T>(
	specifier: string,
) => Promise<T>;

/**
 * execa. Inside jest's tests modules are CommonJS (jest.config.js transforms execa for them);
 * everywhere else, jest's global setup included (whose require hook would fail on one of execa's
 * dependencies), Node imports it natively.
 */
export function loadExeca(): Promise<typeof import('execa')> {
	return typeof jest === 'undefined' ? nativeImport('execa') : import('execa');
}

/** get-port, the same way. */
export function loadGetPort(): Promise<typeof import('get-port')> {
	return typeof jest === 'undefined' ? nativeImport('get-port') : import('get-port');
}
