#ifndef FEDRAN_COMPRESSION_INTERNAL_LARGE_BUFFER_H
#define FEDRAN_COMPRESSION_INTERNAL_LARGE_BUFFER_H

// Model-sized buffers that a codec allocates and fills in the same call: error feedback's
// residual, DGC's momentum and accumulation, random_k's position bitmap, wrapper scratch.
//
// Fresh memory is not free: the kernel maps and zeroes it one 4 KiB page at a time, on first
// touch. On the 2-vCPU virtual machines we measure on, such a page fault costs about 4 us, so
// touching 100 MB of new memory takes ~450 ms (0.2 GB/s), 20-50 times what the codec itself
// does with it; that was most of a client's first error-feedback or dgc encode. Buffers of at
// least kHugePageMinBytes are therefore mapped on their own, 2 MiB-aligned, and advised for
// transparent huge pages (madvise: the kernel's default THP mode only gives them when asked),
// which takes 512 times fewer faults: the same 100 MB in 15-25 ms, mostly the kernel zeroing
// it. The mapping ends at the last 4 KiB page, so a buffer's partial last 2 MiB stays in small
// pages and no memory is wasted. Smaller buffers come from the heap (see kHugePageMinBytes);
// a simulation's thousands of clients with small models never get a huge page. Elsewhere than
// Linux, or if the kernel declines, these are ordinary pages.
//
// LargeBuffer<T>'s resize() leaves new elements default-initialised (for floats: unset), so
// the owner must write every element before reading it; that saves a zeroing pass over memory
// the owner overwrites anyway. assign(n, value) and the copy constructor set every element.

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fedran::internal
{

/// Buffers from this size up get their own huge-page-advised mapping. Not smaller: a fresh
/// huge page here sometimes costs tens of milliseconds (the host backing it again), while
/// 4 KiB pages cost a steady ~4 us each, so a few MB are cheaper and steadier in small pages
/// (random_k's 3 MB bitmap: a first decode of 11-17 ms in small pages, 15-103 ms with a huge
/// page), and model-sized state far cheaper in huge ones.
constexpr size_t kHugePageMinBytes = size_t{32} << 20;

/// `bytes` of memory aligned to at least 64 bytes; throws std::bad_alloc.
void* AllocateLarge(size_t bytes);

/// Frees what AllocateLarge(bytes) returned.
void FreeLarge(void* p, size_t bytes) noexcept;

/// Advises the whole 2 MiB pages within [p, p + bytes) for transparent huge pages: for memory
/// allocated elsewhere (a payload vector) that is about to be written for the first time.
/// Advice only: nothing else changes.
void AdviseHugePages(void* p, size_t bytes) noexcept;

/// From this size up, a std::vector's buffer is a mapping of its own (glibc's largest mmap
/// threshold, and what fedran sets), so advice on it ends when it is freed and never reaches
/// heap memory that is reused for small objects.
constexpr size_t kAdviseHugePagesMinBytes = size_t{32} << 20;

template<typename T>
class LargeBufferAllocator
{
  public:
    using value_type = T;

    LargeBufferAllocator() = default;

    template<typename U>
    LargeBufferAllocator(const LargeBufferAllocator<U>& /* other */) noexcept
    {
    }

    T* allocate(size_t n)
    {
        if (n > std::numeric_limits<size_t>::max() / sizeof(T))
        {
            throw std::bad_array_new_length();
        }
        return static_cast<T*>(AllocateLarge(n * sizeof(T)));
    }

    void deallocate(T* p, size_t n) noexcept
    {
        FreeLarge(p, n * sizeof(T));
    }

    /// Default-initialises: what resize() calls for each new element.
    template<typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(p)) U;
    }

    template<typename U, typename... Args>
    void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    friend bool operator==(const LargeBufferAllocator&, const LargeBufferAllocator&)
    {
        return true;
    }
};

template<typename T>
using LargeBuffer = std::vector<T, LargeBufferAllocator<T>>;

} // namespace fedran::internal

#endif
