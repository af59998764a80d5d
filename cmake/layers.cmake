# One static library per layer (docs/architecture.md). Headers are included as "layer/file.h". Each layer
# sees an include root that holds only itself and the layers below it (symlinks made at configure
# time), so an include that points the wrong way fails to compile.
set(COMMDX_LAYER_ORDER base model ingest probe bench analysis diagnose report pipeline cli)
set(COMMDX_DEPS_base "")
set(COMMDX_DEPS_model base)
set(COMMDX_DEPS_ingest base model)
set(COMMDX_DEPS_probe base model)
set(COMMDX_DEPS_bench base model probe)
set(COMMDX_DEPS_analysis base model)
set(COMMDX_DEPS_diagnose base model analysis)
set(COMMDX_DEPS_report base model analysis diagnose)
# report sees analysis and diagnose for their types (the Diagnosis it renders, the table data the
# pipeline hands it) but calls none of their functions: checked on the built library.
set(COMMDX_NO_CALLS_report analysis diagnose)
set(COMMDX_DEPS_pipeline base model ingest probe bench analysis diagnose report)
set(COMMDX_DEPS_cli base model ingest probe bench analysis diagnose report pipeline)

function(commdx_layer_include_root layer out_var)
  set(root ${CMAKE_BINARY_DIR}/layer_includes/${layer})
  file(MAKE_DIRECTORY ${root})
  foreach(visible IN LISTS COMMDX_DEPS_${layer} layer)
    if(visible STREQUAL "layer")
      set(visible ${layer})
    endif()
    if(NOT EXISTS ${root}/${visible})
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${visible} ${root}/${visible} SYMBOLIC)
    endif()
  endforeach()
  set(${out_var} ${root} PARENT_SCOPE)
endfunction()

# commdx_add_layer(name SOURCES ... LIBS ...): the static library commdx_<name>.
function(commdx_add_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  commdx_layer_include_root(${name} root)
  if(NOT ARG_SOURCES)  # a layer not written yet still links
    set(ARG_SOURCES ${CMAKE_BINARY_DIR}/layer_includes/${name}_empty.cc)
    file(WRITE ${ARG_SOURCES} "// layer ${name} has no sources yet\n")
  endif()
  add_library(commdx_${name} STATIC ${ARG_SOURCES})
  target_include_directories(commdx_${name} PRIVATE ${root})
  target_link_libraries(commdx_${name} PRIVATE commdx_warnings)
  foreach(dep IN LISTS COMMDX_DEPS_${name})
    target_link_libraries(commdx_${name} PUBLIC commdx_${dep})
  endforeach()
  if(ARG_LIBS)
    target_link_libraries(commdx_${name} PUBLIC ${ARG_LIBS})
  endif()
  if(COMMDX_NO_CALLS_${name})
    add_custom_command(TARGET commdx_${name} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DLIB=$<TARGET_FILE:commdx_${name}>
              -DLAYER=${name} "-DFORBIDDEN=${COMMDX_NO_CALLS_${name}}"
              -P ${CMAKE_SOURCE_DIR}/cmake/check_no_calls.cmake
      VERBATIM)
  endif()
endfunction()
