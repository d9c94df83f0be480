#!/usr/bin/python3
"""The com.microsoft quantised ops of src/kernels/ref/nn_qops.c (QLinearMul,
QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearWhere,
QLinearReduceMean) against ONNX Runtime, an implementation nobody here wrote.

Each case is a small model built here with onnx.helper (single ops and short
chains; uint8 and int8; broadcasting; scalar and 1-element parameters, given
as initializers or as graph inputs; odd shapes). openacl runs it through the
public API (tests/models/mdl_run), ONNX Runtime through tools/ortref/ortref.js;
the integer outputs must be equal. QLinearReduceMean has no CPU kernel in
ONNX Runtime 1.30, so its reference is the operator's definition written in
numpy (dequantise, mean, quantise). Malformed models must fail to load with a
message naming the problem, and seeded random hostile variants must run or be
refused with a message naming the node, never crash.

usage: qops_ort.py --mdl-run PATH [--keep DIR] [--only SUBSTR] [--hostile N]
Exits 77 (skip) when node or onnxruntime-node is not available."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
ORTREF = os.path.join(ROOT, 'tools', 'ortref', 'ortref.js')
RNG = np.random.default_rng(20261205)
NP2ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8,
           np.dtype(np.int8): TensorProto.INT8, np.dtype(np.bool_): TensorProto.BOOL,
           np.dtype(np.int16): TensorProto.INT16, np.dtype(np.uint16): TensorProto.UINT16,
           np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.int64): TensorProto.INT64,
           np.dtype(np.int32): TensorProto.INT32}
MS = 'com.microsoft'

CASES = []      # dict(name, model, feeds, expected=None)
BAD = []        # dict(name, model, feeds, message)


def qdata(dt, *shape):
    info = np.iinfo(dt)
    return RNG.integers(info.min, info.max + 1, size=shape, dtype=np.int64).astype(dt)


def scal(v, dt=np.float32, vec=False):
    """A per-tensor parameter: a scalar, or a 1-element vector when vec."""
    return np.array([v] if vec else v, dtype=dt)


class Model:
    """One graph: graph inputs (fed), initializers (constants), nodes."""

    def __init__(self, name, opset=13):
        self.name, self.opset = name, opset
        self.inputs, self.inits, self.nodes, self.feeds, self.outs = [], [], [], [], []

    def feed(self, nm, arr, dyn=False):
        """A graph input; dyn: every dim symbolic (shapes known only at run time)."""
        dims = ['%s_d%d' % (nm, i) for i in range(arr.ndim)] if dyn else list(arr.shape)
        self.inputs.append(helper.make_tensor_value_info(nm, NP2ONNX[arr.dtype], dims))
        self.feeds.append(arr)
        return nm

    def const(self, nm, arr):
        self.inits.append(numpy_helper.from_array(arr, nm))
        return nm

    def node(self, op, ins, out, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out], domain=MS, name=out, **attrs))
        return out

    def output(self, nm, dt):
        self.outs.append(helper.make_tensor_value_info(nm, NP2ONNX[np.dtype(dt)], None))

    def proto(self):
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid('', self.opset),
                                                helper.make_opsetid(MS, 1)],
                              producer_name='qops_ort')
        m.ir_version = 8
        return m


def params(m, tag, dt, scale, zp, vec=False, fed=False, omit_zp=False):
    """Scale and zero point inputs: constants, or graph inputs when fed."""
    put = m.feed if fed else m.const
    s = put(tag + '_s', scal(scale, vec=vec))
    z = '' if omit_zp else put(tag + '_z', scal(zp, dt, vec))
    return [s, z]


# ---- cases ---------------------------------------------------------------------

def unary_cases():
    for op, attrs in (('QLinearSigmoid', {}), ('QLinearLeakyRelu', {}),
                      ('QLinearLeakyRelu', {'alpha': 0.2})):
        for dt, xz, yz in ((np.uint8, 128, 0), (np.int8, -3, -128)):
            tag = '%s_%s%s' % (op[7:].lower(), np.dtype(dt).name, '_a02' if attrs else '')
            # every byte value, per-tensor scalar parameters
            m = Model(tag + '_all')
            x = m.feed('x', np.arange(256).astype(np.uint8).view(dt).reshape(16, 16))
            ys = 1.0 / 256 if op == 'QLinearSigmoid' else 0.031
            m.node(op, [x] + params(m, 'x', dt, 0.0473, xz) + params(m, 'y', dt, ys, yz), 'y', **attrs)
            m.output('y', dt)
            CASES.append(dict(name=tag + '_all', model=m))
            # odd shape, 1-element vectors, parameters fed at run time
            m = Model(tag + '_fed')
            x = m.feed('x', qdata(dt, 3, 5, 7))
            m.node(op, [x] + params(m, 'x', dt, 0.11, xz, vec=True, fed=True)
                   + params(m, 'y', dt, ys * 0.7, yz, vec=True, fed=True), 'y', **attrs)
            m.output('y', dt)
            CASES.append(dict(name=tag + '_fed', model=m))
    # zero points omitted (0), sigmoid then leaky relu
    m = Model('chain_nozp_u8')
    x = m.feed('x', qdata(np.uint8, 2, 33))
    t = m.node('QLinearSigmoid', [x, m.const('s0', scal(0.02)), '', m.const('s1', scal(1 / 255.)), ''], 't')
    m.node('QLinearLeakyRelu', [t, 's1', '', m.const('s2', scal(0.005)), m.const('z2', scal(7, np.uint8))],
           'y', alpha=0.3)
    m.output('y', np.uint8)
    CASES.append(dict(name='chain_nozp_u8', model=m))


def mul_cases():
    shapes = [((4, 5), (4, 5)), ((3, 1, 5), (4, 5)), ((2, 3, 4), ()), ((), (2, 3, 4)),
              ((1, 7), (6, 1)), ((2, 1, 3, 1), (1, 4, 1, 5)), ((37,), (37,))]
    for dt, zs in ((np.uint8, (131, 120, 128)), (np.int8, (3, -5, -128))):
        nm = np.dtype(dt).name
        for i, (sa, sb) in enumerate(shapes):
            m = Model('mul_%s_%d' % (nm, i))
            a, b = m.feed('a', qdata(dt, *sa)), m.feed('b', qdata(dt, *sb))
            # (ONNX Runtime's QLinearMul schema takes scalars only, no 1-element vectors)
            ins = [a] + params(m, 'a', dt, 0.019, zs[0]) + [b] + \
                params(m, 'b', dt, 0.027, zs[1]) + params(m, 'c', dt, 0.043, zs[2])
            m.node('QLinearMul', ins, 'y')
            m.output('y', dt)
            CASES.append(dict(name=m.name, model=m))
        # saturation both ways, parameters fed
        m = Model('mul_%s_sat_fed' % nm)
        a, b = m.feed('a', qdata(dt, 64)), m.feed('b', qdata(dt, 64))
        m.node('QLinearMul', [a] + params(m, 'a', dt, 0.5, zs[0], fed=True) + [b]
               + params(m, 'b', dt, 0.25, zs[1], fed=True)
               + params(m, 'c', dt, 0.3, zs[2], fed=True), 'y')
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))
        # zero points omitted (0): ONNX Runtime's type inference refuses this
        # (it takes the output type from c's zero point), so the reference is
        # MLAS's formula in numpy: float32 ratio (sa * sb) / sc
        m = Model('mul_%s_nozp' % nm)
        av, bv = qdata(dt, 3, 1, 5), qdata(dt, 4, 5)
        a, b = m.feed('a', av), m.feed('b', bv)
        m.node('QLinearMul', [a, m.const('as', scal(0.5)), '', b, m.const('bs', scal(0.25)), '',
                              m.const('cs', scal(0.3)), ''], 'y')
        m.output('y', dt)
        ratio = np.float32(np.float32(0.5) * np.float32(0.25)) / np.float32(0.3)
        prod = (av.astype(np.int32) * bv.astype(np.int32)).astype(np.float32)
        info = np.iinfo(dt)
        want = np.clip(np.rint(prod * ratio), info.min, info.max).astype(dt)
        CASES.append(dict(name=m.name, model=m, expected=[want]))


def big_cases():
    """Tensors big enough to be cut in pieces and shared among threads: a
    squeeze-excite style channel product, a long flat row, swish on a map."""
    for dt, z in ((np.uint8, 128), (np.int8, -2)):
        nm = np.dtype(dt).name
        m = Model('big_mul_se_%s' % nm)
        a, b = m.feed('a', qdata(dt, 1, 64, 56, 56)), m.feed('b', qdata(dt, 1, 64, 1, 1))
        m.node('QLinearMul', [a] + params(m, 'a', dt, 0.02, z) + [b] + params(m, 'b', dt, 0.004, z)
               + params(m, 'c', dt, 0.01, z), 'y')
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))
        m = Model('big_swish_%s' % nm)
        x = m.feed('x', qdata(dt, 1, 300001))
        xs, xz = m.const('xs', scal(0.05)), m.const('xz', scal(z, dt))
        m.node('QLinearSigmoid', [x, xs, xz, m.const('ss', scal(1 / 256.)), m.const('sz', scal(z, dt))], 'sg')
        m.node('QLinearMul', [x, xs, xz, 'sg', 'ss', 'sz', m.const('ys', scal(0.04)), 'xz'], 'y')
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))
        m = Model('big_softmax_%s' % nm)
        x = m.feed('x', qdata(dt, 4, 128, 128))
        m.node('QLinearSoftmax', [x] + params(m, 'x', dt, 0.1, z) + params(m, 'y', dt, 1 / 256., -128 if dt == np.int8 else 0),
               'y', opset=13)
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))


def empty_cases():
    """Zero-sized tensors (an empty batch or axis) give empty outputs."""
    u8 = np.uint8
    m = Model('empty_mul')
    m.node('QLinearMul', [m.feed('a', qdata(u8, 0, 3))] + params(m, 'a', u8, 0.1, 1) + [m.feed('b', qdata(u8, 3))]
           + params(m, 'b', u8, 0.1, 1) + params(m, 'c', u8, 0.1, 1), 'y')
    m.output('y', u8)
    CASES.append(dict(name=m.name, model=m))
    m = Model('empty_sigmoid')
    m.node('QLinearSigmoid', [m.feed('x', qdata(u8, 2, 0))] + params(m, 'x', u8, 0.1, 1) + params(m, 'y', u8, 0.1, 1), 'y')
    m.output('y', u8)
    CASES.append(dict(name=m.name, model=m))
    m = Model('empty_where')
    m.node('QLinearWhere', [m.feed('c', np.zeros((0, 2), np.bool_)), m.feed('x', qdata(u8, 2))] + params(m, 'x', u8, 0.1, 1)
           + [m.feed('y', qdata(u8, 1))] + params(m, 'y', u8, 0.1, 1) + params(m, 'z', u8, 0.2, 1), 'out')
    m.output('out', u8)
    CASES.append(dict(name=m.name, model=m))


def softmax_cases():
    # (shape, opset attribute, axis or None for the default)
    shapes = [((2, 10), 13, None), ((3, 4, 17), 13, 1), ((2, 3, 5), 12, 1), ((4, 6), 13, 0),
              ((1, 2, 3, 40), 12, None), ((5, 128), 13, -1)]
    for dt, xz, yz, ys in ((np.uint8, 200, 0, 1 / 256.), (np.int8, 20, -128, 1 / 255.)):
        nm = np.dtype(dt).name
        for i, (shape, opset, axis) in enumerate(shapes):
            for xs in (0.08, 0.4):
                m = Model('softmax_%s_%d_%g' % (nm, i, xs))
                attrs = {'opset': opset}
                if axis is not None:
                    attrs['axis'] = axis
                x = m.feed('x', qdata(dt, *shape))
                m.node('QLinearSoftmax', [x] + params(m, 'x', dt, xs, xz, vec=i == 1)
                       + params(m, 'y', dt, ys, yz), 'y', **attrs)
                m.output('y', dt)
                CASES.append(dict(name=m.name, model=m))
        # rows of one value (probability exactly 1) with the 1/256 output scale
        # ONNX Runtime's quantiser gives softmax: the top of the range. ONNX
        # Runtime 1.30 overflows here (its table's headroom, e^5, is less than
        # floor(1 / y_scale) = 256: e * 256 is +inf in float32, whose
        # conversion gives 0 for uint8), so the reference is the definition
        m = Model('softmax_%s_saturate' % nm)
        x = m.feed('x', np.array([[100], [10], [-3]], dt) if dt == np.int8 else np.array([[250], [0], [7]], dt))
        m.node('QLinearSoftmax', [x] + params(m, 'x', dt, 0.1, xz) + params(m, 'y', dt, 1 / 256., yz),
               'y', opset=13)
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m, expected=[np.full((3, 1), np.iinfo(dt).max, dt)]))
        # a dominant value: ONNX Runtime's own result (no overflow from 2 values on)
        m = Model('softmax_%s_dominant' % nm)
        x = m.feed('x', np.array([[120, -100, -90, -120], [10, 12, 9, 11]], dt) if dt == np.int8
                   else np.array([[250, 0, 10, 5], [10, 12, 9, 11]], dt))
        m.node('QLinearSoftmax', [x] + params(m, 'x', dt, 0.1, 0) + params(m, 'y', dt, 1 / 256., yz),
               'y', opset=13)
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))


def resize_cases():
    """Resize on quantised data, which ONNX Runtime's QOperator quantiser
    leaves in the integer domain between QLinear ops: linear interpolation of
    integers truncates toward zero there (as in ONNX's reference
    implementation). (ONNX Runtime has no integer cubic mode; align_corners
    with a fractional in*scale is a known difference of the float path too.)"""
    for dt in (np.uint8, np.int8, np.int32):
        nm = np.dtype(dt).name
        data = (lambda *s: qdata(dt, *s)) if dt != np.int32 else \
            (lambda *s: RNG.integers(-1000, 1000, size=s).astype(dt))
        for tag, attrs, scales, x in (
                ('lin_half', {}, [1, 1, 2, 2], data(1, 3, 5, 7)),
                ('lin_align', {'coordinate_transformation_mode': 'align_corners'}, [1, 1, 2, 3], data(2, 2, 4, 4)),
                ('lin_asym', {'coordinate_transformation_mode': 'asymmetric'}, [1, 1, 1.5, 2.5], data(1, 2, 4, 6)),
                ('lin_down', {}, [1, 1, 0.6, 0.5], data(1, 2, 10, 9))):
            m = Model('resize_%s_%s' % (tag, nm))
            std_node(m, 'Resize', [m.feed('x', x), '', m.const('sc', np.array(scales, np.float32))], 'y',
                     mode='linear', **attrs)
            m.output('y', dt)
            # Within 1 on at most 10 % of the values: ONNX Runtime interpolates
            # in float32 in its own order, openacl in double; where the exact
            # result is an integer, float32 may land just below it (116.99998)
            # and truncate one lower. Rounding instead of truncating would
            # differ on about half of the values and fail.
            CASES.append(dict(name=m.name, model=m, tol=1, tol_frac=0.1))


def quant_np(v, scale, zp, dt):
    """Saturate(RoundToEven(v / scale) + zp) in float32, as ONNX Runtime."""
    info = np.iinfo(dt)
    r = np.rint(v.astype(np.float32) / np.float32(scale)) + np.float32(zp)
    return np.clip(r, info.min, info.max).astype(dt)


def requant_np(x, xs, xz, zs, zz):
    return quant_np(np.float32(xs) * (x.astype(np.int32) - int(xz)).astype(np.float32), zs, zz, x.dtype)


def where_cases():
    shapes = [((3, 4), (3, 4), (3, 4)), ((2, 1, 4), (3, 4), (1,)), ((5,), (2, 5), ()),
              ((2, 3, 1), (1,), (2, 3, 7))]
    for dt, z in ((np.uint8, (100, 128, 90)), (np.int8, (-10, 0, 5))):
        nm = np.dtype(dt).name
        for i, (sc, sx, sy) in enumerate(shapes):
            same = i == 0       # x and z share parameters: ONNX Runtime's copy path
            m = Model('where_%s_%d' % (nm, i))
            c = m.feed('c', RNG.integers(0, 2, size=sc).astype(np.bool_))
            x, y = m.feed('x', qdata(dt, *sx)), m.feed('y', qdata(dt, *sy))
            xp = params(m, 'x', dt, 0.05 if same else 0.031, z[2] if same else z[0])
            m.node('QLinearWhere', [c, x] + xp + [y] + params(m, 'y', dt, 0.077, z[1])
                   + params(m, 'z', dt, 0.05, z[2]), 'out')
            m.output('out', dt)
            CASES.append(dict(name=m.name, model=m))
        # y's parameters fed at run time: ONNX Runtime 1.30 crashes (SIGSEGV) on
        # this, so the reference is the op's definition in numpy
        m = Model('where_%s_fed' % nm)
        cv, xv, yv = RNG.integers(0, 2, size=(2, 3, 1)).astype(np.bool_), qdata(dt, 1), qdata(dt, 2, 3, 7)
        c, x, y = m.feed('c', cv), m.feed('x', xv), m.feed('y', yv)
        m.node('QLinearWhere', [c, x] + params(m, 'x', dt, 0.031, z[0]) + [y]
               + params(m, 'y', dt, 0.077, z[1], fed=True) + params(m, 'z', dt, 0.05, z[2]), 'out')
        m.output('out', dt)
        want = np.where(cv, requant_np(xv, 0.031, z[0], 0.05, z[2]), requant_np(yv, 0.077, z[1], 0.05, z[2]))
        CASES.append(dict(name=m.name, model=m, expected=[want]))


def chain_cases():
    """What ONNX Runtime's QOperator quantiser makes of x * sigmoid(x) (swish)
    and of an attention-score tail, between QuantizeLinear and
    DequantizeLinear (float in and out)."""
    for dt, zp in ((np.uint8, 128), (np.int8, 0)):
        nm = np.dtype(dt).name
        m = Model('chain_swish_softmax_%s' % nm)
        x = m.feed('x', RNG.standard_normal((2, 4, 9, 9)).astype(np.float32) * 3)
        xs, xz = m.const('xs', scal(0.047)), m.const('xz', scal(zp, dt))
        m.nodes.append(helper.make_node('QuantizeLinear', [x, xs, xz], ['xq']))
        ss, sz = m.const('ss', scal(1 / 256.)), m.const('sz', scal(0 if dt == np.uint8 else -128, dt))
        m.node('QLinearSigmoid', ['xq', xs, xz, ss, sz], 'sg')
        ws, wz = m.const('ws', scal(0.041)), m.const('wz', scal(zp - 90 if dt == np.uint8 else -90, dt))
        m.node('QLinearMul', ['xq', xs, xz, 'sg', ss, sz, ws, wz], 'sw')
        ls, lz = m.const('ls', scal(0.03)), m.const('lz', scal(zp, dt))
        m.node('QLinearLeakyRelu', ['sw', ws, wz, ls, lz], 'lr', alpha=0.1)
        ps, pz = m.const('ps', scal(1 / 255.)), m.const('pz', scal(0 if dt == np.uint8 else -128, dt))
        m.node('QLinearSoftmax', ['lr', ls, lz, ps, pz], 'sm', opset=13, axis=-1)
        m.nodes.append(helper.make_node('DequantizeLinear', ['sm', ps, pz], ['y']))
        m.output('y', np.float32)
        CASES.append(dict(name=m.name, model=m))


def dynamic_cases():
    """Symbolic input dims: shapes inferred per run by the dynamic executor."""
    for dt, z in ((np.uint8, 128), (np.int8, -2)):
        nm = np.dtype(dt).name
        m = Model('dyn_mul_softmax_%s' % nm)
        a, b = m.feed('a', qdata(dt, 3, 1, 20), dyn=True), m.feed('b', qdata(dt, 5, 20), dyn=True)
        m.node('QLinearMul', [a] + params(m, 'a', dt, 0.03, z) + [b] + params(m, 'b', dt, 0.02, z)
               + params(m, 'c', dt, 0.01, z), 'p')
        m.node('QLinearSoftmax', ['p', 'c_s', 'c_z'] + params(m, 'y', dt, 1 / 256., 0 if dt == np.uint8 else -128),
               'y', opset=13, axis=1)
        m.output('y', dt)
        CASES.append(dict(name=m.name, model=m))
        m = Model('dyn_where_sigmoid_%s' % nm)
        c = m.feed('c', RNG.integers(0, 2, size=(2, 1, 6)).astype(np.bool_), dyn=True)
        x, y = m.feed('x', qdata(dt, 4, 6), dyn=True), m.feed('y', qdata(dt, 6), dyn=True)
        m.node('QLinearSigmoid', [x] + params(m, 'x', dt, 0.05, z) + params(m, 's', dt, 1 / 256., z), 'sx')
        m.node('QLinearWhere', [c, 'sx', 's_s', 's_z', y] + params(m, 'y', dt, 0.07, z)
               + params(m, 'z', dt, 0.02, z), 'out')
        m.output('out', dt)
        CASES.append(dict(name=m.name, model=m))
    m = Model('dyn_qdq21_block', opset=21)
    x = m.feed('x', (RNG.standard_normal((3, 10)) * 2).astype(np.float32), dyn=True)
    s, zz = m.const('s', (RNG.random((3, 3)) * 0.02 + 0.005).astype(np.float32)), m.const('z', qdata(np.int8, 3, 3))
    std_node(m, 'QuantizeLinear', [x, s, zz], 'q', axis=1, block_size=4)
    std_node(m, 'DequantizeLinear', ['q', s, zz], 'y', axis=1, block_size=4)
    m.output('y', np.float32)
    CASES.append(dict(name=m.name, model=m))


def rmean_ref(x, xs, xz, ys, yz, axes, keepdims):
    acc = (x.astype(np.int64) - int(xz)).sum(axis=tuple(axes), keepdims=bool(keepdims))
    count = x.size // max(acc.size, 1)
    ratio = np.float64(np.float32(xs)) / np.float64(np.float32(ys))
    v = np.rint(acc / np.float64(count) * ratio) + int(yz)
    info = np.iinfo(x.dtype)
    return np.clip(v, info.min, info.max).astype(x.dtype)


def rmean_cases():
    for dt, xz, yz in ((np.uint8, 128, 120), (np.int8, -7, 3)):
        nm = np.dtype(dt).name
        for i, (shape, axes, keep) in enumerate((((2, 3), [1], 1), ((2, 5, 7), [0, 2], 0),
                                                 ((1, 16, 9, 9), [2, 3], 1), ((4, 6), [-1], 0))):
            m = Model('rmean_%s_%d' % (nm, i))
            xv = qdata(dt, *shape)
            x = m.feed('x', xv)
            m.node('QLinearReduceMean', [x] + params(m, 'x', dt, 0.09, xz) + params(m, 'y', dt, 0.05, yz),
                   'y', axes=axes, keepdims=keep)
            m.output('y', dt)
            CASES.append(dict(name=m.name, model=m,
                              expected=[rmean_ref(xv, 0.09, xz, 0.05, yz, axes, keep)]))


def std_node(m, op, ins, out, **attrs):
    m.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
    return out


def qdq_cases():
    """QuantizeLinear / DequantizeLinear beyond opset 13: opset 21's 16-bit
    types, output_dtype and blocked quantisation, float16 scales (output in
    the scale's type from opset 19), and the com.microsoft forms ONNX
    Runtime's tools write for 16-bit types before opset 21."""
    f32 = lambda *s: (RNG.standard_normal(s) * 2).astype(np.float32)
    # opset 21: output_dtype without a zero point, then back
    for od, dt in ((TensorProto.INT8, np.int8), (TensorProto.UINT16, np.uint16),
                   (TensorProto.INT16, np.int16)):
        m = Model('q21_output_dtype_%s' % np.dtype(dt).name, opset=21)
        x = m.feed('x', f32(3, 11))
        s = m.const('s', scal(0.013 if dt == np.int8 else 0.0001))
        std_node(m, 'QuantizeLinear', [x, s], 'q', output_dtype=od)
        std_node(m, 'DequantizeLinear', ['q', s], 'y')
        m.output('q', dt)
        m.output('y', np.float32)
        CASES.append(dict(name=m.name, model=m))
    # opset 21 blocked, along either axis, with a ragged last block
    for dt, axis, shape, block in ((np.int8, 1, (4, 10), 4), (np.uint8, 0, (7, 5), 2),
                                   (np.int16, 1, (2, 9, 3), 3), (np.uint16, 2, (2, 3, 8), 8)):
        nb = list(shape)
        nb[axis] = (shape[axis] + block - 1) // block
        m = Model('qdq21_block_%s_a%d' % (np.dtype(dt).name, axis), opset=21)
        x = m.feed('x', f32(*shape))
        s = m.const('s', (RNG.random(nb) * 0.02 + 0.005).astype(np.float32) *
                    (0.01 if np.dtype(dt).itemsize == 2 else 1))
        z = m.const('z', qdata(dt, *nb) // 8)
        std_node(m, 'QuantizeLinear', [x, s, z], 'q', axis=axis, block_size=block)
        std_node(m, 'DequantizeLinear', ['q', s, z], 'y', axis=axis, block_size=block)
        m.output('q', dt)
        m.output('y', np.float32)
        CASES.append(dict(name=m.name, model=m))
    # opset 13 per axis, uint8, a 4-D activation along its channels (openacl-quant
    # --per-channel-act): the reference's per-slice loops, with and without a zero point
    for zp in (True, False):
        m = Model('qdq13_axis1_u8%s' % ('' if zp else '_nozp'), opset=13)
        x = m.feed('x', f32(2, 5, 3, 7))
        s = m.const('s', np.array([0.011, 0.02, 0.005, 0.031, 0.017], np.float32))
        ins = [x, s] + ([m.const('z', np.array([0, 128, 3, 255, 77], np.uint8))] if zp else [])
        std_node(m, 'QuantizeLinear', ins, 'q', axis=1)
        std_node(m, 'DequantizeLinear', ['q'] + ins[1:], 'y', axis=1)
        m.output('q', np.uint8)
        m.output('y', np.float32)
        CASES.append(dict(name=m.name, model=m))
    # opset 21 per axis, 16-bit, negative axis
    m = Model('qdq21_axis_int16', opset=21)
    x = m.feed('x', f32(2, 3, 5))
    s, z = m.const('s', np.array([1e-4, 3e-4, 7e-5, 2e-4, 5e-5], np.float32)), m.const('z', qdata(np.int16, 5))
    std_node(m, 'QuantizeLinear', [x, s, z], 'q', axis=-1)
    std_node(m, 'DequantizeLinear', ['q', s, z], 'y', axis=-1)
    m.output('q', np.int16)
    m.output('y', np.float32)
    CASES.append(dict(name=m.name, model=m))
    # float16 scale: float16 in, float16 out (opset 19+)
    m = Model('qdq21_f16', opset=21)
    x = m.feed('x', f32(4, 6).astype(np.float16))
    s, z = m.const('s', np.array(0.021, np.float16)), m.const('z', scal(9, np.uint8))
    std_node(m, 'QuantizeLinear', [x, s, z], 'q')
    std_node(m, 'DequantizeLinear', ['q', s, z], 'y')
    m.output('q', np.uint8)
    m.output('y', np.float16)
    CASES.append(dict(name=m.name, model=m))
    # com.microsoft forms: 16-bit per tensor, 8-bit per axis, float16 scale
    for dt, zp, sc in ((np.uint16, 30000, 3e-4), (np.int16, -50, 2e-4), (np.uint8, 128, 0.03)):
        m = Model('ms_qdq_%s' % np.dtype(dt).name)
        x = m.feed('x', f32(3, 7))
        s, z = m.const('s', scal(sc)), m.const('z', scal(zp, dt))
        m.node('QuantizeLinear', [x, s, z], 'q')
        m.node('DequantizeLinear', ['q', s, z], 'y')
        m.output('q', dt)
        m.output('y', np.float32)
        CASES.append(dict(name=m.name, model=m))
    m = Model('ms_qdq_axis_int8')
    x = m.feed('x', f32(2, 3, 4))
    s, z = m.const('s', np.array([0.01, 0.02, 0.03], np.float32)), m.const('z', np.array([1, -2, 3], np.int8))
    m.node('QuantizeLinear', [x, s, z], 'q', axis=1)
    m.node('DequantizeLinear', ['q', s, z], 'y', axis=1)
    m.output('q', np.int8)
    m.output('y', np.float32)
    CASES.append(dict(name=m.name, model=m))
    m = Model('ms_dq_f16')
    x = m.feed('x', qdata(np.uint8, 5, 3))
    m.node('DequantizeLinear', [x, m.const('s', np.array(0.07, np.float16)), m.const('z', scal(100, np.uint8))], 'y')
    m.output('y', np.float16)
    CASES.append(dict(name=m.name, model=m))


def int4_scalar(name):
    """An int4 (ONNX type 22, opset 21) scalar zero point, built by hand: the
    onnx package here predates the type."""
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, 22, b'\x00'
    return t


def bad_cases():
    def one(name, message, build):
        m = Model(name)
        build(m)
        BAD.append(dict(name=name, model=m, message=message))

    u8 = np.uint8
    one('bad_zp_type', 'must have the same type', lambda m: (
        m.node('QLinearMul', [m.feed('a', qdata(u8, 4)), m.const('as', scal(0.1)),
                              m.const('az', scal(1, np.int8)), m.feed('b', qdata(u8, 4)),
                              m.const('bs', scal(0.1)), m.const('bz', scal(1, u8)),
                              m.const('cs', scal(0.1)), m.const('cz', scal(1, u8))], 'y'),
        m.output('y', u8)))
    one('bad_scale_shape', 'must be a scalar or a 1-element vector', lambda m: (
        m.node('QLinearSigmoid', [m.feed('x', qdata(u8, 3, 4)),
                                  m.const('xs', np.full(3, 0.1, np.float32)), '',
                                  m.const('ys', scal(0.1)), ''], 'y'),
        m.output('y', u8)))
    one('bad_mul_shapes', 'broadcast', lambda m: (
        m.node('QLinearMul', [m.feed('a', qdata(u8, 3, 4)), m.const('as', scal(0.1)), '',
                              m.feed('b', qdata(u8, 5)), 'as', '', 'as', ''], 'y'),
        m.output('y', u8)))
    one('bad_softmax_opset', "'opset' attribute", lambda m: (
        m.node('QLinearSoftmax', [m.feed('x', qdata(u8, 2, 4)), m.const('xs', scal(0.1)), '',
                                  m.const('ys', scal(1 / 256.)), ''], 'y'),
        m.output('y', u8)))
    one('bad_float_data', 'input 0 has type', lambda m: (
        m.node('QLinearLeakyRelu', [m.feed('x', np.zeros((2, 2), np.float32)),
                                    m.const('xs', scal(0.1)), '', m.const('ys', scal(0.1)), ''], 'y'),
        m.output('y', np.float32)))
    one('bad_where_inputs', 'needs 9', lambda m: (
        m.node('QLinearWhere', [m.feed('c', np.ones(3, np.bool_)), m.feed('x', qdata(u8, 3)),
                                m.const('s', scal(0.1)), m.const('z', scal(0, u8)), 'x', 's', 'z', 's'],
               'y'),
        m.output('y', u8)))
    one('bad_dq_zp_count', "input 2 has shape [2]", lambda m: (
        std_node(m, 'DequantizeLinear', [m.feed('x', qdata(u8, 2, 3)),
                                         m.const('s', np.full(3, 0.1, np.float32)),
                                         m.const('z', np.zeros(2, u8))], 'y', axis=1),
        m.output('y', np.float32)))
    one('bad_dq_zp_type', 'must have the same type', lambda m: (
        std_node(m, 'DequantizeLinear', [m.feed('x', qdata(u8, 2, 3)), m.const('s', scal(0.1)),
                                         m.const('z', scal(0, np.int8))], 'y'),
        m.output('y', np.float32)))
    one('bad_q_block_shape', 'blocked quantisation', lambda m: (
        m.__setattr__('opset', 21),
        std_node(m, 'QuantizeLinear', [m.feed('x', np.zeros((4, 10), np.float32)),
                                       m.const('s', np.full((4, 2), 0.1, np.float32))], 'y',
                 axis=1, block_size=4),
        m.output('y', u8)))
    one('bad_q_output_dtype', 'output_dtype is int8 but the zero point is uint8', lambda m: (
        m.__setattr__('opset', 21),
        std_node(m, 'QuantizeLinear', [m.feed('x', np.zeros(4, np.float32)), m.const('s', scal(0.1)),
                                       m.const('z', scal(0, u8))], 'y', output_dtype=TensorProto.INT8),
        m.output('y', u8)))
    one('bad_q_int4', 'element type unknown-dtype (22)', lambda m: (
        m.__setattr__('opset', 21),
        m.inits.append(int4_scalar('z')),
        std_node(m, 'QuantizeLinear', [m.feed('x', np.zeros(4, np.float32)), m.const('s', scal(0.1)),
                                       'z'], 'y'),
        m.output('y', u8)))
    one('bad_rmean_axis', 'out of range', lambda m: (
        m.node('QLinearReduceMean', [m.feed('x', qdata(u8, 2, 3)), m.const('xs', scal(0.1)), '',
                                     m.const('ys', scal(0.1)), ''], 'y', axes=[2], keepdims=1),
        m.output('y', u8)))


HOSTILE = []     # dict(name, model): must load or be refused, never crash


def hostile_cases(count):
    """Random malformed variants of the ops (seeded): parameter shapes and
    types, ranks and sizes (0 and 1 included), attribute values, omitted
    inputs. Each must run or be refused with a message, never crash; under
    the sanitizer build, without a report."""
    rng = np.random.default_rng(7)
    ops = {'QLinearMul': 8, 'QLinearSigmoid': 5, 'QLinearLeakyRelu': 5, 'QLinearSoftmax': 5,
           'QLinearWhere': 9, 'QLinearReduceMean': 5}
    dts = [np.uint8, np.int8, np.uint8, np.int8, np.float32, np.int16]
    pshapes = [(), (), (), (), (1,), (1,), (2,), (1, 1), (0,)]
    for k in range(count):
        op = list(ops)[k % len(ops)]
        m = Model('hostile_%d_%s' % (k, op[7:].lower()))
        sane = k % 2 == 0     # well-formed parameters: only values, shapes and attributes vary
        dt = dts[rng.integers(len(dts))] if rng.random() < 0.15 and not sane else (np.uint8, np.int8)[k // 2 % 2]
        ins = []
        for i in range(ops[op] - (rng.random() < 0.05 and not sane)):
            nm = 'i%d' % i
            if op == 'QLinearWhere' and i == 0:
                ins.append(m.feed(nm, rng.integers(0, 2, size=tuple(rng.integers(0, 3, size=rng.integers(0, 4)))).astype(np.bool_)))
                continue
            is_data = i in ((0, 3) if op == 'QLinearMul' else (1, 4) if op == 'QLinearWhere' else (0,))
            if is_data:
                shape = tuple(int(v) for v in rng.integers(0, 4, size=rng.integers(0, 5)))
                ins.append(m.feed(nm, qdata(dt, *shape) if dt != np.float32 else np.zeros(shape, np.float32)))
            elif rng.random() < 0.04 and not sane:
                ins.append('')
            else:
                scale_slot = i in {'QLinearMul': (1, 4, 6), 'QLinearWhere': (2, 5, 7)}.get(op, (1, 3))
                ps = pshapes[rng.integers(len(pshapes))] if not sane else ((), (1,))[rng.integers(2)]
                if scale_slot:
                    v = np.full(ps, [0.05, 0.05, 0.0, np.inf, np.nan, -0.1][rng.integers(6)], np.float32)
                else:
                    v = np.full(ps, 3, (dt if rng.random() < 0.95 or sane else np.int8) if dt != np.float32 else np.uint8)
                ins.append(m.const(nm, v))
        attrs = {}
        if op == 'QLinearSoftmax' and rng.random() < 0.9:
            attrs = {'opset': int(rng.integers(-1, 15)), 'axis': int(rng.integers(-5, 5))}
        if op == 'QLinearReduceMean':
            attrs = {'axes': [int(a) for a in rng.integers(-5, 5, size=rng.integers(0, 3))],
                     'keepdims': int(rng.integers(0, 2))}
        if op == 'QLinearLeakyRelu':
            attrs = {'alpha': float(rng.standard_normal())}
        m.node(op, ins, 'out', **{a: v for a, v in attrs.items() if v != []})
        m.output('out', dt)
        HOSTILE.append(dict(name=m.name, model=m))


# ---- driver ----------------------------------------------------------------------

def save(m, d):
    os.makedirs(d, exist_ok=True)
    mp = os.path.join(d, 'model.onnx')
    with open(mp, 'wb') as f:
        f.write(m.proto().SerializeToString())
    files = []
    for i, a in enumerate(m.feeds):
        p = os.path.join(d, 'input_%d.npy' % i)
        np.save(p, a)
        files.append(p)
    return mp, files


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def outputs(d, n):
    return [np.load(os.path.join(d, 'output_%d.npy' % i)) for i in range(n)]


def check_case(c, d, mdl_run):
    mp, files = save(c['model'], d)
    r = run([mdl_run, '--model', mp, '--inputs', ','.join(files), '--outdir', os.path.join(d, 'oa')])
    if r.returncode:
        return 'openacl failed: ' + r.stderr.strip()[-600:]
    n = len(c['model'].outs)
    got = outputs(os.path.join(d, 'oa'), n)
    if c.get('expected') is not None:
        want = c['expected']
    else:
        r = run(['node', ORTREF, '--model', mp, '--inputs', ','.join(files), '--outdir',
                 os.path.join(d, 'ort')])
        if r.returncode:
            return 'ONNX Runtime failed: ' + r.stderr.strip()[-600:]
        want = outputs(os.path.join(d, 'ort'), n)
    for i, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or g.shape != w.shape:
            return 'output %d: %s %s, expected %s %s' % (i, g.dtype, g.shape, w.dtype, w.shape)
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        tol = c.get('tol', 0)
        if tol and diff.max(initial=0) <= tol and (diff > 0).mean() <= c['tol_frac']:
            continue
        if diff.max(initial=0) > 0:
            k = int(np.argmax(diff > 0))
            return 'output %d: %d of %d values differ (max %g; first at flat index %d: %s, ' \
                   'expected %s)' % (i, int((diff > 0).sum()), diff.size, diff.max(), k,
                                     g.flat[k], w.flat[k])
    return None


def check_bad(c, d, mdl_run):
    mp, files = save(c['model'], d)
    r = run([mdl_run, '--model', mp, '--inputs', ','.join(files), '--outdir', os.path.join(d, 'oa')])
    if r.returncode == 0:
        return 'loaded and ran; expected a load error'
    if r.returncode < 0 or 'aclmdlLoad' not in r.stderr:
        return 'did not fail cleanly at load (exit %d): %s' % (r.returncode, r.stderr.strip()[-400:])
    if c['message'] not in r.stderr.replace(mp, 'MODEL'):
        return 'message lacks %r: %s' % (c['message'], r.stderr.strip()[-400:])
    return None


def check_hostile(c, d, mdl_run):
    mp, files = save(c['model'], d)
    r = run([mdl_run, '--model', mp, '--inputs', ','.join(files), '--outdir', os.path.join(d, 'oa')])
    if r.returncode < 0 or r.returncode > 2:
        return 'crashed (exit %d): %s' % (r.returncode, r.stderr.strip()[-400:])
    if 'runtime error' in r.stderr or 'Sanitizer' in r.stderr:
        return 'sanitizer report: ' + r.stderr.strip()[-400:]
    if r.returncode and ('failed' not in r.stderr or 'node' not in r.stderr.replace(mp, 'MODEL')):
        return 'refused without naming the node: ' + r.stderr.strip()[-400:]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mdl-run', required=True)
    ap.add_argument('--keep')
    ap.add_argument('--only')
    ap.add_argument('--hostile', type=int, default=120, help='random malformed models')
    a = ap.parse_args()
    if not shutil.which('node') or not os.path.isdir(os.path.join(
            ROOT, 'third_party', 'npm', 'node_modules', 'onnxruntime-node')):
        print('qops_ort: node or onnxruntime-node missing; skipped')
        return 77
    unary_cases()
    mul_cases()
    big_cases()
    empty_cases()
    softmax_cases()
    where_cases()
    rmean_cases()
    chain_cases()
    qdq_cases()
    dynamic_cases()
    resize_cases()
    bad_cases()
    hostile_cases(a.hostile)
    work = a.keep or tempfile.mkdtemp(prefix='qops_ort_')
    failed, ran = [], 0
    for kind, cases, fn in (('case', CASES, check_case), ('bad', BAD, check_bad),
                            ('hostile', HOSTILE, check_hostile)):
        for c in cases:
            if a.only and a.only not in c['name']:
                continue
            ran += 1
            err = fn(c, os.path.join(work, c['name']), a.mdl_run)
            print('%-6s %-28s %s' % ('FAIL' if err else 'ok', c['name'], err or ''))
            if err:
                failed.append(c['name'])
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    print('qops_ort: %d of %d cases pass%s' % (ran - len(failed), ran,
                                                '; failed: ' + ', '.join(failed) if failed else ''))
    return 1 if failed or not ran else 0


if __name__ == '__main__':
    sys.exit(main())
