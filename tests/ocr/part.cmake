# tests/ocr: the OCR sample. ocr_units checks its host-side steps (decoding,
# crops, PaddleOCR pre/post-processing, DB boxes, CTC) without models;
# ocr_pipeline renders known text and reads it back through the real
# PP-OCRv4 models (skipped, exit 77, without models, Pillow or the font);
# under ASan it also checks the whole API chain for leaks.
if(TARGET ocr)
  set(OCR_SAMPLE_DIR ${CMAKE_SOURCE_DIR}/samples/ocr)
  add_executable(ocr_units ${CMAKE_CURRENT_LIST_DIR}/ocr_units.c ${OCR_SAMPLE_DIR}/image.c
    ${OCR_SAMPLE_DIR}/prep.c ${OCR_SAMPLE_DIR}/dbpost.c ${OCR_SAMPLE_DIR}/ctc.c)
  target_include_directories(ocr_units PRIVATE ${OCR_SAMPLE_DIR})
  target_link_libraries(ocr_units PRIVATE PNG::PNG JPEG::JPEG m)
  target_compile_options(ocr_units PRIVATE ${OA_WARN})
  add_test(NAME ocr_units COMMAND ocr_units)
  set_tests_properties(ocr_units PROPERTIES LABELS "sanitize" TIMEOUT 60)

  find_program(OA_SYS_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  add_test(NAME ocr_pipeline
    COMMAND ${OA_SYS_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_ocr.py --ocr $<TARGET_FILE:ocr>
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/ocr_pipeline)
  set_tests_properties(ocr_pipeline PROPERTIES LABELS "ocr;sanitize" SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "OMP_WAIT_POLICY=passive")
endif()
