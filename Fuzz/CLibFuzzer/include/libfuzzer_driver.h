#ifndef GEOFENCE_LIBFUZZER_DRIVER_H
#define GEOFENCE_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (LLVM 11 and later), for a target whose `main` is its own: SwiftPM names
// an executable's entry point `<module>_main` and links `main` to it, so libFuzzer's `main`
// is not the one that runs; the fuzz targets' entry point calls this instead. Only the fuzz
// build (`make fuzz`, -sanitize=fuzzer) links libFuzzer and calls it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
