/** Option fields that Select By may use besides the ID. */
export const OPTION_SELECT_BY_FIELDS = [
	{ name: 'Job ID', value: 'job_id' },
	{ name: 'Created At', value: 'created_at' },
];

/** How messages name an option being created, and where to look for it if its answer was lost. */
export function optionLookup(body: { job_id?: unknown }): { noun: string; findHint: string } {
	const job =
		body.job_id === undefined || body.job_id === null ? '' : ` with Job ID ${String(body.job_id)}`;
	return { noun: 'option', findHint: `Option → Get Many${job}` };
}
