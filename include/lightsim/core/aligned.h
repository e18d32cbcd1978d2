// Cache-line-aligned storage for the SIMD kernels' arrays.
//
// A std::vector's buffer is only as aligned as operator new makes it (16 bytes; a large one is
// mmap'ed by glibc 16 bytes past a page boundary), so a 64-byte AVX-512 load from it straddles
// two cache lines at every element offset that is not a multiple of 64 bytes. On the Intel VM
// a streaming read of 64-byte loads ran at 104 GB/s from L2 at a 16-byte offset against 182
// GB/s aligned (docs/performance.md, "Kernels on the Intel VM"). AlignedVector<T> is a
// std::vector whose buffer starts on a 64-byte boundary.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace lightsim {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
struct CacheAlignedAllocator {
  using value_type = T;
  CacheAlignedAllocator() noexcept = default;
  template <typename U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete (p, std::align_val_t{kCacheLine});
  }
  template <typename U>
  bool operator==(const CacheAlignedAllocator<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using AlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

}  // namespace lightsim
