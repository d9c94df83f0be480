#!/usr/bin/python3
"""AIPP benchmark (BENCHMARKS.md, "AIPP"): what the preprocessing compiled
into a model costs, side by side in one process.

  1. The AIPP stage alone: a 224x224 YUV420SP image (CSC BT.601 full range,
     ImageNet mean/variance) into the float NCHW tensor a network reads.
     openacl: a model that is only the AIPP and a Mul by 1, minus the same
     Mul fed float (both compiled by atc, run with acl.mdl.execute on device
     buffers prepared once). Peer: OpenCV's cvtColor(COLOR_YUV2RGB_NV12) +
     convertTo(float32) + per-channel subtract and multiply + split into CHW
     planes, all OpenCV calls on the same bytes.
  2. A whole network: ResNet-50 (models/resnet50.onnx) compiled with that
     AIPP against the same network compiled for a float input. Target:
     within 5 % (the AIPP model includes the conversion, the float one
     does not).

Both sides of each row run in turns (blocks of --block runs each, until
--min-time has passed), so the noise of a shared machine hits them alike;
medians are compared. One thread each by default (--threads sets
OPENACL_THREADS and cv2.setNumThreads).

  bench/aipp.py --build build [--threads 1] [--min-time 5] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = H = 224
MEAN = (123.675, 116.28, 103.53)
VAR = (0.0171247538316637, 0.0175070028011204, 0.0174291938997821)
FULL = (256, 0, 359, 256, -88, -183, 256, 454, 0)   # BT.601 full range, x256


def aipp_cfg(path):
    lines = ["aipp_op {", "  aipp_mode: static", "  input_format: YUV420SP_U8",
             "  src_image_size_w: %d" % W, "  src_image_size_h: %d" % H, "  csc_switch: true"]
    lines += ["  matrix_r%dc%d: %d" % (i // 3, i % 3, v) for i, v in enumerate(FULL)]
    lines += ["  input_bias_0: 0", "  input_bias_1: 128", "  input_bias_2: 128"]
    for c in range(3):
        lines += ["  min_chn_%d: %r" % (c, MEAN[c]), "  var_reci_chn_%d: %r" % (c, VAR[c])]
    with open(path, "w") as f:
        f.write("\n".join(lines + ["}", ""]))


def mul_model(path):
    import onnx
    from onnx import TensorProto, helper
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    g = helper.make_graph([helper.make_node("Mul", ["x", "one"], ["y"])], "mul1",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, H, W])], [one])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def atc(build, onnx_path, out, cfg=None):
    cmd = [os.path.join(build, "atc"), "--model=" + onnx_path, "--framework=5", "--output=" + out]
    if cfg:
        cmd.append("--insert_op_conf=" + cfg)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("atc failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return out + ".om"


class Model:
    """A loaded model with device buffers filled once; run() is one
    acl.mdl.execute, nothing else."""

    def __init__(self, acl, path, seed):
        self.acl = acl
        self.id, ret = acl.mdl.load_from_file(path)
        check(acl, "load_from_file " + path, ret)
        self.desc = acl.mdl.create_desc()
        check(acl, "get_desc", acl.mdl.get_desc(self.desc, self.id))
        rng = np.random.default_rng(seed)
        self.sets, self.keep = [], []
        for n, size_of in ((acl.mdl.get_num_inputs(self.desc), acl.mdl.get_input_size_by_index),
                           (acl.mdl.get_num_outputs(self.desc), acl.mdl.get_output_size_by_index)):
            ds = acl.mdl.create_dataset()
            for i in range(n):
                size = size_of(self.desc, i)
                dev, ret = acl.rt.malloc(size, 0)
                check(acl, "malloc", ret)
                host = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
                check(acl, "memcpy", acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(host), size, 1))
                buf = acl.create_data_buffer(dev, size)
                check(acl, "add_dataset_buffer", acl.mdl.add_dataset_buffer(ds, buf)[1])
                self.keep.append((dev, buf))
            self.sets.append(ds)
        self.input_size = acl.mdl.get_input_size_by_index(self.desc, 0)

    def run(self):
        return self.acl.mdl.execute(self.id, self.sets[0], self.sets[1])


def check(acl, what, ret):
    if ret != 0:
        sys.exit("%s failed: %d %s" % (what, ret, acl.get_recent_err_msg()))


def opencv_stage(cv2):
    """The peer: NV12 bytes -> normalised float CHW with OpenCV calls
    (cvtColor, subtract with a float32 result, multiply, split), the
    planes landing in one contiguous [1,3,H,W] buffer as a network reads."""
    mean_img = np.ascontiguousarray(np.broadcast_to(np.array(MEAN, np.float32), (H, W, 3)))
    var_img = np.ascontiguousarray(np.broadcast_to(np.array(VAR, np.float32), (H, W, 3)))
    nv12 = np.random.default_rng(3).integers(0, 256, (H * 3 // 2, W), dtype=np.uint8)
    rgb = np.empty((H, W, 3), np.uint8)
    f = np.empty((H, W, 3), np.float32)
    out = np.empty((1, 3, H, W), np.float32)

    def stage():
        cv2.cvtColor(nv12, cv2.COLOR_YUV2RGB_NV12, dst=rgb)
        cv2.subtract(rgb, mean_img, dst=f, dtype=cv2.CV_32F)
        cv2.multiply(f, var_img, dst=f)
        for c, plane in enumerate(cv2.split(f)):
            out[0, c] = plane
        return 0
    return stage, nv12, out


def paired(a, b, block, min_time, min_runs=30):
    """Runs a and b in turns; returns the two lists of per-run seconds."""
    ta, tb = [], []
    for f in (a, b):
        for _ in range(3):
            f()
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(ta) < min_runs:
        for f, out in ((a, ta), (b, tb)):
            for _ in range(block):
                t = time.perf_counter()
                f()
                out.append(time.perf_counter() - t)
    return ta, tb


def med(v):
    return float(np.median(v)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "build"))
    ap.add_argument("--models", default=os.path.join(HERE, "models"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=5.0)
    ap.add_argument("--block", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ["OPENACL_THREADS"] = str(args.threads)
    sys.path.insert(0, os.path.join(os.path.abspath(args.build), "python"))
    import acl
    import cv2
    cv2.setNumThreads(args.threads)
    result = {"threads": args.threads, "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "aipp.cfg")
        aipp_cfg(cfg)
        mul = os.path.join(tmp, "mul1.onnx")
        mul_model(mul)
        plain_om, aipp_om = atc(args.build, mul, os.path.join(tmp, "mul1")), \
            atc(args.build, mul, os.path.join(tmp, "mul1_aipp"), cfg)
        resnet = os.path.join(args.models, "resnet50.onnx")
        nets = None
        if os.path.exists(resnet):
            nets = (atc(args.build, resnet, os.path.join(tmp, "r50")),
                    atc(args.build, resnet, os.path.join(tmp, "r50_aipp"), cfg))
        check(acl, "init", acl.init())
        check(acl, "set_device", acl.rt.set_device(0))
        m_plain, m_aipp = Model(acl, plain_om, 1), Model(acl, aipp_om, 2)
        if m_aipp.input_size != W * H * 3 // 2:
            sys.exit("the AIPP model's input is %d bytes, not NV12 %dx%d" % (m_aipp.input_size, W, H))
        cv_stage, _, _ = opencv_stage(cv2)
        # three-way turns: the AIPP model, the Mul model, OpenCV
        ta, tp = paired(m_aipp.run, m_plain.run, args.block, args.min_time / 2)
        tc, ta2 = paired(cv_stage, m_aipp.run, args.block, args.min_time / 2)
        aipp_ms = med(ta + ta2) - med(tp)
        result["stage"] = {"aipp_model_ms": med(ta + ta2), "mul_model_ms": med(tp), "aipp_stage_ms": aipp_ms,
                           "opencv_ms": med(tc), "opencv_over_aipp": med(tc) / aipp_ms}
        print("AIPP stage 224x224 YUV420SP: openacl %.3f ms (AIPP+Mul %.3f - Mul %.3f), OpenCV %.3f ms: %.2fx"
              % (aipp_ms, med(ta + ta2), med(tp), med(tc), med(tc) / aipp_ms))
        if nets:
            r_plain, r_aipp = Model(acl, nets[0], 4), Model(acl, nets[1], 5)
            tf, tq = paired(r_plain.run, r_aipp.run, max(1, args.block // 10), args.min_time * 2, 20)
            result["resnet50"] = {"float_ms": med(tf), "aipp_ms": med(tq), "aipp_over_float": med(tq) / med(tf),
                                  "runs": len(tf)}
            print("ResNet-50: float input %.3f ms, YUV420SP AIPP input %.3f ms: AIPP/float %.3f (%d runs each)"
                  % (med(tf), med(tq), med(tq) / med(tf), len(tf)))
        else:
            print("ResNet-50 row skipped: %s missing (make models)" % resnet)
    result["load_after"] = os.getloadavg()[0]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
