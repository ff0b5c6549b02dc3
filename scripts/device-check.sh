#!/usr/bin/env bash
# The GPU checks of specs/cuda.md in one run: CUDA tests, the parity suite and DeviceModel
# tests on every backend there, vt's matmul vs cuBLAS (4096³ and decode, f32/f16/bf16), and
# decode tokens/s of a 24-layer dim-2048 f16 fixture on CUDA vs CPU. Sized for well under
# 8 minutes on an H200 machine.
#
#   scripts/device-check.sh pack          here: build (CUDA on) and gather the binaries and the
#                                         shared libraries they need into .device/ (git-ignored)
#   scripts/device-check.sh run [OUT]     on the GPU machine, whose image lacks our Debian
#                                         packages: run from .device/ (carry it), results in
#                                         OUT/device-check.txt (default: $OUT or ./device-check)
#   scripts/device-check.sh [OUT]         a GPU machine with the build dependencies: both
#
# A rehearsal where there is no GPU (the plumbing, not the numbers): VT_CHECK_REHEARSE=1 skips
# the GPU check and the 4096³ matmuls, and VT_CHECK_LAYERS / VT_CHECK_DIM / VT_CHECK_FF shrink the decode fixture.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${VT_DEVICE_BUILD:-build-device}
targets="engine_tests device_matmul_bench vt-run vt-fixture"

pack() {
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVT_CUDA=ON >/dev/null || exit 1
  ninja -C "$build" -j2 $targets || exit 1
  rm -rf .device && mkdir -p .device/bin .device/lib
  for t in tests/engine_tests tests/device_matmul_bench engine/vt-run engine/vt-fixture; do
    strip -o ".device/bin/$(basename "$t")" "$build/$t"
  done
  # Everything they link but the C library and CUDA's own (the GPU image has CUDA 13).
  ldd .device/bin/* | awk '/=> \// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libcublas[^/]*|libcuda)\.so' |
    while read -r lib; do cp -L "$lib" .device/lib/; done
  grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
  # The GL dispatch libraries NVIDIA's Vulkan driver loads (the GPU image has none): Debian's
  # debs, unpacked there by `run`.
  mkdir -p .device/gl
  (cd .device/gl && apt-get download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2 >/dev/null 2>&1) ||
    echo "device-check: could not download the GL dispatch debs; Vulkan will not reach the GPU" >&2
  du -sh .device
}

run() {
  if [ -z "${VT_CHECK_REHEARSE:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "device-check: no NVIDIA GPU here (nvidia-smi -L failed); run it on a GPU machine" >&2
    exit 3
  fi
  local out=${1:-${OUT:-device-check}} bin=.device/bin
  mkdir -p "$out"
  local log="$out/device-check.txt"
  [ -x "$bin/engine_tests" ] || bin=$build/tests
  export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  if compgen -G ".device/gl/*.deb" >/dev/null; then
    for f in .device/gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  # The NVIDIA Vulkan driver where the image keeps it (the loader is carried in .device/lib).
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -f "$icd" ] && export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
  local tests=$bin/engine_tests bench=$bin/device_matmul_bench vtrun=$bin/vt-run fixture=$bin/vt-fixture
  [ -x "$bench" ] || bench=$build/tests/device_matmul_bench
  [ -x "$vtrun" ] || vtrun=$build/engine/vt-run fixture=$build/engine/vt-fixture
  {
    echo "== device-check $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    echo "== tests"
    timeout 240 "$tests" --gtest_filter='Cuda*:DeviceChoice*:Parity*:DeviceModel*' 2>&1 | tee "$out/engine-tests.txt" | grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) |Failure|NMSE|Expected|Which is' | head -200
    echo "== vulkan devices"
    VT_VULKAN_DEVICE=nvidia timeout 60 "$tests" --gtest_filter='Vulkan.ListsDevices*' 2>&1 | grep -E '^\[ *(OK|FAILED|SKIPPED) '
    echo "== matmul: vt (CUDA, Vulkan) vs cuBLAS"
    # (A rehearsal skips 4096³: lavapipe would take minutes a case.)
    timeout 150 "$bench" --benchmark_min_time=0.3 ${VT_CHECK_REHEARSE:+--benchmark_filter=/1/4096} 2>&1 | grep -E '^(Matmul|Benchmark|---)' 
    local layers=${VT_CHECK_LAYERS:-24} dim=${VT_CHECK_DIM:-2048} ff=${VT_CHECK_FF:-5632}
    echo "== decode: $layers layers, dim $dim, f16"
    "$fixture" -o /tmp/vt-decode.gguf --layers "$layers" --dim "$dim" --heads 16 --kv-heads 8 --ff "$ff" --dtype f16 --ctx 1024 2>&1
    for dev in cuda vulkan cpu; do
      n=$([ $dev = cpu ] && echo 32 || echo 256)
      local r
      r=$(timeout 120 "$vtrun" -m /tmp/vt-decode.gguf -p "The quick brown fox" -n "$n" --ignore-eos --device $dev --json 2>&1)
      if grep -q decode_tokens_per_s <<<"$r"; then
        grep -E '"(device|decode_tokens_per_s|prompt_tokens_per_s)"' <<<"$r" | tr -d '\n'; echo
      else
        echo "$dev: $(tail -1 <<<"$r")"
      fi
    done
  } 2>&1 | tee "$log"
}

case "${1:-}" in
  pack) pack ;;
  run) shift; run "$@" ;;
  *) VT_DEVICE_BUILD=$build pack >/dev/null && run "$@" ;;
esac
