#!/usr/bin/python3
"""Writes the torchvision sweep set into a models folder (scripts/models.sh
--set torchvision calls this, into models/tv/): every torchvision
classification and segmentation family that exports offline, exported to
ONNX with random weights (weights=None: there are no pretrained weights
offline), and its own manifest.json.

Weights follow export_models.py's recipe (imported from it, not copied):
torch.manual_seed(0) init, BatchNorm statistics calibrated on one random
batch and BN affine params randomised. Segmentation models export their
"out" head only (no auxiliary classifier), at 1x3x320x320.

The set is opt-in: `make test` and `make models` leave it alone; its ctest
entries (label "models_tv") skip while models/tv/ is absent."""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models as em  # noqa: E402

SEG_HW = 320
# name, torchvision constructor, kind ("cls" 224x224 unless said, "seg"),
# input side, opset. Tier 1 is the smallest variant of each family; tier 2
# the remaining variants (--tier 2 adds them).
TV_SET = [
    ("alexnet", "alexnet", "cls", 224, 17, 1),
    ("vgg11", "vgg11", "cls", 224, 17, 1),
    ("resnet18", "resnet18", "cls", 224, 17, 1),
    ("resnext50_32x4d", "resnext50_32x4d", "cls", 224, 17, 1),
    ("wide_resnet50_2", "wide_resnet50_2", "cls", 224, 17, 1),
    ("densenet121", "densenet121", "cls", 224, 17, 1),
    ("googlenet", "googlenet", "cls", 224, 17, 1),
    ("inception_v3", "inception_v3", "cls", 299, 17, 1),
    ("mobilenet_v2", "mobilenet_v2", "cls", 224, 17, 1),
    ("mobilenet_v3_small", "mobilenet_v3_small", "cls", 224, 17, 1),
    ("mnasnet0_5", "mnasnet0_5", "cls", 224, 17, 1),
    ("regnet_x_400mf", "regnet_x_400mf", "cls", 224, 17, 1),
    ("regnet_y_400mf", "regnet_y_400mf", "cls", 224, 17, 1),
    ("efficientnet_b0", "efficientnet_b0", "cls", 224, 17, 1),
    ("efficientnet_v2_s", "efficientnet_v2_s", "cls", 224, 17, 1),
    ("convnext_tiny", "convnext_tiny", "cls", 224, 17, 1),
    ("swin_t", "swin_t", "cls", 224, 17, 1),
    ("squeezenet1_0", "squeezenet1_0", "cls", 224, 17, 1),
    ("shufflenet_v2_x0_5", "shufflenet_v2_x0_5", "cls", 224, 17, 1),
    ("fcn_resnet50", "fcn_resnet50", "seg", SEG_HW, 17, 1),
    ("deeplabv3_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "seg", SEG_HW, 17, 1),
    ("lraspp_mobilenet_v3_large", "lraspp_mobilenet_v3_large", "seg", SEG_HW, 17, 1),
    # tier 2
    ("vgg16_bn", "vgg16_bn", "cls", 224, 17, 2),
    ("resnet34", "resnet34", "cls", 224, 17, 2),
    ("resnet101", "resnet101", "cls", 224, 17, 2),
    ("densenet169", "densenet169", "cls", 224, 17, 2),
    ("mobilenet_v3_large", "mobilenet_v3_large", "cls", 224, 17, 2),
    ("mnasnet1_0", "mnasnet1_0", "cls", 224, 17, 2),
    ("regnet_y_1_6gf", "regnet_y_1_6gf", "cls", 224, 17, 2),
    ("efficientnet_b3", "efficientnet_b3", "cls", 224, 17, 2),
    ("squeezenet1_1", "squeezenet1_1", "cls", 224, 17, 2),
    ("shufflenet_v2_x1_0", "shufflenet_v2_x1_0", "cls", 224, 17, 2),
    ("convnext_small", "convnext_small", "cls", 224, 17, 2),
    ("deeplabv3_resnet50", "deeplabv3_resnet50", "seg", SEG_HW, 17, 2),
]


def build(torch, ctor, kind, side, path, opset):
    import torchvision
    torch.manual_seed(0)
    if kind == "seg":
        net = getattr(torchvision.models.segmentation, ctor)(weights=None, weights_backbone=None,
                                                            aux_loss=False)

        class Out(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]
        model, outs = Out(net), ["out"]
    else:
        extra = {"aux_logits": False, "init_weights": True} if ctor in ("googlenet", "inception_v3") else {}
        model, outs = getattr(torchvision.models, ctor)(weights=None, **extra), ["logits"]
    em.calibrate_bn(torch, model, (4 if kind == "cls" else 2, 3, side, side))
    torch.manual_seed(0)
    em.export(torch, model, (torch.randn(1, 3, side, side),), path, opset, ["input"], outs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="models folder of the set (models/tv)")
    ap.add_argument("--only", default="", help="comma list of model names")
    ap.add_argument("--tier", type=int, default=1, help="1: one variant per family; 2: all")
    ap.add_argument("--manifest-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    torch = None
    t_all = time.time()
    for name, ctor, kind, side, opset, tier in TV_SET:
        if a.manifest_only or (only and name not in only) or (not only and tier > a.tier):
            continue
        path = os.path.join(a.out, f"{name}.onnx")
        rec = em.recipe_of("tv", name, ctor, kind, side, opset)
        if em.stamp_ok(path, rec):
            continue
        torch = torch or em.torch_setup()
        t = time.time()
        try:
            build(torch, ctor, kind, side, path, opset)
        except Exception as e:  # one family that does not export must not stop the rest
            em.log(f"{name}: export failed: {type(e).__name__}: {str(e)[:300]}")
            continue
        em.write_stamp(path, rec)
        em.log(f"exported {name} ({os.path.getsize(path) / 1e6:.1f} MB) in {time.time() - t:.1f} s")

    models = []
    src = "torchvision {} (weights=None, torch.manual_seed(0) init; BN stats calibrated on random data)"
    for name, ctor, kind, side, _, tier in TV_SET:
        if os.path.exists(os.path.join(a.out, f"{name}.onnx")):
            e = em.entry(name, f"{name}.onnx", "classifier" if kind == "cls" else "segmenter",
                         src.format(ctor) + ("" if kind == "cls" else f", 'out' head at {side}x{side}"),
                         a.out, top1_axis=-1 if kind == "cls" else None)
            e["tier"] = tier
            models.append(e)
    man = {"version": 1, "recipe": em.RECIPE_VERSION, "set": "torchvision",
           "note": "torchvision sweep (issue 23): random weights, no pretrained weights offline.",
           "models": models}
    with open(os.path.join(a.out, "manifest.json.tmp"), "w") as f:
        json.dump(man, f, indent=1)
    os.replace(os.path.join(a.out, "manifest.json.tmp"), os.path.join(a.out, "manifest.json"))
    em.log(f"torchvision manifest: {len(models)} models ({time.time() - t_all:.1f} s)")


if __name__ == "__main__":
    main()
