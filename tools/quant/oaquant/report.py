"""The report: per-layer sensitivity and the accuracy of the quantised model
against fp32.

Sensitivity is the signal-to-quantisation-noise ratio of each quantised
tensor on its own: SQNR = 10 log10(sum x^2 / sum (x - dq(q(x)))^2) in dB,
with x the float tensor (an activation over the calibration samples used,
or a weight) and dq(q(x)) its round trip through the chosen scale and zero
point. It measures the noise that quantising that one tensor adds, not the
error accumulated from earlier layers; a low value (under ~20 dB) marks a
layer worth keeping in float with --skip.

Accuracy runs both models through the same runner on held-out inputs: for
a classifier (one output, 2-D [batch, classes]) the cosine similarity of
the logits per row and the top-1 agreement; otherwise per output the cosine
similarity, max and mean absolute error.
"""
import json

import numpy as np

from . import qdq


def sqnr_db(sig, noise):
    if noise <= 0.0:
        return float("inf")
    if sig <= 0.0:
        return float("-inf")
    return float(10.0 * np.log10(sig / noise))


class Sensitivity:
    """Accumulates signal and noise energy per activation tensor."""

    def __init__(self, params):
        self.params = params
        self.sig, self.noise = {}, {}

    def add(self, name, x):
        if name not in self.params:
            return
        scale, zp = self.params[name]
        x = np.asarray(x, np.float32)
        x = np.where(np.isfinite(x), x, 0.0) if np.ndim(scale) else x[np.isfinite(x)]
        e = (x - qdq.quant_dequant(x, scale, zp)).ravel()
        x = x.ravel()
        self.sig[name] = self.sig.get(name, 0.0) + float(np.dot(x.astype(np.float64), x))
        self.noise[name] = self.noise.get(name, 0.0) + float(np.dot(e.astype(np.float64), e))

    def act(self, name):
        if name not in self.sig:
            return None
        return sqnr_db(self.sig[name], self.noise[name])


def weight_sqnr(w, axis):
    scale, q = qdq.weight_params(w, axis)
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    d = q.astype(np.float32) * scale.reshape(shape)
    w64 = w.astype(np.float64)
    return sqnr_db(float((w64 ** 2).sum()), float(((w64 - d) ** 2).sum()))


def layer_table(model, plan, sens, wsqnr):
    """One row per quantised node: its activation inputs, weight and output."""
    gr = qdq.Graph(model)
    rows = []
    acts = set(plan.acts)
    for i, n in enumerate(model.graph.node):
        label = qdq.node_label(n, i)
        if label not in plan.nodes:
            continue
        ins = [sens.act(t) for t in n.input if t in acts]
        w = [wsqnr[(label, t)] for t in n.input if (label, t) in wsqnr]
        out = plan.chains.get(label, n.output[0])
        row = {"node": label, "op": n.op_type,
               "input_sqnr_db": min(ins) if ins else None,
               "weight_sqnr_db": w[0] if w else None,
               "output": out, "output_sqnr_db": sens.act(out) if out in acts else None}
        vals = [v for v in (row["input_sqnr_db"], row["weight_sqnr_db"], row["output_sqnr_db"]) if v is not None]
        row["min_sqnr_db"] = min(vals) if vals else None
        rows.append(row)
    del gr
    return rows


