/* test_regmap.c — the register map reader (src/regmap_read.c): the two shipped maps read into the values their
 * lines say (registers, strides, types, word order, function codes, scales in SI), the built-in text is
 * drives/emulator.map byte for byte, and a file with several errors reports each with its line and column.
 * Run from the repository root (tests/run.sh does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regmap_read.h"
#include "utest.h"

static const double DEG = 0.017453292519943295;

/* Read path into *m; the diagnostics into a memory buffer returned in *msg (caller frees). */
static int load(const char *path, const char *text, RegMap *m, char **msg)
{
    size_t len;
    FILE *out = open_memstream(msg, &len);
    Diag diag;
    diag_init(&diag, out);
    int rc = text ? regmap_load_text(path, text, strlen(text), m, &diag) : regmap_load(path, m, &diag);
    diag_free(&diag);
    fclose(out);
    return rc;
}

UTEST(cia402_map)
{
    RegMap m;
    char *msg;
    CHECK(load("drives/cia402.map", NULL, &m, &msg) == REGMAP_OK);
    CHECK(msg[0] == '\0');
    free(msg);
    CHECK(m.profile == REGMAP_PROFILE_CIA402 && m.mode == REGMAP_MODE_CSP);
    CHECK_NEAR(m.state_timeout, 0.5, 0);
    const RegMapObject *tp = &m.obj[REGMAP_TARGET_POSITION], *cw = &m.obj[REGMAP_CONTROLWORD];
    CHECK(tp->present && tp->reg == 0 && tp->stride == 4 && tp->type == REGMAP_INT32 && !tp->low_first);
    CHECK(tp->write_fc == 16 && tp->read_fc == 0);
    CHECK_NEAR(tp->scale_rad, 1e-4 * DEG, 0);
    CHECK_NEAR(tp->scale_m, 1e-7, 1e-22);
    CHECK_NEAR(m.obj[REGMAP_TARGET_VELOCITY].scale_rad, 1e-3 * DEG, 0);
    CHECK(cw->reg == 200 && cw->stride == 2 && cw->type == REGMAP_UINT16 && cw->write_fc == 6);
    CHECK(m.obj[REGMAP_STATUSWORD].reg == 1000 && m.obj[REGMAP_STATUSWORD].stride == 8);
    CHECK(m.obj[REGMAP_STATUSWORD].read_fc == 3);
    CHECK(m.obj[REGMAP_MODES].type == REGMAP_INT16 && m.obj[REGMAP_ERROR_CODE].reg == 1006);
    CHECK(!m.obj[REGMAP_MAGIC].present && !m.obj[REGMAP_DIGITAL_INPUTS].present);
}

