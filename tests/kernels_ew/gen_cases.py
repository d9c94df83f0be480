#!/usr/bin/python3
"""Extra ONNX node tests for the reference elementwise / reduction / softmax /
normalisation kernels, with expected values from NumPy (float64 maths, then
rounded to the output type). They cover what the ONNX 1.12 backend tests do
not: float16/bfloat16/double and integer types, opsets 18-21 (Reduce axes as
input, Gelu, Mish, GroupNormalization, Bitwise*), broadcasting shapes that
exercise every inner-loop form, empty tensors, sizes large enough to split
across threads, and attribute corners.

usage: gen_cases.py --out DIR [--runner kew_node_runner]
Writes DIR/node/test_kew_<name>/{model.onnx,test_data_set_0/*.pb} (the layout
of the ONNX test data, so the engine's backend runner takes DIR too); with
--runner, runs it over DIR/node and exits with its status."""
import argparse
import math
import os
import shutil
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper

BF16 = 'bfloat16'
CODE = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
        np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11, np.uint32: 12,
        np.uint64: 13, BF16: 16}
RNG = np.random.default_rng(20240611)


def to_bf16_bits(a):
    f = np.atleast_1d(np.asarray(a, np.float32))
    u = f.view(np.uint32).astype(np.uint64)
    s16, one = np.uint64(16), np.uint64(1)
    r = ((u + np.uint64(0x7FFF) + ((u >> s16) & one)) >> s16).astype(np.uint16)
    r[np.isnan(f)] = 0x7FC0
    return r.reshape(np.shape(a))


def bf16_round(a):
    """float32 values rounded to bfloat16 (still held as float32)"""
    b = np.atleast_1d(to_bf16_bits(a)).astype(np.uint32) << np.uint32(16)
    return b.view(np.float32).reshape(np.shape(a))


class T:
    """a tensor: values (NumPy) and its ONNX type; bfloat16 is held as float32"""

    def __init__(self, a, dt=None):
        if dt == BF16:
            self.a = bf16_round(np.asarray(a, np.float32))
        else:
            dt = dt or np.asarray(a).dtype.type
            self.a = np.asarray(a, dtype=dt)
        self.dt = dt

    def proto(self, name):
        t = TensorProto()
        t.name = name
        t.data_type = CODE[self.dt]
        t.dims.extend(self.a.shape)
        t.raw_data = to_bf16_bits(self.a).tobytes() if self.dt == BF16 else self.a.tobytes()
        return t


def cast(a, dt):
    """round float64 results to the output type the way the kernel must"""
    if dt == BF16:
        return T(np.asarray(a, np.float64).astype(np.float32), BF16)
    return T(np.asarray(a).astype(dt), dt)


CASES = []


def case(name, op, ins, outs, opset=17, consts=(), **attrs):
    """ins: T or None (omitted); outs: T; consts: input indices made initializers"""
    CASES.append((name, op, ins, outs, opset, set(consts), attrs))


def rnd(shape, dt=np.float32, lo=-3.0, hi=3.0):
    if dt in (np.float32, np.float64, np.float16, BF16):
        return T(RNG.uniform(lo, hi, shape).astype(np.float32 if dt == BF16 else dt), dt)
    info = np.iinfo(dt)
    lo2, hi2 = max(int(lo), info.min), min(int(hi), info.max)
    return T(RNG.integers(lo2, hi2 + 1, shape, dtype=np.int64).astype(dt), dt)


def f64(t):
    return t.a.astype(np.float64)


def write(root, name, op, ins, outs, opset, consts, attrs):
    d = os.path.join(root, 'test_kew_' + name)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    in_names, inputs, inits, k = [], [], [], 0
    for i, t in enumerate(ins):
        if t is None:
            in_names.append('')
            continue
        nm = 'x%d' % i
        in_names.append(nm)
        if i in consts:
            inits.append(t.proto(nm))
        else:
            inputs.append(helper.make_tensor_value_info(nm, CODE[t.dt], list(t.a.shape)))
            with open(os.path.join(d, 'test_data_set_0', 'input_%d.pb' % k), 'wb') as f:
                f.write(t.proto(nm).SerializeToString())
            k += 1
    out_names = ['y%d' % i for i in range(len(outs))]
    outputs = [helper.make_tensor_value_info(out_names[i], CODE[t.dt], list(t.a.shape))
               for i, t in enumerate(outs)]
    for i, t in enumerate(outs):
        with open(os.path.join(d, 'test_data_set_0', 'output_%d.pb' % i), 'wb') as f:
            f.write(t.proto(out_names[i]).SerializeToString())
    node = helper.make_node(op, in_names, out_names, name='n_' + name, **attrs)
    graph = helper.make_graph([node], 'g_' + name, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)])
    model.ir_version = 8
    with open(os.path.join(d, 'model.onnx'), 'wb') as f:
        f.write(model.SerializeToString())


FLOATS = [np.float32, np.float64, np.float16, BF16]
SINTS = [np.int8, np.int16, np.int32, np.int64]
UINTS = [np.uint8, np.uint16, np.uint32, np.uint64]


def tname(dt):
    return 'bf16' if dt == BF16 else np.dtype(dt).name


def erf(x):
    return np.vectorize(math.erf)(x)


