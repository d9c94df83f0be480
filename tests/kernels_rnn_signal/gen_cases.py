#!/usr/bin/python3
"""Extra ONNX node tests for the kernels of tests/kernels_rnn_signal (recurrent
layers, signal ops, RoiAlign, MaxUnpool, Det, ...) covering what the ONNX 1.12
backend tests do not: reverse and bidirectional recurrences with sequence
lengths, initial states, clip and non-default activations, GRU in both reset
modes, LSTM peepholes and input_forget; DFT/STFT variants; more RoiAlign and
MaxUnpool shapes. Expected outputs come from ONNX Runtime (npm onnxruntime-node
through tools/ortref/ortref.js), an independent implementation.

usage: gen_cases.py --out DIR [--runner ENGINE_RUNNER]
Writes DIR/node/test_kx_<name>/{model.onnx,test_data_set_0/*.pb} (the layout
of the ONNX test data); with --runner, runs the engine's backend runner over
DIR and exits with its status. Exits 77 (skip) when node or onnxruntime-node
is not available."""
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
RNG = np.random.default_rng(20240917)
NP2ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
           np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64,
           np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
           np.dtype(np.float16): TensorProto.FLOAT16}

CASES = []


def case(name, op, inputs, n_out, attrs=None, opset=17, domain='', out_names=None, input_names=None,
         out_types=None, expected=None):
    """inputs: list of numpy arrays or None (omitted optional input); out_types:
    ONNX element types of the outputs (default: float); expected: the outputs
    when they are not ONNX Runtime's (where it departs from the spec)."""
    CASES.append(dict(name=name, op=op, inputs=inputs, n_out=n_out, attrs=attrs or {},
                      opset=opset, domain=domain, out_names=out_names, input_names=input_names,
                      out_types=out_types, expected=expected))


