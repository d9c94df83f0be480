#!/bin/bash
# The install, as a CANN user meets it (docs/porting.md). Installs the build
# into a scratch prefix, then, in clean environments (env -i, PATH=/usr/bin:/bin,
# nothing else; only the installed set_env.sh adds to it):
#   1. the tree: headers, runtime/lib64, runtime/lib64/stub, bin/, the module
#   2. libascendcl links alone: -L<stub> -lascendcl and -L<lib64> -lascendcl,
#      no LD_LIBRARY_PATH, no -rpath-link (no symbol of a sibling needed)
#   3. atc and openacl-run start with nothing set, not even set_env.sh
#   4. with set_env.sh: atc compiles an ONNX model; a sample-shaped CMake
#      project (DDK_PATH / NPU_HOST_LIB, -DCMAKE_SKIP_RPATH=TRUE, links
#      ascendcl and acl_cblas / acl_dvpp when installed) runs it and matches
#      the numpy reference; a pyACL sample runs it; openacl-run runs it;
#      pkg-config and find_package(openacl) build a consumer.
# Usage: install_test.sh SRC BIN C_COMPILER CXX_COMPILER
set -euo pipefail
SRC=$1 BIN=$2 CC_=$3 CXX_=$4
T=$BIN/install-test
rm -rf "$T"
mkdir -p "$T"
P=$T/prefix
fail() { echo "install_test: $*" >&2; exit 1; }
# a clean environment: PATH=/usr/bin:/bin and HOME only
clean() { env -i PATH=/usr/bin:/bin HOME="$T" "$@"; }
# the same, after sourcing the installed set_env.sh
with_env() { clean bash -c ". '$P/set_env.sh' && $1"; }

cmake --install "$BIN" --prefix "$P" >/dev/null

# 1. the tree
for f in runtime/include/acl/acl.h runtime/include/acl/acl_base.h runtime/include/acl/acl_rt.h \
         runtime/include/acl/acl_mdl.h runtime/include/acl/acl_prof.h runtime/include/acl/ops/acl_dvpp.h \
         runtime/include/acl/ops/acl_cblas.h runtime/lib64/libascendcl.so runtime/lib64/stub/libascendcl.so \
         bin/atc bin/openacl-run bin/openacl-compare bin/openacl-quant bin/openacl-server set_env.sh runtime/lib64/pkgconfig/ascendcl.pc \
         share/cmake/openacl/openaclConfig.cmake; do
  [ -e "$P/$f" ] || fail "missing $f in the installed tree"
done
# the pyACL module, where this build made one (it needs Python headers and numpy)
HAVE_PY=0
if ls "$BIN"/python/acl.*.so >/dev/null 2>&1; then
  HAVE_PY=1
  ls "$P"/python/site-packages/acl.*.so >/dev/null 2>&1 || fail "the acl module is not under python/site-packages"
fi
# every installed library has its stub entry
for lib in "$P"/runtime/lib64/lib*.so; do
  [ -e "$P/runtime/lib64/stub/$(basename "$lib")" ] || fail "stub/ lacks $(basename "$lib")"
done

# 2. -lascendcl alone, from stub/ and from lib64/
undef=$(nm -D --undefined-only "$P/runtime/lib64/libascendcl.so" | grep -c openacl_ || true)
[ "$undef" = 0 ] || fail "libascendcl.so needs openacl_* symbols of another library at link time"
for d in runtime/lib64/stub runtime/lib64; do
  clean "$CC_" -std=c11 -Wall -Werror -o "$T/consumer_link" "$SRC/tests/install/consumer.c" \
    -I"$P/runtime/include" -L"$P/$d" -lascendcl || fail "linking with -L$d -lascendcl failed"
done
clean LD_LIBRARY_PATH="$P/runtime/lib64" "$T/consumer_link" >/dev/null || fail "the linked consumer failed"

# 3. installed programs find their libraries relative to themselves
clean "$P/bin/atc" --help >/dev/null || fail "installed atc does not start without LD_LIBRARY_PATH"
clean "$P/bin/openacl-run" --help >/dev/null || fail "installed openacl-run does not start without LD_LIBRARY_PATH"
for exe in "$P/bin/atc" "$P/bin/openacl-run"; do
  readelf -d "$exe" | grep -q 'RUNPATH.*\$ORIGIN' || fail "$exe has no \$ORIGIN RUNPATH"
done

# 4. with nothing but set_env.sh
env_out=$(with_env 'echo "$ASCEND_TOOLKIT_HOME|$ASCEND_HOME_PATH|$LD_LIBRARY_PATH|$PATH|$PYTHONPATH"')
case "$env_out" in
  "$P|$P|$P/runtime/lib64|$P/bin:/usr/bin:/bin|$P/python/site-packages") ;;
  *) fail "set_env.sh set: $env_out" ;;
esac
M=$T/models
/usr/bin/python3 "$SRC/samples/models/make_models.py" "$M" >/dev/null
with_env "atc --model='$M/classifier.onnx' --framework=5 --output='$T/classifier' >/dev/null" ||
  fail "installed atc could not compile classifier.onnx"
[ -s "$T/classifier.om" ] || fail "atc wrote no classifier.om"

