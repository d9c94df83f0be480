# tests/kernels_rnn_signal: recurrent, signal and the remaining kernels
# (the former "x" part: legacy opset 1-6 binary ops,
# losses, RNN/GRU/LSTM, signal ops, RoiAlign, MaxUnpool, Det, training
# optimisers).
#   kernels_rnn_signal_unit     C checks through the registry: legacy broadcast rules
#                      and refusals, optimiser steps, window/mel closed forms
#   kernels_rnn_signal_ort      extra node tests (reverse/bidirectional recurrences,
#                      DFT/STFT variants, ...) with ONNX Runtime's outputs as
#                      the reference, through the whole engine
add_executable(kx_unit ${CMAKE_CURRENT_LIST_DIR}/unit.c)
target_link_libraries(kx_unit PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" m)
target_compile_options(kx_unit PRIVATE ${OA_WARN})
target_link_options(kx_unit PRIVATE -no-pie)
add_test(NAME kernels_rnn_signal_unit COMMAND kx_unit)
set_tests_properties(kernels_rnn_signal_unit PROPERTIES LABELS "kernels;sanitize" TIMEOUT 120)

find_program(KRS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
function(krs_ort_cases_test)
  if(KRS_PYTHON AND TARGET engine_runner)
    add_test(NAME kernels_rnn_signal_ort
      COMMAND ${KRS_PYTHON} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gen_cases.py
              --out ${CMAKE_CURRENT_BINARY_DIR}/kx_cases --runner $<TARGET_FILE:engine_runner>)
    set_tests_properties(kernels_rnn_signal_ort PROPERTIES LABELS "kernels;engine" TIMEOUT 600
                         SKIP_RETURN_CODE 77)
  endif()
endfunction()
cmake_language(DEFER CALL krs_ort_cases_test)
