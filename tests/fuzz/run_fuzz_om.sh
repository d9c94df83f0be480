#!/bin/sh
# fuzz_om's run: compile the seeds with atc, then run_fuzz.sh.
#   run_fuzz_om.sh ATC SEEDDIR FUZZ_OM WORKDIR REGRESSIONS
set -e
here=$(dirname "$0")
sh "$here/make_om_seeds.sh" "$1" "$2"
exec sh "$here/run_fuzz.sh" "$3" "$4" - "$5" "$2"
