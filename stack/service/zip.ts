/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the service's archives, streamed by yazl in constant memory, their exact length known first.
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/**
 * An export's archive: `index` as index.html, then `noiseBytes` bytes of noise as payload.bin
 * (streamed: any size, no memory). Stored entries (no compression), so that yazl knows the
 * archive's length before its first byte.
 */
export async function zipArchive(
	index: Buffer,
	noiseBytes: number,
	mtime: Date,
): Promise<{ length: number; stream: Readable }> {
	const zip = new ZipFile();
	const options = { mtime, mode: 0o100644, compress: false };
	zip.addBuffer(index, 'index.html', options);
	zip.addReadStreamLazy('payload.bin', { ...options, size: noiseBytes }, (done) =>
		done(null, Readable.from(noise(noiseBytes))),
	);
	// yazl passes the length to this callback; @types/yazl 3.3.1 declares it without one.
	const length = await new Promise<number>((resolve) =>
		zip.end(undefined, resolve as unknown as () => void),
	);
	return { length, stream: zip.outputStream as Readable };
}

/** One 64 KiB block of deterministic noise, repeated: a payload that does not compress. */
const BLOCK = (() => {
	const block = Buffer.alloc(64 * 1024);
	let x = 0x9e3779b9;
	for (let i = 0; i < block.length; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		block[i] = x & 0xff;
	}
	return block;
})();

function* noise(size: number): Generator<Buffer> {
	for (let sent = 0; sent < size; sent += BLOCK.length) {
		yield size - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, size - sent);
	}
}
