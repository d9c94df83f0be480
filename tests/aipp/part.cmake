# tests/aipp: AIPP compiled into a model (atc --insert_op_conf). Every input
# format, crop/padding combinations and the samples' CSC matrices against a
# numpy reference (exact), and bad configuration files refused with the line.
# (tools/ parts are included after tests/: the targets are named, not tested)
add_test(NAME aipp_atc
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_aipp.py $<TARGET_FILE:atc> $<TARGET_FILE:openacl-run>
          ${CMAKE_CURRENT_BINARY_DIR}/aipp_scratch)
set_tests_properties(aipp_atc PROPERTIES TIMEOUT 300)
