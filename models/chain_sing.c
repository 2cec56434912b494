/* chain_sing.c — the chain back-end's singularity measure (sigma_min / sigma_max of the normalised tool Jacobian) by
 * a one-sided Jacobi SVD warm-started from the last one, and the certified bounds that skip it when the caller's band
 * (model.h) holds the measure: Lipschitz and first-order bounds from the joint values, Weyl's and Temple's on the
 * matrix. */
#include "chain_internal.h"

/* (x, y) := (cs x - sn y, sn x + cs y) for the len entries of x and y, two entries per operation (each entry's
 * operations are the scalar ones, so the bits are theirs). */
static inline __attribute__((always_inline)) void chain_jacobi_rotate(double *x, double *y, int len, double cs,
                                                                      double sn)
{
    ChainV2 c2 = {cs, cs}, s2 = {sn, sn}, a, b;
    int i = 0;
#pragma GCC unroll 3
    for (; i + 2 <= len; i += 2) {
        memcpy(&a, x + i, 16), memcpy(&b, y + i, 16);
        ChainV2 u = c2 * a - s2 * b, v = s2 * a + c2 * b;
        memcpy(x + i, &u, 16), memcpy(y + i, &v, 16);
    }
    if (i < len) {
        double u = x[i], v = y[i];
        x[i] = cs * u - sn * v;
        y[i] = sn * u + cs * v;
    }
}

/* One-sided Jacobi (Hestenes) on the k columns of B (each m long, k <= 6): rotates pairs of columns until every
 * pair is orthogonal to m * eps relative, applying the same rotations to the columns of V. Afterwards the column
 * norms are the singular values of the matrix B had on entry (times V's, which stay orthogonal), those below
 * m * eps * |B|_F to that absolute accuracy. Returns the number of sweeps, or -1 when 30 sweeps were not enough. */
static inline __attribute__((always_inline)) int chain_jacobi_sv_n(int m, int k, double B[6][N_MAX],
                                                                     double V[6][6])
{
    double tol = m * 2.220446049250313e-16, frob2 = 0;
    for (int p = 0; p < k; p++)
        for (int i = 0; i < m; i++) frob2 += B[p][i] * B[p][i];
    /* a column below tol * |B|_F is rounding noise (a rank-deficient B): no rotation can make it orthogonal to
     * the others to tol relative, and its norm is a singular value to that noise level already */
    double floor2 = tol * tol * frob2;
    for (int sweep = 1; sweep <= 30; sweep++) {
        int rotated = 0;
        /* squared column norms, exact at the start of each sweep and updated by each rotation (alpha - t gamma,
         * beta + t gamma): one dot product per pair instead of three */
        double nrm[6];
        for (int p = 0; p < k; p++) {
            double a = 0;
#pragma GCC unroll 6
            for (int i = 0; i < m; i++) a += B[p][i] * B[p][i];
            nrm[p] = a;
        }
        for (int p = 0; p < k - 1; p++)
            for (int r = p + 1; r < k; r++) {
                double *bp = B[p], *br = B[r], alpha = nrm[p], beta = nrm[r], gamma = 0;
#pragma GCC unroll 6
                for (int i = 0; i < m; i++) gamma += bp[i] * br[i];
                if (fabs(gamma) <= tol * sqrt(alpha * beta) || alpha <= floor2 || beta <= floor2) continue;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double cs = 1 / sqrt(1 + t * t), sn = cs * t;
                chain_jacobi_rotate(bp, br, m, cs, sn);
                chain_jacobi_rotate(V[p], V[r], k, cs, sn);
                nrm[p] = alpha - t * gamma;
                nrm[r] = beta + t * gamma;
                rotated = 1;
            }
        if (!rotated) return sweep;
    }
    return -1;
}

/* The world transforms of q: the cache entry's when q is there with them, else computed (and cached): into the
 * entry itself when q is there without them (an IK answer, or an imported entry), else into the workspace. */
static inline __attribute__((always_inline)) void chain_world(Chain *c, const double *q, const double (**Rw)[9],
                                                              const double (**pw)[3])
{
    ChainCache *e = chain_cache_find(c, q);
    if (e && !e->has_world) {
        chain_fk_world_trig(c, e->q, e->cq, e->sq, e->Rw, e->pw);
        e->has_world = 1;
    }
    if (e) {
        *Rw = (const double (*)[9])e->Rw, *pw = (const double (*)[3])e->pw;
        return;
    }
    chain_fk_world(c, q);
    *Rw = (const double (*)[9])c->Rw, *pw = (const double (*)[3])c->pw;
}

