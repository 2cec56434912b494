/* test_units.c — the unit table, compound unit spellings and dimension arithmetic/spelling (src/units.c). */
#include <string.h>

#include "units.h"
#include "utest.h"

#define PI 3.14159265358979323846

/* Factor and exponents (length, mass, time, angle) of a spelling, checked in one line. */
static int unit_is(const char *name, double f, int l, int m, int t, int a) {
    double got;
    Dim d;
    if (!units_lookup(name, &got, &d)) return 0;
    return fabs(got - f) <= 1e-12 * fmax(1, fabs(f)) && d.e[DIM_LENGTH] == l && d.e[DIM_MASS] == m &&
           d.e[DIM_TIME] == t && d.e[DIM_ANGLE] == a && !d.any;
}

UTEST(table) {
    CHECK(unit_is("mm", 0.001, 1, 0, 0, 0));
    CHECK(unit_is("m", 1, 1, 0, 0, 0));
    CHECK(unit_is("deg", PI / 180, 0, 0, 0, 1));
    CHECK(unit_is("rad", 1, 0, 0, 0, 1));
    CHECK(unit_is("s", 1, 0, 0, 1, 0));
    CHECK(unit_is("ms", 0.001, 0, 0, 1, 0));
    CHECK(unit_is("G", 9.81, 1, 0, -2, 0));
    CHECK(unit_is("G/s", 9.81, 1, 0, -3, 0));
    CHECK(unit_is("%", 0.01, 0, 0, 0, 0));
    CHECK(unit_is("N", 1, 1, 1, -2, 0));
    CHECK(unit_is("Nm", 1, 2, 1, -2, 0));
    CHECK(unit_is("kg", 1, 0, 1, 0, 0));
    CHECK(unit_is("m/s", 1, 1, 0, -1, 0));
    CHECK(unit_is("m/s^2", 1, 1, 0, -2, 0));
    CHECK(unit_is("rad/s", 1, 0, 0, -1, 1));
    CHECK(unit_is("rad/s^2", 1, 0, 0, -2, 1));
    CHECK(unit_is("deg/s", PI / 180, 0, 0, -1, 1));
    CHECK(unit_is("rpm", 2 * PI / 60, 0, 0, -1, 1));
    /* 90 deg is exactly what the issue prints */
    double f;
    CHECK(units_lookup("deg", &f, NULL) && 90 * f == 1.5707963267948966);
}

UTEST(compound) {
    CHECK(unit_is("G/s^2", 9.81, 1, 0, -4, 0));
    CHECK(unit_is("m/s^3", 1, 1, 0, -3, 0));
    CHECK(unit_is("mm/s", 0.001, 1, 0, -1, 0));
    CHECK(unit_is("kg*m^2", 1, 2, 1, 0, 0));
    CHECK(unit_is("1/s", 1, 0, 0, -1, 0));
    CHECK(unit_is("m^-1", 1, -1, 0, 0, 0));
    CHECK(unit_is("ms^2", 1e-6, 0, 0, 2, 0));
    double f;
    Dim d;
    CHECK(units_lookupn("m/sXYZ", 3, &f, &d) && dim_eq(d, dim_speed()));
    CHECK(!units_lookup("m/(s*kg)", &f, &d));
}

UTEST(unknown) {
    double f;
    Dim d;
    CHECK(!units_lookup("", &f, &d));
    CHECK(!units_lookup("g", &f, &d)); /* case-sensitive: only G */
    CHECK(!units_lookup("M", &f, &d));
    CHECK(!units_lookup("m/", &f, &d));
    CHECK(!units_lookup("m^", &f, &d));
    CHECK(!units_lookup("m^0", &f, &d));
    CHECK(!units_lookup("furlong", &f, &d));
    CHECK(!units_lookup("m s", &f, &d));
    CHECK(!units_lookup(NULL, &f, &d));
}

UTEST(arith) {
    Dim v = dim_div(dim_length(), dim_time());
    CHECK(dim_eq(v, dim_speed()));
    CHECK(dim_eq(dim_mul(v, dim_time()), dim_length()));
    CHECK(dim_eq(dim_pow(dim_length(), 2), dim_mul(dim_length(), dim_length())));
    Dim r;
    CHECK(dim_sqrt(dim_pow(dim_speed(), 2), &r) && dim_eq(r, dim_speed()));
    CHECK(!dim_sqrt(dim_length(), &r));
    CHECK(dim_compatible(dim_any(), dim_length()));
    CHECK(dim_compatible(dim_length(), dim_any()));
    CHECK(!dim_compatible(dim_length(), dim_time()));
    CHECK(!dim_compatible(dim_none(), dim_angle()));
    CHECK(dim_mul(dim_any(), dim_any()).any);
    CHECK(!dim_mul(dim_any(), dim_length()).any);
    CHECK(dim_is_none(dim_any()));
}

UTEST(spelling) {
    char b[64];
    CHECK(strcmp(dim_str(dim_length(), b, sizeof b), "m") == 0);
    CHECK(strcmp(dim_str(dim_accel(), b, sizeof b), "m/s^2") == 0);
    CHECK(strcmp(dim_str(dim_none(), b, sizeof b), "1") == 0);
    CHECK(strcmp(dim_str(dim_base(DIM_TIME, -1), b, sizeof b), "1/s") == 0);
    Dim n;
    units_lookup("N", NULL, &n);
    CHECK(strcmp(dim_str(n, b, sizeof b), "kg*m/s^2") == 0);
    units_lookup("rad/s", NULL, &n);
    CHECK(strcmp(dim_str(n, b, sizeof b), "rad/s") == 0);
    Dim odd = dim_div(dim_length(), dim_mul(dim_time(), dim_base(DIM_MASS, 1)));
    CHECK(strcmp(dim_str(odd, b, sizeof b), "m/(s*kg)") == 0);
    CHECK(strcmp(dim_describe(dim_length(), b, sizeof b), "a length (m)") == 0);
    CHECK(strcmp(dim_describe(dim_time(), b, sizeof b), "a time (s)") == 0);
    CHECK(strcmp(dim_describe(dim_angle(), b, sizeof b), "an angle (rad)") == 0);
    CHECK(strcmp(dim_describe(dim_none(), b, sizeof b), "a dimensionless number") == 0);
    CHECK(strcmp(dim_describe(dim_base(DIM_MASS, 2), b, sizeof b), "a value in kg^2") == 0);
}

int main(void) {
    RUN(table);
    RUN(compound);
    RUN(unknown);
    RUN(arith);
    RUN(spelling);
    return utest_done();
}
