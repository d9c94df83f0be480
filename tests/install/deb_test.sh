#!/bin/bash
# The Debian package of `make deb`: built into a scratch folder with cpack,
# then read back with dpkg-deb (nothing is installed): the toolkit tree under
# /opt/openacl, the stub links, and Depends naming the runtime libraries the
# build linked. Skipped (77) where cpack's DEB generator or dpkg-deb is absent.
# Usage: deb_test.sh BIN
set -euo pipefail
BIN=$1
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null || { echo "deb_test: no cpack/dpkg-deb"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$BIN" && cpack -G DEB -B "$scratch" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log" >&2; exit 1; }
deb=$(ls "$scratch"/openacl_*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' > "$scratch/list"
for f in set_env.sh bin/atc bin/openacl-run runtime/include/acl/acl.h runtime/include/acl/acl_rt.h \
         runtime/lib64/libascendcl.so runtime/lib64/libascendcl.so.0 runtime/lib64/stub/libascendcl.so \
         runtime/lib64/stub/libascendcl_ompenv.so.0 runtime/lib64/pkgconfig/ascendcl.pc \
         share/cmake/openacl/openaclConfig.cmake; do
  grep -qx "./opt/openacl/$f" "$scratch/list" || { echo "deb_test: the package lacks /opt/openacl/$f" >&2; exit 1; }
done
grep -q '^./opt/openacl/python/site-packages/acl\..*\.so$' "$scratch/list" ||
  echo "deb_test: note: no acl module in the package (python not built)"
dep=$(dpkg-deb -f "$deb" Depends)
for want in libc6 libdnnl libcjson libprotobuf-c; do
  case "$dep" in *"$want"*) ;; *) echo "deb_test: Depends '$dep' lacks $want" >&2; exit 1 ;; esac
done
case "$dep" in *libomp*|*libgomp*) ;; *) echo "deb_test: Depends '$dep' names no OpenMP runtime" >&2; exit 1 ;; esac
echo "deb_test: $(basename "$deb"), $(wc -l < "$scratch/list") entries, Depends: $dep"
