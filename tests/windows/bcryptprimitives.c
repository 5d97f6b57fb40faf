/* A stand-in for Windows' bcryptprimitives.dll under Wine 8, which lacks ProcessPrng (the
 * random source Rust's standard library calls on Windows 10 and later). It forwards to
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. Built by tests/windows/setup.sh
 * with mingw-w64 and placed beside the test binaries; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