# the sample-shaped C++ project: its CMakeLists reads DDK_PATH and NPU_HOST_LIB
cp -r "$SRC/tests/install/sample" "$T/sample"
with_env "export DDK_PATH=\$ASCEND_TOOLKIT_HOME NPU_HOST_LIB=\$ASCEND_TOOLKIT_HOME/runtime/lib64/stub &&
  cmake -S '$T/sample' -B '$T/sample/build' -DCMAKE_SKIP_RPATH=TRUE -DCMAKE_CXX_COMPILER='$CXX_' >'$T/sample.log' 2>&1 &&
  cmake --build '$T/sample/build' >>'$T/sample.log' 2>&1" || { cat "$T/sample.log" >&2; fail "the sample-shaped project did not build"; }
readelf -d "$T/sample/build/main" | grep -q 'R.*PATH' && fail "the sample carries an RPATH despite CMAKE_SKIP_RPATH"
# companion libraries the install has were on the link line and resolved
# from stub/ (the toolchain may drop an unused one from DT_NEEDED: --as-needed)
for extra in acl_cblas acl_dvpp; do
  if [ -e "$P/runtime/lib64/lib$extra.so" ]; then
    [ -e "$P/runtime/lib64/stub/lib$extra.so" ] || fail "stub/ lacks lib$extra.so"
    grep -q -- "-l$extra" "$T/sample/build/CMakeFiles/main.dir/link.txt" || fail "the sample did not link $extra"
  fi
done
out=$(with_env "'$T/sample/build/main' '$T/classifier.om' '$M/images/img_03.bin' '$M/ref/img_03.prob.bin'") ||
  fail "the sample-shaped program failed: $out"
echo "sample: $out"

# the pyACL sample, on the same compiled model
if [ $HAVE_PY = 1 ]; then
mkdir -p "$T/py_out"
with_env "python3 '$SRC/samples/python/sync_infer.py' '$T/classifier.om' '$T/py_out' '$M/images/img_03.bin' >'$T/py.log' 2>&1" ||
  { cat "$T/py.log" >&2; fail "the pyACL sample failed"; }
/usr/bin/python3 -c "
import numpy as np, sys
a = np.fromfile(sys.argv[1], np.float32); b = np.fromfile(sys.argv[2], np.float32)
assert a.shape == b.shape and np.abs(a - b).max() <= 1e-4, (a, b)
print('pyacl: max |diff| vs reference %.3g' % np.abs(a - b).max())" "$T/py_out/output_0.bin" "$M/ref/img_03.prob.bin"
# openacl-quant from bin/, its oaquant package and the acl module from python/site-packages
with_env "openacl-quant '$M/classifier.onnx' --calib '$M/images' -o '$T/classifier_int8.onnx' --quiet >'$T/quant.log' 2>&1" ||
  { cat "$T/quant.log" >&2; fail "installed openacl-quant failed"; }
grep -q "cosine" "$T/quant.log" || { cat "$T/quant.log" >&2; fail "openacl-quant reported no accuracy"; }
else
  echo "install_test: note: this build has no acl module; the pyACL sample and openacl-quant are skipped"
fi

# openacl-run on the compiled model
with_env "openacl-run --model '$T/classifier.om' --input '$M/images/img_03.bin' --output '$T/run_out' --output_dirname r >'$T/run.log' 2>&1" ||
  { cat "$T/run.log" >&2; fail "installed openacl-run failed"; }
ls "$T"/run_out/r/*.bin >/dev/null 2>&1 || fail "openacl-run wrote no output"
/usr/bin/python3 -c "
import numpy as np, sys
a = np.fromfile(sys.argv[1], np.float32); b = np.fromfile(sys.argv[2], np.float32)
assert a.shape == b.shape and np.abs(a - b).max() <= 1e-4, (a, b)" "$(ls "$T"/run_out/r/*.bin | head -1)" "$M/ref/img_03.prob.bin" ||
  fail "openacl-run's output differs from the reference"

# pkg-config (a Makefile-style build), C and C++
for lang in c cpp; do
  if [ $lang = c ]; then cc=$CC_ std=-std=c11; else cc=$CXX_ std=-std=c++11; fi
  with_env "'$cc' $std -Wall -Werror -x $( [ $lang = c ] && echo c || echo c++ ) -o '$T/consumer_$lang' '$SRC/tests/install/consumer.c' \$(pkg-config --cflags --libs ascendcl) && '$T/consumer_$lang' >/dev/null" ||
    fail "pkg-config consumer ($lang) failed"
done

# find_package(openacl) through CMAKE_PREFIX_PATH from set_env.sh
mkdir -p "$T/proj"
cat > "$T/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(openacl REQUIRED)
add_executable(consumer $SRC/tests/install/consumer.c)
target_link_libraries(consumer openacl::ascendcl)
# the companion libraries are exported too, with the same include folder
foreach(extra acl_cblas acl_dvpp)
  if(TARGET openacl::\${extra})
    target_link_libraries(consumer openacl::\${extra})
  endif()
endforeach()
CM
with_env "cmake -S '$T/proj' -B '$T/proj/b' -DCMAKE_C_COMPILER='$CC_' >/dev/null && cmake --build '$T/proj/b' >/dev/null && '$T/proj/b/consumer' >/dev/null" ||
  fail "find_package(openacl) consumer failed"
echo "install_test: all checks passed"
