# culprit_library(NAME [PUBLIC deps...] [PRIVATE deps...])
# One static library per top-level folder, from every .cc in it. Sources are
# globbed so that adding a module is adding its .h/.cc pair and nothing else.
function(culprit_library name)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/main.cc)
  if(sources)
    add_library(${name} STATIC ${sources})
    target_link_libraries(${name} ${ARGN})
  else()
    # A folder whose first module has not landed yet.
    add_library(${name} INTERFACE)
    string(REPLACE "PRIVATE" "INTERFACE" deps "${ARGN}")
    string(REPLACE "PUBLIC" "INTERFACE" deps "${deps}")
    target_link_libraries(${name} ${deps})
  endif()
endfunction()
