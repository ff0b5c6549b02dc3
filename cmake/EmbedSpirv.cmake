# cmake -DSPV=in.spv -DOUT=out.h -DNAME=kSymbol -P EmbedSpirv.cmake
# Writes a header with the SPIR-V words as a uint32_t array, so shaders live inside the library.
file(READ "${SPV}" hex HEX)
string(LENGTH "${hex}" len)
set(words "")
math(EXPR last "${len} - 8")
foreach(i RANGE 0 ${last} 8)
  # SPIR-V is little-endian words: bytes b0 b1 b2 b3 → 0xb3b2b1b0.
  string(SUBSTRING "${hex}" ${i} 2 b0)
  math(EXPR i1 "${i} + 2")
  math(EXPR i2 "${i} + 4")
  math(EXPR i3 "${i} + 6")
  string(SUBSTRING "${hex}" ${i1} 2 b1)
  string(SUBSTRING "${hex}" ${i2} 2 b2)
  string(SUBSTRING "${hex}" ${i3} 2 b3)
  string(APPEND words "0x${b3}${b2}${b1}${b0}u,")
endforeach()
file(WRITE "${OUT}" "// Generated from ${SPV} by cmake/EmbedSpirv.cmake; do not edit.\n#pragma once\n#include <cstdint>\n"
                    "inline constexpr uint32_t ${NAME}[] = {${words}};\n")
