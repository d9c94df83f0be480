# tests/arch: the architecture's rules, checked over the sources
# (docs/architecture.md): layering (no oneDNN or backend header above the
# kernel interface, no kernel reaching up, no weak symbol between layers) and
# size limits (900 lines a file, 120 a function, known exceptions listed).
# Each script first proves on planted files that it can fail.
find_program(OA_ARCH_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(OA_ARCH_PYTHON)
  add_test(NAME arch_layers_selftest COMMAND ${OA_ARCH_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --self-test)
  add_test(NAME arch_layers COMMAND ${OA_ARCH_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py ${CMAKE_SOURCE_DIR}/src)
  add_test(NAME arch_sizes_selftest COMMAND ${OA_ARCH_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_sizes.py --self-test)
  add_test(NAME arch_sizes COMMAND ${OA_ARCH_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_sizes.py
           ${CMAKE_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR}/size_exceptions.txt)
  set_tests_properties(arch_layers_selftest arch_layers arch_sizes_selftest arch_sizes
                       PROPERTIES LABELS "arch" TIMEOUT 60)
endif()
