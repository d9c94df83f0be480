"""Offline build of the pyACL-compatible `acl` module and the `openacl`
helper package with Debian's setuptools (nothing from PyPI):

    /usr/bin/python3 -m pip install --no-build-isolation .      (in a venv)
    /usr/bin/python3 -m pip install --break-system-packages .   (system-wide, Debian 12)

Where libascendcl.so and the headers come from, first match wins:
  OPENACL_LIB_DIR / OPENACL_INCLUDE_DIR   explicit folders
  OPENACL_ROOT, then ASCEND_TOOLKIT_HOME  an install prefix: the CANN-style tree of `make install`
                                          (<root>/runtime/lib64, <root>/runtime/include), or
                                          <root>/lib, <root>/include
  OPENACL_BUILD_DIR                       a CMake build folder of this repository
  ../build                                the Makefile's default build folder
  pkg-config ascendcl, then /opt/openacl  an installed openacl (`make install`, the Debian package)
The module gets an RPATH to the library folder, so no LD_LIBRARY_PATH is
needed afterwards.
"""
import glob
import os
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)   # pip runs us from here too; sources are given relative to it
REPO = os.path.dirname(HERE)


def _has_lib(d):
    return d and glob.glob(os.path.join(d, "libascendcl.so*"))


def _pkg_config(flag):
    try:
        out = subprocess.run(["pkg-config", flag, "ascendcl"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    for tok in out.split():
        if tok[:2] in ("-L", "-I"):
            return tok[2:]
    return None


def locate():
    env = os.environ.get
    candidates = []   # (lib_dir, include_dir)
    if env("OPENACL_LIB_DIR"):
        candidates.append((env("OPENACL_LIB_DIR"), env("OPENACL_INCLUDE_DIR") or os.path.join(REPO, "include")))
    for root in (env("OPENACL_ROOT"), env("ASCEND_TOOLKIT_HOME")):
        if not root:
            continue
        candidates.append((os.path.join(root, "runtime", "lib64"), os.path.join(root, "runtime", "include")))
        for sub in ("lib", "lib64", "lib/x86_64-linux-gnu"):
            candidates.append((os.path.join(root, sub), os.path.join(root, "include")))
    if env("OPENACL_BUILD_DIR"):
        candidates.append((env("OPENACL_BUILD_DIR"), os.path.join(REPO, "include")))
    candidates.append((os.path.join(REPO, "build"), os.path.join(REPO, "include")))
    pc_lib = _pkg_config("--libs-only-L")
    if pc_lib:
        candidates.append((pc_lib, _pkg_config("--cflags-only-I") or "/usr/local/include"))
    candidates.append(("/opt/openacl/runtime/lib64", "/opt/openacl/runtime/include"))
    candidates.append(("/usr/local/lib", "/usr/local/include"))
    for lib, inc in candidates:
        if _has_lib(lib) and os.path.isfile(os.path.join(inc, "acl", "acl.h")):
            return os.path.abspath(lib), os.path.abspath(inc)
    sys.exit("setup.py: libascendcl.so not found. Build openacl first (make build), or set OPENACL_BUILD_DIR, "
             "OPENACL_ROOT (or source <prefix>/set_env.sh) or OPENACL_LIB_DIR (see the top of python/setup.py).")


def numpy_include():
    import numpy
    return numpy.get_include()


lib_dir, inc_dir = locate()
sources = sorted(glob.glob(os.path.join("src", "*.c")))
# acl.media binds libacl_dvpp when it sits next to libascendcl (empty otherwise).
libraries, macros = ["ascendcl"], []
if glob.glob(os.path.join(lib_dir, "libacl_dvpp.so*")) and \
        os.path.isfile(os.path.join(inc_dir, "acl", "ops", "acl_dvpp.h")):
    libraries.append("acl_dvpp")
    macros.append(("OPENACL_PY_MEDIA", "1"))

setup(
    name="openacl-pyacl",
    version="0.1.0",
    description="pyACL-compatible Python binding (module `acl`) of openacl, AscendCL on the CPU",
    packages=["openacl"],
    ext_modules=[Extension(
        "acl",
        sources=sources,
        include_dirs=["src", inc_dir, numpy_include()],
        library_dirs=[lib_dir],
        runtime_library_dirs=[lib_dir],
        libraries=libraries,
        define_macros=macros,
        extra_compile_args=["-fvisibility=hidden", "-Wno-deprecated-declarations"],
    )],
    python_requires=">=3.8",
    install_requires=[],       # numpy is needed at run time (python3-numpy); nothing is fetched
)