/* The normalised tool Jacobian A (rows x n, row-major) from the world transforms Rw, pw: the geometric Jacobian
 * with its position rows divided by the machine's characteristic length (so metres and radians weigh alike). */
static void chain_sing_matrix(const Chain *c, const double (*Rw)[9], const double (*pw)[3], int rows, double *A)
{
    int l = c->tool_link;
    double x[3], t[3];
    m3_mulv(t, Rw[l], c->tool_p);
    v3_add(x, pw[l], t);
    if (rows == 6 && c->sv_fo_ok && c->sv_np == c->n) {
        /* every joint revolute and on the path: chain_jac_rows' columns, every entry written (no clearing) */
        int n = c->n;
        double scale = 1.0 / c->char_len;
        for (int i = 0; i < n; i++) {
            double z[3], d[3], v[3];
            const double *R = Rw[i];
            if (c->j[i].dh) v3_set(z, R[2], R[5], R[8]);
            else m3_mulv(z, R, c->j[i].axis);
            v3_sub(d, x, pw[i]);
            v3_cross(v, z, d);
            A[i] = v[0] * scale, A[n + i] = v[1] * scale, A[2 * n + i] = v[2] * scale;
            A[3 * n + i] = z[0], A[4 * n + i] = z[1], A[5 * n + i] = z[2];
        }
        return;
    }
    chain_jac_rows(c, Rw, pw, l, x, rows, 1.0 / c->char_len, A);
}

/* sigma_min / sigma_max of A (rows x n) by a one-sided Jacobi SVD of the k = min(rows, n) columns of A V (of A^T V
 * when n > rows), warm-started from V (k x k, the right singular vectors of the last matrix decomposed): in a 1 ms
 * cycle A V is already orthogonal to ~1e-3, so two or three sweeps finish where GSL's Golub-Kahan SVD cost ~35,000
 * instructions. V is re-orthonormalised (Gram-Schmidt) first, so the history changes the answer by rounding only;
 * it is updated in place. */
/* sv_B = A' V (m x k, column-major B[col][row]), A' = A (rows x n) or A^T when n > rows. Inlined with n = rows =
 * 6, the loops' bounds are constants. */
static inline __attribute__((always_inline)) void chain_sing_project_n(Chain *c, int n, int rows, const double *A,
                                                                       double V[6][6])
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    for (int col = 0; col < k; col++)
#pragma GCC unroll 6
        for (int i = 0; i < m; i++) {
            double acc = 0;
            if (n <= rows)
#pragma GCC unroll 6
                for (int j = 0; j < k; j++) acc += A[i * n + j] * V[col][j];
            else
                for (int j = 0; j < k; j++) acc += A[j * n + i] * V[col][j];
            c->sv_B[col][i] = acc;
        }
}

/* sigma_min, sigma_max of A (rows x n) by the one-sided Jacobi SVD of A' V (see chain_sing_exact), V updated in place
 * (orthonormalised first by modified Gram-Schmidt when eta, its last measured distance from orthogonal, is above
 * 1e-13; a column that collapses resets V to the identity); *eta_out = |V^T V - I|_F afterwards, doubled for its
 * own rounding. Inlined with n = rows = 6, the loops' bounds are constants. */
static inline __attribute__((always_inline)) int chain_sing_jacobi_n(Chain *c, int n, int rows, const double *A,
                                                                     double V[6][6], double eta, double *smin_out,
                                                                     double *smax_out, double *eta_out)
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    for (int p = 0; p < k && eta > 1e-13; p++) {
        double *vp = V[p];
        for (int r = 0; r < p; r++) {
            double d = 0;
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) d += vp[i] * V[r][i];
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) vp[i] -= d * V[r][i];
        }
        double nn = 0;
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) nn += vp[i] * vp[i];
        if (!(nn > 0.25)) { /* lost (never after a reset to the identity, which is orthonormal) */
            for (int p2 = 0; p2 < k; p2++)
                for (int i = 0; i < k; i++) V[p2][i] = p2 == i;
            p = -1;
            continue;
        }
        nn = 1 / sqrt(nn);
