'use strict';
/**
 * Reads a ZIP file's structure without unpacking it: the end-of-central-directory record,
 * every central directory entry, and each entry's local header. Stored (method 0) entries get
 * their CRC-32 checked against the bytes; deflated ones are inflated and checked too.
 * Throws an Error saying what is wrong; returns { entries: [{ name, size, method, crcOk }] }.
 */
const zlib = require('node:zlib');

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

let table;
function crc32(buf) {
	if (typeof zlib.crc32 === 'function') return zlib.crc32(buf) >>> 0;
	if (!table) {
		table = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			table[n] = c >>> 0;
		}
	}
	let crc = 0xffffffff;
	for (const byte of buf) crc = table[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

function inspectZip(buf) {
	if (buf.length < 22) throw new Error(`${buf.length} bytes: too short for a ZIP file`);
	if (buf.readUInt32LE(0) !== LOCAL) throw new Error(`does not start with the ZIP signature PK\\x03\\x04 (starts with ${buf.subarray(0, 4).toString('hex')})`);
	// The EOCD record is the last 22 bytes plus a comment of at most 65535 bytes.
	let eocd = -1;
	for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
		if (buf.readUInt32LE(i) === EOCD) {
			eocd = i;
			break;
		}
	}
	if (eocd < 0) throw new Error('no end-of-central-directory record');
	const count = buf.readUInt16LE(eocd + 10);
	const cdSize = buf.readUInt32LE(eocd + 12);
	const cdOffset = buf.readUInt32LE(eocd + 16);
	if (cdOffset + cdSize !== eocd) throw new Error(`central directory (offset ${cdOffset}, ${cdSize} bytes) does not end at the EOCD record (${eocd})`);

	const entries = [];
	let p = cdOffset;
	for (let i = 0; i < count; i++) {
		if (buf.readUInt32LE(p) !== CENTRAL) throw new Error(`central directory entry ${i} has a bad signature`);
		const method = buf.readUInt16LE(p + 10);
		const crc = buf.readUInt32LE(p + 16);
		const compressed = buf.readUInt32LE(p + 20);
		const size = buf.readUInt32LE(p + 24);
		const nameLen = buf.readUInt16LE(p + 28);
		const extraLen = buf.readUInt16LE(p + 30);
		const commentLen = buf.readUInt16LE(p + 32);
		const localOffset = buf.readUInt32LE(p + 42);
		const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
		p += 46 + nameLen + extraLen + commentLen;

		if (buf.readUInt32LE(localOffset) !== LOCAL) throw new Error(`${name}: local header missing at offset ${localOffset}`);
		const localName = buf.toString('utf8', localOffset + 30, localOffset + 30 + buf.readUInt16LE(localOffset + 26));
		if (localName !== name) throw new Error(`${name}: local header names "${localName}"`);
		const start = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
		const raw = buf.subarray(start, start + compressed);
		if (raw.length !== compressed) throw new Error(`${name}: truncated (${raw.length} of ${compressed} bytes)`);
		let data;
		if (method === 0) data = raw;
		else if (method === 8) data = zlib.inflateRawSync(raw);
		else throw new Error(`${name}: unsupported compression method ${method}`);
		if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, the directory says ${size}`);
		const crcOk = crc32(data) === crc;
		if (!crcOk) throw new Error(`${name}: CRC-32 mismatch`);
		entries.push({ name, size, method, crcOk });
	}
	if (p !== eocd) throw new Error('central directory size does not match its entries');
	return { entries };
}

module.exports = { inspectZip, crc32 };