def cosine(a, b):
    a = np.asarray(a, np.float64).ravel()
    b = np.asarray(b, np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0.0 and nb == 0.0:
        return 1.0
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


class Accuracy:
    """Compares quantised outputs with fp32 outputs, sample by sample."""

    def __init__(self, out_names, classifier):
        self.names, self.classifier = out_names, classifier
        self.cos = {n: [] for n in out_names}
        self.maxerr = {n: 0.0 for n in out_names}
        self.abssum = {n: 0.0 for n in out_names}
        self.count = {n: 0 for n in out_names}
        self.top1 = [0, 0]

    def add(self, ref, got):
        for n in self.names:
            r = np.asarray(ref[n], np.float64)
            g = np.asarray(got[n], np.float64)
            if self.classifier:
                for rr, gg in zip(r.reshape(r.shape[0], -1), g.reshape(g.shape[0], -1)):
                    self.cos[n].append(cosine(rr, gg))
                    self.top1[0] += int(np.argmax(rr) == np.argmax(gg))
                    self.top1[1] += 1
            else:
                self.cos[n].append(cosine(r, g))
            if r.size:
                d = np.abs(r - g)
                self.maxerr[n] = max(self.maxerr[n], float(d.max()))
                self.abssum[n] += float(d.sum())
                self.count[n] += int(d.size)

    def summary(self):
        out = {"classifier": self.classifier, "outputs": {}}
        for n in self.names:
            c = self.cos[n]
            out["outputs"][n] = {
                "cosine_mean": float(np.mean(c)) if c else None, "cosine_min": float(np.min(c)) if c else None,
                "max_abs_error": self.maxerr[n],
                "mean_abs_error": self.abssum[n] / self.count[n] if self.count[n] else None}
        if self.classifier:
            out["top1_agreement"] = self.top1[0] / self.top1[1] if self.top1[1] else None
            out["rows"] = self.top1[1]
        return out


def is_classifier(model):
    outs = model.graph.output
    if len(outs) != 1:
        return False
    dims = outs[0].type.tensor_type.shape.dim
    return len(dims) == 2 and dims[1].HasField("dim_value") and dims[1].dim_value > 1


def fmt_db(v):
    if v is None:
        return "-"
    if v == float("inf"):
        return "inf"
    return "%.1f" % v


def text(rep, worst=15):
    """The human-readable report."""
    lines = ["openacl-quant: %s -> %s" % (rep["model"], rep["output"]),
             "  mode %s, calibration %s, %d calibration sample(s), runner %s" % (
                 rep["mode"], rep.get("method") or "-", rep.get("calibration_samples", 0), rep["runner"])]
    if rep.get("preprocess"):
        lines.append("  pre-processed: %s" % ", ".join("%d %s" % (v, k) for k, v in sorted(rep["preprocess"].items())))
    eq = rep.get("equalize")
    if eq is not None:
        rows = eq["streams"]
        lines.append("  equalised (alpha %g): %d stream(s), %d tensor(s); widest channel range / median %.2f -> %.2f"
                     % (eq["alpha"], len(rows), sum(r["tensors"] for r in rows),
                        max([r["range_ratio_before"] for r in rows] or [1.0]),
                        max([r["range_ratio_after"] for r in rows] or [1.0])))
    q = rep["quantized_ops"]
    lines.append("  quantised nodes: %s" % (", ".join("%d %s" % (v, k) for k, v in sorted(q.items())) or "none"))
    lines.extend(fallback_lines(rep.get("fallback")))
    if rep.get("skipped"):
        lines.append("  kept in float by --skip: %d node(s)" % len(rep["skipped"]))
    layers = [r for r in rep.get("layers", []) if r.get("min_sqnr_db") is not None]
    if layers:
        layers.sort(key=lambda r: r["min_sqnr_db"])
        lines.append("  sensitivity: SQNR in dB of each quantised tensor alone on %d calibration sample(s); "
                     "lowest first (%d of %d layers):" % (rep.get("sensitivity_samples", 0),
                                                          min(worst, len(layers)), len(layers)))
        lines.append("    %-40s %-18s %8s %8s %8s" % ("node", "op", "input", "weight", "output"))
        for r in layers[:worst]:
            lines.append("    %-40s %-18s %8s %8s %8s" % (r["node"][:40], r["op"], fmt_db(r["input_sqnr_db"]),
                                                          fmt_db(r["weight_sqnr_db"]),
                                                          fmt_db(r["output_sqnr_db"])))
    acc = rep.get("accuracy")
    if acc:
        lines.append("  accuracy vs fp32 on %d held-out sample(s) (%s):" % (acc["samples"], acc["source"]))
        if acc.get("classifier"):
            lines.append("    top-1 agreement %.2f %% over %d row(s)" % (100.0 * acc["top1_agreement"], acc["rows"]))
        for n, o in acc["outputs"].items():
            lines.append("    %s: cosine mean %.6f min %.6f, max |err| %.4g, mean |err| %.4g" % (
                n, o["cosine_mean"], o["cosine_min"], o["max_abs_error"], o["mean_abs_error"]))
    else:
        lines.append("  accuracy: not measured (%s)" % rep.get("accuracy_note", "no held-out inputs"))
    for w in rep.get("warnings", []):
        lines.append("  warning: " + w)
    return "\n".join(lines)


def fallback_lines(fb):
    """The --target-cosine search, for the text report."""
    if not fb:
        return []
    out = ["  float fallback (--target-cosine %s, %d held-out sample(s)): cosine %.6f -> %.6f, %s, "
           "%d layer(s) in float, %d evaluation(s):" % (
               fb["target_cosine"], fb.get("samples", 0), fb["start_cosine"], fb["final_cosine"],
               "met" if fb["met"] else "NOT met", len(fb["float_layers"]), fb.get("evaluations", 0))]
    for f in fb["float_layers"]:
        alone = "cosine alone %.6f, " % f["cosine_alone"] if f.get("cosine_alone") is not None else ""
        out.append("    %-48s round %d: %swith the ones above %.6f" % (
            f["node"][:48], f.get("round", 1), alone, f["cosine_after"]))
    return out


def write_json(rep, path):
    def clean(v):
        if isinstance(v, float) and not np.isfinite(v):
            return "inf" if v > 0 else ("-inf" if v < 0 else "nan")
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v
    with open(path, "w") as f:
        json.dump(clean(rep), f, indent=1)
        f.write("\n")