#pragma GCC unroll 6
        for (int i = 0; i < k; i++) vp[i] *= nn;
    }
    chain_sing_project_n(c, n, rows, A, V);
    if (chain_jacobi_sv_n(m, k, c->sv_B, V) < 0) {
        for (int p = 0; p < k; p++)
            for (int i = 0; i < k; i++) V[p][i] = p == i;
        return MODEL_ENUMERIC;
    }
    double smax = 0, smin = INFINITY, d2 = 0;
    for (int p = 0; p < k; p++) {
        double nn = 0;
#pragma GCC unroll 6
        for (int i = 0; i < m; i++) nn += c->sv_B[p][i] * c->sv_B[p][i];
        nn = sqrt(nn);
        if (nn > smax) smax = nn;
        if (nn < smin) smin = nn;
    }
    for (int p = 0; p < k; p++)
        for (int r = p; r < k; r++) {
            double d = -(p == r);
#pragma GCC unroll 6
            for (int i = 0; i < k; i++) d += V[p][i] * V[r][i];
            d2 += (p == r ? 1 : 2) * d * d;
        }
    *smin_out = smin, *smax_out = smax, *eta_out = 2 * sqrt(d2) + 1e-14;
    return MODEL_OK;
}

/* The Jacobi SVD of A (chain_sing_jacobi_n), its loops' bounds constants for a 6 x 6 A (a 6-joint arm). */
static int chain_sing_jacobi(Chain *c, int rows, const double *A, double V[6][6], double eta, double *smin,
                             double *smax, double *eta_out)
{
    if (c->n == 6 && rows == 6) return chain_sing_jacobi_n(c, 6, 6, A, V, eta, smin, smax, eta_out);
    return chain_sing_jacobi_n(c, c->n, rows, A, V, eta, smin, smax, eta_out);
}

/* Bounds [lb, ub] on any value the Jacobi SVD could return at a matrix whose true extreme singular values lie in
 * iv (sigma_min in [iv0, iv1], sigma_max in [iv2, iv3]) and whose Frobenius norm is at most f: the SVD's singular
 * values are within 1e-11 f of the true ones, and each division rounds by an ulp. */
static inline __attribute__((always_inline)) void chain_sing_bounds(const double iv[4], double f, double *lb,
                                                                   double *ub)
{
    double dl = 1e-11 * f, a = iv[0] - dl, b = iv[1] + dl, cc = iv[2] - dl, d = iv[3] + dl;
    /* fmax(x, 0) and fmin(x, 1) written as comparisons (a NaN x gives 0 and 1 as they do; no libm call) */
    double x = a / d * (1 - 1e-12), y = b / cc * (1 + 1e-12);
    *lb = a > 0 && d > 0 && x > 0 ? x : 0.0;
    *ub = cc > 0 && y < 1 ? y : 1.0;
}

/* A (at q) becomes the Weyl reference, with bounds iv on its true extreme singular values (widened by 1e-13 relative for
 * their own rounding) and f >= |A|_F. */
static void chain_sing_set_weyl(Chain *c, const double *q, int len, const double *A, const double iv[4], double f)
{
    memcpy(c->sv_qw, q, (size_t)c->n * sizeof(double));
    memcpy(c->sv_Aw, A, (size_t)len * sizeof(double));
    c->sv_iv[0] = iv[0] * (1 - 1e-13), c->sv_iv[1] = iv[1] * (1 + 1e-13);
    c->sv_iv[2] = iv[2] * (1 - 1e-13), c->sv_iv[3] = iv[3] * (1 + 1e-13);
    c->sv_fw = f * (1 + 1e-13);
    c->sv_w_ok = isfinite(c->sv_iv[0] + c->sv_iv[1] + c->sv_iv[2] + c->sv_iv[3] + c->sv_fw);
    c->sv_m_ok = 0;
}

/* The measure of A from the warm state (sv_V); A becomes the reference of the skip's bound. */
static int chain_sing_exact(Chain *c, const double *q, int rows, const double *A, double *measure)
{
    int len = rows * c->n;
    double smin, smax, f2 = 0;
    c->sv_ref_ok = c->sv_w_ok = 0;
    int st = chain_sing_jacobi(c, rows, A, c->sv_V, c->sv_eta, &smin, &smax, &c->sv_eta);
    if (st < 0) return st;
    *measure = smax > 0 ? smin / smax : 0.0;
    for (int i = 0; i < len; i++) f2 += A[i] * A[i];
    if (isfinite(f2) && isfinite(smin) && isfinite(smax)) {
        memcpy(c->sv_Aref, A, (size_t)len * sizeof(double));
        c->sv_mref = *measure;
        /* the true singular values lie within 1e-11 |A|_F of the Jacobi SVD's (which are exact to ~1e-15 |A|_F) */
        double f = sqrt(f2), dl = 1e-11 * f;
        double iv[4] = {smin - dl, smin + dl, smax - dl, smax + dl};
        chain_sing_set_weyl(c, q, len, A, iv, f);
        c->sv_ref_ok = c->sv_eta < 1e-6;
    }
    return MODEL_OK;
}