def gen_unary():
    fns = {
        'Abs': np.abs, 'Neg': np.negative, 'Exp': np.exp, 'Sqrt': np.sqrt, 'Reciprocal': lambda x: 1 / x,
        'Floor': np.floor, 'Ceil': np.ceil, 'Sign': np.sign, 'Sin': np.sin, 'Cos': np.cos, 'Tan': np.tan,
        'Atan': np.arctan, 'Sinh': np.sinh, 'Cosh': np.cosh, 'Asinh': np.arcsinh, 'Erf': erf,
        'Relu': lambda x: np.maximum(x, 0), 'Sigmoid': lambda x: 1 / (1 + np.exp(-x)), 'Tanh': np.tanh,
        'Softplus': lambda x: np.log1p(np.exp(x)), 'Softsign': lambda x: x / (1 + np.abs(x)),
        'HardSwish': lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
        'Mish': lambda x: x * np.tanh(np.log1p(np.exp(x))),
    }
    opsets = {'HardSwish': 14, 'Mish': 18}
    for op, fn in fns.items():
        for dt in FLOATS:
            x = rnd((3, 5, 7), dt)
            case('%s_%s' % (op.lower(), tname(dt)), op, [x], [cast(fn(f64(x)), dt)], opset=opsets.get(op, 17))
    pos = {'Log': np.log, 'Acosh': np.arccosh}
    for op, fn in pos.items():
        for dt in FLOATS:
            x = rnd((4, 6), dt, 1.0, 20.0)
            case('%s_%s' % (op.lower(), tname(dt)), op, [x], [cast(fn(f64(x)), dt)])
    for op, fn in {'Asin': np.arcsin, 'Acos': np.arccos, 'Atanh': np.arctanh}.items():
        x = rnd((4, 6), np.float16, -0.9, 0.9)
        case('%s_f16' % op.lower(), op, [x], [cast(fn(f64(x)), np.float16)])
    # accuracy sweeps of the vectorised float32 maths over wide ranges
    sweeps = {
        'Exp': (np.exp, -100.0, 88.0), 'Sigmoid': (lambda x: 1 / (1 + np.exp(-x)), -40.0, 40.0),
        'Tanh': (np.tanh, -12.0, 12.0), 'Erf': (erf, -5.0, 5.0),
        'Softplus': (lambda x: np.logaddexp(0, x), -30.0, 60.0),
        'Mish': (lambda x: x * np.tanh(np.logaddexp(0, x)), -30.0, 60.0),
    }
    for op, (fn, lo, hi) in sweeps.items():
        x = T(np.concatenate([np.linspace(lo, hi, 30001), [0.0, -0.0, 1e-6, -1e-6, 1e-30]]).astype(np.float32))
        case('%s_sweep' % op.lower(), op, [x], [cast(fn(f64(x)), np.float32)], opset=18)
    x = T(np.concatenate([np.geomspace(1e-38, 3e38, 20000), [1e-40, 1e-45, 0.0, 1.0, np.inf]]).astype(np.float32))
    case('log_sweep', 'Log', [x], [cast(np.log(f64(x)), np.float32)])
    # special values
    sp = T(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 100.0, -100.0, 89.0, -89.0], np.float32))
    with np.errstate(all='ignore'):
        for op, fn in {'Exp': np.exp, 'Tanh': np.tanh, 'Sigmoid': lambda x: 1 / (1 + np.exp(-x)),
                       'Relu': lambda x: np.where(x < 0, 0, x), 'Abs': np.abs,
                       'Erf': lambda x: np.array([math.erf(v) if not math.isnan(v) else v for v in x])}.items():
            case('%s_special' % op.lower(), op, [sp], [cast(fn(f64(sp)), np.float32)])
        xl = T(np.array([np.inf, 0.0, -1.0, np.nan, 1e-45, 1.0], np.float32))
        case('log_special', 'Log', [xl], [cast(np.log(f64(xl)), np.float32)])
    # Round: half to even
    x = T(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6, 0.0], np.float32))
    case('round_half_even', 'Round', [x], [T(np.round(x.a))])
    # integer forms
    for dt in SINTS:
        x = rnd((5, 7), dt, -100, 100)
        case('abs_%s' % tname(dt), 'Abs', [x], [T(np.abs(x.a))])
        case('neg_%s' % tname(dt), 'Neg', [x], [T(-x.a)])
        case('sign_%s' % tname(dt), 'Sign', [x], [T(np.sign(x.a))])
        case('relu_%s' % tname(dt), 'Relu', [x], [T(np.maximum(x.a, 0).astype(dt))], opset=14)
    mn = T(np.array([-128, -1, 0, 127], np.int8))
    case('abs_int8_min', 'Abs', [mn], [T(np.abs(mn.a))])
    for dt in UINTS:
        x = rnd((5, 7), dt, 0, 200)
        case('abs_%s' % tname(dt), 'Abs', [x], [T(x.a)])
        case('sign_%s' % tname(dt), 'Sign', [x], [T(np.sign(x.a))])
    for dt in SINTS + UINTS:
        x = rnd((3, 4), dt, -100 if dt in SINTS else 0, 100)
        case('bitwise_not_%s' % tname(dt), 'BitwiseNot', [x], [T(np.invert(x.a))], opset=18)
    # activations with attributes
    x = rnd((2, 3, 4, 5))
    xa = f64(x)
    case('leakyrelu_f16', 'LeakyRelu', [cast(xa, np.float16)], [cast(np.where(xa < 0, 0.2 * xa, xa), np.float16)], alpha=0.2)
    case('elu_alpha', 'Elu', [x], [cast(np.where(xa < 0, 0.5 * np.expm1(xa), xa), np.float32)], alpha=0.5)
    case('selu_f64', 'Selu', [cast(xa, np.float64)], [T(np.where(xa <= 0, 1.5 * (2.0 * np.exp(xa) - 2.0), 1.5 * xa))], alpha=2.0, gamma=1.5)
    case('celu_alpha2', 'Celu', [x], [cast(np.maximum(0, xa) + np.minimum(0, 2.0 * np.expm1(xa / 2.0)), np.float32)], alpha=2.0)
    case('hardsigmoid_attr', 'HardSigmoid', [x], [cast(np.clip(0.3 * xa + 0.4, 0, 1), np.float32)], alpha=0.3, beta=0.4)
    case('thresholdedrelu_attr', 'ThresholdedRelu', [x], [cast(np.where(xa > 0.7, xa, 0), np.float32)], alpha=0.7)
    for dt in [np.int32, np.int8, np.uint8, np.float64]:
        xs = rnd((4, 5), dt, -10 if dt != np.uint8 else 0, 10)
        v = f64(xs)
        case('shrink_%s' % tname(dt), 'Shrink', [xs], [cast(np.where(v < -1.5, v + 2, np.where(v > 1.5, v - 2, 0)), dt)],
             lambd=1.5, bias=2.0)
    for dt in FLOATS:
        xg = rnd((3, 100), dt, -6, 6)
        v = f64(xg)
        case('gelu_%s' % tname(dt), 'Gelu', [xg], [cast(0.5 * v * (1 + erf(v / math.sqrt(2))), dt)], opset=20)
        case('gelu_tanh_%s' % tname(dt), 'Gelu', [xg],
             [cast(0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))), dt)], opset=20,
             approximate='tanh')
    xi = T(np.array([[np.inf, -np.inf, 1.0, np.nan]], np.float32))
    case('isinf_neg_only', 'IsInf', [xi], [T(np.isneginf(xi.a))], detect_positive=0)
    case('isnan_f16', 'IsNaN', [cast(xi.a, np.float16)], [T(np.isnan(xi.a))])
    case('not_bool', 'Not', [T(np.array([[True, False, True]]))], [T(np.array([[False, True, False]]))])
    # a size split across threads, and an empty tensor
    big = rnd((300, 1000))
    case('sigmoid_big', 'Sigmoid', [big], [cast(1 / (1 + np.exp(-f64(big))), np.float32)])
    case('relu_big_f16', 'Relu', [cast(f64(big), np.float16)], [cast(np.maximum(f64(big), 0), np.float16)])
    e = T(np.zeros((2, 0, 3), np.float32))
    case('exp_empty', 'Exp', [e], [T(np.zeros((2, 0, 3), np.float32))])


