# VT_CUDA / VT_VULKAN = AUTO | ON | OFF.
# AUTO turns a backend on when its toolchain is found; ON insists (configure fails with
# the reason); OFF never looks. The resolved values VT_HAVE_CUDA / VT_HAVE_VULKAN are
# what the engine's CMakeLists reads.
set(VT_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set(VT_VULKAN AUTO CACHE STRING "Build the Vulkan backend: AUTO, ON or OFF")
set_property(CACHE VT_CUDA PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE VT_VULKAN PROPERTY STRINGS AUTO ON OFF)

function(vt_resolve_backend option found reason out)
  if(NOT "${${option}}" MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${option}=${${option}}: expected AUTO, ON or OFF")
  endif()
  if("${${option}}" STREQUAL "OFF")
    set(${out} OFF PARENT_SCOPE)
  elseif(found)
    set(${out} ON PARENT_SCOPE)
  elseif("${${option}}" STREQUAL "ON")
    message(FATAL_ERROR "${option}=ON but ${reason}")
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

find_program(VT_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
vt_resolve_backend(VT_CUDA "${VT_NVCC}" "nvcc was not found (PATH, CUDA_HOME, /usr/local/cuda)"
                   VT_HAVE_CUDA)
if(VT_HAVE_CUDA)
  set(CMAKE_CUDA_COMPILER "${VT_NVCC}")
  enable_language(CUDA)
  # CMake 3.25 predates nvcc's C++20 support (CUDA 12+); the engine's headers need C++20.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

find_package(Vulkan QUIET)
find_program(VT_GLSLC glslc)
if(Vulkan_FOUND AND VT_GLSLC)
  set(vt_vulkan_found TRUE)
else()
  set(vt_vulkan_found FALSE)
endif()
vt_resolve_backend(VT_VULKAN ${vt_vulkan_found}
                   "Vulkan headers/loader (libvulkan-dev) or glslc were not found" VT_HAVE_VULKAN)

message(STATUS "vt backends: cpu ON, cuda ${VT_HAVE_CUDA} (VT_CUDA=${VT_CUDA}), "
               "vulkan ${VT_HAVE_VULKAN} (VT_VULKAN=${VT_VULKAN})")
