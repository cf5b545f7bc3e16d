# wavelzWritePc.cmake - run by `cmake --install` (see wavelzInstall.cmake):
# writes wavelz.pc for the prefix being installed to.  Expects
# _wlz_pc_template, _wlz_pc_output, _wlz_pc_libdir, _wlz_pc_includedir,
# WLZ_PC_VERSION and WLZ_PC_DEPS to be set.

set(WLZ_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
# A relative directory (the usual case) follows the prefix; an absolute one
# was chosen on purpose and stays as it is.
if(IS_ABSOLUTE "${_wlz_pc_libdir}")
  set(WLZ_PC_LIBDIR "${_wlz_pc_libdir}")
else()
  set(WLZ_PC_LIBDIR "\${prefix}/${_wlz_pc_libdir}")
endif()
if(IS_ABSOLUTE "${_wlz_pc_includedir}")
  set(WLZ_PC_INCLUDEDIR "${_wlz_pc_includedir}")
else()
  set(WLZ_PC_INCLUDEDIR "\${prefix}/${_wlz_pc_includedir}")
endif()
configure_file("${_wlz_pc_template}" "${_wlz_pc_output}" @ONLY)