def gen_clip_dropout():
    x = rnd((3, 4, 5))
    xa = f64(x)
    case('clip_attr6', 'Clip', [x], [cast(np.clip(xa, -1, 0.5), np.float32)], opset=7, min=-1.0, max=0.5)
    case('clip_attr6_default', 'Clip', [x], [x], opset=7)
    lo, hi = T(np.float32(-0.5)), T(np.float32(1.25))
    case('clip_min_only', 'Clip', [x, lo], [cast(np.maximum(xa, -0.5), np.float32)], opset=13)
    case('clip_max_only', 'Clip', [x, None, hi], [cast(np.minimum(xa, 1.25), np.float32)], opset=13)
    case('clip_const_bounds', 'Clip', [x, lo, hi], [cast(np.clip(xa, -0.5, 1.25), np.float32)], opset=13, consts=(1, 2))
    case('clip_min_gt_max', 'Clip', [x, hi, lo], [cast(np.full(xa.shape, -0.5), np.float32)], opset=13)
    for dt in [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, BF16, np.float64]:
        xi = rnd((4, 6), dt, 0 if dt in UINTS else -50, 50)
        l, h = (T(np.array(3, dt)), T(np.array(20, dt))) if dt != BF16 else (T(3.0, BF16), T(20.0, BF16))
        case('clip_%s' % tname(dt), 'Clip', [xi, l, h], [cast(np.clip(f64(xi), 3, 20), dt)], opset=13)
    big = rnd((256, 1024))
    case('clip_big', 'Clip', [big, T(np.float32(0)), T(np.float32(6))], [cast(np.clip(f64(big), 0, 6), np.float32)], opset=13)
    case('dropout12_inference', 'Dropout', [x, T(np.float32(0.3)), T(np.array(False))],
         [x, T(np.ones(x.a.shape, bool))], opset=13)
    case('dropout12_const_false', 'Dropout', [x, T(np.float32(0.3)), T(np.array(False))],
         [x, T(np.ones(x.a.shape, bool))], opset=13, consts=(1, 2))
    case('dropout7_mask_float', 'Dropout', [x], [x, T(np.ones(x.a.shape, np.float32))], opset=7, ratio=0.2)
    case('dropout_f16', 'Dropout', [cast(xa, np.float16)], [cast(xa, np.float16)], opset=13)
    xi = rnd((3, 2), np.int64, -9, 9)
    case('identity_int64', 'Identity', [xi], [xi])


