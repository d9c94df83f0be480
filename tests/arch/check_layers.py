#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked over the sources.

  - src/graph, src/engine, src/mdl include no oneDNN header and no header of
    a specific kernel backend (kernels/<backend>/...), and name no dn_
    symbol: they ask implementations through kernels/kernel.h.
  - src/kernels includes nothing above the kernel interface (engine, graph
    passes, importers, the compiled format, the API layer, the runtime).
  - no weak symbol stands in for a dependency between layers (the only weak
    declarations allowed are the linker-section bounds of the registry).
  - src/kernels/ref (the reference: plain C, the oracle the tests compare the
    fast kernels with) holds no hand-written vector code: no intrinsics
    header, intrinsic, vector type, per-function target ISA or CPU probe
    (target_clones of plain C loops are the compiler's vectorisation and
    allowed). That code lives in src/kernels/x86, which in turn includes no
    oneDNN header and no header of the oneDNN backend.

  check_layers.py SRC_DIR          exit 1 and one line per violation
  check_layers.py --self-test      the rules catch planted violations
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
WEAK = re.compile(r'__attribute__\s*\(\(\s*weak|#\s*pragma\s+weak')
DN_SYM = re.compile(r'\bdn_[a-z0-9_]+\s*\(')
UPPER = ('graph', 'engine', 'mdl')
# headers above the kernels: what a kernel may not include
ABOVE_KERNELS = re.compile(r'^(engine|onnx|om|mdl|rt|graph/(passes|plan|precision|dump))\b')
BACKEND_HDR = re.compile(r'^kernels/[^/]+/')
INTRIN_HDR = re.compile(r'(^|/)[a-z0-9]*intrin\.h$|^arm_neon\.h$')
VECTOR_CODE = re.compile(r'\b_mm(256|512)?_[a-z0-9_]+\s*\(|\b__m(64|128|256|512)[dih]?\b|'
                         r'\btarget\s*\(|__builtin_cpu_(supports|is)\b')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def check(src):
    bad = []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src).replace(os.sep, '/')
            layer = rel.split('/')[0]
            with open(path, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            incs = INCLUDE.findall(text)
            code = strip_comments(text)
            if layer in UPPER:
                for h in incs:
                    if 'dnnl' in h or 'oneapi' in h:
                        bad.append(f'{rel}: includes the oneDNN header {h}')
                    elif BACKEND_HDR.match(h):
                        bad.append(f'{rel}: includes the backend header {h}')
                for m in DN_SYM.finditer(code):
                    bad.append(f'{rel}: names the backend symbol {m.group(0).rstrip("( ")}')
            if layer == 'kernels':
                for h in incs:
                    if ABOVE_KERNELS.match(h):
                        bad.append(f'{rel}: a kernel includes {h}, a header above the kernel interface')
            if rel.startswith('kernels/ref/'):
                for h in incs:
                    if INTRIN_HDR.search(h):
                        bad.append(f'{rel}: the reference includes the intrinsics header {h} (kernels/x86)')
                for m in VECTOR_CODE.finditer(code):
                    bad.append(f'{rel}: hand-written vector code in the reference: {m.group(0).rstrip("( ")}')
            if rel.startswith('kernels/x86/'):
                for h in incs:
                    if 'dnnl' in h or 'oneapi' in h:
                        bad.append(f'{rel}: the x86 backend includes the oneDNN header {h}')
            for line in code.splitlines():
                if WEAK.search(line) and not re.search(r'__(start|stop)_oa_', line):
                    bad.append(f'{rel}: weak symbol: {line.strip()}')
    return bad


def self_test():
    planted = {
        'graph/a.c': '#include <oneapi/dnnl/dnnl.h>\n',
        'engine/b.c': '#include "kernels/dnnl/dn_common.h"\n',
        'mdl/c.c': 'int f(void) { return dn_has_bf16(); }\n',
        'kernels/ref/d.c': '#include "engine/exec.h"\n',
        'graph/e.c': 'int g(void) __attribute__((weak));\n',
        'kernels/ref/f.c': '#include <immintrin.h>\n',
        'kernels/ref/g.c': 'static int h(void) { return __builtin_cpu_supports("avx2"); }\n',
        'kernels/ref/h.c': '__attribute__((target("avx2"))) static void k(void) {}\n',
        'kernels/x86/i.c': '#include "kernels/dnnl/dn_common.h"\n',
        'kernels/ref/ok.c': '__attribute__((target_clones("avx2", "default"))) void c(void) {}\n',
        'graph/ok.c': '/* dn_comment() */\n#include "kernels/kernel.h"\n',
    }
    with tempfile.TemporaryDirectory() as d:
        for rel, body in planted.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), 'w') as fh:
                fh.write(body)
        found = check(d)
    caught = {b.split(':')[0] for b in found}
    want = {k for k in planted if not k.endswith('ok.c')}
    if caught != want:
        print('self-test: expected violations in', sorted(want), 'got', found)
        return 1
    print(f'self-test: {len(found)} planted violations caught, the clean file passes')
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == '--self-test':
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    bad = check(sys.argv[1])
    for b in bad:
        print(b)
    print(f'{len(bad)} layering violation(s)' if bad else 'layering: clean')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
