# The engine's one CUDA switch, YW_WITH_CUDA. Code that uses CUDA-only LibTorch APIs (c10/cuda, ATen/cuda:
# streams, events, graphs, the caching allocator) is written inside `#if YW_WITH_CUDA` and lives in the
# files listed with ywb_cuda_sources(); elsewhere the engine uses device-generic LibTorch calls only.
#
# - Normal builds: YW_WITH_CUDA is 1 when the LibTorch found has CUDA (torch_cuda among its libraries), so
#   the same sources build against Debian's CPU LibTorch (switch 0) and an upstream CUDA one (switch 1).
# - YW_CUDA_CHECK=ON (preset cuda-check): additionally compiles every file listed with ywb_cuda_sources()
#   with YW_WITH_CUDA=1 as the object library ywb_cuda_check, against the CUDA toolkit headers that
#   installer/cuda-headers.sh unpacks (YW_CUDA_HEADERS). Nothing is linked: there is no CUDA LibTorch here.
#   NCCL's process group (engine/dist/process_group_factory.cpp with USE_C10D_NCCL) is not part of the
#   check: nccl.h is not in Debian 12.
option(YW_CUDA_CHECK "Compile the engine's CUDA-only sources against the CUDA headers (no linking)" OFF)
set(YW_CUDA_HEADERS "${CMAKE_SOURCE_DIR}/.cache/cuda-headers" CACHE PATH
    "Folder written by installer/cuda-headers.sh (usr/include + stand-in/)")

set(YW_WITH_CUDA 0)
# LibTorch 1.x names torch_cuda in TORCH_LIBRARIES; 2.x lists the path of libc10_cuda.so there (and links
# torch_cuda through the torch target).
foreach(_lib ${TORCH_LIBRARIES})
  if(_lib MATCHES "(torch|c10)_cuda")
    set(YW_WITH_CUDA 1)
  endif()
endforeach()
if(TARGET torch_cuda)
  set(YW_WITH_CUDA 1)
endif()
message(STATUS "CUDA switch YW_WITH_CUDA=${YW_WITH_CUDA} (LibTorch ${Torch_VERSION})")

# Adds CUDA-aware sources to the engine and remembers them for the cuda-check object library.
function(ywb_cuda_sources)
  set(_abs)
  foreach(_s ${ARGN})
    get_filename_component(_a ${_s} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND _abs ${_a})
  endforeach()
  target_sources(ywb_engine PRIVATE ${_abs})
  # On these files only (the rest of the engine keeps its compile line, and so its ccache entries); they
  # include the narrow LibTorch headers they need instead of the precompiled one. In ywb_cuda_check (target
  # property YW_FORCE_CUDA) the same files see the switch on.
  set_source_files_properties(${_abs} TARGET_DIRECTORY ywb_engine PROPERTIES
    COMPILE_DEFINITIONS "YW_WITH_CUDA=$<IF:$<BOOL:$<TARGET_PROPERTY:YW_FORCE_CUDA>>,1,${YW_WITH_CUDA}>"
    SKIP_PRECOMPILE_HEADERS ON)
  set_property(GLOBAL APPEND PROPERTY YW_CUDA_SOURCES ${_abs})
endfunction()

# Called once after all engine areas are added: checks that every engine source testing YW_WITH_CUDA was
# listed with ywb_cuda_sources() (elsewhere the switch is undefined, and the check would miss the file), and
# creates ywb_cuda_check when asked.
function(ywb_cuda_finish engine_dir)
  get_property(_listed GLOBAL PROPERTY YW_CUDA_SOURCES)
  file(GLOB_RECURSE _all ${engine_dir}/*.cpp)
  foreach(_f ${_all})
    file(STRINGS ${_f} _hits REGEX "^#if.*YW_WITH_CUDA")
    if(_hits AND NOT _f IN_LIST _listed)
      message(FATAL_ERROR "${_f} has CUDA-only code (#if YW_WITH_CUDA) but is not listed with ywb_cuda_sources()")
    endif()
  endforeach()
  if(NOT YW_CUDA_CHECK)
    return()
  endif()
  if(NOT EXISTS ${YW_CUDA_HEADERS}/usr/include/cuda_runtime_api.h)
    message(FATAL_ERROR "cuda-check: no CUDA headers in ${YW_CUDA_HEADERS}; run installer/cuda-headers.sh")
  endif()
  add_library(ywb_cuda_check OBJECT ${_listed})
  ywb_set_warnings(ywb_cuda_check)
  set_target_properties(ywb_cuda_check PROPERTIES YW_FORCE_CUDA ON)
  target_include_directories(ywb_cuda_check
    PRIVATE ${engine_dir} ${engine_dir}/include ${CMAKE_BINARY_DIR}/engine/include)
  # The stand-in for c10/cuda/impl/cuda_cmake_macros.h comes first; the toolkit after LibTorch's headers.
  target_include_directories(ywb_cuda_check SYSTEM BEFORE PRIVATE ${YW_CUDA_HEADERS}/stand-in)
  target_include_directories(ywb_cuda_check SYSTEM PRIVATE ${YW_CUDA_HEADERS}/usr/include)
  target_link_libraries(ywb_cuda_check PRIVATE ywb_torch ywb_opencv yaml-cpp nlohmann_json::nlohmann_json)
  list(LENGTH _listed _n)
  message(STATUS "cuda-check: ${_n} CUDA-aware sources compiled with YW_WITH_CUDA=1 against ${YW_CUDA_HEADERS}"
                 " (NCCL's process group excluded: nccl.h is not in Debian 12)")
endfunction()