def gen_binary():
    np_ops = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Div': np.divide}
    shapes = [((2, 3, 4, 5), (5,)), ((2, 3, 4, 5), (4, 1)), ((2, 3, 4, 5), (1, 3, 1, 1)), ((2, 3, 4, 5), ()),
              ((1,), (2, 3)), ((3, 1), (1, 4)), ((2, 1, 4, 1), (1, 3, 1, 5)), ((2, 3, 4, 5), (2, 3, 4, 5)),
              ((0, 3), (3,)), ((2, 0), (1,)), ((1, 2, 1, 3, 1, 2), (2, 1, 2, 1, 3, 1)), ((3, 4), (2, 1, 3, 4))]
    for i, (sa, sb) in enumerate(shapes):
        for op, fn in np_ops.items():
            a, b = rnd(sa), rnd(sb, np.float32, 0.5, 3.0)
            case('%s_bcast%d' % (op.lower(), i), op, [a, b], [cast(fn(f64(a), f64(b)), np.float32)])
    for dt in FLOATS:
        a, b = rnd((3, 4, 5), dt), rnd((4, 1), dt, 0.5, 2.0)
        for op, fn in np_ops.items():
            case('%s_%s' % (op.lower(), tname(dt)), op, [a, b], [cast(fn(f64(a), f64(b)), dt)], opset=14)
    for dt in SINTS + UINTS:
        lo = -60 if dt in SINTS else 0
        a, b = rnd((3, 4, 5), dt, lo, 60), rnd((5,), dt, 1, 9)
        for op in ['Add', 'Sub', 'Mul']:
            r = np_ops[op](a.a, b.a)
            case('%s_%s' % (op.lower(), tname(dt)), op, [a, b], [T(r.astype(dt))], opset=14)
        q = np.trunc(f64(a) / f64(b))
        case('div_%s' % tname(dt), 'Div', [a, b], [T(q.astype(dt))], opset=14)
        case('mod_%s' % tname(dt), 'Mod', [a, T(np.negative(b.a) if dt in SINTS else b.a)],
             [T(np.mod(a.a, np.negative(b.a) if dt in SINTS else b.a))])
        case('fmod_%s' % tname(dt), 'Mod', [a, b], [T(np.fmod(a.a, b.a))], fmod=1)
        case('max_%s' % tname(dt), 'Max', [a, b], [T(np.maximum(a.a, b.a))], opset=13)
        case('min_%s' % tname(dt), 'Min', [a, b], [T(np.minimum(a.a, b.a))], opset=13)
        case('bitwise_and_%s' % tname(dt), 'BitwiseAnd', [a, b], [T(a.a & b.a)], opset=18)
        case('bitwise_or_%s' % tname(dt), 'BitwiseOr', [a, b], [T(a.a | b.a)], opset=18)
        case('bitwise_xor_%s' % tname(dt), 'BitwiseXor', [a, b], [T(a.a ^ b.a)], opset=18)
        for op, fn in {'Equal': np.equal, 'Greater': np.greater, 'Less': np.less,
                       'GreaterOrEqual': np.greater_equal, 'LessOrEqual': np.less_equal}.items():
            bb = T(np.where(RNG.random(a.a.shape) < 0.3, a.a, RNG.integers(max(lo, -9), 9, a.a.shape)).astype(dt))
            case('%s_%s' % (op.lower(), tname(dt)), op, [a, bb], [T(fn(a.a, bb.a))], opset=16)
    for dt in [np.float16, BF16, np.float64]:
        a = rnd((3, 4), dt)
        b = T(np.where(RNG.random((3, 4)) < 0.3, a.a, rnd((3, 4), dt).a), dt)
        for op, fn in {'Equal': np.equal, 'Greater': np.greater, 'LessOrEqual': np.less_equal}.items():
            case('%s_%s' % (op.lower(), tname(dt)), op, [a, b], [T(fn(a.a, b.a))], opset=16)
    bl = T(RNG.random((2, 3)) < 0.5)
    case('equal_bool', 'Equal', [bl, T(np.array([True, False, True]))], [T(bl.a == np.array([True, False, True]))], opset=13)
    # Div by integers truncates toward zero
    a, b = T(np.array([7, -7, 7, -7, 1, -128], np.int8)), T(np.array([2, 2, -2, -2, 3, -1], np.int8))
    case('div_int8_trunc', 'Div', [a, b], [T(np.array([3, -3, -3, 3, 0, -128], np.int8))], opset=14)
    # Mod on floats needs fmod=1; float16
    a, b = rnd((4, 5), np.float16, -9, 9), rnd((5,), np.float16, 1, 4)
    case('mod_fmod_f16', 'Mod', [a, b], [cast(np.fmod(f64(a), f64(b)), np.float16)], fmod=1)
    # Pow: same and mixed types, constant exponents with fast forms
    x = rnd((3, 4), np.float32, 0.1, 3)
    for e in [2.0, 3.0, 0.5, 1.0, -1.5]:
        case('pow_const_%g' % e, 'Pow', [x, T(np.float32(e))], [cast(f64(x) ** e, np.float32)], opset=15, consts=(1,))
    case('pow_sqrt_neg', 'Pow', [T(np.array([-4.0, 4.0, -np.inf], np.float32)), T(np.float32(0.5))],
         [T(np.array([np.nan, 2.0, np.inf], np.float32))], opset=15)
    for da, db in [(np.float32, np.int64), (np.int32, np.float32), (np.int64, np.int64), (np.float16, np.float32),
                   (np.int8, np.int8), (np.uint8, np.uint64), (np.float64, np.int32), (BF16, BF16)]:
        a = rnd((3, 4), da, 1, 5)
        b = rnd((4,), db, 0, 3)
        r = f64(a) ** f64(b)
        case('pow_%s_%s' % (tname(da), tname(db)), 'Pow', [a, b], [cast(r, da)], opset=15)
    # NaN propagation of Max/Min; variadic with broadcasting
    a = T(np.array([1.0, np.nan, 3.0, -np.inf], np.float32))
    b = T(np.array([np.nan, 2.0, 1.0, 0.0], np.float32))
    case('max_nan', 'Max', [a, b], [T(np.maximum(a.a, b.a))], opset=13)
    case('min_nan', 'Min', [a, b], [T(np.minimum(a.a, b.a))], opset=13)
    for dt in [np.float32, np.float16, np.float64, BF16]:
        ins = [rnd((3, 1), dt), rnd((1, 4), dt), rnd((4,), dt)]
        v = [f64(t) for t in ins]
        case('sum3_%s' % tname(dt), 'Sum', ins, [cast(v[0] + v[1] + v[2], dt)], opset=13)
        case('mean3_%s' % tname(dt), 'Mean', ins, [cast((v[0] + v[1] + v[2]) / 3, dt)], opset=13)
        case('max3_%s' % tname(dt), 'Max', ins, [cast(np.maximum(np.maximum(v[0], v[1]), v[2]), dt)], opset=13)
        case('min3_%s' % tname(dt), 'Min', ins, [cast(np.minimum(np.minimum(v[0], v[1]), v[2]), dt)], opset=13)
        case('max1_%s' % tname(dt), 'Max', ins[:1], [ins[0]], opset=13)
    ins = [rnd((2, 3), np.int32, -9, 9) for _ in range(4)]
    case('sum4_int32', 'Sum', ins, [T(ins[0].a + ins[1].a + ins[2].a + ins[3].a)], opset=13)
    x1 = rnd((2, 2))
    case('mean1', 'Mean', [x1], [x1])
    # PRelu: channel slope, integer types
    x = rnd((2, 3, 4, 4))
    s = rnd((3, 1, 1), np.float32, 0, 1)
    case('prelu_channel', 'PRelu', [x, s], [cast(np.where(f64(x) < 0, f64(x) * f64(s), f64(x)), np.float32)], opset=16)
    xi, si = rnd((3, 4), np.int32, -9, 9), rnd((4,), np.int32, 0, 3)
    case('prelu_int32', 'PRelu', [xi, si], [T(np.where(xi.a < 0, xi.a * si.a, xi.a).astype(np.int32))], opset=16)
    # BitShift
    for dt in UINTS:
        a, b = rnd((6,), dt, 0, 200), T(np.array([0, 1, 3, 7, 2, 5], dt))
        case('bitshift_l_%s' % tname(dt), 'BitShift', [a, b], [T((a.a << b.a).astype(dt))], opset=11, direction='LEFT')
        case('bitshift_r_%s' % tname(dt), 'BitShift', [a, b], [T(a.a >> b.a)], opset=11, direction='RIGHT')
    # logic with broadcasting
    a, b = T(RNG.random((2, 3, 4)) < 0.5), T(RNG.random((3, 1)) < 0.5)
    case('and_bcast', 'And', [a, b], [T(a.a & b.a)])
    case('or_bcast', 'Or', [a, b], [T(a.a | b.a)])
    case('xor_bcast', 'Xor', [a, b], [T(a.a ^ b.a)])
    # big enough for threads: row and channel broadcasts
    a, b = rnd((64, 1024)), rnd((1024,))
    case('add_big_row', 'Add', [a, b], [cast(f64(a) + f64(b), np.float32)])
    a, b = rnd((1, 16, 64, 64)), rnd((16, 1, 1))
    case('mul_big_channel', 'Mul', [a, b], [cast(f64(a) * f64(b), np.float32)])
    a, b = rnd((2, 1, 300)), rnd((1, 200, 1))
    case('sub_big_outer', 'Sub', [a, b], [cast(f64(a) - f64(b), np.float32)])


