// Why: the credential's base URL, checked and normalised once for every request.
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const EXAMPLE = 'e.g. https://<project>.supabase.co';

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const refused = (reason: string): BaseUrlCheck => ({ ok: false, reason });

/**
 * The address typed, as `scheme://host[:port][/path]`: https only, but http on this machine (the
 * emulator), so the key and password never travel in clear text.
 */
export function checkBaseUrl(raw: unknown): BaseUrlCheck {
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (!text) return refused(`The Base URL is empty: enter the address of the service, ${EXAMPLE}`);
	if (!URL.canParse(text))
		return refused(`The Base URL "${text}" is not a valid address, ${EXAMPLE}`);
	const parsed = new URL(text);
	const isLoopback = LOOPBACK_HOSTS.has(parsed.hostname);
	if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback))
		return refused(
			'The Base URL must start with https:// (http:// is only accepted for localhost), got ' +
				`"${parsed.protocol}//${parsed.host}"`,
		);
	if (parsed.search || parsed.hash || parsed.username || parsed.password)
		return refused(
			'The Base URL must not contain a query, a fragment or a user name: ' +
				`enter only the address, ${EXAMPLE}`,
		);
	const path = parsed.pathname.replace(/\/+$/, '');
	return { ok: true, url: `${parsed.protocol}//${parsed.host}${path}` };
}