def f32(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# ---- recurrent layers -------------------------------------------------------

def rnn_case(name, op, S, B, I, H, direction='forward', bias=True, seq=None, h0=False, c0=False,
             peep=False, n_out=None, **attrs):
    G = {'RNN': 1, 'GRU': 3, 'LSTM': 4}[op]
    D = 2 if direction == 'bidirectional' else 1
    ins = [f32(S, B, I), f32(D, G * H, I, scale=0.5), f32(D, G * H, H, scale=0.5),
           f32(D, 2 * G * H, scale=0.3) if bias else None,
           np.asarray(seq, np.int32) if seq is not None else None,
           f32(D, B, H) if h0 else None]
    if op == 'LSTM':
        ins += [f32(D, B, H) if c0 else None, f32(D, 3 * H, scale=0.5) if peep else None]
    while ins[-1] is None:
        ins.pop()
    if n_out is None:
        n_out = 3 if op == 'LSTM' else 2
    attrs = dict(attrs, hidden_size=H, direction=direction)
    case(name, op, ins, n_out, attrs, opset=14)


def rnn_cases():
    rnn_case('rnn_reverse_seq', 'RNN', 5, 3, 4, 6, 'reverse', seq=[5, 2, 3], h0=True)
    rnn_case('rnn_bidir_relu_clip', 'RNN', 4, 2, 3, 5, 'bidirectional', seq=[4, 1], h0=True,
             activations=['Relu', 'Tanh'], clip=1.5)
    rnn_case('rnn_leaky_nobias', 'RNN', 3, 2, 3, 4, bias=False, activations=['LeakyRelu'],
             activation_alpha=[0.2])
    rnn_case('gru_bidir_seq', 'GRU', 5, 3, 4, 5, 'bidirectional', seq=[5, 3, 1], h0=True)
    rnn_case('gru_reverse_lbr', 'GRU', 4, 2, 3, 6, 'reverse', h0=True, linear_before_reset=1)
    rnn_case('gru_bidir_lbr_seq', 'GRU', 6, 2, 3, 4, 'bidirectional', seq=[2, 6],
             linear_before_reset=1)
    rnn_case('gru_hsig_clip', 'GRU', 4, 2, 5, 3, activations=['HardSigmoid', 'Tanh'],
             activation_alpha=[0.3], activation_beta=[0.4], clip=0.8)
    rnn_case('lstm_bidir_peep_seq', 'LSTM', 5, 3, 4, 4, 'bidirectional', seq=[5, 2, 4], h0=True,
             c0=True, peep=True)
    rnn_case('lstm_reverse_forget', 'LSTM', 4, 2, 3, 5, 'reverse', h0=True, c0=True,
             input_forget=1)
    rnn_case('lstm_acts_clip', 'LSTM', 3, 2, 4, 3, activations=['Sigmoid', 'Softsign', 'Tanh'],
             clip=0.7, seq=[3, 2])
    rnn_case('lstm_y_only', 'LSTM', 3, 1, 2, 3, bias=False, n_out=1)


# ---- signal ops -------------------------------------------------------------

def signal_cases():
    I64 = lambda v: np.asarray(v, np.int64)
    real = f32(2, 12, 3, 1)
    cplx = f32(2, 7, 3, 2)
    case('dft_real_axis1_onesided', 'DFT', [real], 1, dict(axis=1, onesided=1))
    case('dft_real_pad', 'DFT', [real, I64(16)], 1, dict(axis=1))
    case('dft_real_truncate_onesided', 'DFT', [real, I64(9)], 1, dict(axis=1, onesided=1))
    case('dft_complex_axis2', 'DFT', [cplx], 1, dict(axis=2))
    case('dft_complex_inverse_len', 'DFT', [cplx, I64(5)], 1, dict(axis=1, inverse=1))
    case('dft_opset20_axis_input', 'DFT', [real, None, I64(2)], 1, dict(onesided=1), opset=20)
    case('dft_opset20_default_axis', 'DFT', [cplx], 1, {}, opset=20)
    case('dft_double', 'DFT', [f32(3, 8, 1).astype(np.float64)], 1, dict(axis=1),
         out_types=[TensorProto.DOUBLE])
    sig = f32(2, 40, 1)
    case('stft_window_and_length', 'STFT', [sig, I64(6), f32(10), I64(10)], 1)
    case('stft_two_sided', 'STFT', [sig, I64(5), None, I64(8)], 1, dict(onesided=0))
    # (no complex-signal STFT: ONNX Runtime 1.30 returns wrong values for it;
    # complex transforms are covered by the DFT cases)
    case('stft_int32_params', 'STFT', [sig, np.asarray(9, np.int32), None, np.asarray(12, np.int32)], 1)
    for w in ('HannWindow', 'HammingWindow', 'BlackmanWindow'):
        case(w.lower() + '_double_17', w, [I64(17)], 1, dict(output_datatype=TensorProto.DOUBLE),
             out_types=[TensorProto.DOUBLE])
        case(w.lower() + '_symmetric_7', w, [np.asarray(7, np.int32)], 1, dict(periodic=0))
    case('mel_40_512', 'MelWeightMatrix', [I64(40), I64(512), I64(16000), np.float32(20.0),
                                            np.float32(7600.0)], 1)
    case('mel_10_64_double', 'MelWeightMatrix', [np.asarray(10, np.int32), np.asarray(64, np.int32),
                                                  np.asarray(8000, np.int32), np.float32(100.0),
                                                  np.float32(3000.0)], 1,
         dict(output_datatype=TensorProto.DOUBLE), out_types=[TensorProto.DOUBLE])


# ---- RoiAlign, MaxUnpool, Det ----------------------------------------------

def misc_cases():
    X = f32(2, 3, 12, 10)
    rois = np.asarray([[0.5, 1.0, 7.2, 9.9], [2.0, 2.0, 3.0, 3.5], [-1.5, 0.0, 11.0, 13.0],
                       [4.0, 6.0, 4.2, 6.1]], np.float32)
    bidx = np.asarray([1, 0, 1, 0], np.int64)
    case('roialign_max_adaptive', 'RoiAlign', [X, rois, bidx], 1,
         dict(mode='max', output_height=3, output_width=4), opset=16)
    case('roialign_avg_scale_ratio3', 'RoiAlign', [X, rois * 2, bidx], 1,
         dict(output_height=2, output_width=2, sampling_ratio=3, spatial_scale=0.5), opset=16)
    case('roialign_opset10', 'RoiAlign', [X, rois, bidx], 1,
         dict(output_height=4, output_width=3, sampling_ratio=2), opset=10)
    case('roialign_output_half_pixel_max', 'RoiAlign', [X, rois, bidx], 1,
         dict(mode='max', coordinate_transformation_mode='output_half_pixel', output_height=2,
              output_width=3), opset=16)
    # MaxUnpool of what MaxPool picked (indices over the whole tensor)
    x = f32(2, 3, 6, 8)
    xv = np.lib.stride_tricks.sliding_window_view(x, (2, 2), axis=(2, 3))[:, :, ::2, ::2]
    flat = xv.reshape(2, 3, 3, 4, 4)
    am = flat.argmax(-1)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    ii, jj = np.meshgrid(np.arange(3), np.arange(4), indexing='ij')
    r = ii * 2 + am // 2
    c = jj * 2 + am % 2
    nc = np.arange(6).reshape(2, 3, 1, 1)
    idx = (nc * 48 + r * 8 + c).astype(np.int64)
    case('maxunpool_2d', 'MaxUnpool', [vals.astype(np.float32), idx], 1,
         dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11)
    # A larger output_shape pads the unpooled tensor and the indices keep
    # addressing the unpooled (6x8) grid, as the spec says ("the linear
    # indices should not consider padding") and the ONNX test data has it.
    # ONNX Runtime 1.30 indexes the padded output instead, so NumPy computes
    # the expected values here.
    big = np.zeros((2, 3, 7, 9), np.float32)
    pos = np.unravel_index(idx.ravel(), (2, 3, 6, 8))
    big[pos] = vals.ravel()
    case('maxunpool_2d_output_shape', 'MaxUnpool',
         [vals.astype(np.float32), idx, np.asarray([2, 3, 7, 9], np.int64)], 1,
         dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11, expected=[big])
    x1 = f32(1, 2, 5)
    idx1 = np.asarray([[[0, 3, 5, 7, 8], [0, 2, 4, 6, 9]]], np.int64) + np.asarray([[[0], [10]]])
    case('maxunpool_1d_pads', 'MaxUnpool', [x1, idx1], 1,
         dict(kernel_shape=[3], strides=[2], pads=[1, 0]), opset=11)
    m = f32(2, 3, 4, 4)
    m[1, 2] = 0
    m[0, 1, 3] = m[0, 1, 0] * 2
    case('det_batched_4x4', 'Det', [m], 1, {}, opset=11)
    case('det_3x3', 'Det', [f32(5, 3, 3)], 1, {}, opset=11)   # (ORT has float32 Det only)

    toks = RNG.integers(0, 6, size=(3, 14)).astype(np.int64)
    pool = dict(ngram_counts=[0, 4, 12], ngram_indexes=[3, 0, 1, 2, 7, 4, 5, 6, 8, 9],
                pool_int64s=[0, 1, 2, 3, 1, 2, 3, 4, 0, 5, 2, 2, 1, 2, 3, 5, 5, 0])
    case('tfidf_tfidf_3grams', 'TfIdfVectorizer', [toks], 1,
         dict(pool, mode='TFIDF', min_gram_length=1, max_gram_length=3, max_skip_count=2,
              weights=[0.5, 1.5, 2.0, 0.25, 1.0, 3.0, 0.1, 0.2, 4.0, 1.25]), opset=9)
    case('tfidf_idf_bigrams', 'TfIdfVectorizer', [toks[0].astype(np.int32)], 1,
         dict(pool, mode='IDF', min_gram_length=2, max_gram_length=3, max_skip_count=1,
              weights=[1.0] * 4 + [0.5, 1.5, 2.0, 0.25, 3.0, 0.75]), opset=9)


# ---- driver -----------------------------------------------------------------

def build_model(c):
    ins, names, graph_in = [], [], []
    for i, a in enumerate(c['inputs']):
        if a is None:
            names.append('')
            continue
        nm = c['input_names'][i] if c['input_names'] else 'in%d' % i
        names.append(nm)
        ins.append((nm, a))
        graph_in.append(helper.make_tensor_value_info(nm, NP2ONNX[a.dtype], list(a.shape)))
    outs = c['out_names'] or ['out%d' % i for i in range(c['n_out'])]
    node = helper.make_node(c['op'], names, outs, domain=c['domain'] or None, **c['attrs'])
    types = c['out_types'] or [TensorProto.FLOAT] * len(outs)
    graph_out = [helper.make_tensor_value_info(o, types[i], None) for i, o in enumerate(outs) if o]
    g = helper.make_graph([node], 'kx_' + c['name'], graph_in, graph_out)
    imports = [helper.make_opsetid('', c['opset'])]
    if c['domain']:
        imports.append(helper.make_opsetid(c['domain'], 1))
    m = helper.make_model(g, opset_imports=imports, producer_name='kx_gen_cases')
    m.ir_version = 8
    return m, ins, [o for o in outs if o]


def run_ort(model_path, ins, tmp):
    files = []
    for nm, a in ins:
        p = os.path.join(tmp, nm + '.npy')
        np.save(p, a)
        files.append(p)
    od = os.path.join(tmp, 'out')
    r = subprocess.run(['node', ORTREF, '--model', model_path, '--inputs', ','.join(files),
                        '--outdir', od], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr.strip()[-2000:])
    return od


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--runner')
    ap.add_argument('--only')
    a = ap.parse_args()
    if not shutil.which('node') or not os.path.isdir(os.path.join(
            ROOT, 'third_party', 'npm', 'node_modules', 'onnxruntime-node')):
        print('gen_cases: node or onnxruntime-node missing; skipped')
        return 77
    rnn_cases()
    signal_cases()
    misc_cases()
    nd = os.path.join(a.out, 'node')
    shutil.rmtree(nd, ignore_errors=True)
    os.makedirs(nd)
    bad = 0
    for c in CASES:
        if a.only and a.only not in c['name']:
            continue
        d = os.path.join(nd, 'test_kx_' + c['name'])
        ds = os.path.join(d, 'test_data_set_0')
        os.makedirs(ds)
        m, ins, outs = build_model(c)
        mp = os.path.join(d, 'model.onnx')
        with open(mp, 'wb') as f:
            f.write(m.SerializeToString())
        with tempfile.TemporaryDirectory() as tmp:
            try:
                od = None if c['expected'] else run_ort(mp, ins, tmp)
            except RuntimeError as e:
                print('gen_cases: %s: ONNX Runtime failed: %s' % (c['name'], e))
                bad += 1
                shutil.rmtree(d)
                continue
            for i, (nm, arr) in enumerate(ins):
                with open(os.path.join(ds, 'input_%d.pb' % i), 'wb') as f:
                    f.write(numpy_helper.from_array(arr, nm).SerializeToString())
            for i, nm in enumerate(outs):
                arr = c['expected'][i] if od is None else np.load(os.path.join(od, 'output_%d.npy' % i))
                with open(os.path.join(ds, 'output_%d.pb' % i), 'wb') as f:
                    f.write(numpy_helper.from_array(arr, nm).SerializeToString())
    print('gen_cases: %d cases written to %s (%d failed in ONNX Runtime)' % (len(CASES) - bad, nd, bad))
    if bad:
        return 1
    if a.runner:
        return subprocess.run([a.runner, '--data', a.out, '--suite', 'node', '--timeout', '60',
                               '--results', os.path.join(a.out, 'results.txt'),
                               '--min-node-pass', '100']).returncode
    return 0


if __name__ == '__main__':
    sys.exit(main())