def np_reduce(kind, x, axes, keep):
    ax = tuple(axes) if axes is not None else None
    with np.errstate(all='ignore'):
        if kind == 'ReduceSum':
            return np.sum(x, axis=ax, keepdims=keep)
        if kind == 'ReduceMean':
            return np.mean(x, axis=ax, keepdims=keep)
        if kind == 'ReduceMax':
            return np.max(x, axis=ax, keepdims=keep, initial=-np.inf)
        if kind == 'ReduceMin':
            return np.min(x, axis=ax, keepdims=keep, initial=np.inf)
        if kind == 'ReduceProd':
            return np.prod(x, axis=ax, keepdims=keep)
        if kind == 'ReduceL1':
            return np.sum(np.abs(x), axis=ax, keepdims=keep)
        if kind == 'ReduceL2':
            return np.sqrt(np.sum(x * x, axis=ax, keepdims=keep))
        if kind == 'ReduceLogSum':
            return np.log(np.sum(x, axis=ax, keepdims=keep))
        if kind == 'ReduceLogSumExp':
            return np.log(np.sum(np.exp(x), axis=ax, keepdims=keep))
        if kind == 'ReduceSumSquare':
            return np.sum(x * x, axis=ax, keepdims=keep)


REDUCES = ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2',
           'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare']


