# Third-party dependencies of the engine. Everything here comes from Debian packages
# (installer/install-deps.sh), or from upstream LibTorch via -DCMAKE_PREFIX_PATH on GPU machines.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

# LibTorch: Debian's 1.13 (CPU) or upstream 2.x (CUDA). torch/compat.h hides the differences.
find_package(Torch REQUIRED)
add_library(ywb_torch INTERFACE)
target_include_directories(ywb_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_link_libraries(ywb_torch INTERFACE ${TORCH_LIBRARIES})
separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(ywb_torch INTERFACE ${_torch_flags})
message(STATUS "LibTorch ${Torch_VERSION} at ${TORCH_INSTALL_PREFIX}")

# OpenCV: only the modules we use (the libopencv-dev meta package pulls in far more).
find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs dnn OPTIONAL_COMPONENTS videoio video calib3d features2d)
add_library(ywb_opencv INTERFACE)
if(OpenCV_FOUND)
  target_include_directories(ywb_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(ywb_opencv INTERFACE ${OpenCV_LIBS})
  if("opencv_videoio" IN_LIST OpenCV_LIBS)  # an optional component there
    set(YW_HAVE_OPENCV_VIDEOIO ON)
  endif()
  if("opencv_video" IN_LIST OpenCV_LIBS AND "opencv_calib3d" IN_LIST OpenCV_LIBS AND
     "opencv_features2d" IN_LIST OpenCV_LIBS)
    set(YW_HAVE_OPENCV_MOTION ON)
  endif()
else()
  find_path(YW_OPENCV_INCLUDE opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
  set(_cv_libs)
  foreach(_m core imgproc)
    find_library(YW_OPENCV_${_m} opencv_${_m} REQUIRED)
    list(APPEND _cv_libs ${YW_OPENCV_${_m}})
  endforeach()
  # imgcodecs (other image formats), dnn (ONNX cross-check), videoio (predict on videos) and video, calib3d and
  # features2d (BoT-SORT's camera-motion compensation) are optional: GPU servers may lack them. A module counts only where core's library and headers are, with both its own:
  # another OpenCV elsewhere on the machine (a system one beside the private prefix of installer/gpu-check.sh)
  # does not lend its library to these headers.
  get_filename_component(_cv_libdir "${YW_OPENCV_core}" DIRECTORY)
  foreach(_m imgcodecs dnn videoio video calib3d features2d flann)
    find_library(YW_OPENCV_${_m} opencv_${_m} HINTS "${_cv_libdir}" NO_DEFAULT_PATH)
    get_filename_component(_dir "${YW_OPENCV_${_m}}" DIRECTORY)
    if(YW_OPENCV_${_m} AND (NOT _dir STREQUAL _cv_libdir OR NOT EXISTS "${YW_OPENCV_INCLUDE}/opencv2/${_m}.hpp"))
      set(YW_OPENCV_${_m} "YW_OPENCV_${_m}-NOTFOUND" CACHE FILEPATH "OpenCV ${_m} (not beside core)" FORCE)
    endif()
    if(YW_OPENCV_${_m})
      list(APPEND _cv_libs ${YW_OPENCV_${_m}})
      string(TOUPPER ${_m} _M)
      if(_m STREQUAL "videoio")
        set(YW_HAVE_OPENCV_VIDEOIO ON)
      elseif(_m MATCHES "^(video|calib3d|features2d|flann)$")
        # camera motion: defined below when all four are there
      else()
        target_compile_definitions(ywb_opencv INTERFACE YW_HAVE_OPENCV_${_M}=1)
      endif()
    endif()
  endforeach()
  if(YW_OPENCV_video AND YW_OPENCV_calib3d AND YW_OPENCV_features2d AND YW_OPENCV_flann)
    set(YW_HAVE_OPENCV_MOTION ON)
  endif()
  target_include_directories(ywb_opencv SYSTEM INTERFACE ${YW_OPENCV_INCLUDE})
  target_link_libraries(ywb_opencv INTERFACE ${_cv_libs})
endif()

# YW_HAVE_OPENCV_VIDEOIO is defined only for the files that read or write videos (engine/data/video_io.cpp and
# their tests), not on ywb_opencv: every other object keeps its flags, and its ccache entry, with or without it.
# YW_HAVE_OPENCV_MOTION likewise, only for engine/track/camera_motion.cpp.
if(YW_HAVE_OPENCV_MOTION)
  message(STATUS "OpenCV video, calib3d and features2d found: BoT-SORT compensates camera motion")
else()
  message(STATUS "OpenCV video/calib3d/features2d not found (libopencv-video-dev, libopencv-calib3d-dev): "
                 "BoT-SORT's camera-motion compensation is not built")
endif()
if(YW_HAVE_OPENCV_VIDEOIO)
  message(STATUS "OpenCV videoio found: predict takes videos")
else()
  message(STATUS "OpenCV videoio not found (libopencv-videoio-dev): predict takes no videos")
endif()

pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)
find_package(PNG REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
