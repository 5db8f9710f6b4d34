/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// A streamed ZIP archive (method "stored"), in constant memory. Sizes and CRC-32s are known
// before the first byte, so every local header is complete (no data descriptors) and
// Content-Length is exact.
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

export interface ZipEntry {
	name: string;
	size: number;
	crc: number;
	chunks: () => Iterable<Buffer>;
}

/** Without ZIP64 every size and offset must fit in 32 bits. */
export const MAX_ZIP_BYTES = 0xffff_ffff - 16 * 1024 * 1024;

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
const UTF8_FLAG = 0x0800;

function dosDateTime(date: Date): DosStamp {
	const year = Math.min(Math.max(date.getUTCFullYear(), 1980), 2107);
	return {
		time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
		date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
	};
}

type DosStamp = { time: number; date: number };

/** The fields local and central headers share, in the same order: needed version … name length. */
function writeEntryFields(
	b: Buffer,
	at: number,
	entry: ZipEntry,
	nameLength: number,
	stamp: DosStamp,
): void {
	b.writeUInt16LE(10, at); // version needed: 1.0, stored
	b.writeUInt16LE(UTF8_FLAG, at + 2);
	b.writeUInt16LE(0, at + 4); // method: stored
	b.writeUInt16LE(stamp.time, at + 6);
	b.writeUInt16LE(stamp.date, at + 8);
	b.writeUInt32LE(entry.crc, at + 10);
	b.writeUInt32LE(entry.size, at + 14); // compressed size
	b.writeUInt32LE(entry.size, at + 18);
	b.writeUInt16LE(nameLength, at + 22);
}

function localHeader(entry: ZipEntry, name: Buffer, stamp: DosStamp): Buffer {
	const b = Buffer.alloc(LOCAL_HEADER); // extra length 0
	b.writeUInt32LE(0x04034b50, 0);
	writeEntryFields(b, 4, entry, name.length, stamp);
	return Buffer.concat([b, name]);
}

function centralHeader(entry: ZipEntry, name: Buffer, stamp: DosStamp, offset: number): Buffer {
	const b = Buffer.alloc(CENTRAL_HEADER);
	b.writeUInt32LE(0x02014b50, 0);
	b.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
	writeEntryFields(b, 6, entry, name.length, stamp);
	// extra length, comment length, disk number, internal attributes: all 0
	b.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: regular file, rw-r--r--
	b.writeUInt32LE(offset, 42);
	return Buffer.concat([b, name]);
}

function endRecord(count: number, centralSize: number, centralOffset: number): Buffer {
	const b = Buffer.alloc(END_RECORD);
	b.writeUInt32LE(0x06054b50, 0);
	b.writeUInt16LE(count, 8);
	b.writeUInt16LE(count, 10);
	b.writeUInt32LE(centralSize, 12);
	b.writeUInt32LE(centralOffset, 16);
	return b;
}

export function zipArchive(
	entries: readonly ZipEntry[],
	modified: Date,
): { length: number; open: () => Readable } {
	const stamp = dosDateTime(modified);
	const names = entries.map((e) => Buffer.from(e.name, 'utf8'));
	const offsets: number[] = [];
	let offset = 0;
	entries.forEach((entry, i) => {
		offsets.push(offset);
		offset += LOCAL_HEADER + names[i].length + entry.size;
	});
	const central = Buffer.concat(
		entries.map((entry, i) => centralHeader(entry, names[i], stamp, offsets[i])),
	);
	const length = offset + central.length + END_RECORD;
	if (length > 0xffff_ffff) throw new Error('archive too large for a ZIP without ZIP64');
	function* generate(): Generator<Buffer> {
		for (let i = 0; i < entries.length; i++) {
			yield localHeader(entries[i], names[i], stamp);
			yield* entries[i].chunks();
		}
		yield central;
		yield endRecord(entries.length, central.length, offset);
	}
	return { length, open: () => Readable.from(generate()) };
}

/** One 64 KiB block of deterministic noise, repeated: any payload size at no memory cost. */
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

const payloadCrcs = new Map<number, number>();

export function payloadEntry(name: string, size: number): ZipEntry {
	let crc = payloadCrcs.get(size);
	if (crc === undefined) {
		crc = 0;
		for (const chunk of payloadChunks(size)) crc = crc32(chunk, crc);
		payloadCrcs.set(size, crc);
	}
	return { name, size, crc, chunks: () => payloadChunks(size) };
}

function* payloadChunks(size: number): Generator<Buffer> {
	for (let sent = 0; sent < size; sent += BLOCK.length) {
		yield size - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, size - sent);
	}
}

export function bufferEntry(name: string, content: Buffer): ZipEntry {
	return { name, size: content.length, crc: crc32(content), chunks: () => [content] };
}
