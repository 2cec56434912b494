/* fuzz_machine.c — libFuzzer target for the machine-description readers: an input that starts with '<' (after
 * blanks) is a URDF file (src/urdf.c, libxml2), anything else both a machine file (.irm, src/machine.c: parsed by
 * the irl parser, evaluated with units into a ModelDesc) and a drive's register map (src/regmap_read.c). Messages
 * are discarded; the only failures are crashes, sanitizer reports, leaks and hangs.
 *   make fuzz-build && build/fuzz/fuzz_machine build/fuzz/corpus_machine tests/fuzz/corpus_machine */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "machine.h"
#include "regmap_read.h"
#include "urdf.h"

/* urdf_read takes a path: the input goes through an anonymous in-memory file, named by /proc/self/fd. */
static void read_urdf(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.urdf", 0);
        if (fd < 0)
            return;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return;
    ModelDesc desc;
    char err[512];
    urdf_read(path, &desc, err, sizeof err);
}

static void read_irm(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    Diag diag;
    diag_init(&diag, devnull);
    ModelDesc desc;
    machine_load_text("fuzz.irm", (const char *)data, size, &desc, &diag);
    diag_free(&diag);
    diag_init(&diag, devnull);
    RegMap map;
    regmap_load_text("fuzz.map", (const char *)data, size, &map, &diag);
    diag_free(&diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    size_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    if (i < size && data[i] == '<')
        read_urdf(data, size);
    else
        read_irm(data, size);
    return 0;
}
