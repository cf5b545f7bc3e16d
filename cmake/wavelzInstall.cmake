# wavelzInstall.cmake - install rules for wavelz; included at the end of the
# top-level CMakeLists.txt, once the targets exist.
#
# `cmake --install BUILD [--prefix P]` installs, with GNUInstallDirs names:
#   BINDIR/wavelz, BINDIR/unwavelz -> wavelz, BINDIR/wavelzcat -> wavelz
#   INCLUDEDIR/wavelz.h
#   LIBDIR/libwavelz.a
#   LIBDIR/pkgconfig/wavelz.pc      written at install time for the prefix
#                                   actually installed to (--prefix included)
#   LIBDIR/cmake/wavelz/            find_package(wavelz CONFIG): the imported
#                                   target wavelz::wavelz
# The library is static: its users link libzstd, pthreads and libm as well
# (and libxxhash, where the build uses its run-time dispatch); both the
# pkg-config file and the CMake package say so.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(WLZ_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/wavelz" CACHE STRING
    "Where the wavelz CMake package goes (relative to the install prefix)")
mark_as_advanced(WLZ_INSTALL_CMAKEDIR)

# ------------------------------------------ usage requirements for export
# The public include directory and libzstd were given as absolute paths of
# this machine.  Exported, they must name the installed header and a libzstd
# found on the consumer's machine (wavelz::zstd, which wavelzConfig.cmake
# defines before it loads the targets).  The build tree sees the same paths
# as before.
set_target_properties(libwavelz PROPERTIES
  EXPORT_NAME wavelz
  INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
  INTERFACE_LINK_LIBRARIES
    "$<BUILD_INTERFACE:${ZSTD_LIBRARY}>;$<INSTALL_INTERFACE:wavelz::zstd>;Threads::Threads;m")
if(WLZ_XXH_DISPATCH)
  set_property(TARGET libwavelz APPEND PROPERTY INTERFACE_LINK_LIBRARIES
    "$<BUILD_INTERFACE:${XXHASH_LIBRARY}>;$<INSTALL_INTERFACE:wavelz::xxhash>")
endif()

# ------------------------------------------- programs, header and library
install(TARGETS wavelz RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS libwavelz EXPORT wavelzTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/include/wavelz.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# unwavelz and wavelzcat: relative symbolic links to wavelz, made here and
# installed as links (file(INSTALL) copies a link as a link), so that they
# are in install_manifest.txt like every other installed file.
set(_wlz_links "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/links")
file(MAKE_DIRECTORY "${_wlz_links}")
foreach(_wlz_alias unwavelz wavelzcat)
  file(REMOVE "${_wlz_links}/${_wlz_alias}")
  file(CREATE_LINK "wavelz${CMAKE_EXECUTABLE_SUFFIX}"
       "${_wlz_links}/${_wlz_alias}${CMAKE_EXECUTABLE_SUFFIX}" SYMBOLIC)
  install(FILES "${_wlz_links}/${_wlz_alias}${CMAKE_EXECUTABLE_SUFFIX}"
          DESTINATION "${CMAKE_INSTALL_BINDIR}")
endforeach()

# ------------------------------------------------------------ pkg-config
# Libs names libzstd, pthreads and libm directly (not Requires.private):
# a plain `pkg-config --libs wavelz` must be enough to link the static
# library, and libzstd does not ship a .pc file everywhere.  A libzstd
# outside the compiler's own directories gets its -L.
set(_wlz_pc_deps "-lzstd -lpthread -lm")
set(_wlz_dep_libs "${ZSTD_LIBRARY}")
if(WLZ_XXH_DISPATCH)
  set(_wlz_pc_deps "-lzstd -lxxhash -lpthread -lm")
  list(APPEND _wlz_dep_libs "${XXHASH_LIBRARY}")
endif()
foreach(_wlz_dep IN LISTS _wlz_dep_libs)
  get_filename_component(_wlz_dep_dir "${_wlz_dep}" DIRECTORY)
  list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${_wlz_dep_dir}" _wlz_implicit)
  if(_wlz_implicit EQUAL -1)
    list(FIND CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES "${_wlz_dep_dir}" _wlz_implicit)
  endif()
  if(_wlz_implicit EQUAL -1 AND NOT _wlz_pc_deps MATCHES "-L${_wlz_dep_dir} ")
    set(_wlz_pc_deps "-L${_wlz_dep_dir} ${_wlz_pc_deps}")
  endif()
endforeach()
get_filename_component(_wlz_zstd_dir "${ZSTD_LIBRARY}" DIRECTORY)
# The prefix is known only when installing (`cmake --install --prefix P`
# overrides the configured one), so the file is written then, into the build
# tree, and installed from there.
set(_wlz_pc_file "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/wavelz.pc")
install(CODE "
set(_wlz_pc_template [[${CMAKE_CURRENT_LIST_DIR}/wavelz.pc.in]])
set(_wlz_pc_output [[${_wlz_pc_file}]])
set(_wlz_pc_libdir [[${CMAKE_INSTALL_LIBDIR}]])
set(_wlz_pc_includedir [[${CMAKE_INSTALL_INCLUDEDIR}]])
set(WLZ_PC_VERSION [[${PROJECT_VERSION}]])
set(WLZ_PC_DEPS [[${_wlz_pc_deps}]])
include([[${CMAKE_CURRENT_LIST_DIR}/wavelzWritePc.cmake]])
")
install(FILES "${_wlz_pc_file}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# ---------------------------------------------------------- CMake package
install(EXPORT wavelzTargets
  NAMESPACE wavelz::
  FILE wavelzTargets.cmake
  DESTINATION "${WLZ_INSTALL_CMAKEDIR}")
# Values baked into wavelzConfig.cmake: how libzstd was linked here, and
# where it was (a hint only: the consumer's machine is searched as usual).
if(WLZ_STATIC_ZSTD)
  set(WLZ_CONFIG_ZSTD_NAMES "libzstd.a zstd")
else()
  set(WLZ_CONFIG_ZSTD_NAMES "zstd")
endif()
set(WLZ_CONFIG_ZSTD_HINT "${_wlz_zstd_dir}")
if(WLZ_XXH_DISPATCH)
  set(WLZ_CONFIG_XXHASH 1)
  if(WLZ_STATIC_ZSTD)
    set(WLZ_CONFIG_XXHASH_NAMES "libxxhash.a xxhash")
  else()
    set(WLZ_CONFIG_XXHASH_NAMES "xxhash")
  endif()
  get_filename_component(WLZ_CONFIG_XXHASH_HINT "${XXHASH_LIBRARY}" DIRECTORY)
else()
  set(WLZ_CONFIG_XXHASH 0)
endif()
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/wavelzConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/wavelzConfig.cmake"
  INSTALL_DESTINATION "${WLZ_INSTALL_CMAKEDIR}")
# 0.x: a new minor version may change the API.
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/wavelzConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/wavelzConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/wlz-install/wavelzConfigVersion.cmake"
  DESTINATION "${WLZ_INSTALL_CMAKEDIR}")
