# tests/quant: openacl-quant (tools/quant). quant_tool: the QDQ contract on
# small models built at test time (numpy formulas on the weights and the
# calibration data), the calibrators against numpy/scipy, bad input, and the
# round trip through ONNX Runtime (tools/ortref) and openacl. quant_models_*:
# accuracy of the quantised real models (models/, label "models"; skipped,
# exit 77, when scripts/models.sh has not built them).
if(NOT TARGET pyacl)
  return()
endif()
set(OA_QUANT_ENV "PYTHONPATH=${CMAKE_BINARY_DIR}/python:${CMAKE_BINARY_DIR};OPENACL_QUANT=${CMAKE_BINARY_DIR}/openacl-quant;PYTHONDONTWRITEBYTECODE=1;ASCEND_GLOBAL_LOG_LEVEL=4")
add_test(NAME quant_tool
  COMMAND ${OA_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(quant_tool PROPERTIES ENVIRONMENT "${OA_QUANT_ENV}" LABELS "cli" TIMEOUT 600)

set(OA_QUANT_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/quant_models)
foreach(m resnet50 mobilenet_v2)
  add_test(NAME quant_models_${m}
    COMMAND ${OA_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/real_model.py --name ${m} --models ${CMAKE_SOURCE_DIR}/models
            --work ${OA_QUANT_SCRATCH}/${m})
  set_tests_properties(quant_models_${m} PROPERTIES ENVIRONMENT "${OA_QUANT_ENV}" LABELS "models"
    SKIP_RETURN_CODE 77 TIMEOUT 1800)
endforeach()

# The OCR sample's PP-OCRv4 recogniser quantised on rendered lines must read
# the demo's lines as fp32 does (skipped when the sample or models are missing).
if(TARGET ocr)
  add_test(NAME quant_ocr_rec
    COMMAND ${OA_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ocr_rec.py --ocr $<TARGET_FILE:ocr> --work ${OA_QUANT_SCRATCH}/ocr_rec)
  # the same with the detector quantised too (calibrated on rendered pages through the image path,
  # its streams equalised as bench/int8.py does)
  add_test(NAME quant_ocr_det_rec
    COMMAND ${OA_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ocr_rec.py --ocr $<TARGET_FILE:ocr> --with-det --det-equalize
            --work ${OA_QUANT_SCRATCH}/ocr_det_rec)
  # top-1 agreement with fp32 on the real-weight OCR models: the recogniser's
  # per-time-step argmax and the direction classifier's, on the demo's line crops
  add_test(NAME quant_ocr_argmax
    COMMAND ${OA_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ocr_argmax.py --ocr $<TARGET_FILE:ocr> --work ${OA_QUANT_SCRATCH}/ocr_argmax)
  set_tests_properties(quant_ocr_rec quant_ocr_det_rec quant_ocr_argmax PROPERTIES ENVIRONMENT "${OA_QUANT_ENV}"
    LABELS "models" SKIP_RETURN_CODE 77 TIMEOUT 1200)
endif()
