/**
 * The "before" of keyset paging, kept only as the benchmark's baseline: Return All as the node
 * did it until issue 9 (offset pages, the first one counted, the others 8 side by side), over
 * undici, so that both ways are measured against the same emulator in one run.
 */
import { request } from 'undici';

interface Service {
	baseUrl: string;
	apiKey: string;
	demoUser: { email: string; password: string };
}

/** Rows of `table` in `order` (a PostgREST order string), by offset, `inFlight` pages at once. */
export async function offsetReturnAll(
	service: Service,
	table: string,
	order: string,
	inFlight: number,
): Promise<{ rows: Array<{ id: number }>; requests: number }> {
	const login = await request(`${service.baseUrl}/auth/v1/token?grant_type=password`, {
		method: 'POST',
		headers: { apikey: service.apiKey, 'content-type': 'application/json' },
		body: JSON.stringify(service.demoUser),
	});
	const { access_token: token } = (await login.body.json()) as { access_token: string };
	let requests = 0;
	const page = async (offset: number, count: boolean) => {
		requests++;
		const response = await request(
			`${service.baseUrl}/rest/v1/${table}?select=*&order=${order}&limit=1000&offset=${offset}`,
			{
				headers: {
					apikey: service.apiKey,
					authorization: `Bearer ${token}`,
					...(count ? { prefer: 'count=exact' } : {}),
				},
			},
		);
		const total = Number(/\/(\d+)$/.exec(String(response.headers['content-range']))?.[1]);
		return { rows: (await response.body.json()) as Array<{ id: number }>, total };
	};
	const first = await page(0, true);
	const stride = first.rows.length;
	const offsets: number[] = [];
	for (let offset = stride; offset < first.total; offset += stride) offsets.push(offset);
	const pages: Array<Array<{ id: number }>> = [];
	for (let start = 0; start < offsets.length; start += inFlight) {
		const batch = await Promise.all(
			offsets
				.slice(start, start + inFlight)
				.map(async (offset) => (await page(offset, false)).rows),
		);
		pages.push(...batch);
	}
	return { rows: [first.rows, ...pages].flat(), requests };
}
