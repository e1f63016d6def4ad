#include "compression/internal/large-buffer.h"

#include <cstdint>

#if defined(__linux__)
#    include <sys/mman.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;
constexpr std::align_val_t kHeapAlignment{64};

size_t
RoundUp(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

} // namespace

void*
AllocateLarge(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePageMinBytes)
    {
        // Over-map by one huge page, then give back the head before the first 2 MiB boundary
        // and everything past the buffer's last 4 KiB page.
        const size_t length = RoundUp(bytes, kPage);
        if (length > SIZE_MAX - kHugePage)
        {
            throw std::bad_alloc();
        }
        void* raw = mmap(nullptr,
                         length + kHugePage,
                         PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS,
                         -1,
                         0);
        if (raw == MAP_FAILED)
        {
            throw std::bad_alloc();
        }
        const auto start = reinterpret_cast<uintptr_t>(raw);
        const uintptr_t aligned = RoundUp(start, kHugePage);
        if (aligned != start)
        {
            munmap(raw, aligned - start);
        }
        const uintptr_t end = aligned + length;
        if (start + length + kHugePage != end)
        {
            munmap(reinterpret_cast<void*>(end), start + length + kHugePage - end);
        }
        // Advice only: with THP off the buffer simply keeps 4 KiB pages.
        madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
        return reinterpret_cast<void*>(aligned);
    }
#endif
    return ::operator new(bytes, kHeapAlignment);
}

void
FreeLarge(void* p, size_t bytes) noexcept
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePageMinBytes)
    {
        munmap(p, RoundUp(bytes, kPage));
        return;
    }
#endif
    ::operator delete(p, kHeapAlignment);
}

void
AdviseHugePages(void* p, size_t bytes) noexcept
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const auto start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t first = RoundUp(start, kHugePage);
    const uintptr_t last = (start + bytes) / kHugePage * kHugePage;
    if (first < last)
    {
        madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

} // namespace fedran::internal
