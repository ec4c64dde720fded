# `cmake --install BUILD --prefix P` (docs/install.md).
#
# P/bin/culprit                               the executable
# P/share/culprit/examples/eventstore/        the demo engine: history script and patches,
#                                             sources, culprit.toml.in, published table
# P/share/man/man1/culprit.1                  generated from the command help
# P/share/bash-completion/completions/culprit bash completion, generated likewise
# P/share/zsh/site-functions/_culprit         zsh completion (the same, through bashcompinit)
#
# `culprit demo` finds the demo engine at <culprit's directory>/../share/culprit/examples
# (investigate/demo_data.h), so the layout below is fixed relative to bin/, not taken from
# GNUInstallDirs: the prefix is free, the layout under it is not.

install(TARGETS culprit RUNTIME DESTINATION bin)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/eventstore
        DESTINATION share/culprit/examples
        USE_SOURCE_PERMISSIONS
        PATTERN "build*" EXCLUDE
        PATTERN "__pycache__" EXCLUDE
        PATTERN ".gitignore" EXCLUDE)

# The man page and the completion are written at install time from the help of the culprit
# being installed, so they list exactly its commands and options, and a build of the
# `culprit` target alone (scripts/quickstart) can be installed. Each install writes them
# into a directory of its own first: two installs at once (the tests) never share a file.
install(CODE "
  string(RANDOM LENGTH 12 culprit_docs_tag)
  set(culprit_docs \"${PROJECT_BINARY_DIR}/command-docs-\${culprit_docs_tag}\")
  execute_process(COMMAND bash \"${PROJECT_SOURCE_DIR}/dist/command-docs\"
                          \"$<TARGET_FILE:culprit>\" \"\${culprit_docs}\"
                  RESULT_VARIABLE culprit_docs_result)
  if(NOT culprit_docs_result EQUAL 0)
    message(FATAL_ERROR \"dist/command-docs failed (\${culprit_docs_result})\")
  endif()
  file(INSTALL \"\${culprit_docs}/culprit.1\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/share/man/man1\")
  file(INSTALL \"\${culprit_docs}/culprit.bash\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/share/bash-completion/completions\"
       RENAME culprit)
  file(INSTALL \"\${culprit_docs}/_culprit\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/share/zsh/site-functions\")
  file(REMOVE_RECURSE \"\${culprit_docs}\")")