/* Bounds on the measure at A from the Weyl reference: |sigma_i(A) - sigma_i(A_w)| <= |A - A_w|_2 <= |A - A_w|_F
 * = e (widened by 1e-6 relative for its rounding). */
static void chain_sing_weyl(const Chain *c, int len, const double *A, double *lb, double *ub)
{
    double e2 = 0;
#pragma GCC unroll 6
    for (int i = 0; i < len; i++) {
        double d = A[i] - c->sv_Aw[i];
        e2 += d * d;
    }
    double e = sqrt(e2) * (1 + 1e-6);
    double iv[4] = {c->sv_iv[0] - e, c->sv_iv[1] + e, c->sv_iv[2] - e, c->sv_iv[3] + e};
    chain_sing_bounds(iv, c->sv_fw + e, lb, ub);
}

/* Bounds iv on the true extreme singular values of A (sigma_min in [iv0, iv1], sigma_max in [iv2, iv3]) and f >=
 * |A|_F, from the Gram matrix G of B = A' V, V the last decomposition's right singular vectors: B's columns are
 * orthogonal there and stay nearly so nearby, so G is nearly diagonal and its extreme eigenvalues (sigma_min^2,
 * sigma_max^2 of B) are pinned to second order by Temple's inequality: for the unit vector e_i of G's smallest
 * diagonal entry mu, with r^2 the sum of the squares of the rest of its column and beta <= lambda_2, lambda_1 >=
 * mu - r^2 / (beta - mu) (and <= mu); beta comes from interlacing (lambda_2(G) >= lambda_min of G without row and
 * column i) and Gershgorin. Likewise for the largest. Margins: 1e-12 |A|_F^2 on G's entries (the rounding of
 * forming it), V's distance from orthogonal eta (sigma(A) = sigma(B) within sqrt(1 -+ eta)), and 1e-6 relative on
 * the second-order terms. 0, or -1 when the extremes are too close to separate. */
/* G = B^T B with B = A' V (sv_B, as chain_sing_project), the loops' bounds constants when inlined with n = rows = 6. */
static inline __attribute__((always_inline)) void chain_sing_gram_n(Chain *c, int n, int rows, const double *A,
                                                                    double G[6][6])
{
    int k = n < rows ? n : rows, m = n < rows ? rows : n;
    chain_sing_project_n(c, n, rows, A, c->sv_V);
    for (int p = 0; p < k; p++)
        for (int r = p; r < k; r++) {
            double acc = 0;
#pragma GCC unroll 6
            for (int i = 0; i < m; i++) acc += c->sv_B[p][i] * c->sv_B[r][i];
            G[p][r] = G[r][p] = acc;
        }
}

/* Temple's bounds from G (k x k), the Gram matrix of A V with V eta from orthogonal (chain_sing_temple). Inlined
 * with k = 6, the loops unroll; the terms a condition leaves out are added as +0, which leaves a sum of non-negative
 * terms as it was, so the bits are those of skipping them. */
static inline __attribute__((always_inline)) int chain_sing_temple_g_n(int k, double G[6][6], double eta,
                                                                       double iv[4], double *f)
{
    double F2 = 0;
    int lo = 0, hi = 0;
    for (int p = 0; p < k; p++) {
        F2 += G[p][p];
        if (G[p][p] < G[lo][lo]) lo = p;
        if (G[p][p] > G[hi][hi]) hi = p;
    }
    if (lo == hi || !(F2 > 0) || !isfinite(F2)) return -1;
    F2 = F2 / (1 - eta) * (1 + 1e-10); /* |A|_F^2 <= trace(G) / (1 - eta) */
    double tau = 1e-12 * F2;
    /* beta: Gershgorin on G without row/column lo; alpha: on G without hi */
    double beta = INFINITY, alpha = -INFINITY, r2lo = 0, r2hi = 0;
#pragma GCC unroll 6
    for (int p = 0; p < k; p++) {
        double slo = 0, shi = 0;
#pragma GCC unroll 6
        for (int r = 0; r < k; r++) {
            double a = fabs(G[p][r]);
            slo += r != p && r != lo ? a : 0.0;
            shi += r != p && r != hi ? a : 0.0;
        }
        double gb = G[p][p] - slo * (1 + 1e-10), ga = G[p][p] + shi * (1 + 1e-10); /* fmin/fmax, no libm call */
        beta = p != lo && gb < beta ? gb : beta;
        alpha = p != hi && ga > alpha ? ga : alpha;
        double xl = G[lo][p], xh = G[hi][p];
        r2lo += p != lo ? xl * xl : 0.0;
        r2hi += p != hi ? xh * xh : 0.0;
    }
    double mu = G[lo][lo], rho = G[hi][hi];
    if (!(beta - mu > 1e-6 * F2) || !(rho - alpha > 1e-6 * F2)) return -1;
    double lam1 = mu - r2lo / (beta - mu) * (1 + 1e-6), lamk = rho + r2hi / (rho - alpha) * (1 + 1e-6);
    double vlo = sqrt(1 + eta), vhi = sqrt(1 - eta); /* sigma_max(V), sigma_min(V) bounds */
    double l1 = lam1 - tau > 0 ? lam1 - tau : 0, lk = rho - tau > 0 ? rho - tau : 0; /* fmax(., 0) */
    iv[0] = sqrt(l1) / vlo, iv[1] = sqrt(mu + tau) / vhi;
    iv[2] = sqrt(lk) / vlo, iv[3] = sqrt(lamk + tau) / vhi;
    *f = sqrt(F2);
    return isfinite(iv[0] + iv[1] + iv[2] + iv[3]) ? 0 : -1;
}

