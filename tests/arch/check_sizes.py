#!/usr/bin/env python3
"""Size limits of the sources: no file under src/ over 900 lines, no
function over 120 lines (from the line of its opening brace to its closing
one). Known exceptions are listed, each with its current size, in
tests/arch/size_exceptions.txt; an exception may not grow, and an exception
that no longer exceeds the limit must be removed from the list (so the list
only shrinks).

  check_sizes.py SRC_DIR EXCEPTIONS   exit 1 and one line per violation
  check_sizes.py --self-test          the rules catch planted violations
"""
import os
import re
import sys
import tempfile

MAX_FILE = 900
MAX_FUNC = 120
# a function definition: a line at column 0 that is not a declaration,
# control statement or preprocessor line, whose body opens with "{" at column 0
HEAD = re.compile(r'^[A-Za-z_][^;#]*\)\s*(\{\s*)?$')


def functions(lines):
    """(name, length) of each top-level function: braces at column 0."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith('{'):
            head = ''
            for k in range(i - 1, max(i - 6, -1), -1):
                head = lines[k] + ' ' + head
                if re.match(r'^[A-Za-z_]', lines[k]):
                    break
            m = re.search(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(', head)
            j = i + 1
            while j < len(lines) and not lines[j].startswith('}'):
                j += 1
            if m and '=' not in head.split('(')[0]:
                out.append((m.group(1), j - i + 1))
            i = j + 1
            continue
        i += 1
    return out


def measure(src):
    sizes = {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src).replace(os.sep, '/')
            with open(path, encoding='utf-8', errors='replace') as fh:
                lines = fh.read().split('\n')
            n = len(lines) - (1 if lines and lines[-1] == '' else 0)
            if n > MAX_FILE:
                sizes[rel] = n
            for name, length in functions(lines):
                if length > MAX_FUNC:
                    sizes[f'{rel}:{name}'] = length
    return sizes


def read_exceptions(path):
    ex = {}
    with open(path) as fh:
        for line in fh:
            line = line.split('#', 1)[0].strip()
            if line:
                key, size = line.split()
                ex[key] = int(size)
    return ex


def check(src, exceptions):
    bad = []
    sizes = measure(src)
    for key, n in sorted(sizes.items()):
        limit = MAX_FUNC if ':' in key else MAX_FILE
        what = 'function' if ':' in key else 'file'
        if key not in exceptions:
            bad.append(f'{key}: {what} of {n} lines (limit {limit})')
        elif n > exceptions[key]:
            bad.append(f'{key}: listed exception grew from {exceptions[key]} to {n} lines')
    for key in sorted(exceptions):
        if key not in sizes:
            bad.append(f'{key}: within the limit now; remove it from the exceptions')
    return bad, sizes


def self_test():
    big_fn = 'static int f(void)\n{\n' + '    x++;\n' * 130 + '}\n'
    small = 'int g(void)\n{\n    return 0;\n}\n'
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 'a'))
        with open(os.path.join(d, 'a', 'big.c'), 'w') as fh:
            fh.write(small + '\n' * 900)
        with open(os.path.join(d, 'a', 'fn.c'), 'w') as fh:
            fh.write(big_fn + small)
        ex = os.path.join(d, 'ex.txt')
        with open(ex, 'w') as fh:
            fh.write('a/gone.c 1000\n')
        bad, _ = check(d, read_exceptions(ex))
    keys = sorted(b.split(':')[0] for b in bad)
    if keys != ['a/big.c', 'a/fn.c', 'a/gone.c'] or not any('a/fn.c:f:' in b for b in bad):
        print('self-test: unexpected result', bad)
        return 1
    print(f'self-test: {len(bad)} planted violations caught')
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == '--self-test':
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    bad, sizes = check(sys.argv[1], read_exceptions(sys.argv[2]))
    for b in bad:
        print(b)
    print(f'{len(bad)} size violation(s)' if bad else
          f'sizes: within the limits ({len(sizes)} listed exceptions)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
