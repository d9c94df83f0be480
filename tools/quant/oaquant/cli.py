"""openacl-quant: calibration-based int8 quantisation of an fp32 ONNX model
into a standard QDQ model (ONNX Runtime runs the same file).

  openacl-quant MODEL.onnx --calib DIR -o OUT.onnx [--method percentile|minmax|entropy]
                [--percentile 99.99] [--skip NAME,OPTYPE,...] [--per-tensor]
                [--eval DIR | --holdout 0.2] [--report FILE.json] [--runner openacl|ort]
                [--equalize [--equalize-alpha 0.9]] [--target-cosine C]
  openacl-quant MODEL.onnx --dynamic -o OUT.onnx [--calib DIR]   (transformer encoders)

Calibration runs the fp32 model through openacl on every sample of DIR
(one file per sample for a one-input model, or one sub-folder per sample;
.npy, raw .bin, or images with --mean/--std/--resize...), records the range
of each tensor to quantise, and writes the QDQ model. The report (stdout,
and --report as JSON) gives each layer's sensitivity (SQNR) and the
quantised model's accuracy against fp32 on held-out inputs.
Exit status: 0 written, 1 bad input or a failed step, 2 bad command line.
"""
import argparse
import fnmatch
import os
import sys
import time

import numpy as np
import onnx

from . import QuantError, calib, chan, cost, data, equalize, prep, qdq, report, runner, tune


def parse_floats(s, what):
    try:
        return tuple(float(v) for v in s.split(","))
    except ValueError:
        raise QuantError("%s: expected comma-separated numbers, got %r" % (what, s)) from None


