# cmake -DNM=nm -DLIB=libcommdx_report.a -DLAYER=report "-DFORBIDDEN=analysis;diagnose" -P this
# Fails when the library calls a function of a forbidden layer: an undefined symbol in its
# namespace (commdx::analysis::...). Types and inline accessors leave no such symbol.
execute_process(COMMAND ${NM} -C --undefined-only ${LIB}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} could not read ${LIB}")
endif()
foreach(layer IN LISTS FORBIDDEN)
  string(REGEX MATCHALL "commdx::${layer}::[^\n]*" calls "${symbols}")
  if(calls)
    list(REMOVE_DUPLICATES calls)
    list(JOIN calls "\n  " shown)
    message(FATAL_ERROR "the ${LAYER} layer calls into ${layer} (docs/architecture.md: it only "
                        "formats what the pipeline computed):\n  ${shown}")
  endif()
endforeach()
