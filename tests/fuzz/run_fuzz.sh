#!/bin/sh
# Runs one libFuzzer target for a set time with the project's settings.
#   run_fuzz.sh BINARY WORKDIR [DICT|-] SEED...
# FUZZ_SECONDS (default 20) is the run time; FUZZ_SEED_NAME (default '*') the
# file-name pattern of seed files. WORKDIR keeps the growing corpus
# (corpus/), the seeds actually used (seeds/: files up to 1 MiB), crash
# artifacts (artifacts/) and the last run's log and statistics (last.log).
# FUZZ_MODE=ci makes the run reproducible instead: a fresh corpus, libFuzzer
# seed FUZZ_RANDOM_SEED (default 1) and exactly FUZZ_CI_RUNS inputs (set per
# target by tests/fuzz/part.cmake), so a CI failure is the code's, not the
# dice's, and replays the same way anywhere.
# Exit status: libFuzzer's (non-zero when it found a crash, leak or timeout).
set -e
bin=$1; work=$2; dict=$3; shift 3
secs=${FUZZ_SECONDS:-20}
mkdir -p "$work/corpus" "$work/artifacts" "$work/seeds"
if [ ! -f "$work/seeds/.done" ]; then
    i=0
    for s in "$@"; do
        for f in $(find "$s" -type f -size -1024k -name "${FUZZ_SEED_NAME:-*}" 2>/dev/null | sort); do
            i=$((i + 1))
            cp "$f" "$work/seeds/seed_$i"
        done
    done
    touch "$work/seeds/.done"
fi
if [ "${FUZZ_MODE:-}" = ci ]; then
    rm -rf "$work/corpus" && mkdir -p "$work/corpus"
    set -- -runs="${FUZZ_CI_RUNS:-50000}" -seed="${FUZZ_RANDOM_SEED:-1}" -max_total_time=600
else
    set -- -max_total_time="$secs"
fi
set -- "$@" -rss_limit_mb=4096 -malloc_limit_mb=2048 -timeout=30 \
    -max_len=1048576 -print_final_stats=1 -artifact_prefix="$work/artifacts/"
[ "$dict" != "-" ] && set -- "$@" -dict="$dict"
# A model may ask for a tensor larger than the machine (a fuzzed dynamic
# shape wanted 512 GiB): the library must refuse it with ACL_ERROR_BAD_ALLOC,
# which it can only do if the allocator says NULL instead of ending the
# process, as glibc's does outside the sanitizer.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
export ASAN_OPTIONS
echo "$bin $* $work/corpus $work/seeds"
set +e
"$bin" "$@" "$work/corpus" "$work/seeds" > "$work/last.log" 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+.*(DONE|INITED)|stat::|Done |==[0-9]+==ERROR|SUMMARY)' "$work/last.log" | tail -n 20
if [ $rc -ne 0 ]; then
    tail -n 80 "$work/last.log"
    echo "fuzz target $bin failed (rc $rc); reproducer(s):"
    ls -l "$work/artifacts"
fi
exit $rc
