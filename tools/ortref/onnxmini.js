// onnxmini.js: writes tiny ONNX models (protobuf bytes) without any protobuf
// library. ortref.js uses it to build Identity models that measure what the
// Node binding itself costs per call, with the same tensors as a real model.
'use strict';

// ONNX TensorProto.DataType codes of the dtype names used by npy.js.
const ELEM = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7,
  bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13,
};

function varint(v) {
  let n = BigInt(v);
  const out = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}

const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, v) => Buffer.concat([key(field, 0), varint(v)]);
const fBytes = (field, b) => Buffer.concat([key(field, 2), varint(b.length), b]);
const fStr = (field, s) => fBytes(field, Buffer.from(s, 'utf8'));
const fMsg = (field, parts) => fBytes(field, Buffer.concat(parts));

// ValueInfoProto{name, type{tensor_type{elem_type, shape{dim{dim_value}...}}}}
function valueInfo(name, dtype, shape) {
  if (!(dtype in ELEM)) throw new Error(`onnxmini: no ONNX type for ${dtype}`);
  const dims = shape.map((d) => fMsg(1, [fInt(1, d)]));
  const tensor = fMsg(1, [fInt(1, ELEM[dtype]), fMsg(2, dims)]);
  return [fStr(1, name), fMsg(2, [tensor])];
}

// A model whose graph inputs are `inputs` ([{name, dtype, shape}]) and whose
// outputs are Identity copies of `passthrough` inputs ([{name, dtype, shape}],
// also graph inputs, named '<name>' -> output '<name>_out').
function identityModel(inputs, passthrough) {
  const graph = [];
  passthrough.forEach((p, i) => {
    graph.push(fMsg(1, [fStr(1, p.name), fStr(2, `${p.name}_out`), fStr(3, `id${i}`), fStr(4, 'Identity')]));
  });
  graph.push(fStr(2, 'ortref_overhead'));
  for (const v of [...inputs, ...passthrough]) graph.push(fMsg(11, valueInfo(v.name, v.dtype, v.shape)));
  for (const p of passthrough) graph.push(fMsg(12, valueInfo(`${p.name}_out`, p.dtype, p.shape)));
  const model = [
    fInt(1, 8),                                  // ir_version
    fStr(2, 'openacl-ortref'),                   // producer_name
    fMsg(7, graph),                              // graph
    fMsg(8, [fStr(1, ''), fInt(2, 13)]),         // opset_import: ai.onnx 13
  ];
  return new Uint8Array(Buffer.concat(model));
}

module.exports = { ELEM, identityModel };