def gen_reduce():
    shape = (3, 4, 5, 6)
    for op in REDUCES:
        lo = 0.2 if op in ('ReduceLogSum',) else -2.0
        for axes in [[3], [1], [0, 2], [1, 2], [-1, -2], [0], None, [0, 1, 2, 3]]:
            for keep in (0, 1):
                x = rnd(shape, np.float32, lo, 2.0)
                if op == 'ReduceProd':
                    x = rnd(shape, np.float32, 0.8, 1.2)
                r = np_reduce(op, f64(x), axes, keep)
                name = '%s_ax%s_k%d' % (op.lower(), 'all' if axes is None else '_'.join(map(str, axes)).replace('-', 'm'), keep)
                ins = [x] if axes is None else [x, T(np.array(axes, np.int64))]
                case(name, op, ins, [cast(r, np.float32)], opset=18, keepdims=keep)
        # older opset with the axes attribute
        x = rnd(shape, np.float32, 0.5, 2.0)
        case('%s_attr11' % op.lower(), op, [x], [cast(np_reduce(op, f64(x), [1, 3], 1), np.float32)], opset=11, axes=[1, 3])
        # other dtypes
        for dt in [np.float16, np.float64, BF16, np.int32, np.int64, np.uint32, np.uint64]:
            if dt in (np.int32, np.int64, np.uint32, np.uint64):
                x = rnd((3, 4, 5), dt, 0 if op in ('ReduceLogSum',) else (0 if dt in UINTS else -5), 5)
                if op == 'ReduceLogSum':
                    x = rnd((3, 4, 5), dt, 1, 5)
                v = x.a.astype(np.float64)
                if op in ('ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp'):
                    exp = np.trunc(np_reduce(op, v, [1], 1))
                elif op == 'ReduceMean':
                    exp = np.trunc(np.sum(v, axis=1, keepdims=True) / 4)
                else:
                    exp = np_reduce(op, v, [1], 1)
                case('%s_%s' % (op.lower(), tname(dt)), op, [x, T(np.array([1], np.int64))], [T(exp.astype(dt))], opset=18)
            else:
                x = rnd((3, 4, 5), dt, 0.5, 2.0)
                case('%s_%s' % (op.lower(), tname(dt)), op, [x, T(np.array([1], np.int64))],
                     [cast(np_reduce(op, f64(x), [1], 1), dt)], opset=18)
        # noop_with_empty_axes, constant axes, empty input
        x = rnd((2, 3), np.float32, 0.5, 2)
        case('%s_noop' % op.lower(), op, [x, T(np.zeros((0,), np.int64))], [x], opset=18, noop_with_empty_axes=1)
        case('%s_const_axes' % op.lower(), op, [x, T(np.array([0], np.int64))],
             [cast(np_reduce(op, f64(x), [0], 0), np.float32)], opset=18, consts=(1,), keepdims=0)
        if op not in ('ReduceMean',):
            e = T(np.zeros((2, 0, 3), np.float32))
            case('%s_empty' % op.lower(), op, [e, T(np.array([1], np.int64))],
                 [cast(np_reduce(op, f64(e), [1], 1), np.float32)], opset=18)
    x = rnd((3, 4, 5), np.float32, -2, 2)
    case('reduce_sum_axes_input13', 'ReduceSum', [x, T(np.array([0, 2], np.int64))],
         [cast(np.sum(f64(x), axis=(0, 2), keepdims=True), np.float32)], opset=13)
    case('reduce_sum_noaxes13', 'ReduceSum', [x], [cast(np.sum(f64(x), keepdims=True), np.float32)], opset=13)
    case('reduce_sum_noaxes_noop13', 'ReduceSum', [x], [x], opset=13, noop_with_empty_axes=1)
    for dt in [np.int8, np.uint8]:
        xi = rnd((3, 4), dt, 0 if dt == np.uint8 else -100, 100)
        case('reduce_max_%s' % tname(dt), 'ReduceMax', [xi, T(np.array([1], np.int64))], [T(np.max(xi.a, 1, keepdims=True))], opset=18)
        case('reduce_min_%s' % tname(dt), 'ReduceMin', [xi, T(np.array([0], np.int64))], [T(np.min(xi.a, 0, keepdims=True))], opset=18)
    xb = T(RNG.random((3, 4)) < 0.5)
    case('reduce_max_bool', 'ReduceMax', [xb, T(np.array([1], np.int64))], [T(np.any(xb.a, 1, keepdims=True))], opset=20)
    case('reduce_min_bool', 'ReduceMin', [xb, T(np.array([1], np.int64))], [T(np.all(xb.a, 1, keepdims=True))], opset=20)
    xn = T(np.array([[1.0, np.nan, 2.0], [1.0, 5.0, -1.0]], np.float32))
    case('reduce_max_nan', 'ReduceMax', [xn, T(np.array([1], np.int64))], [T(np.array([[np.nan], [5.0]], np.float32))], opset=18)
    xu = T(np.array([[1, 2**63 + 5, 7]], np.uint64))
    case('reduce_max_uint64_big', 'ReduceMax', [xu, T(np.array([1], np.int64))], [T(np.array([[2**63 + 5]], np.uint64))], opset=18)
    big = rnd((64, 4096), np.float32, -1, 1)
    case('reduce_sum_big_rows', 'ReduceSum', [big, T(np.array([1], np.int64))], [cast(np.sum(f64(big), 1, keepdims=True), np.float32)], opset=18)
    case('reduce_mean_big_cols', 'ReduceMean', [big, T(np.array([0], np.int64))], [cast(np.mean(f64(big), 0, keepdims=True), np.float32)], opset=18)
    case('reduce_lse_big_cols', 'ReduceLogSumExp', [big, T(np.array([0], np.int64))],
         [cast(np.log(np.sum(np.exp(f64(big)), 0, keepdims=True)), np.float32)], opset=18)


def gen_arg_cumsum():
    for op, fn in [('ArgMax', np.argmax), ('ArgMin', np.argmin)]:
        for dt in [np.float32, np.float16, np.float64, BF16, np.int32, np.int8, np.uint64]:
            x = rnd((3, 4, 5), dt, 0 if dt in UINTS else -4, 4)  # integer ranges give ties
            for axis in (0, 1, -1):
                for last in (0, 1):
                    v = f64(x)
                    if last:
                        flip = np.flip(v, axis)
                        r = v.shape[axis] - 1 - fn(flip, axis=axis)
                    else:
                        r = fn(v, axis=axis)
                    r = np.expand_dims(r, axis)
                    case('%s_%s_ax%d_last%d' % (op.lower(), tname(dt), axis % 3, last), op, [x], [T(r.astype(np.int64))],
                         opset=13, axis=axis, select_last_index=last)
        x = rnd((2, 1000), np.float32)
        case('%s_big_nokeep' % op.lower(), op, [x], [T(fn(x.a, axis=1).astype(np.int64))], opset=13, axis=1, keepdims=0)
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint32, np.uint64]:
        x = rnd((2, 3, 4), dt, 0 if dt in UINTS else -5, 5)
        v = f64(x)
        for axis in (0, 1, -1):
            for exc in (0, 1):
                for rev in (0, 1):
                    w = np.flip(v, axis) if rev else v
                    c = np.cumsum(w, axis=axis)
                    if exc:
                        c = c - w
                    if rev:
                        c = np.flip(c, axis)
                    case('cumsum_%s_ax%d_e%d_r%d' % (tname(dt), axis % 3, exc, rev), 'CumSum',
                         [x, T(np.array(axis, np.int32))], [cast(c, dt)], opset=14, exclusive=exc, reverse=rev)


