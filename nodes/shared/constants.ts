/** Credential type name, shared by both nodes (users' saved workflows depend on it). */
export const CREDENTIAL_NAME = 'websiteExportApi';

/** The service keeps a download link alive for 24 hours after the job has run. */
export const DOWNLOAD_VALIDITY_MS = 24 * 60 * 60 * 1000;

export type Table = 'options' | 'jobs' | 'downloads';

/** How long a request to the service may take; a login is shared for as long (auth/renewal.ts). */
export const REQUEST_TIMEOUT_MS = 60_000;