def build_parser():
    ap = argparse.ArgumentParser(prog="openacl-quant", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See docs/quantization.md for the data layout and the QDQ format.")
    ap.add_argument("model", help="the fp32 ONNX model")
    ap.add_argument("-o", "--output", required=True, help="the quantised model to write")
    ap.add_argument("--calib", help="folder of calibration samples (required unless --dynamic)")
    ap.add_argument("--method", choices=calib.METHODS, default="percentile",
                    help="activation range calibrator (default percentile, with --percentile)")
    ap.add_argument("--percentile", type=float, default=99.99, help="percentile for --method percentile")
    ap.add_argument("--skip", default="",
                    help="comma-separated node names, op types or name patterns (*/fc1/Conv) kept in float")
    ap.add_argument("--per-tensor", action="store_true", help="one weight scale per tensor, not per channel")
    ap.add_argument("--per-channel-act", default="", metavar="OPS_OR_NAMES",
                    help="comma-separated op types (Mul: the x*Sigmoid(x) and squeeze-excite outputs), tensor or "
                         "node names, patterns, or `depthwise` (inputs of depthwise Convs): those activations get "
                         "one uint8 scale and zero point per channel (per-axis Q/DQ, axis 1)")
    ap.add_argument("--no-bias-correction", dest="bias_correction", action="store_false",
                    help="keep the float biases as they are (by default each Conv/Gemm bias absorbs the mean "
                         "shift that rounding its weights causes on the calibration data)")
    ap.add_argument("--no-preprocess", dest="preprocess", action="store_false",
                    help="quantise the model as it is (by default batch norms and constant Mul/Add after a Conv "
                         "fold into it and spelled-out hard-swish becomes HardSwish first)")
    ap.add_argument("--act-tables", action="store_true",
                    help="also quantise the input of each SiLU (x*Sigmoid(x)) after a layer, so the SiLU runs as "
                         "a 256-entry table: faster, one more rounding (check with --eval)")
    ap.add_argument("--equalize", action="store_true",
                    help="rescale the channels of linear activation streams (residual streams, Conv -> Relu -> "
                         "Conv) before calibration so activation and weight ranges even out; exact in float")
    ap.add_argument("--equalize-alpha", type=float, default=0.9, metavar="A",
                    help="with --equalize: s_i = range_i^A / max|w_i|^(1 - A) (default 0.9)")
    ap.add_argument("--save-preprocessed", metavar="FILE",
                    help="also write the pre-processed float model (before quantisation, after --equalize) here")
    ap.add_argument("--dynamic", action="store_true",
                    help="dynamic int8 MatMul (DynamicQuantizeLinear + MatMulInteger), no calibration")
    ap.add_argument("--eval", help="folder of held-out samples for the accuracy report")
    ap.add_argument("--holdout", type=float, default=0.2,
                    help="without --eval: the fraction of calibration samples held out for the accuracy "
                         "report (when there are at least 5; 0 = none)")
    ap.add_argument("--max-samples", type=int, default=0, help="use at most this many calibration samples")
    ap.add_argument("--sensitivity-samples", type=int, default=8,
                    help="calibration samples used for the per-layer SQNR (0 = no sensitivity)")
    ap.add_argument("--target-cosine", type=float, default=None, metavar="C",
                    help="keep the layers that cost the most accuracy in float, greedily, until the logits cosine "
                         "to fp32 on the held-out inputs reaches C (e.g. 0.99); listed in the report")
    ap.add_argument("--max-float-layers", type=int, default=8,
                    help="with --target-cosine: at most this many layers kept in float (default 8)")
    ap.add_argument("--fallback-probe", type=int, default=0,
                    help="with --target-cosine: how many of the lowest-SQNR layers are tried in float one by one "
                         "to rank them (default 0: every quantised layer)")
    ap.add_argument("--fallback-rank", choices=("gain", "cost"), default="gain",
                    help="with --target-cosine: the order layers go to float: by cosine gain (default) or by "
                         "cosine gain per unit of the layer's float cost (cost: its MACs plus 30 per element "
                         "converted between int8 and float; cheap layers first)")
    ap.add_argument("--max-float-cost", type=float, default=None, metavar="F",
                    help="with --target-cosine: the float cost of the layers kept in float (as --fallback-rank "
                         "cost counts it) at most this fraction of the model's MACs (e.g. 0.05; default: "
                         "no limit)")
    ap.add_argument("--report", help="write the report as JSON here")
    ap.add_argument("--runner", choices=sorted(runner.RUNNERS), default="openacl",
                    help="what runs the models (ort: ONNX Runtime's C API, a fallback)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    g = ap.add_argument_group("image preprocessing (for .jpg/.png calibration files)")
    g.add_argument("--resize", help="HxW (default: the model input's height and width)")
    g.add_argument("--mean", default="0", help="per-channel mean, after dividing by --pixel-scale")
    g.add_argument("--std", default="1", help="per-channel std")
    g.add_argument("--pixel-scale", type=float, default=255.0, help="pixels are divided by this first")
    g.add_argument("--channel-order", default="RGB", help="RGB or BGR")
    g.add_argument("--layout", help="NCHW or NHWC (default: from the input shape)")
    return ap


def image_prep(args):
    size = None
    if args.resize:
        try:
            h, w = (int(v) for v in args.resize.lower().split("x"))
            size = (h, w)
        except ValueError:
            raise QuantError("--resize: expected HxW, e.g. 224x224, got %r" % args.resize) from None
    return data.ImagePrep(size, parse_floats(args.mean, "--mean"), parse_floats(args.std, "--std"),
                          args.pixel_scale, args.channel_order, args.layout)


def check_skip(model, skip):
    names = {qdq.node_label(n, i) for i, n in enumerate(model.graph.node)} | {n.name for n in model.graph.node}
    ops = {n.op_type for n in model.graph.node}
    bad = [s for s in skip if s not in names and s not in ops and not fnmatch.filter(names, s)]
    if bad:
        raise QuantError("--skip: %s match(es) no node name or op type of the model" % ", ".join(bad))


def samples_of(args, specs):
    """(calibration samples, eval samples, where the eval samples come from)."""
    cal = data.list_samples(args.calib, specs) if args.calib else []
    if args.max_samples > 0:
        cal = cal[:args.max_samples]
    if args.eval:
        return cal, data.list_samples(args.eval, specs, "evaluation"), args.eval
    if args.dynamic:
        return [], cal, "the --calib folder (dynamic mode does not calibrate)"
    if args.holdout > 0 and len(cal) >= 5:
        k = max(1, int(round(len(cal) * args.holdout)))
        return cal[:-k], cal[-k:], "the last %d of the --calib samples, not used for calibration" % k
    return cal, [], None


def validate(samples, specs, prep, quiet, label):
    """Reads every sample once, so bad data fails before any model runs."""
    bar = calib.Progress("checking " + label, len(samples), enabled=not quiet and len(samples) > 20)
    for s in samples:
        data.load_sample(s, specs, prep)
        bar.step()


def run_pass(run, samples, specs, prep, label, quiet, sink):
    bar = calib.Progress(label, len(samples), enabled=not quiet)
    for s in samples:
        arrays = data.load_sample(s, specs, prep)
        outs = run.run(arrays)
        for spec, a in zip(specs, arrays):
            outs.setdefault(spec.name, a)
        sink(outs)
        bar.step()


def calibrate(args, model, plan, specs, prep, cal, rep):
    """Ranges of the planned tensors; returns (params, runner with the extra
    outputs, used again for sensitivity and the fp32 reference)."""
    gr = qdq.Graph(model)
    extra = [t for t in plan.acts if t not in gr.inputs]
    probe = runner.with_outputs(model, extra, gr.types)
    run = runner.make_runner(args.runner, probe)
    stats = calib.RangeStats()
    ops = {n.input[0]: n.op_type for n in model.graph.node if n.input and n.op_type in ("Conv", "Gemm")}
    bias_x = set(qdq.bias_input_tensors(model, plan).values()) if args.bias_correction else set()
    sums, count, not_float = {}, {}, set()
    pc = chan.ChannelCalib(chan.select(model, plan, args.per_channel_list))
    if pc.names and args.method == "entropy":
        raise QuantError("--per-channel-act takes --method minmax, percentile, mse or auto, not entropy")

    def sink_stats(outs):
        for t in plan.acts:
            if t in outs:
                if np.asarray(outs[t]).dtype.kind != "f":
                    not_float.add(t)
                    continue
                stats.add(t, outs[t])
                if t in pc.names:
                    pc.add_range(t, outs[t])
        for t in bias_x:
            mu = qdq.channel_mean(outs[t], ops.get(t, "Gemm")) if t in outs else None
            if mu is not None and np.isfinite(mu).all():
                sums[t] = sums.get(t, 0.0) + mu
                count[t] = count.get(t, 0) + 1
    run_pass(run, cal, specs, prep, "calibrating (min-max)", args.quiet, sink_stats)
    if not_float:       # types shape inference did not know: plan again without those tensors
        plan.__dict__.update(qdq.plan_static(model, args.skip_list, args.per_tensor, not_float, args.act_tables).__dict__)
    missing = [t for t in plan.acts if stats.range(t) is None]
    if missing:
        raise QuantError("no finite value was seen in tensor(s) %s: they cannot be calibrated (keep their "
                         "layers in float with --skip)" % ", ".join(missing[:5]))
    for t, n in stats.nonfinite.items():
        rep["warnings"].append("tensor %s had %d NaN/Inf value(s) during calibration; its range uses the "
                               "finite values" % (t, n))
    hists = None
    if args.method != "minmax":
        hists = calib.Histograms({t: stats.range(t) for t in plan.acts}, args.method)

        pc.start_hist()

        def sink_hist(outs):
            for t in plan.acts:
                if t in outs:
                    if t in pc.names:
                        pc.add_hist(t, outs[t])
                    else:
                        hists.add(t, outs[t])
        run_pass(run, cal, specs, prep, "calibrating (%s histograms)" % args.method, args.quiet, sink_hist)
    chosen = {}
    ranges = calib.final_ranges(stats, hists, args.method, args.percentile, chosen)
    if pc.missing():
        raise QuantError("--per-channel-act: no finite value was seen in some channel of %s"
                         % ", ".join(pc.missing()[:5]))
    ranges.update(pc.ranges(args.method, args.percentile))
    rep["ranges"] = {t: [float(v) for v in ranges[t]] for t in plan.acts if t not in pc.names}
    if pc.names:
        rep["per_channel_acts"] = {t: {"channels": int(len(ranges[t][0])),
                                       "lo": [float(v) for v in ranges[t][0]],
                                       "hi": [float(v) for v in ranges[t][1]]} for t in plan.acts if t in pc.names}
    if chosen:
        rep["auto_methods"] = {t: chosen[t] for t in plan.acts if t in chosen}
    means = {t: sums[t] / count[t] for t in sums}
    args.calibrated = (ranges, means, not_float)
    return qdq.resolve_params(plan, ranges), run, means


def static_model(args, model, specs, prep, cal, rep, skip):
    if not cal:
        raise QuantError("static quantisation needs calibration samples: give --calib DIR (or --dynamic)")
    plan = qdq.plan_static(model, skip, args.per_tensor, act_tables=args.act_tables)
    if not plan.nodes:
        raise QuantError("the model has no node openacl-quant quantises (%s) outside --skip"
                         % ", ".join(qdq.QUANT_OPS))
    params, run, means = calibrate(args, model, plan, specs, prep, cal, rep)
    if not plan.nodes:
        raise QuantError("no node is left to quantise: the inputs of every candidate are not float")
    base = qdq.correct_biases(model, plan, means) if args.bias_correction else model
    rep["bias_correction"] = bool(args.bias_correction)
    qmodel = qdq.write_static(base, plan, params)
    rep["quantized_ops"] = count_ops(model, plan.nodes)
    rep["calibration_samples"] = len(cal)
    if args.sensitivity_samples > 0:
        sens = report.Sensitivity(params)
        sub = cal[:args.sensitivity_samples]

        def sink(outs):
            for t in plan.acts:
                if t in outs:
                    sens.add(t, outs[t])
        run_pass(run, sub, specs, prep, "sensitivity", args.quiet, sink)
        inits = qdq.Graph(model).inits
        wsq = {k: report.weight_sqnr(onnx.numpy_helper.to_array(inits[k[1]]), ax)
               for k, ax in plan.weights.items()}
        rep["layers"] = report.layer_table(model, plan, sens, wsq)
        rep["sensitivity_samples"] = len(sub)
    return qmodel, run


def equalise(args, model, specs, prep, cal, rep):
    """--equalize: one min-max pass over the calibration samples for the
    per-channel ranges of the streams, then the rescaled model."""
    found = equalize.streams(model)
    if not found:
        rep["equalize"] = {"alpha": args.equalize_alpha, "streams": []}
        return model
    members = sorted({t for s in found for t in s[0]})
    run = runner.make_runner(args.runner, runner.with_outputs(model, members, qdq.Graph(model).types))
    stats = equalize.ChannelStats()

    def sink(outs):
        for t in members:
            if t in outs:
                stats.add(t, outs[t])
    try:
        run_pass(run, cal, specs, prep, "equalising (channel ranges)", args.quiet, sink)
    finally:
        run.close()
    model, rows = equalize.apply(model, found, stats, args.equalize_alpha)
    rep["equalize"] = {"alpha": args.equalize_alpha, "streams": rows}
    return model


def count_ops(model, labels):
    """op type -> how many of the nodes named in labels it has."""
    ops, labels = {}, set(labels)
    for i, n in enumerate(model.graph.node):
        if qdq.node_label(n, i) in labels:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
    return ops


def float_fallback(args, model, qmodel, fp_run, specs, prep, ev, rep):
    """--target-cosine: the greedy float fallback of tune.py over the
    held-out samples; returns the model to write."""
    inputs = [data.load_sample(s, specs, prep) for s in ev]
    refs = [fp_run.run(a) for a in inputs]
    search = tune.Search(args, model, args.calibrated, inputs, refs)
    n_layers = len([r for r in rep.get("layers", []) if r.get("min_sqnr_db") is not None])
    probe = min(args.fallback_probe, n_layers) if args.fallback_probe > 0 else n_layers
    bar = calib.Progress("float fallback (probing %d layers per round)" % probe, probe * 3,
                         enabled=not args.quiet)
    costs = None
    if args.fallback_rank == "cost" or args.max_float_cost is not None:
        costs = cost.FloatCost(model, [r["node"] for r in rep.get("layers", [])])
    fb = tune.fallback(search, rep.get("layers", []), args.target_cosine, args.max_float_layers, probe, bar,
                       rank=args.fallback_rank, costs=costs, budget=args.max_float_cost)
    fb["samples"] = len(ev)
    rep["fallback"] = fb
    if not fb["met"]:
        rep["warnings"].append("--target-cosine %s not met: cosine %.6f with %d layer(s) in float (raise "
                               "--max-float-layers or --fallback-probe, or use --skip)"
                               % (args.target_cosine, fb["final_cosine"], len(fb["float_layers"])))
    labels = [f["node"] for f in fb["float_layers"]]
    if not labels:
        return qmodel
    rep["quantized_ops"] = count_ops(model, [n for n in qdq.plan_static(
        model, args.skip_list + labels, args.per_tensor, args.calibrated[2]).nodes])
    return search.build(labels)


def dynamic_model(args, model, rep, skip):
    labels = qdq.plan_dynamic(model, skip)
    if not labels:
        raise QuantError("--dynamic: the model has no MatMul with a constant 2-D float weight to quantise")
    rep["quantized_ops"] = {"MatMul": len(labels)}
    return qdq.write_dynamic(model, labels, args.per_tensor)


def evaluate(args, model, qmodel, fp_run, specs, prep, ev, source, rep):
    if not ev:
        rep["accuracy_note"] = "no --eval folder and fewer than 5 calibration samples to hold out"
        return
    names = [o.name for o in model.graph.output]
    if fp_run is None:
        fp_run = runner.make_runner(args.runner, model)
    q_run = runner.make_runner(args.runner, qmodel)
    acc = report.Accuracy(names, report.is_classifier(model))
    bar = calib.Progress("evaluating", len(ev), enabled=not args.quiet)
    for s in ev:
        arrays = data.load_sample(s, specs, prep)
        acc.add(fp_run.run(arrays), q_run.run(arrays))
        bar.step()
    q_run.close()
    out = acc.summary()
    out["samples"] = len(ev)
    out["source"] = source
    rep["accuracy"] = out


def preprocess(args, model):
    """The folds and rewrites of prep.py (unless --no-preprocess)."""
    args.prep_counts = None
    if args.preprocess:
        model, args.prep_counts = prep.preprocess(model)
    return model


def save_float(args, model):
    """--save-preprocessed: the float model that is quantised (after the
    folds and --equalize)."""
    if args.save_preprocessed:
        try:
            onnx.checker.check_model(model)
            onnx.save(model, args.save_preprocessed)
        except OSError as e:
            raise QuantError("cannot write %s: %s" % (args.save_preprocessed, e.strerror or e)) from None
        except Exception as e:
            raise QuantError("the pre-processed model fails the ONNX checker: %s"
                             % str(e).splitlines()[0]) from None
    return model


def main(argv=None):
    args = build_parser().parse_args(argv)
    t0 = time.time()
    if not (0.0 <= args.holdout < 1.0):
        raise QuantError("--holdout must be in [0, 1), got %g" % args.holdout)
    if not (50.0 < args.percentile <= 100.0):
        raise QuantError("--percentile must be in (50, 100], got %g" % args.percentile)
    tune.check_args(args)
    model = qdq.load_model(args.model)
    specs = [data.InputSpec(vi) for vi in qdq.real_inputs(model)]
    skip = [s for s in args.skip.split(",") if s]
    args.skip_list = skip
    args.per_channel_list = [s for s in args.per_channel_act.split(",") if s]
    if args.per_channel_list and args.dynamic:
        raise QuantError("--per-channel-act applies to static quantisation, not --dynamic")
    check_skip(model, skip)
    model = preprocess(args, model)
    prep = image_prep(args)
    cal, ev, source = samples_of(args, specs)
    validate(cal, specs, prep, args.quiet, "calibration data")
    validate(ev, specs, prep, args.quiet, "evaluation data")
    if args.target_cosine is not None and not ev:
        raise QuantError("--target-cosine needs held-out inputs: give --eval DIR or keep --holdout > 0 "
                         "with at least 5 calibration samples")
    if not (0.0 <= args.equalize_alpha <= 1.0) or not np.isfinite(args.equalize_alpha):
        raise QuantError("--equalize-alpha must be in [0, 1], got %g" % args.equalize_alpha)
    if args.equalize and args.dynamic:
        raise QuantError("--equalize applies to static quantisation, not --dynamic")
    rep = {"model": args.model, "output": args.output, "mode": "dynamic" if args.dynamic else "static",
           "method": None if args.dynamic else args.method, "runner": args.runner, "warnings": [],
           "skip": skip, "weights": "per-tensor" if args.per_tensor else "per-channel",
           "preprocess": args.prep_counts}
    fp_run = None
    if args.equalize and cal:
        model = equalise(args, model, specs, prep, cal, rep)
    save_float(args, model)
    if args.dynamic:
        qmodel = dynamic_model(args, model, rep, skip)
    else:
        qmodel, fp_run = static_model(args, model, specs, prep, cal, rep, skip)
        if args.target_cosine is not None:
            qmodel = float_fallback(args, model, qmodel, fp_run, specs, prep, ev, rep)
    try:
        onnx.checker.check_model(qmodel)
    except Exception as e:
        raise QuantError("the quantised model fails the ONNX checker: %s" % str(e).splitlines()[0]) from None
    try:
        onnx.save(qmodel, args.output)
    except OSError as e:
        raise QuantError("cannot write %s: %s" % (args.output, e.strerror or e)) from None
    evaluate(args, model, qmodel, fp_run, specs, prep, ev, source, rep)
    if fp_run is not None:
        fp_run.close()
    rep["seconds"] = round(time.time() - t0, 2)
    print(report.text(rep))
    if args.report:
        try:
            report.write_json(rep, args.report)
        except OSError as e:
            raise QuantError("cannot write the report %s: %s" % (args.report, e.strerror or e)) from None
    return 0


def entry(argv=None):
    """main() with the errors turned into messages and exit codes."""
    try:
        return main(argv)
    except QuantError as e:
        print("openacl-quant: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("openacl-quant: interrupted", file=sys.stderr)
        return 1
    except MemoryError:
        print("openacl-quant: error: out of memory", file=sys.stderr)
        return 1
    except Exception as e:      # a bug: a message, with the traceback only on request
        if os.environ.get("OPENACL_QUANT_DEBUG"):
            raise
        print("openacl-quant: internal error: %s: %s (set OPENACL_QUANT_DEBUG=1 for the traceback)"
              % (type(e).__name__, e), file=sys.stderr)
        return 1