UTEST(emulator_map_built_in)
{
    FILE *f = fopen("drives/emulator.map", "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char file[1 << 16];
    size_t n = fread(file, 1, sizeof file - 1, f);
    fclose(f);
    file[n] = '\0';
    CHECK(strcmp(file, regmap_emulator_text) == 0);
    RegMap m;
    char *msg;
    CHECK(load(regmap_emulator_file, regmap_emulator_text, &m, &msg) == REGMAP_OK);
    free(msg);
    CHECK(m.profile == REGMAP_PROFILE_IRL);
    CHECK(m.obj[REGMAP_CONTROLWORD].reg == 0 && m.obj[REGMAP_CONTROLWORD].stride == 0);
    CHECK(m.obj[REGMAP_CONTROLWORD].write_fc == 23);
    CHECK(m.obj[REGMAP_TARGET_POSITION].reg == 6 && m.obj[REGMAP_TARGET_POSITION].stride == 4);
    CHECK(m.obj[REGMAP_POSITION_ACTUAL].reg == 266 && m.obj[REGMAP_POSITION_ACTUAL].read_fc == 23);
    CHECK_NEAR(m.obj[REGMAP_POSITION_ACTUAL].scale_rad, 1e-6, 0);
    CHECK_NEAR(m.obj[REGMAP_POSITION_ACTUAL].scale_m, 1e-6, 0);
    CHECK(m.obj[REGMAP_DIGITAL_OUTPUTS].type == REGMAP_UINT64 && m.obj[REGMAP_DIGITAL_OUTPUTS].low_first);
    CHECK(m.obj[REGMAP_MAGIC].has_expect && m.obj[REGMAP_MAGIC].expect == 0x4952);
}

UTEST(every_error_with_its_place)
{
    const char *text = "profile cia403\n"
                       "controlword 0x10000 uint16 write=6\n"
                       "statusword 1 uint16 read=4\n"
                       "target_position 2 int32 write=16 scale=1e-6furlong\n"
                       "position_actual 4 float32 read=3 scale=2mm/s\n"
                       "target_velocity 6 int32 write=16\n"
                       "speed 7 int16\n";
    RegMap m;
    char *msg;
    CHECK(load("t.map", text, &m, &msg) == REGMAP_EINVALID);
    CHECK(strstr(msg, "t.map:1:9: error: profile: 'cia403' (irl or cia402)") != NULL);
    CHECK(strstr(msg, "t.map:2:13: error: register: 65536 is out of range (0..65535)") != NULL);
    CHECK(strstr(msg, "t.map:3:26: error: read: function 4; a holding register is read with 3 or 23") != NULL);
    CHECK(strstr(msg, "t.map:4:44: error: scale: unknown unit 'furlong' (rad, deg, m, mm, um)") != NULL);
    CHECK(strstr(msg, "t.map:5:41: error: scale: a position's unit is mm, not 'mm/s'") != NULL);
    CHECK(strstr(msg, "t.map:6:33: error: target_velocity: give its scale with a unit") != NULL);
    CHECK(strstr(msg, "t.map:7:1: error: unknown object or directive 'speed'") != NULL);
    CHECK(strstr(msg, "4:51") == NULL && strstr(msg, "5:45") == NULL); /* a bad scale says so once */
    if (utest_failed_checks) printf("# %s", msg);
    free(msg);
}

UTEST(scales_and_orders)
{
    const char *text = "profile cia402\nmode csv\nstate_timeout 200 ms\nword_order low_first\nstride 10\n"
                       "controlword 0 uint16 write=6\nmodes_of_operation 1 int16 write=6\n"
                       "target_position 2 float32 write=16 scale=1deg order=high_first\n"
                       "target_velocity 4 int32 write=23 scale=0.5um/s stride=0\n"
                       "statusword 100 uint16 read=23\nposition_actual 102 int32 read=3 scale=1rad\n";
    RegMap m;
    char *msg;
    CHECK(load("s.map", text, &m, &msg) == REGMAP_OK);
    if (msg[0]) printf("# %s", msg);
    free(msg);
    CHECK(m.mode == REGMAP_MODE_CSV);
    CHECK_NEAR(m.state_timeout, 0.2, 1e-15);
    CHECK(m.obj[REGMAP_CONTROLWORD].low_first && m.obj[REGMAP_CONTROLWORD].stride == 10);
    CHECK(!m.obj[REGMAP_TARGET_POSITION].low_first && m.obj[REGMAP_TARGET_POSITION].type == REGMAP_FLOAT32);
    CHECK_NEAR(m.obj[REGMAP_TARGET_POSITION].scale_rad, DEG, 0);
    CHECK(m.obj[REGMAP_TARGET_POSITION].scale_m == 0);
    CHECK_NEAR(m.obj[REGMAP_TARGET_VELOCITY].scale_m, 0.5e-6, 1e-21);
    CHECK(m.obj[REGMAP_TARGET_VELOCITY].stride == 0 && m.obj[REGMAP_TARGET_VELOCITY].write_fc == 23);
}

int main(void)
{
    RUN(cia402_map);
    RUN(emulator_map_built_in);
    RUN(every_error_with_its_place);
    RUN(scales_and_orders);
    return utest_done();
}
