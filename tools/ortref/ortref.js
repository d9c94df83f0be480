#!/usr/bin/env node
// ortref: ONNX Runtime (npm onnxruntime-node, CPU EP) as the reference that
// openacl is checked and benchmarked against.
//
//   node tools/ortref/ortref.js --model M --inputs a.npy,b.npy --outdir D [--threads N]
//       runs once; writes D/output_<i>.npy and D/outputs.json (names, shapes, dtypes)
//   node tools/ortref/ortref.js --model M [--inputs ...] --bench [--warmup 5] [--min-time 3]
//       [--min-runs 10] [--threads N] [--no-overhead]
//       prints JSON: session-create time, per-run latency stats, and the binding's
//       own per-call cost (Identity models with the same I/O) so callers can subtract it
//   node tools/ortref/ortref.js --model M --info
//       prints the model's inputs/outputs as ORT sees them
//   --opt LEVEL: ORT's graph optimisation level (disabled, basic, extended, all;
//       default all); basic runs per-axis activation Q/DQ as written, which
//       ORT 1.30's QDQ fusions at the higher levels refuse
//   --bench --parallel N: throughput of N sessions (each with the intra-op
//       threads given, each in its own worker thread) running concurrently
//       for --min-time
//   node tools/ortref/ortref.js --empty
//       the memory baseline: the runtime loaded, no session
// --bench results include the resident set before the session is created
// (baseline_rss_kb) and the process's peak after the timed runs, before the
// binding-overhead sessions (peak_rss_kb).
//
// Inputs are matched to the model's inputs in order, or by name with name=path.
// Session: graph optimization "all" (or --opt), CPU EP, intra-op threads N (default 1),
// inter-op 1, sequential execution; everything else is ORT's default.
'use strict';
const fs = require('fs');
const path = require('path');
const npy = require('./npy');
const { identityModel } = require('./onnxmini');

function loadOrt() {
  const dirs = [process.env.ORTREF_NODE_MODULES,
    path.join(__dirname, '..', '..', 'third_party', 'npm', 'node_modules')].filter(Boolean);
  for (const d of dirs) {
    const p = path.join(d, 'onnxruntime-node');
    if (fs.existsSync(p)) return { ort: require(p), version: require(path.join(p, 'package.json')).version };
  }
  throw new Error(`onnxruntime-node not found under ${dirs.join(', ')} (run scripts/setup.sh)`);
}

