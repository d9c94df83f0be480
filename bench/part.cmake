# bench (runtime): rt_bench measures stream enqueue cost, host-callback
# delivery latency and idle synchronize (figures in BENCHMARKS.md, Runtime).
add_executable(rt_bench ${CMAKE_CURRENT_LIST_DIR}/rt_bench.c)
target_link_libraries(rt_bench PRIVATE ascendcl Threads::Threads)
target_compile_options(rt_bench PRIVATE ${OA_WARN})
# bench (peak): one core's measured fp32 / int8 VNNI / bf16 multiply-add
# rate, against which bench/int8.py states each model's efficiency.
add_executable(cpu_peak ${CMAKE_CURRENT_LIST_DIR}/cpu_peak.c)
target_compile_options(cpu_peak PRIVATE ${OA_WARN})
