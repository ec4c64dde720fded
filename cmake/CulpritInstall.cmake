# `cmake --install BUILD --prefix P` (docs/install.md).
#
# P/bin/culprit                               the executable
# P/share/culprit/examples/eventstore/        the demo engine: history script and patches,
#                                             sources, culprit.toml.in, published table
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