function parseArgs(argv) {
  const a = { threads: 1, warmup: 5, minTime: 3, minRuns: 10, overheadTime: 1, bench: false,
    info: false, overhead: true, inputs: [], parallel: 0, empty: false, opt: 'all' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    const num = () => {
      const s = val(), v = Number(s);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${k}: bad number '${s}'`);
      return v;
    };
    switch (k) {
      case '--model': a.model = val(); break;
      case '--inputs': a.inputs = val().split(',').filter((s) => s.length); break;
      case '--outdir': a.outdir = val(); break;
      case '--threads': a.threads = num(); break;
      case '--bench': a.bench = true; break;
      case '--info': a.info = true; break;
      case '--warmup': a.warmup = num(); break;
      case '--min-time': a.minTime = num(); break;
      case '--min-runs': a.minRuns = num(); break;
      case '--overhead-time': a.overheadTime = num(); break;
      case '--no-overhead': a.overhead = false; break;
      case '--parallel': a.parallel = num(); break;
      case '--empty': a.empty = true; break;
      case '--opt': a.opt = val();
        if (!['disabled', 'basic', 'extended', 'all'].includes(a.opt)) throw new Error(`--opt: bad level '${a.opt}'`);
        break;
      case '-h': case '--help':
        process.stdout.write(fs.readFileSync(__filename, 'utf8').split('\n').slice(1, 21)
          .map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
        process.exit(0);
        break;
      default: throw new Error(`unknown argument '${k}' (see --help)`);
    }
  }
  if (a.empty) return a;
  if (!a.model) throw new Error('--model is required');
  if (!a.bench && !a.info && !a.outdir) throw new Error('--outdir is required (or --bench / --info)');
  return a;
}

function sessionOptions(threads, extra) {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    ...(extra || {}),
  };
}

const rssKb = () => Math.round(process.memoryUsage().rss / 1024);
const peakKb = () => process.resourceUsage().maxRSS;

// Throughput: n sessions, each in its own worker thread (the binding runs
// an inference on the calling JS thread, so sessions sharing one thread take
// turns), running back to back from a common start until the deadline.
async function parallelBench(args, base) {
  const { Worker } = require('worker_threads');
  const start = Date.now() + 1500 + 300 * args.parallel;   /* after every session is created */
  const end = start + args.minTime * 1000;
  const per = await Promise.all(Array.from({ length: args.parallel }, () => new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: { args, start, end } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  return { model: args.model, runtime: 'onnxruntime-node', parallel: args.parallel, threads: args.threads,
    throughput_per_s: Math.round(per.reduce((x, y) => x + y, 0) * 1000) / 1000,
    per_worker_per_s: per.map((v) => Math.round(v * 1000) / 1000), baseline_rss_kb: base, peak_rss_kb: peakKb() };
}

async function parallelWorker({ args, start, end }) {
  const { parentPort } = require('worker_threads');
  const { ort } = loadOrt();
  const s = await ort.InferenceSession.create(args.model,
    sessionOptions(args.threads, { graphOptimizationLevel: args.opt }));
  const feeds = makeFeeds(ort, s, args.inputs);
  for (let i = 0; i < args.warmup; i++) await s.run(feeds);
  while (Date.now() < start) await new Promise((r) => setTimeout(r, 1));
  let n = 0;
  const t0 = nowMs();
  while (Date.now() < end) { await s.run(feeds); n++; }
  const rate = n / ((nowMs() - t0) / 1000);
  await s.release();
  parentPort.postMessage(rate);
}


const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

// Feeds for the session from --inputs (order or name=path); for --bench
// without inputs, deterministic fill values from the metadata.
function makeFeeds(ort, session, files) {
  const names = session.inputNames;
  const feeds = {};
  if (files.length) {
    if (files.length !== names.length) {
      throw new Error(`model has ${names.length} inputs (${names.join(', ')}), got ${files.length} files`);
    }
    files.forEach((f, i) => {
      let name = names[i], file = f;
      const eq = f.indexOf('=');
      if (eq > 0 && names.includes(f.slice(0, eq))) { name = f.slice(0, eq); file = f.slice(eq + 1); }
      const arr = npy.read(file);
      feeds[name] = new ort.Tensor(arr.dtype, arr.data, arr.shape);
    });
    const missing = names.filter((n) => !(n in feeds));
    if (missing.length) throw new Error(`no data for inputs: ${missing.join(', ')}`);
    return feeds;
  }
  session.inputMetadata.forEach((m) => {
    const shape = m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
    const count = shape.reduce((x, y) => x * y, 1);
    const Ctor = npy.TYPES[m.type][2];
    const data = new Ctor(count);
    if (m.type === 'float32' || m.type === 'float64') {
      for (let i = 0; i < count; i++) data[i] = ((i * 2654435761) % 1000) / 1000;
    } else if (m.type === 'int64') data.fill(1n);
    else if (m.type !== 'float16') data.fill(1);
    feeds[m.name] = new ort.Tensor(m.type, data, shape);
  });
  return feeds;
}

function stats(samples) {
  const s = [...samples].sort((x, y) => x - y);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const mean = s.reduce((x, y) => x + y, 0) / n;
  const p90 = s[Math.min(n - 1, Math.ceil(0.9 * n) - 1)];
  const r = (v) => Math.round(v * 10000) / 10000;
  return { median: r(median), mean: r(mean), p90: r(p90), min: r(s[0]), max: r(s[n - 1]), runs: n };
}

async function timeLoop(session, feeds, warmup, minTime, minRuns) {
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const lat = [];
  const t0 = nowMs();
  while (lat.length < minRuns || nowMs() - t0 < minTime * 1000) {
    const t = nowMs();
    await session.run(feeds);
    lat.push(nowMs() - t);
  }
  return lat;
}

// The binding's cost per call: an Identity model fed the same input tensors
// and returning outputs of the real model's shapes ("io"), and a 1-element
// Identity ("fixed"). "io" also contains one memory copy per output inside
// ORT, so subtracting it favours ORT slightly.
async function measureOverhead(ort, args, feeds, outputs) {
  const inputs = Object.entries(feeds).map(([name, t]) => ({ name, dtype: t.type, shape: t.dims }));
  const pass = outputs.map((o, j) => ({ name: `__ortref_pt${j}`, dtype: o.type, shape: o.dims }));
  const res = {};
  const variants = {
    fixed: { inputs: [], pass: [{ name: '__ortref_one', dtype: 'float32', shape: [1] }], feeds: {} },
    io: { inputs, pass, feeds: { ...feeds } },
  };
  variants.fixed.feeds.__ortref_one = new ort.Tensor('float32', new Float32Array(1), [1]);
  pass.forEach((p) => {
    const count = p.shape.reduce((x, y) => x * y, 1);
    variants.io.feeds[p.name] = new ort.Tensor(p.dtype, new npy.TYPES[p.dtype][2](count), p.shape);
  });
  for (const [k, v] of Object.entries(variants)) {
    const s = await ort.InferenceSession.create(identityModel(v.inputs, v.pass), sessionOptions(args.threads));
    res[k] = stats(await timeLoop(s, v.feeds, 5, args.overheadTime, 20));
    await s.release();
  }
  return res;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { ort, version } = loadOrt();
  const base = rssKb();
  if (args.empty) {
    console.log(JSON.stringify({ runtime: 'onnxruntime-node', ort_version: version, baseline_rss_kb: base,
      peak_rss_kb: peakKb() }, null, 1));
    return;
  }
  if (args.bench && args.parallel) {
    console.log(JSON.stringify({ ...(await parallelBench(args, base)), ort_version: version }, null, 1));
    return;
  }
  const tc = nowMs();
  const session = await ort.InferenceSession.create(args.model,
    sessionOptions(args.threads, { graphOptimizationLevel: args.opt }));
  const createMs = nowMs() - tc;

  if (args.info) {
    const md = (m) => ({ name: m.name, dtype: m.type, shape: m.shape });
    console.log(JSON.stringify({ model: args.model, inputs: session.inputMetadata.map(md),
      outputs: session.outputMetadata.map(md) }, null, 1));
    return;
  }

  const feeds = makeFeeds(ort, session, args.inputs);
  const tf = nowMs();
  const first = await session.run(feeds);
  const firstMs = nowMs() - tf;
  const outs = session.outputNames.map((n) => first[n]);

  if (!args.bench) {
    fs.mkdirSync(args.outdir, { recursive: true });
    const meta = { model: args.model, ort_version: version, threads: args.threads, outputs: [] };
    outs.forEach((t, i) => {
      if (!npy.TYPES[t.type]) throw new Error(`output ${session.outputNames[i]}: cannot save type ${t.type}`);
      const file = `output_${i}.npy`;
      npy.write(path.join(args.outdir, file), t.type, t.dims, t.data);
      meta.outputs.push({ name: session.outputNames[i], dtype: t.type, shape: [...t.dims], file });
    });
    fs.writeFileSync(path.join(args.outdir, 'outputs.json'), JSON.stringify(meta, null, 1) + '\n');
    return;
  }

  const lat = await timeLoop(session, feeds, args.warmup, args.minTime, args.minRuns);
  const peak = peakKb();
  const result = {
    model: args.model, runtime: 'onnxruntime-node', ort_version: version, threads: args.threads,
    session_create_ms: Math.round(createMs * 100) / 100, first_run_ms: Math.round(firstMs * 100) / 100,
    warmup: args.warmup, latency_ms: stats(lat), baseline_rss_kb: base, peak_rss_kb: peak,
  };
  if (args.overhead) {
    const ov = await measureOverhead(ort, args, feeds, outs);
    result.binding_overhead_ms = ov;
    const sub = ov.io.median;
    const L = result.latency_ms;
    const r = (v) => Math.round(Math.max(v - sub, 0) * 10000) / 10000;
    result.latency_minus_overhead_ms = { median: r(L.median), mean: r(L.mean), p90: r(L.p90), min: r(L.min),
      subtracted: sub };
  }
  await session.release();
  console.log(JSON.stringify(result, null, 1));
}

const wt = require('worker_threads');
(wt.isMainThread ? main() : parallelWorker(wt.workerData)).catch((e) => {
  process.stderr.write(`ortref: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