static int chain_sing_temple_g(int k, double G[6][6], double eta, double iv[4], double *f)
{
    return k == 6 ? chain_sing_temple_g_n(6, G, eta, iv, f) : chain_sing_temple_g_n(k, G, eta, iv, f);
}

static int chain_sing_temple(Chain *c, int rows, const double *A, double iv[4], double *f)
{
    int n = c->n, k = n < rows ? n : rows;
    if (k < 2) return -1;
    double G[6][6];
    if (n == 6 && rows == 6) chain_sing_gram_n(c, 6, 6, A, G);
    else chain_sing_gram_n(c, n, rows, A, G);
    return chain_sing_temple_g(k, G, c->sv_eta, iv, f);
}

/* Bounds on the measure at q from the Weyl reference without forming A: |A(q) - A_w|_F <= sum_i L_i |q_i - qw_i|
 * (chain_sing_lipschitz), plus the rounding of forming A at q and at the reference (allowed 1e-12 |A|_F each, far
 * above the ~1e-15 it is), widened by 1e-6 relative like the Weyl bound. Far cruder than Weyl's on the matrix itself
 * but it costs no kinematics: it proves the cycles just after a reference was made. */
static double chain_sing_lipschitz_e(const Chain *c, const double *q)
{
    double e = 0;
    int n = c->n;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) e += c->sv_lip[i] * fabs(q[i] - c->sv_qw[i]);
    return e;
}

/* Bounds on the measure at q from the Weyl reference and e >= |A*(q) - A*(q_w)|_F (the true matrices): e widened
 * by 1e-6 relative and by the rounding of forming A at q and at the reference (1e-12 |A|_F each). */
static inline void chain_sing_e_bounds(const Chain *c, double e, double *lb, double *ub)
{
    e = e * (1 + 1e-6) + 2e-12 * (c->sv_fw + e);
    double iv[4] = {c->sv_iv[0] - e, c->sv_iv[1] + e, c->sv_iv[2] - e, c->sv_iv[3] + e};
    chain_sing_bounds(iv, c->sv_fw + e, lb, ub);
}

/* K = the Gram matrix of the derivatives D_a = dA/dq_a (path position a) at the joint values qk whose normalised
 * Jacobian is A (6 rows): with column j = (v_j, z_j), v_j = z_j x (x - p_j) / l, turning joint a turns everything
 * beyond it about z_a, so for j at or beyond a, dcol_j = (z_a x v_j, z_a x z_j), and for j before a only the tool
 * point moves: dcol_j = (z_j x v_a, 0). Off-path columns are 0 and stay 0. */
static inline __attribute__((always_inline)) void chain_sing_gram_k_n(Chain *c, int np, const double *qk,
                                                                      const double *A)
{
    int n = c->n;
    double v[CHAIN_FO_MAX][3], z[CHAIN_FO_MAX][3], D[CHAIN_FO_MAX][CHAIN_FO_MAX][6], f2 = 0;
    for (int a = 0; a < np; a++) {
        int j = c->sv_path[a];
        for (int r = 0; r < 3; r++) v[a][r] = A[r * n + j], z[a][r] = A[(3 + r) * n + j];
    }
    for (int i = 0; i < 6 * n; i++) f2 += A[i] * A[i];
    for (int a = 0; a < np; a++)
        for (int b = 0; b < np; b++) {
            if (b >= a) {
                v3_cross(D[a][b], z[a], v[b]);
                v3_cross(D[a][b] + 3, z[a], z[b]);
            } else {
                v3_cross(D[a][b], z[b], v[a]);
                D[a][b][3] = D[a][b][4] = D[a][b][5] = 0;
            }
        }
    for (int a = 0; a < np; a++)
        for (int b = a; b < np; b++) {
            double k = 0;
            for (int j = 0; j < np; j++)
#pragma GCC unroll 6
                for (int r = 0; r < 6; r++) k += D[a][j][r] * D[b][j][r];
            c->sv_K[a][b] = c->sv_K[b][a] = k;
            c->sv_K2[a][b] = 2 * k;
        }
    for (int a = 0; a < np; a++) {
        c->sv_kd[a] = sqrt(c->sv_K[a][a]);
        c->sv_qk[a] = qk[c->sv_path[a]];
    }
    c->sv_fk = sqrt(f2);
    c->sv_k_ok = isfinite(c->sv_fk);
    c->sv_m_ok = 0;
}