def np_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def gen_softmax():
    for dt in [np.float32, np.float64, np.float16, BF16]:
        x = rnd((2, 3, 4, 5), dt)
        v = f64(x)
        for axis in (0, 1, 2, 3, -2):
            sm = np_softmax(v, axis)
            case('softmax_%s_ax%s' % (tname(dt), str(axis).replace('-', 'm')), 'Softmax', [x], [cast(sm, dt)], opset=13, axis=axis)
            case('logsoftmax_%s_ax%s' % (tname(dt), str(axis).replace('-', 'm')), 'LogSoftmax', [x], [cast(np.log(sm), dt)], opset=13, axis=axis)
            hm = (np.arange(v.shape[axis]).reshape([-1 if i == axis % 4 else 1 for i in range(4)])
                  == np.expand_dims(np.argmax(v, axis), axis)).astype(np.float64)
            case('hardmax_%s_ax%s' % (tname(dt), str(axis).replace('-', 'm')), 'Hardmax', [x], [cast(hm, dt)], opset=13, axis=axis)
    # pre-13: coerced to 2-D at axis
    x = rnd((2, 3, 4, 5))
    v = f64(x)
    for axis in (0, 1, 2, 3):
        flat = v.reshape(int(np.prod(v.shape[:axis])), -1)
        sm = np_softmax(flat, 1).reshape(v.shape)
        case('softmax11_ax%d' % axis, 'Softmax', [x], [cast(sm, np.float32)], opset=11, axis=axis)
        case('logsoftmax11_ax%d' % axis, 'LogSoftmax', [x], [cast(np.log(sm), np.float32)], opset=11, axis=axis)
        hm = np.zeros_like(flat)
        hm[np.arange(flat.shape[0]), np.argmax(flat, 1)] = 1
        case('hardmax11_ax%d' % axis, 'Hardmax', [x], [cast(hm.reshape(v.shape), np.float32)], opset=11, axis=axis)
    case('softmax11_default', 'Softmax', [x], [cast(np_softmax(v.reshape(2, -1), 1).reshape(v.shape), np.float32)], opset=11)
    big = rnd((128, 3000), np.float32, -20, 20)
    case('softmax_big_rows', 'Softmax', [big], [cast(np_softmax(f64(big), 1), np.float32)], opset=13)
    # short rows through softmax.c's padded buffer (lengths off the 16-lane
    # grid below 256; PP-OCRv4 rec's attention: 320 rows of 40), one row of
    # 255, and 16 / 256 (no padding), with entries 100 below their row's max
    for w in (40, 17, 255, 16, 256):
        sh = rnd((330 if w < 64 else 12, w), np.float32, -20, 20)
        sh.a[::3, ::5] -= 100
        case('softmax_short_rows_%d' % w, 'Softmax', [sh], [cast(np_softmax(f64(sh), 1), np.float32)], opset=13)
    big = rnd((4, 300, 600), np.float32, -20, 20)
    case('softmax_big_cols', 'Softmax', [big], [cast(np_softmax(f64(big), 1), np.float32)], opset=13, axis=1)
    case('logsoftmax_big_cols', 'LogSoftmax', [big], [cast(np.log(np_softmax(f64(big), 1)), np.float32)], opset=13, axis=1)
    inf = T(np.array([[0.0, -np.inf, 1.0], [-np.inf, 2.0, -np.inf]], np.float32))
    case('softmax_neg_inf', 'Softmax', [inf], [cast(np_softmax(f64(inf), 1), np.float32)], opset=13)


