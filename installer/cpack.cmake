# CPack: `cpack --config build/<preset>/CPackConfig.cmake` (or `cmake --build ... --target package`)
# produces yolo-workbench_<version>_<arch>.deb with the CLI, the GUI, a desktop entry and an icon.
if(YW_BUILD_GUI)
  install(FILES ${CMAKE_SOURCE_DIR}/installer/yolo-workbench.desktop DESTINATION share/applications)
  install(FILES ${CMAKE_SOURCE_DIR}/resources/icons/yolo-workbench.svg
          DESTINATION share/icons/hicolor/scalable/apps)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/yolo-workbench)

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "yolo-workbench")
set(CPACK_PACKAGE_VENDOR "YOLO Workbench developers")
set(CPACK_PACKAGE_CONTACT "YOLO Workbench developers <dev@yolo-workbench.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "yolo-workbench")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
# Library dependencies (LibTorch, OpenCV, Qt, ...) are computed from the binaries by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0-pthread")
include(CPack)