static void chain_sing_gram_k(Chain *c, const double *qk, const double *A)
{
    if (c->sv_np == 6) chain_sing_gram_k_n(c, 6, qk, A);
    else chain_sing_gram_k_n(c, c->sv_np, qk, A);
}

/* e >= |A*(q) - A*(q_w)|_F by a first-order expansion: along the segment from q_w, A(q) - A(q_w) = sum_a dq_a
 * integral of D_a(q_w + t dq) over t in [0, 1], and |D_a(y) - D_a(q_K)|_F <= sum_b M_ab |y_b - qk_b| with M_ab <=
 * mu_a mu_b (mu_a = sqrt(max_b M_ab), M symmetric), so e = sqrt(dq^T K dq) + T (dk + T / 2), with T = sum_a mu_a
 * |dq_a| and dk = sum_b mu_b |qw_b - qk_b|; plus margins for K's own rounding (1e-12 (sum_a sqrt(K_aa) |dq_a|)^2
 * under the root) and for K coming from the formed matrix at q_K rather than the true one (1e-10 f (1 + f) sum_a
 * |dq_a|, f = |A_K|_F). K is remade at the Weyl reference when dk there exceeds CHAIN_FO_REMAKE. ~150 instructions
 * and no kinematics; to first order it equals the Weyl bound's |A - A_w|_F. */
static inline __attribute__((always_inline)) double chain_sing_first_order_n(Chain *c, int np, const double *q)
{
    const int *pa = c->sv_path;
    if (!c->sv_m_ok) { /* a new Weyl reference: remake K there when q_K is too far */
        double dk = 0;
        if (c->sv_k_ok)
            for (int a = 0; a < np; a++) dk += c->sv_mu[a] * fabs(c->sv_qw[pa[a]] - c->sv_qk[a]);
        if (!c->sv_k_ok || dk > CHAIN_FO_REMAKE) chain_sing_gram_k(c, c->sv_qw, c->sv_Aw), dk = 0;
        if (!c->sv_k_ok) return INFINITY;
        c->sv_dk = dk;
        c->sv_m_ok = 1;
    }
    double d[CHAIN_FO_MAX], ad[CHAIN_FO_MAX], Q = 0, sk = 0, s1 = 0, tm = 0;
#pragma GCC unroll 8
    for (int a = 0; a < np; a++) {
        d[a] = q[pa[a]] - c->sv_qw[pa[a]];
        ad[a] = fabs(d[a]);
        sk += c->sv_kd[a] * ad[a], s1 += ad[a], tm += c->sv_mu[a] * ad[a];
    }
#pragma GCC unroll 8
    for (int a = 0; a < np; a++) { /* dq^T K dq over the upper triangle (sv_K2 = 2 K above the diagonal) */
        double qa = c->sv_K[a][a] * d[a];
        for (int b = a + 1; b < np; b++) qa += c->sv_K2[a][b] * d[b];
        Q += qa * d[a];
    }
    Q += 1e-12 * sk * sk;
    return (Q > 0 ? sqrt(Q) : 0) + tm * (c->sv_dk + 0.5 * tm) + 1e-10 * c->sv_fk * (1 + c->sv_fk) * s1;
}

static double chain_sing_first_order(Chain *c, const double *q)
{
    return c->sv_np == 6 ? chain_sing_first_order_n(c, 6, q) : chain_sing_first_order_n(c, c->sv_np, q);
}

