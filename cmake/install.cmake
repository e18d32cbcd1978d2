# Installation (docs/install.md): `cmake --install build --prefix P` or `make install PREFIX=P`
# puts under P:
#   bin/lightsim                        the program
#   lib/liblightsim_<module>.a          the module libraries (static, as in the build)
#   include/lightsim/<module>/*.h       their public headers
#   lib/cmake/lightsim/                 the CMake package: find_package(lightsim) gives the
#                                       targets lightsim::<module> and lightsim_DATA_DIR
#   share/lightsim/configs/             the data folder: the presets, and the report's chart
#   share/lightsim/third_party/vega/    libraries (lightsim/core/data_dir.h)
# The program finds share/lightsim relative to its own path, so the prefix may be moved or
# copied; $LIGHTSIM_DATA names another data folder. The Python package installs with pip
# (pyproject.toml, docs/install.md), not here.
set(LIGHTSIM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lightsim)
set(LIGHTSIM_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/lightsim)

install(TARGETS lightsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

get_property(lightsim_module_targets GLOBAL PROPERTY LIGHTSIM_MODULE_TARGETS)
set_target_properties(lightsim_eigen PROPERTIES EXPORT_NAME eigen)
install(TARGETS ${lightsim_module_targets} lightsim_eigen EXPORT lightsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lightsim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT lightsimTargets NAMESPACE lightsim:: DESTINATION ${LIGHTSIM_CMAKE_INSTALL_DIR})

include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lightsimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/lightsimConfig.cmake
                              INSTALL_DESTINATION ${LIGHTSIM_CMAKE_INSTALL_DIR}
                              PATH_VARS LIGHTSIM_DATA_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/lightsimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/lightsimConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/lightsimConfigVersion.cmake
        DESTINATION ${LIGHTSIM_CMAKE_INSTALL_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs DESTINATION ${LIGHTSIM_DATA_INSTALL_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/third_party/vega
        DESTINATION ${LIGHTSIM_DATA_INSTALL_DIR}/third_party)
