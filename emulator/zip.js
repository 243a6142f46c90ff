'use strict';
/**
 * Minimal ZIP writer/reader (deflate via node:zlib, CRC32 table), enough for OOXML parts.
 *   writeZip([{ name, data }]) -> Buffer
 *   readZip(buffer) -> Map<name, Buffer>   (central-directory based; stored or deflated)
 */
const zlib = require('node:zlib');
const { crc32 } = require('./documents.js');

function dosDateTime(d = new Date()) {
	const time = (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2);
	const date =
		((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
	return { time, date };
}

function writeZip(entries) {
	const { time, date } = dosDateTime();
	const locals = [];
	const centrals = [];
	let offset = 0;
	for (const e of entries) {
		const name = Buffer.from(e.name, 'utf8');
		const raw = Buffer.isBuffer(e.data) ? e.data : Buffer.from(String(e.data), 'utf8');
		const crc = crc32(raw);
		const comp = zlib.deflateRawSync(raw);
		const lh = Buffer.alloc(30);
		lh.writeUInt32LE(0x04034b50, 0);
		lh.writeUInt16LE(20, 4); // version needed
		lh.writeUInt16LE(0x0800, 6); // UTF-8 names
		lh.writeUInt16LE(8, 8); // deflate
		lh.writeUInt16LE(time, 10);
		lh.writeUInt16LE(date, 12);
		lh.writeUInt32LE(crc, 14);
		lh.writeUInt32LE(comp.length, 18);
		lh.writeUInt32LE(raw.length, 22);
		lh.writeUInt16LE(name.length, 26);
		lh.writeUInt16LE(0, 28);
		locals.push(lh, name, comp);
		const ch = Buffer.alloc(46);
		ch.writeUInt32LE(0x02014b50, 0);
		ch.writeUInt16LE(20, 4); // made by
		ch.writeUInt16LE(20, 6); // needed
		ch.writeUInt16LE(0x0800, 8);
		ch.writeUInt16LE(8, 10);
		ch.writeUInt16LE(time, 12);
		ch.writeUInt16LE(date, 14);
		ch.writeUInt32LE(crc, 16);
		ch.writeUInt32LE(comp.length, 20);
		ch.writeUInt32LE(raw.length, 24);
		ch.writeUInt16LE(name.length, 28);
		// extra 0, comment 0, disk 0, internal 0, external 0
		ch.writeUInt32LE(offset, 42);
		centrals.push(ch, name);
		offset += lh.length + name.length + comp.length;
	}
	const cd = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(cd.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...locals, cd, end]);
}

function readZip(buf) {
	let eocd = -1;
	for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
		if (buf.readUInt32LE(i) === 0x06054b50) {
			eocd = i;
			break;
		}
	}
	if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
	const count = buf.readUInt16LE(eocd + 10);
	let p = buf.readUInt32LE(eocd + 16);
	const out = new Map();
	for (let k = 0; k < count; k++) {
		if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
		const method = buf.readUInt16LE(p + 10);
		const crc = buf.readUInt32LE(p + 16);
		const csize = buf.readUInt32LE(p + 20);
		const nlen = buf.readUInt16LE(p + 28);
		const xlen = buf.readUInt16LE(p + 30);
		const clen = buf.readUInt16LE(p + 32);
		const lho = buf.readUInt32LE(p + 42);
		const name = buf.toString('utf8', p + 46, p + 46 + nlen);
		const lnlen = buf.readUInt16LE(lho + 26);
		const lxlen = buf.readUInt16LE(lho + 28);
		const start = lho + 30 + lnlen + lxlen;
		const comp = buf.subarray(start, start + csize);
		const data = method === 8 ? zlib.inflateRawSync(comp) : Buffer.from(comp);
		if (crc32(data) !== crc) throw new Error(`crc mismatch for ${name}`);
		out.set(name, data);
		p += 46 + nlen + xlen + clen;
	}
	return out;
}

module.exports = { writeZip, readZip };