/* Singularity measure (model.h): sigma_min / sigma_max (inverse condition number) of the tool Jacobian whose position
 * rows are divided by the machine's characteristic length. Machines with fewer than 6 joints use the position rows
 * only (their orientation is not theirs to choose). 0 at a singularity, 1 for an isotropic configuration.
 *
 * With a band [lo, hi] (band NULL, or lo > hi: none) it returns 1 and measure = a lower bound of the measure inside
 * the band when it proves the measure lies there, else 0 and the measure. The proof: A_w, a matrix with certified
 * bounds on its extreme singular values (the last one decomposed, or proved by Temple), and Weyl's inequality
 * |sigma_i(A) - sigma_i(A_w)| <= |A - A_w|_2 <= |A - A_w|_F = e bound the measure at A. e is widened by 1e-6
 * relative and 1e-11 |A|_F absolute, which covers the rounding of the Jacobi SVD (exact to ~1e-15 |A|_F) and of
 * the bound itself: any value the SVD could return at A lies in the interval too, so a caller that skips on 1 ends
 * as one that computed every value. Cheapest first: e from the joint values alone (Lipschitz, then first-order: no
 * kinematics), then e on A itself (Weyl), then Temple's bounds from A V with the warm V. Otherwise the Jacobi SVD
 * warm-started from the last decomposition, and A becomes the reference; A bitwise equal to the reference (a
 * machine at rest) returns the reference's measure. */
int chain_singularity(void *s, const double *q, const double band[2], double *measure)
{
    Chain *c = s;
    int rows = c->sv_posonly ? 3 : 6, len = rows * c->n;
    double lo = band ? band[0] : 1.0, hi = band ? band[1] : 0.0, A[6 * N_MAX], lb, ub;
    int inband = c->sv_ref_ok && c->sv_w_ok && lo <= hi, by = 0;
    c->sv_stats[0]++;
    if (inband && c->sv_lip_ok && !chain_same_bits(q, c->sv_qw, c->n)) {
        double e = chain_sing_lipschitz_e(c, q);
        chain_sing_e_bounds(c, e, &lb, &ub);
        if (lb >= lo && ub <= hi) by = 5;
        else if (ub < lo || lb > hi) inband = 0; /* proved outside (a new extreme): the value is needed */
        else if (c->sv_fo_ok) {
            double e1 = chain_sing_first_order(c, q);
            chain_sing_e_bounds(c, e1 < e ? e1 : e, &lb, &ub);
            if (lb >= lo && ub <= hi) by = 6;
            else if (ub < lo || lb > hi) inband = 0;
        }
    }
    if (!by) {
        const double (*Rw)[9], (*pw)[3];
        chain_world(c, q, &Rw, &pw);
        chain_sing_matrix(c, Rw, pw, rows, A);
        if (c->sv_ref_ok && memcmp(A, c->sv_Aref, (size_t)len * sizeof(double)) == 0) {
            c->sv_stats[4]++;
            *measure = c->sv_mref;
            return MODEL_OK;
        }
    }
    if (inband && !by) {
        double iv[4], f;
        chain_sing_weyl(c, len, A, &lb, &ub);
        by = lb >= lo && ub <= hi ? 1 : 0;
        if (!by && !(ub < lo || lb > hi) && chain_sing_temple(c, rows, A, iv, &f) == 0) {
            chain_sing_bounds(iv, f, &lb, &ub);
            if (lb >= lo && ub <= hi) {
                by = 2;
                chain_sing_set_weyl(c, q, len, A, iv, f); /* the next cycles' Weyl bound starts here */
            }
        }
    }
    if (by) {
        c->sv_stats[by]++;
        *measure = lb;
        return 1;
    }
    c->sv_stats[3]++;
    return chain_sing_exact(c, q, rows, A, measure);
}

/* The constants L_i of the normalised Jacobian A (chain_sing_matrix): |dA/dq_i|_F <= L_i at every q, so |A(q) -
 * A(q')|_F <= sum_i L_i |q_i - q'_i| (A integrated along the segment between them). On the path from the base to the
 * tool (other joints leave A alone), column j is (z_j x r_j / l, z_j), r_j = x - p_j the tool point seen from joint
 * j, |r_j| <= R_j = the sum of the offsets between them (rotations keep lengths). Turning joint i turns everything
 * beyond it about z_i: for j beyond i, dz_j = z_i x z_j (norm <= 1) and dr_j = z_i x r_j, so |d(z_j x r_j)| <= 2 R_j;
 * for j = i only r_j turns (<= R_j); for j before i only x moves, by z_i x r_i (<= R_i). A prismatic joint on the
 * path makes the offsets depend on q: then no constants (sv_lip_ok = 0). */
