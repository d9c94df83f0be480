// The Node half of the .npy round-trip test for tools/ortref/npy.js, with the
// same commands as npy_test.c: copy IN OUT | gen DIR | bad FILE.
'use strict';
const path = require('path');
const npy = require(path.join(__dirname, '..', '..', 'tools', 'ortref', 'npy.js'));

const [cmd, a, b] = process.argv.slice(2);
if (cmd === 'copy') {
  const x = npy.read(a);
  npy.write(b, x.dtype, x.shape, x.data);
} else if (cmd === 'gen') {
  // element i = (i % 7) - 3 in the array's type (bool: i % 2), shape [2,3,5]
  for (const [name, [, , Ctor]] of Object.entries(npy.TYPES)) {
    const data = new Ctor(30);
    for (let i = 0; i < 30; i++) {
      const v = (i % 7) - 3;
      if (name === 'bool') data[i] = i % 2;
      else if (name === 'float16') {
        const m = Math.abs(v);
        let h = 0;
        if (m) { const e = Math.floor(Math.log2(m)); h = ((15 + e) << 10) | ((m << (10 - e)) & 0x3ff); }
        data[i] = v < 0 ? h | 0x8000 : h;
      } else if (Ctor === BigInt64Array || Ctor === BigUint64Array) data[i] = BigInt(v); // wraps mod 2^64
      else data[i] = v;
    }
    npy.write(path.join(a, `gen_${name}.npy`), name, [2, 3, 5], data);
  }
} else if (cmd === 'bad') {
  try { npy.read(a); } catch (e) { console.log(`refused as expected: ${e.message}`); process.exit(0); }
  console.error(`${a}: read unexpectedly succeeded`);
  process.exit(1);
} else {
  console.error('usage: npy_js_cli.js copy IN OUT | gen DIR | bad FILE');
  process.exit(2);
}
