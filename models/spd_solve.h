/* spd_solve.h — solve A x = b in place for a small dense symmetric positive-definite A by Cholesky, in plain C:
 * for the matrices of a robot (n <= a few dozen) GSL's blocked Cholesky costs more in call overhead than the
 * arithmetic. Shared by the back-ends' forward dynamics and the closed-loop plant. Header-only so the hot
 * callers inline it. */
#ifndef IRL_SPD_SOLVE_H
#define IRL_SPD_SOLVE_H

#include <math.h>
#include <stddef.h>

#include "model.h"

/* A: n x n row-major with leading dimension lda; its lower triangle is overwritten by the Cholesky factor and
 * b becomes x. A pivot d_j must exceed rtol * (1 + |A_jj|) (rtol = 0: just positive), otherwise A is not
 * positive definite to working precision and the result is MODEL_ESINGULAR. */
static inline int spd_solve(double *A, double *b, int n, int lda, double rtol)
{
    for (int j = 0; j < n; j++) {
        double *Aj = A + (size_t)j * lda, d = Aj[j];
        for (int k = 0; k < j; k++) d -= Aj[k] * Aj[k];
        if (!(d > rtol * (1.0 + fabs(Aj[j])))) return MODEL_ESINGULAR;
        d = sqrt(d);
        Aj[j] = d;
        double inv = 1.0 / d;
        for (int i = j + 1; i < n; i++) {
            double *Ai = A + (size_t)i * lda, sum = Ai[j];
            for (int k = 0; k < j; k++) sum -= Ai[k] * Aj[k];
            Ai[j] = sum * inv;
        }
    }
    for (int i = 0; i < n; i++) { /* L y = b */
        const double *Ai = A + (size_t)i * lda;
        double sum = b[i];
        for (int k = 0; k < i; k++) sum -= Ai[k] * b[k];
        b[i] = sum / Ai[i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
        double sum = b[i];
        for (int k = i + 1; k < n; k++) sum -= A[(size_t)k * lda + i] * b[k];
        b[i] = sum / A[(size_t)i * lda + i];
    }
    return MODEL_OK;
}

#endif
