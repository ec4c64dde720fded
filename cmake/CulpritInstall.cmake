# `cmake --install BUILD --prefix P` and `cpack -G DEB` (docs/install.md).
#
# P/bin/culprit                               the executable
# P/share/culprit/examples/eventstore/        the demo engine: history script and patches,
#                                             sources, culprit.toml.in, published table
# P/share/culprit/ci/                         the CI recipe: culprit-pr-check, table-summary.py,
#                                             the GitHub Actions and GitLab CI files (docs/ci.md)
# P/share/man/man1/culprit.1                  generated from the command help
# P/share/bash-completion/completions/culprit bash completion, generated likewise
# P/share/zsh/site-functions/_culprit         zsh completion (the same, through bashcompinit);
#                                             share/zsh/vendor-completions when P is /usr
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
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ci/ DESTINATION share/culprit/ci
        USE_SOURCE_PERMISSIONS)

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
    file(REMOVE_RECURSE \"\${culprit_docs}\")
    message(FATAL_ERROR \"dist/command-docs failed (\${culprit_docs_result})\")
  endif()
  file(INSTALL \"\${culprit_docs}/culprit.1\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/share/man/man1\")
  file(INSTALL \"\${culprit_docs}/culprit.bash\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/share/bash-completion/completions\"
       RENAME culprit)
  # Debian's zsh looks in /usr/share/zsh/vendor-completions, not /usr/share/zsh/site-functions
  # (/usr/local/share/zsh/site-functions is on its path too): the .deb installs there.
  set(culprit_zsh_dir share/zsh/site-functions)
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(culprit_zsh_dir share/zsh/vendor-completions)
  endif()
  file(INSTALL \"\${culprit_docs}/_culprit\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${culprit_zsh_dir}\")
  file(REMOVE_RECURSE \"\${culprit_docs}\")")

# `cpack -G DEB` in the build directory (or scripts/package): a .deb for /usr. The shared
# libraries culprit links (libgit2, Boost.Filesystem, fmt, libstdc++) are found by
# dpkg-shlibdeps; the demo also needs what builds and replays the demo engine's history.
set(CPACK_PACKAGE_NAME culprit)
set(CPACK_PACKAGE_VENDOR "culprit")
set(CPACK_PACKAGE_CONTACT "culprit maintainers <culprit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "explains why a benchmark number moved")
set(CPACK_PACKAGE_DESCRIPTION
    "Measures an engine's queries in same-sitting comparisons, tests hypotheses with \
overrides, bisects regressions across builds and archives every result.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# git: engine histories (and make-history's `git am`); cmake, g++, make: the demo engine's
# build steps (culprit.toml.in).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "git, cmake (>= 3.16), g++, make")
# python3: the CI recipe's summary (share/culprit/ci/table-summary.py).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion, python3")
set(CPACK_GENERATOR DEB)
include(CPack)