void chain_sing_lipschitz(Chain *c)
{
    int path[N_MAX], np = 0;
    double R[N_MAX], reach = v3_norm(c->tool_p);
    c->sv_lip_ok = 0;
    memset(c->sv_lip, 0, sizeof c->sv_lip);
    for (int i = c->tool_link; i >= 0; i = c->j[i].parent) {
        if (!c->j[i].revolute) return;
        R[i] = reach;
        reach += v3_norm(c->j[i].p0);
        path[np++] = i; /* from the tool towards the base: path[b] lies beyond path[a] when b < a */
    }
    double il = 1.0 / c->char_len;
    for (int a = 0; a < np; a++) {
        int i = path[a];
        double s2 = 0;
        for (int b = 0; b < np; b++) {
            int j = path[b];
            double dv = (b < a ? 2 * R[j] : b == a ? R[j] : R[i]) * il, dw = b < a && !c->sv_posonly ? 1 : 0;
            s2 += dv * dv + dw * dw;
        }
        c->sv_lip[i] = sqrt(s2) * (1 + 1e-12);
    }
    c->sv_lip_ok = 1;
    /* the first-order bound's second-derivative constants M_ab (path positions, base first): d/dq_b of the
     * derivative columns above (chain_sing_gram_k), with |d z_m / dq_b| <= 1 for b before m (else 0) and |d v_m /
     * dq_b| <= |v_m| for b at or before m, |v_b| beyond it (|v_m| <= R_m / l):
     *   j at or beyond a: d(z_a x v_j) <= [b before a] |v_j| + (b <= j ? |v_j| : |v_b|),
     *                     d(z_a x z_j) <= [b before a] + [b before j];
     *   j before a:       d(z_j x v_a) <= [b before j] |v_a| + (b <= a ? |v_a| : |v_b|);
     * M_ab^2 sums their squares over j. */
    c->sv_fo_ok = 0;
    if (c->sv_posonly || np > CHAIN_FO_MAX) return;
    for (int a = 0; a + 1 < np; a++)
        if (path[a + 1] >= path[a]) return; /* a joint numbered before its parent: positions need not follow */
    c->sv_np = np;
    double rv[CHAIN_FO_MAX];
    for (int a = 0; a < np; a++) {
        c->sv_path[a] = path[np - 1 - a];
        rv[a] = R[c->sv_path[a]] * il;
    }
    for (int a = 0; a < np; a++)
        for (int b = 0; b < np; b++) {
            double s2 = 0;
            for (int j = 0; j < np; j++) {
                double bv, bw;
                if (j >= a) {
                    bv = (b < a ? rv[j] : 0) + (b <= j ? rv[j] : rv[b]);
                    bw = (b < a ? 1 : 0) + (b < j ? 1 : 0);
                } else {
                    bv = (b < j ? rv[a] : 0) + (b <= a ? rv[a] : rv[b]);
                    bw = 0;
                }
                s2 += bv * bv + bw * bw;
            }
            c->sv_M[a][b] = sqrt(s2) * (1 + 1e-12);
        }
    /* d2A/dq_a dq_b = d2A/dq_b dq_a: both bounds hold, keep the smaller (symmetric), then mu */
    for (int a = 0; a < np; a++) {
        double mx = 0;
        for (int b = 0; b < np; b++) {
            double m = c->sv_M[a][b] < c->sv_M[b][a] ? c->sv_M[a][b] : c->sv_M[b][a];
            if (m > mx) mx = m;
        }
        c->sv_mu[a] = sqrt(mx) * (1 + 1e-12);
    }
    c->sv_fo_ok = 1;
}

int chain_sing_first_order_bound(void *s, const double *qk, const double *qw, const double *q, double *e)
{
    Chain *c = s;
    if (!c->sv_fo_ok) return MODEL_EINVAL;
    const double (*Rw)[9], (*pw)[3];
    double A[6 * N_MAX];
    chain_world(c, qk, &Rw, &pw);
    chain_sing_matrix(c, Rw, pw, 6, A);
    chain_sing_gram_k(c, qk, A);
    memcpy(c->sv_qw, qw, (size_t)c->n * sizeof(double));
    c->sv_m_ok = 0; /* K stays the one at qk (a test's dk may exceed CHAIN_FO_REMAKE) */
    double dk = 0;
    for (int a = 0; a < c->sv_np; a++) dk += fabs(qw[c->sv_path[a]] - c->sv_qk[a]);
    c->sv_dk = dk, c->sv_m_ok = 1;
    *e = chain_sing_first_order(c, q);
    c->sv_w_ok = c->sv_ref_ok = 0; /* sv_qw no longer belongs to the Weyl reference */
    return isfinite(*e) ? MODEL_OK : MODEL_ENUMERIC;
}

void chain_sing_stats(void *s, long counts[7], int reset)
{
    Chain *c = s;
    if (counts) memcpy(counts, c->sv_stats, sizeof c->sv_stats);
    if (reset) memset(c->sv_stats, 0, sizeof c->sv_stats);
}
