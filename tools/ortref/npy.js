// npy.js: read and write NumPy .npy files (C order, little-endian) as typed
// arrays for ortref.js. Mirrors tools/npy/npy.c: the header is a Python dict
// literal of which only descr, fortran_order and shape are understood.
'use strict';
const fs = require('fs');

// dtype name -> [numpy descr, bytes per element, typed array class]
const TYPES = {
  float32: ['<f4', 4, Float32Array],
  float16: ['<f2', 2, Uint16Array],   // raw binary16 bits; ORT takes Uint16Array
  float64: ['<f8', 8, Float64Array],
  int8: ['|i1', 1, Int8Array],
  int16: ['<i2', 2, Int16Array],
  int32: ['<i4', 4, Int32Array],
  int64: ['<i8', 8, BigInt64Array],
  uint8: ['|u1', 1, Uint8Array],
  uint16: ['<u2', 2, Uint16Array],
  uint32: ['<u4', 4, Uint32Array],
  uint64: ['<u8', 8, BigUint64Array],
  bool: ['|b1', 1, Uint8Array],
};

const KIND = { f: 'float', i: 'int', u: 'uint' };

function dtypeFromDescr(descr) {
  const m = /^([<>|=])([fiub])(\d+)$/.exec(descr);
  if (!m) throw new Error(`npy: unsupported descr '${descr}'`);
  const [, order, kind, size] = m;
  const name = kind === 'b' ? (size === '1' ? 'bool' : null) : `${KIND[kind]}${Number(size) * 8}`;
  if (!name || !TYPES[name]) throw new Error(`npy: unsupported descr '${descr}'`);
  return { name, swap: order === '>' && Number(size) > 1 };
}

function dictValue(header, key) {
  const re = new RegExp(`['"]${key}['"]\\s*:\\s*`);
  const m = re.exec(header);
  if (!m) throw new Error(`npy: header has no ${key}`);
  return header.slice(m.index + m[0].length);
}

// Parses a Buffer holding a whole .npy file. Returns {dtype, shape, data}
// where data is a fresh, aligned typed array (never a view of `buf`).
function parse(buf, what = 'buffer') {
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`npy: ${what}: not an .npy file (bad magic)`);
  }
  const major = buf[6];
  let hlen, hoff;
  if (major === 1) { hlen = buf.readUInt16LE(8); hoff = 10; }
  else if (major === 2 || major === 3) { hlen = buf.readUInt32LE(8); hoff = 12; }
  else throw new Error(`npy: ${what}: unsupported format version ${major}`);
  if (hoff + hlen > buf.length) throw new Error(`npy: ${what}: truncated header`);
  const header = buf.toString('latin1', hoff, hoff + hlen);
  const dm = /^['"]([^'"]*)['"]/.exec(dictValue(header, 'descr'));
  if (!dm) throw new Error(`npy: ${what}: descr is not a simple type string`);
  const { name, swap } = dtypeFromDescr(dm[1]);
  if (/^True/.test(dictValue(header, 'fortran_order'))) {
    throw new Error(`npy: ${what}: Fortran-order arrays are not supported`);
  }
  const sm = /^\(([^)]*)\)/.exec(dictValue(header, 'shape'));
  if (!sm) throw new Error(`npy: ${what}: shape is not a tuple`);
  const shape = sm[1].split(',').map((s) => s.trim().replace(/L$/, '')).filter((s) => s.length)
    .map((s) => { const v = Number(s); if (!Number.isInteger(v) || v < 0) throw new Error(`npy: ${what}: bad dim '${s}'`); return v; });
  const [, esize, Ctor] = TYPES[name];
  const count = shape.reduce((a, b) => a * b, 1);
  const nbytes = count * esize;
  const off = hoff + hlen;
  if (buf.length - off < nbytes) {
    throw new Error(`npy: ${what}: data is ${buf.length - off} bytes, shape needs ${nbytes}`);
  }
  const bytes = new Uint8Array(nbytes);
  bytes.set(buf.subarray(off, off + nbytes));
  if (swap) {
    for (let i = 0; i < nbytes; i += esize) bytes.subarray(i, i + esize).reverse();
  }
  return { dtype: name, shape, data: new Ctor(bytes.buffer, 0, count) };
}

function read(path) {
  return parse(fs.readFileSync(path), path);
}

// Serialises a typed array as a version 1.0 .npy file image (Buffer).
function format(dtype, shape, data) {
  const t = TYPES[dtype];
  if (!t) throw new Error(`npy: cannot write dtype ${dtype}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const nbytes = count * t[1];
  if (data.byteLength !== nbytes) {
    throw new Error(`npy: data has ${data.byteLength} bytes, shape [${shape}] of ${dtype} needs ${nbytes}`);
  }
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let dict = `{'descr': '${t[0]}', 'fortran_order': False, 'shape': (${dims}), }`;
  // magic(6)+version(2)+len(2)+dict+'\n' padded with spaces to a multiple of 64
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(dict.length, 8);
  return Buffer.concat([head, Buffer.from(dict, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

function write(path, dtype, shape, data) {
  fs.writeFileSync(path, format(dtype, shape, data));
}

module.exports = { TYPES, parse, read, format, write };
