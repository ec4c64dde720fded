# culprit_library(NAME [PUBLIC deps...] [PRIVATE deps...])
# One static library per top-level folder, from every .cc in it. Sources are
# globbed so that adding a module is adding its .h/.cc pair and nothing else.
#
# The layering is enforced by the include path, and the link graph is its one
# source of truth. Includes are written "folder/file.h" from the project root,
# but the root is on no library's include path. Each library instead publishes a
# view of its own folder alone, <build>/layering/<folder>/view/<folder> -> the
# source folder, as a usage requirement (PUBLIC): a library sees its own folder
# and the folders of the libraries it links (transitively through PUBLIC links),
# and nothing else. So
#   cli -> investigate -> bisect -> probes -> (engine, overrides, records) -> base
# holds because each folder's CMakeLists.txt links only the folders below it, and
# `#include "bisect/search.h"` in probes/ finds no such file.
#
# So that the failure says why, each library also gets a private guard directory
# holding, for every header of every folder it may not see, a stub that is an
# #error naming the rule (written by culprit_layering_guards, below). The stubs
# follow the header globs: a new header or a new folder needs no edit here.
set(CULPRIT_LAYERING_DIR ${PROJECT_BINARY_DIR}/layering)

function(culprit_library name)
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/main.cc)
  set(view ${CULPRIT_LAYERING_DIR}/${folder}/view)
  file(MAKE_DIRECTORY ${view})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${view}/${folder} SYMBOLIC)
  if(sources)
    add_library(${name} STATIC ${sources})
    # Batches of eight files, one compiler process each (CULPRIT_UNITY_BUILD, the top
    # CMakeLists.txt): the sanitizer build compiles every file alone, so a file that only
    # compiles with its batch neighbours' includes still fails somewhere. The thread lane's
    # build (CULPRIT_SANITIZE_THREAD) batches, as the release build does: it is the third
    # build of a CI run, and the ASan build has checked each file alone.
    if(CULPRIT_UNITY_BUILD AND NOT CULPRIT_SANITIZE)
      set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
    target_link_libraries(${name} ${ARGN})
    target_include_directories(${name} PUBLIC ${view})
    target_include_directories(${name} PRIVATE ${CULPRIT_LAYERING_DIR}/${folder}/guard)
  else()
    # A folder whose first module has not landed yet.
    add_library(${name} INTERFACE)
    string(REPLACE "PRIVATE" "INTERFACE" deps "${ARGN}")
    string(REPLACE "PUBLIC" "INTERFACE" deps "${deps}")
    target_link_libraries(${name} ${deps})
    target_include_directories(${name} INTERFACE ${view})
  endif()
  set_property(TARGET ${name} PROPERTY CULPRIT_FOLDER ${folder})
  set_property(GLOBAL APPEND PROPERTY CULPRIT_LIBRARIES ${name})
endfunction()

# culprit_layer_guard(TARGET FOLDER): compiles TARGET (an executable whose
# sources live in FOLDER, like cli/main.cc) with FOLDER's guard.
function(culprit_layer_guard target folder)
  target_include_directories(${target} PRIVATE ${CULPRIT_LAYERING_DIR}/${folder}/guard)
endfunction()

# The culprit libraries whose headers `name` sees: itself, its direct links
# (PUBLIC or PRIVATE) and what those pass on through their PUBLIC links.
function(_culprit_visible_libraries name out)
  get_property(libraries GLOBAL PROPERTY CULPRIT_LIBRARIES)
  get_target_property(type ${name} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(pending ${name} INTERFACE_LINK_LIBRARIES)
  else()
    get_target_property(pending ${name} LINK_LIBRARIES)
  endif()
  set(seen ${name})
  while(pending)
    list(POP_FRONT pending dep)
    if(NOT dep IN_LIST libraries OR dep IN_LIST seen)
      continue()  # not a culprit library (fmt, $<LINK_ONLY:...>, ...), or known
    endif()
    list(APPEND seen ${dep})
    get_target_property(next ${dep} INTERFACE_LINK_LIBRARIES)
    if(next)
      list(APPEND pending ${next})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Called once all the libraries exist: writes each library's guard directory.
function(culprit_layering_guards)
  get_property(libraries GLOBAL PROPERTY CULPRIT_LIBRARIES)
  foreach(name ${libraries})
    get_target_property(folder ${name} CULPRIT_FOLDER)
    list(APPEND all_folders ${folder})
    file(GLOB headers_${folder} CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}
         ${PROJECT_SOURCE_DIR}/${folder}/*.h)
  endforeach()
  foreach(name ${libraries})
    get_target_property(folder ${name} CULPRIT_FOLDER)
    _culprit_visible_libraries(${name} visible_libraries)
    set(visible)
    foreach(lib ${visible_libraries})
      get_target_property(f ${lib} CULPRIT_FOLDER)
      list(APPEND visible ${f})
      # A link back up (the way to silence a guard) would make a cycle.
      if(NOT lib STREQUAL name)
        _culprit_visible_libraries(${lib} below)
        if(name IN_LIST below)
          message(FATAL_ERROR "${name} and ${lib} link each other: the layering is "
                  "cli -> investigate -> bisect -> probes -> (engine, overrides, "
                  "records) -> base, and a folder links only folders below it")
        endif()
      endif()
    endforeach()
    list(JOIN visible ", " visible_text)
    # Rewritten from scratch: a folder that becomes visible loses its stubs. No
    # successful compile ever includes a stub, so this rebuilds nothing.
    set(guard ${CULPRIT_LAYERING_DIR}/${folder}/guard)
    file(REMOVE_RECURSE ${guard})
    file(MAKE_DIRECTORY ${guard})
    foreach(other ${all_folders})
      if(other IN_LIST visible)
        continue()
      endif()
      foreach(header ${headers_${other}})
        file(WRITE ${guard}/${header}
             "#error \"wrong-way include: ${folder}/ may not include ${header}. "
             "A folder includes only its own headers and those of the folders it links "
             "(${folder}/ sees ${visible_text}); the layering is cli -> investigate -> "
             "bisect -> probes -> (engine, overrides, records) -> base. "
             "See cmake/CulpritLibrary.cmake.\"\n")
      endforeach()
    endforeach()
  endforeach()
endfunction()
