"""Accuracy-driven mixed precision (--target-cosine): after calibration, the
layers that cost the most accuracy are kept in float, one at a time, until
the quantised model's cosine similarity to fp32 on held-out inputs meets the
target (what AMCT's accuracy-based automatic calibration does).

The search reuses the calibrated ranges and channel means: a variant with
some layers in float is the same plan with those nodes skipped, written and
run again, no new calibration. Candidates are ranked by their measured
effect: each quantised layer (or the `probe` ones with the lowest SQNR) is
kept in float on its own and the cosine it recovers is measured (a high
SQNR does not make a layer harmless: the first convolution's input
quantisation costs MobileNetV2 more than any low-SQNR layer); then, from
the largest gain down, a layer stays in float only when adding it raises
the cosine, until the target is met or `max_layers` are in float; when the
gains run out first, the layers left are probed again on top of those kept
(up to three rounds). With rank "cost" the gains are taken in the order
of gain per unit of the layer's float cost (cost.py: its MACs plus its
int8/float conversions), so that cheap layers go first, and with a budget
(a fraction of the model's MACs) a layer that would take the float cost
past it is passed over. The score of a model is the lowest, over its outputs,
of the mean cosine over the search samples; a variant the runner cannot
load or run scores -1 (never chosen).
"""
import numpy as np

from . import QuantError, qdq, report, runner


class Search:
    """What a variant of the quantised model needs, computed once: the
    pre-processed float model, the calibrated ranges and channel means, the
    search inputs and their fp32 outputs."""

    def __init__(self, args, model, calibrated, inputs, fp_outs):
        self.args, self.model = args, model
        self.ranges, self.means, self.not_float = calibrated
        self.inputs, self.fp_outs = inputs, fp_outs
        self.names = [o.name for o in model.graph.output]
        self.classifier = report.is_classifier(model)
        self.runs = 0

    def build(self, extra_skip):
        """The QDQ model with the nodes of extra_skip (labels) in float too."""
        plan = qdq.plan_static(self.model, list(self.args.skip_list) + list(extra_skip),
                               self.args.per_tensor, self.not_float, self.args.act_tables)
        params = qdq.resolve_params(plan, self.ranges)
        base = qdq.correct_biases(self.model, plan, self.means) if self.args.bias_correction else self.model
        return qdq.write_static(base, plan, params)

    def score(self, extra_skip):
        """The lowest per-output mean cosine to fp32 over the search inputs."""
        self.runs += 1
        try:
            run = runner.make_runner(self.args.runner, self.build(extra_skip))
        except QuantError:
            return -1.0
        try:
            acc = report.Accuracy(self.names, self.classifier)
            for arrays, ref in zip(self.inputs, self.fp_outs):
                acc.add(ref, run.run(arrays))
        except QuantError:
            return -1.0
        finally:
            run.close()
        return min(o["cosine_mean"] for o in acc.summary()["outputs"].values())


def candidates(layers, probe):
    """The `probe` quantised nodes with the lowest SQNR (from the report's
    layer table), lowest first; probe 0: all of them."""
    rows = [r for r in layers if r.get("min_sqnr_db") is not None]
    rows.sort(key=lambda r: r["min_sqnr_db"])
    return [r["node"] for r in (rows[:probe] if probe > 0 else rows)]


def order(gains, rank, marginal):
    """The probed (gain, label) pairs in the order they are tried: largest
    gain first, or with rank "cost" largest gain per unit of the cost the
    layer adds to those kept (marginal: label -> that cost; a layer that
    adds none counts as adding 1); non-positive gains last."""
    if rank == "gain":
        return sorted(gains, key=lambda g: -g[0])
    return sorted(gains, key=lambda g: (g[0] <= 0.0, -g[0] / max(marginal[g[1]], 1)))


def fallback(search, layers, target, max_layers, probe, progress=None, rounds=3, rank="gain",
             costs=None, budget=None):
    """Greedy float fallback; returns the report's "fallback" entry, whose
    "float_layers" lists the nodes kept in float, in the order chosen.
    A round probes every candidate not yet in float on top of those kept
    and then takes the positive gains, largest first, while each still
    raises the cosine; the next round probes again from there (a layer's
    gain alone is blurred by the noise of the others and can change once
    some are float), up to `rounds` rounds. costs: an object called with
    a list of labels that gives the cost of that set in float, with the
    model's MACs as .total (cost.FloatCost), needed for rank "cost" and for
    budget (the most float cost allowed, as a fraction of .total)."""
    total = costs.total if costs is not None else 0
    start = search.score([])
    out = {"target_cosine": target, "start_cosine": start, "float_layers": [], "final_cosine": start,
           "met": start >= target, "probed": 0, "rounds": 0, "rank": rank}
    if budget is not None:
        out["max_float_cost"] = budget
    spent = 0
    cands = candidates(layers, probe)
    kept, best = [], start
    while best < target and len(kept) < max_layers and out["rounds"] < rounds:
        out["rounds"] += 1
        gains = []
        for label in cands:
            if label not in kept:
                gains.append((search.score(kept + [label]) - best, label))
                if progress:
                    progress.step()
        out["probed"] += len(gains)
        added = 0
        base = costs(kept) if costs is not None else 0
        marginal = {g[1]: costs(kept + [g[1]]) - base for g in gains} if rank == "cost" else None
        for gain, label in order(gains, rank, marginal):
            if best >= target or len(kept) >= max_layers or gain <= 0.0:
                break
            if budget is not None and costs(kept + [label]) > budget * total:
                continue
            c = best + gain if not added else search.score(kept + [label])
            if c > best:
                kept.append(label)
                best = c
                added += 1
                now = costs(kept) if costs is not None else 0
                out["float_layers"].append({"node": label, "cosine_alone": start + gain if out["rounds"] == 1
                                            else None, "cosine_after": c, "round": out["rounds"],
                                            "cost_added": now - spent if costs is not None else None})
                spent = now
        if not added:
            break
    out.update(final_cosine=best, met=best >= target, evaluations=search.runs)
    if total:
        out.update(float_cost=spent, total_macs=total, float_cost_fraction=spent / total)
    return out


def check_args(args):
    """Bad --target-cosine / --max-float-layers / --fallback-probe values."""
    t = args.target_cosine
    if t is None:
        return
    if not (-1.0 < t < 1.0) or not np.isfinite(t):
        raise QuantError("--target-cosine must be in (-1, 1), got %g (e.g. 0.99)" % t)
    if args.dynamic:
        raise QuantError("--target-cosine applies to static quantisation, not --dynamic")
    if args.max_float_layers < 0:
        raise QuantError("--max-float-layers must be >= 0, got %d" % args.max_float_layers)
    if args.fallback_probe < 0:
        raise QuantError("--fallback-probe must be >= 0 (0: every layer), got %d" % args.fallback_probe)
    c = args.max_float_cost
    if c is not None and (not np.isfinite(c) or not 0.0 <= c <= 1.0):
        raise QuantError("--max-float-cost must be a fraction of the model's MACs in [0, 1], got %g (e.g. 0.02)" % c)
    if args.sensitivity_samples <= 0:
        raise QuantError("--target-cosine ranks layers by their SQNR: --sensitivity-samples must be > 0")
