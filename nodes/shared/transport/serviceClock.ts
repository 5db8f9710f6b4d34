// Why: links and tokens expire by the service's clock, which may differ from n8n's: this follows it through the Date headers of the service's answers.

/**
 * The service's current time, from the Date header of its last answer plus the time that has
 * passed here since; this machine's clock before any answer, or when the answer had no Date.
 * The header counts whole seconds, so the service's clock may be up to 1 s later than this.
 */
export class ServiceClock {
	/** The service's clock as its last answer gave it, and ours when that answer came. */
	private reading?: { service: number; local: number };

	now(): number {
		return this.reading ? this.reading.service + (Date.now() - this.reading.local) : Date.now();
	}

	/** Takes the time from an answer's headers, when they carry a Date. */
	read(headers: Record<string, unknown>): void {
		const value = Array.isArray(headers.date) ? headers.date[0] : headers.date;
		const service = typeof value === 'string' ? Date.parse(value) : NaN;
		if (!Number.isNaN(service)) this.reading = { service, local: Date.now() };
	}
}
