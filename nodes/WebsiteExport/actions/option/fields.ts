/** Option fields that Select By may use besides the ID. */
export const OPTION_FIELDS = [
	{ name: 'Job ID', value: 'job_id' },
	{ name: 'Created At', value: 'created_at' },
];
