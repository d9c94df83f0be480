#!/usr/bin/python3
"""libgomp's spin count from lib/ompenv (docs/config.md, "OpenMP waiting").

In a build on GCC's libgomp (OPENACL_OPENMP=gnu, the ThreadSanitizer builds)
libgomp reads GOMP_SPINCOUNT once, in its constructor, so libascendcl_ompenv's
constructor must run first: the loader initialises a library's dependencies
last-listed first, and ompenv is linked after the runtime. libgomp's own
report (OMP_DISPLAY_ENV=verbose, printed by that constructor) must show
ompenv's default, OPENACL_OMP_SPIN's value, and a user's GOMP_SPINCOUNT
untouched. Builds on LLVM's libomp (which reads KMP_BLOCKTIME at its first
use) skip.

Usage: omp_spin.py --openmp gnu|llvm --bin PROGRAM_LINKING_LIBASCENDCL
Exit codes: 0 pass, 1 fail, 77 skipped."""
import argparse
import os
import re
import subprocess
import sys


def spin(binary, **env):
    e = dict(os.environ, OMP_DISPLAY_ENV="verbose")
    for v in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "KMP_BLOCKTIME", "OPENACL_OMP_SPIN"):
        e.pop(v, None)
    e.update(env)
    p = subprocess.run([binary], env=e, capture_output=True, text=True, timeout=60)
    m = re.search(r"GOMP_SPINCOUNT = '(\d+)'", p.stdout + p.stderr)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openmp", required=True)
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    if a.openmp != "gnu":
        print("skipped: this build runs on libomp, which reads KMP_BLOCKTIME at its first use")
        return 77
    fails = 0
    for env, want in (({}, "20000"), ({"OPENACL_OMP_SPIN": "777"}, "777"), ({"GOMP_SPINCOUNT": "5"}, "5")):
        got = spin(a.bin, **env)
        ok = got == want
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {env or 'defaults'}: libgomp read GOMP_SPINCOUNT {got}, expected {want}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