def gen_norm():
    # BatchNormalization: ranks 2-5, mixed dtypes (opset 15), float16
    for shape in [(4, 3), (2, 3, 5), (2, 3, 4, 5), (1, 3, 2, 2, 2)]:
        x = rnd(shape)
        C = shape[1]
        sc, b, m, vr = rnd((C,)), rnd((C,)), rnd((C,)), rnd((C,), np.float32, 0.5, 2)
        bc = [C if i == 1 else 1 for i in range(len(shape))]
        y = (f64(x) - f64(m).reshape(bc)) / np.sqrt(f64(vr).reshape(bc) + 1e-3) * f64(sc).reshape(bc) + f64(b).reshape(bc)
        case('batchnorm_rank%d' % len(shape), 'BatchNormalization', [x, sc, b, m, vr], [cast(y, np.float32)], opset=15, epsilon=1e-3)
    x = rnd((2, 3, 4, 5), np.float16)
    sc, b, m, vr = rnd((3,)), rnd((3,)), rnd((3,), np.float64), rnd((3,), np.float64, 0.5, 2)
    bc = (1, 3, 1, 1)
    y = (f64(x) - f64(m).reshape(bc)) / np.sqrt(f64(vr).reshape(bc) + 1e-5) * f64(sc).reshape(bc) + f64(b).reshape(bc)
    case('batchnorm_f16_mixed', 'BatchNormalization', [x, sc, b, m, vr], [cast(y, np.float16)], opset=15)
    x = rnd((2, 3, 4, 5), np.float64)
    sc, b, m, vr = rnd((3,), np.float64), rnd((3,), np.float64), rnd((3,), np.float64), rnd((3,), np.float64, 0.5, 2)
    y = (f64(x) - f64(m).reshape(bc)) / np.sqrt(f64(vr).reshape(bc) + 1e-5) * f64(sc).reshape(bc) + f64(b).reshape(bc)
    case('batchnorm_f64_opset9', 'BatchNormalization', [x, sc, b, m, vr], [T(y)], opset=9)
    # InstanceNormalization
    for dt, shape in [(np.float32, (2, 3, 7)), (np.float16, (2, 3, 4, 5)), (np.float64, (1, 2, 3, 2, 2))]:
        x = rnd(shape, dt)
        C = shape[1]
        sc, b = rnd((C,), dt), rnd((C,), dt)
        ax = tuple(range(2, len(shape)))
        v = f64(x)
        bc = [C if i == 1 else 1 for i in range(len(shape))]
        y = (v - v.mean(ax, keepdims=True)) / np.sqrt(v.var(ax, keepdims=True) + 1e-4) * f64(sc).reshape(bc) + f64(b).reshape(bc)
        case('instancenorm_%s' % tname(dt), 'InstanceNormalization', [x, sc, b], [cast(y, dt)], epsilon=1e-4)
    # LayerNormalization
    for dt in [np.float32, np.float16, np.float64, BF16]:
        x = rnd((2, 3, 8), dt)
        for axis in (-1, 1, 0):
            a = axis % 3
            nshape = x.a.shape[a:]
            sc, b = rnd(nshape, dt), rnd(nshape, dt)
            v = f64(x)
            ax = tuple(range(a, 3))
            mu, var = v.mean(ax, keepdims=True), v.var(ax, keepdims=True)
            inv = 1 / np.sqrt(var + 1e-5)
            y = (v - mu) * inv * f64(sc) + f64(b)
            case('layer_normalization_%s_ax%d' % (tname(dt), a), 'LayerNormalization', [x, sc, b],
                 [cast(y, dt), cast(mu, np.float32), cast(inv, np.float32)], axis=axis)
    x = rnd((4, 3, 6))
    sc = rnd((1, 6))
    v = f64(x)
    mu, var = v.mean(2, keepdims=True), v.var(2, keepdims=True)
    case('layer_normalization_bcast_scale_nobias', 'LayerNormalization', [x, sc],
         [cast((v - mu) / np.sqrt(var + 1e-5) * f64(sc), np.float32)])
    sc2 = rnd((3, 1))
    mu, var = v.mean((1, 2), keepdims=True), v.var((1, 2), keepdims=True)
    b6 = rnd((6,))
    case('layer_normalization_bcast_scale2', 'LayerNormalization', [x, sc2, b6],
         [cast((v - mu) / np.sqrt(var + 1e-5) * f64(sc2) + f64(b6), np.float32)], axis=1)
    big = rnd((256, 768))
    v = f64(big)
    sc, b = rnd((768,)), rnd((768,))
    mu, var = v.mean(1, keepdims=True), v.var(1, keepdims=True)
    case('layer_normalization_big', 'LayerNormalization', [big, sc, b], [cast((v - mu) / np.sqrt(var + 1e-5) * f64(sc) + f64(b), np.float32)])
    # GroupNormalization: opset 18 scale per group, 21 per channel
    for dt in [np.float32, np.float16, np.float64]:
        x = rnd((2, 6, 3, 4), dt)
        v = f64(x)
        G = 3
        g = v.reshape(2, G, -1)
        nrm = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(v.shape)
        sg, bg = rnd((G,), dt), rnd((G,), dt)
        y18 = nrm * np.repeat(f64(sg), 2).reshape(1, 6, 1, 1) + np.repeat(f64(bg), 2).reshape(1, 6, 1, 1)
        case('group_normalization18_%s' % tname(dt), 'GroupNormalization', [x, sg, bg], [cast(y18, dt)], opset=18, num_groups=G)
        sc, bc = rnd((6,), dt), rnd((6,), dt)
        y21 = nrm * f64(sc).reshape(1, 6, 1, 1) + f64(bc).reshape(1, 6, 1, 1)
        case('group_normalization21_%s' % tname(dt), 'GroupNormalization', [x, sc, bc], [cast(y21, dt)], opset=21, num_groups=G)
    # LpNormalization
    for p in (1, 2):
        for axis in (0, 1, -1):
            x = rnd((3, 4, 5))
            v = f64(x)
            nrm = np.sum(np.abs(v), axis=axis, keepdims=True) if p == 1 else np.sqrt(np.sum(v * v, axis=axis, keepdims=True))
            case('lpnormalization_p%d_ax%d' % (p, axis % 3), 'LpNormalization', [x], [cast(v / nrm, np.float32)], axis=axis, p=p)
    x = rnd((2, 3), np.float16)
    case('lpnormalization_f16', 'LpNormalization', [x], [cast(f64(x) / np.sqrt(np.sum(f64(x) ** 2, 1, keepdims=True)), np.float16)])
    # MeanVarianceNormalization
    for axes in (None, [2, 3], [1], [0, 1, 2, 3]):
        x = rnd((2, 3, 4, 5))
        v = f64(x)
        ax = (0, 2, 3) if axes is None else tuple(axes)
        mu = v.mean(ax, keepdims=True)
        sd = np.sqrt((v * v).mean(ax, keepdims=True) - mu * mu)
        kw = {} if axes is None else {'axes': axes}
        case('mvn_%s' % ('default' if axes is None else '_'.join(map(str, axes))), 'MeanVarianceNormalization', [x],
             [cast((v - mu) / (sd + 1e-9), np.float32)], opset=13, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--runner')
    args = ap.parse_args()
    np.seterr(all='ignore')
    gen_unary()
    gen_clip_dropout()
    gen_binary()
    gen_reduce()
    gen_arg_cumsum()
    gen_softmax()
    gen_norm()
    root = os.path.join(args.out, 'node')
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    names = set()
    for name, op, ins, outs, opset, consts, attrs in CASES:
        assert name not in names, name
        names.add(name)
        write(root, name, op, ins, outs, opset, consts, attrs)
    print('%d cases written to %s' % (len(CASES), root))
    if args.runner:
        sys.stdout.flush()
        return subprocess.call([args.runner, root, 'kew'])
    return 0


if __name__ == '__main__':
    sys.exit(main())
