'use strict';
/**
 * Reads a ZIP file with adm-zip (a dev dependency): every entry inflated and its CRC-32 checked
 * against the central directory. Throws an Error saying what is wrong; returns
 * { entries: [{ name, size, method, crcOk }] }.
 */

/** @typedef {{ name: string, size: number, method: number, crcOk: boolean }} ZipEntry */
const AdmZip = require('adm-zip');

/**
 * @param {Buffer} buf
 * @returns {{ entries: ZipEntry[] }}
 */
function inspectZip(buf) {
	if (buf.length < 4 || buf.readUInt32LE(0) !== 0x04034b50) {
		throw new Error(
			`does not start with the ZIP signature PK\\x03\\x04 (starts with ${buf.subarray(0, 4).toString('hex')})`,
		);
	}
	/** @type {ZipEntry[]} */
	const entries = [];
	for (const entry of new AdmZip(buf).getEntries()) {
		// getData() inflates the entry and throws when its CRC-32 does not match.
		const data = entry.getData();
		if (data.length !== entry.header.size)
			throw new Error(
				`${entry.entryName}: ${data.length} bytes, the directory says ${entry.header.size}`,
			);
		entries.push({
			name: entry.entryName,
			size: data.length,
			method: entry.header.method,
			crcOk: true,
		});
	}
	return { entries };
}

module.exports = { inspectZip };
