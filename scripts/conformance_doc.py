#!/usr/bin/python3
"""Writes docs/onnx-conformance.md from the results file of the public-API
ONNX backend runner (build/onnx_backend_api_results.txt, written by the
`onnx_backend_api` CTest): per-suite counts and every case that did not pass,
with the reason the library gave.

    scripts/conformance_doc.py BUILD/onnx_backend_api_results.txt [docs/onnx-conformance.md]
"""
import collections
import sys

STATES = ("PASS", "FAIL", "UNSUPPORTED", "CRASH", "TIMEOUT")


def main():
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else "docs/onnx-conformance.md"
    counts = collections.defaultdict(collections.Counter)
    other = []
    with open(src, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) < 2 or parts[1] not in STATES:
                continue
            case, state = parts[0], parts[1]
            msg = parts[2] if len(parts) > 2 else ""
            suite = case.split("/", 1)[0]
            counts[suite][state] += 1
            if state != "PASS":
                # the runner's message carries the library's own reason
                reason = msg.replace("load refused: ", "")
                other.append((case, state, reason[:260]))
    out = ["# ONNX backend conformance",
           "",
           "ONNX's own backend test data (Debian `libonnx-testdata`, from ONNX 1.12) run through the",
           "public API: `aclmdlLoadFromFile` on each `model.onnx`, inputs copied into `aclrtMalloc`'d",
           "buffers, `aclmdlExecute`, outputs compared with the expected `.pb` files (relative 1e-3 /",
           "absolute 1e-4 for floats, exact for integers and booleans). Each case runs in its own",
           "process. Regenerate with `scripts/conformance_doc.py build/onnx_backend_api_results.txt`",
           "after `ctest -R onnx_backend_api`.",
           "",
           "| suite | passed | failed | unsupported | crashed | timeout |",
           "|---|---|---|---|---|---|"]
    for suite in sorted(counts):
        c = counts[suite]
        ran = sum(c[s] for s in STATES)
        out.append(f"| {suite} | {c['PASS']} / {ran} ({100.0 * c['PASS'] / ran:.1f} %) | {c['FAIL']} "
                   f"| {c['UNSUPPORTED']} | {c['CRASH']} | {c['TIMEOUT']} |")
    out += ["", "## Cases that do not pass", "",
            "\"Unsupported\" means the library refused the model with `ACL_ERROR_FEATURE_UNSUPPORTED` or",
            "`ACL_ERROR_UNSUPPORTED_DATA_TYPE` and a message naming what it does not support.", "",
            "| case | result | reason |", "|---|---|---|"]
    for case, state, reason in sorted(other):
        out.append(f"| {case} | {state} | {reason.replace('|', '/')} |")
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
