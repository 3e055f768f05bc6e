/* SPDX-License-Identifier: BSD-3-Clause */
/* Embeddings of an object grid into a processor grid of the same size:
 * the heuristics of Bhatele, Gupta, Kale & Chung, "Automated mapping of
 * regular communication graphs on mesh interconnects" (HiPC 2010), section V
 * (2D -> 2D: MXOVLP, MXOV+AL, EXCO, COCE, AFFN, STEP) and VI (2D -> 3D:
 * stacking and folding), and their extension to 3D and 4D object grids.
 * Pure index arithmetic, no profile and no topology: map_grid.c picks among
 * them by hop-bytes. Grids are numbered x fastest: cell (x, y) of an X x Y
 * grid is x + X * y.
 *
 * Heuristics (all O(n), EXCO and COCE O(n log n) for their sort, AFFN O(n)
 * on average):
 *  - MXOVLP (Algorithm 2): map the largest overlap of the object grid and
 *    the processor mesh one to one, recurse on the rest (a loop here).
 *  - MXOV+AL: the same, aligning the longer sides again at every step.
 *  - EXCO (Algorithm 3): objects and processors both ordered by Manhattan
 *    distance from the corner (0, 0), the k-th object on the k-th processor.
 *    The paper walks with findNearest2D; we sort once, ties along an
 *    anti-diagonal in increasing x, the same order findNearest2D's scan from
 *    one end of the diagonal gives.
 *  - COCE: as EXCO from all 2^d corners at once: each object belongs to its
 *    nearest corner (lowest corner on ties), in EXCO order from that corner;
 *    the corners take turns, each placing its next object on the free
 *    processor nearest to the same corner of the mesh (EXCO order from that
 *    corner), so all corners move towards the centre together.
 *  - AFFN (Algorithm 4, eq. 2): (x, y) -> (floor(Px x / Ox), floor(Py y / Oy)),
 *    a taken processor replaced by the nearest free one (Manhattan distance,
 *    the paper's findNearest2D). The nearest free processor is searched row
 *    by row outwards with "next free to the left/right" union-find arrays
 *    per row, so a search costs the rows it visits, not the cells.
 *  - STEP: the paper cites the step embedding of Aleliunas & Rosenberg (1982)
 *    without giving it, and shows it mapping the object's rows one after
 *    another (Fig. 4). Our reading: the object's rows, each traversed in the
 *    direction opposite to the previous one, are laid along the processor
 *    mesh's rows traversed the same way (both boustrophedons), so every row
 *    of the object is a path of unit steps that turns at the mesh's sides.
 *  - Every 2D heuristic first aligns the longer side of the object grid with
 *    the longer side of the mesh (the paper: "all the following heuristics
 *    (including Heuristic 1) also do an initial alignment").
 *
 * Plans combine them for other dimensions (section VI and its extension):
 *  - STACK(a, m): object axis a has the extent of processor axis m: map a
 *    onto m as it is and embed the rest (every slice the same way). With 3D
 *    grids this is the paper's 2D heuristics run plane by plane.
 *  - SPLIT(a, m) and FOLD(a, m) (section VI, heuristics 1 and 2): object axis
 *    a is cut into P_m pieces, piece p goes to layer p of processor axis m,
 *    the pieces embedded alike (stacking: translated; folding: every other
 *    piece mirrored along a, the accordion of Fig. 7, so that the cells on
 *    both sides of a cut sit one hop apart; the paper's text says "flip by
 *    180 degrees", we flip only along the cut axis, which is what keeps the
 *    cut edges at one hop).
 *  - MERGE(a, b): more object than processor dimensions (4D onto 3D): axes
 *    a and b become one, b's rows laid alternately forwards and backwards
 *    along the merged axis (a boustrophedon), the same folding one level up.
 *  - EXCO, COCE (any dimensions) and AFFN (same dimensions) in n-D directly.
 * The space-filling-curve heuristic of section VI is not implemented: the
 * plans above cover the same cases and are what map_grid.c compares. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

const char *const topomap_grid_heuristic_names[TOPOMAP_GRID_NH2D] = {
    "MXOVLP", "MXOV+AL", "EXCO", "COCE", "AFFN", "STEP",
};

static long shape_size(const struct topomap_grid_shape *s)
{
    long n = 1;
    for (int k = 0; k < s->nd; k++)
        n *= s->d[k];
    return n;
}

static void decode(const struct topomap_grid_shape *s, long i, int *c)
{
    for (int k = 0; k < s->nd; k++) {
        c[k] = (int)(i % s->d[k]);
        i /= s->d[k];
    }
}

static long encode(const struct topomap_grid_shape *s, const int *c)
{
    long i = 0;
    for (int k = s->nd - 1; k >= 0; k--)
        i = i * s->d[k] + c[k];
    return i;
}

/* Drop axes of extent 1 (they do not change a cell's index). */
static struct topomap_grid_shape normal(const struct topomap_grid_shape *s)
{
    struct topomap_grid_shape r = {0, {0}};
    for (int k = 0; k < s->nd; k++)
        if (s->d[k] > 1)
            r.d[r.nd++] = s->d[k];
    return r;
}

/* ---------------------------------------------------------------------- */
/* Orders: EXCO, COCE, STEP map the k-th object to the k-th processor. */

struct keyed {
    uint64_t key;
    long cell;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

/* Cells of s in EXCO (corners = 0) or COCE order. */
static int corner_order(const struct topomap_grid_shape *s, int coce, long *out)
{
    long n = shape_size(s);
    struct keyed *k = malloc(sizeof *k * (size_t)(n ? n : 1));
    if (!k)
        return -1;
    int ncorner = coce ? 1 << s->nd : 1, c[TOPOMAP_GRID_MAXDIMS];
    for (long i = 0; i < n; i++) {
        decode(s, i, c);
        int best = -1, bestc = 0;
        uint64_t tie = 0;
        for (int q = 0; q < ncorner; q++) {
            int dist = 0;
            for (int a = 0; a < s->nd; a++)
                dist += (q >> a & 1) ? s->d[a] - 1 - c[a] : c[a];
            if (best < 0 || dist < best) {
                best = dist;
                bestc = q;
            }
        }
        /* Along the diagonal: x first (from the corner), then y, ... */
        for (int a = 0; a < s->nd; a++) {
            int off = (bestc >> a & 1) ? s->d[a] - 1 - c[a] : c[a];
            tie = tie * (uint64_t)s->d[a] + (uint64_t)off;
        }
        k[i].key = ((uint64_t)best << 40) | ((uint64_t)bestc << 34) | tie;
        k[i].cell = i;
    }
    qsort(k, (size_t)n, sizeof *k, keyed_cmp);
    for (long i = 0; i < n; i++)
        out[i] = k[i].cell;
    free(k);
    return 0;
}

/* Cells of a 2D grid in boustrophedon row order (STEP). */
static void snake_order(int w, int h, long *out)
{
    long k = 0;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            out[k++] = (long)y * w + (y % 2 ? w - 1 - i : i);
}

/* The cell of s mirrored across the axes set in corner q. */
static long reflect(const struct topomap_grid_shape *s, long i, int q)
{
    int c[TOPOMAP_GRID_MAXDIMS];
    decode(s, i, c);
    for (int a = 0; a < s->nd; a++)
        if (q >> a & 1)
            c[a] = s->d[a] - 1 - c[a];
    return encode(s, c);
}

/* COCE: corners take turns; see the top of the file. */
static int coce(const struct topomap_grid_shape *o, const struct topomap_grid_shape *p, int *map)
{
    long n = shape_size(o);
    int nq = 1 << p->nd;
    long *oo = malloc(sizeof(long) * (size_t)n), *po = malloc(sizeof(long) * (size_t)n);
    long *start = calloc((size_t)nq + 1, sizeof(long)), *next = calloc((size_t)nq, sizeof(long));
    long *optr = calloc((size_t)nq, sizeof(long));
    char *taken = calloc((size_t)n, 1);
    int rc = -1, c[TOPOMAP_GRID_MAXDIMS];
    if (!oo || !po || !start || !next || !optr || !taken || corner_order(o, 1, oo) < 0 ||
        corner_order(p, 0, po) < 0)
        goto out;
    /* oo is sorted by (distance, corner, ...): split it by corner, stably. */
    long *byq = malloc(sizeof(long) * (size_t)n);
    if (!byq)
        goto out;
    int *qof = malloc(sizeof(int) * (size_t)n);
    if (!qof) {
        free(byq);
        goto out;
    }
    for (long k = 0; k < n; k++) {
        decode(o, oo[k], c);
        int best = -1, bq = 0;
        for (int q = 0; q < (1 << o->nd); q++) {
            int dist = 0;
            for (int a = 0; a < o->nd; a++)
                dist += (q >> a & 1) ? o->d[a] - 1 - c[a] : c[a];
            if (best < 0 || dist < best) {
                best = dist;
                bq = q;
            }
        }
        qof[k] = bq < nq ? bq : 0;
        start[qof[k] + 1]++;
    }
    for (int q = 0; q < nq; q++)
        start[q + 1] += start[q];
    for (int q = 0; q < nq; q++)
        optr[q] = start[q];
    for (long k = 0; k < n; k++)
        byq[optr[qof[k]]++] = oo[k];
    for (int q = 0; q < nq; q++)
        optr[q] = start[q];
    for (long placed = 0; placed < n;)
        for (int q = 0; q < nq && placed < n; q++) {
            if (optr[q] == start[q + 1])
                continue;
            long obj = byq[optr[q]++], cell;
            /* The free processor nearest to corner q: EXCO order mirrored. */
            while (taken[cell = reflect(p, po[next[q]], q)])
                next[q]++;
            taken[cell] = 1;
            map[obj] = (int)cell;
            placed++;
        }
    free(byq);
    free(qof);
    rc = 0;
out:
    free(oo);
    free(po);
    free(start);
    free(next);
    free(optr);
    free(taken);
    return rc;
}

static int by_orders(const struct topomap_grid_shape *o, const struct topomap_grid_shape *p,
                     int kind, int *map)
{
    if (kind == TOPOMAP_GRID_COCE)
        return coce(o, p, map);
    long n = shape_size(o);
    long *oo = malloc(sizeof(long) * (size_t)(n ? n : 1));
    long *po = malloc(sizeof(long) * (size_t)(n ? n : 1));
    int rc = 0;
    if (!oo || !po)
        rc = -1;
    else if (kind == TOPOMAP_GRID_STEP) {
        snake_order(o->d[0], o->nd > 1 ? o->d[1] : 1, oo);
        snake_order(p->d[0], p->nd > 1 ? p->d[1] : 1, po);
    } else if (corner_order(o, kind == TOPOMAP_GRID_COCE, oo) < 0 ||
               corner_order(p, kind == TOPOMAP_GRID_COCE, po) < 0)
        rc = -1;
    for (long i = 0; rc == 0 && i < n; i++)
        map[oo[i]] = (int)po[i];
    free(oo);
    free(po);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* AFFN: the affine target, else the nearest free processor. */

/* Union-find "next free cell at or after x" in a row of width w (slot w =
 * none); find with path halving. */
static int uf_find(int *par, int i)
{
    while (par[i] != i) {
        par[i] = par[par[i]];
        i = par[i];
    }
    return i;
}

static int affine(const struct topomap_grid_shape *o, const struct topomap_grid_shape *p,
                  int *map)
{
    int nd = p->nd, w = p->d[0];
    long n = shape_size(p), rows = n / w;
    /* Offsets of the other axes, by increasing L1 norm. */
    long noff = 1;
    for (int k = 1; k < nd; k++)
        noff *= 2L * p->d[k] - 1;
    int *off = malloc(sizeof(int) * (size_t)noff * TOPOMAP_GRID_MAXDIMS);
    int *norm = malloc(sizeof(int) * (size_t)noff);
    long *ord = malloc(sizeof(long) * (size_t)noff);
    int *right = malloc(sizeof(int) * (size_t)rows * (size_t)(w + 1));
    int *left = malloc(sizeof(int) * (size_t)rows * (size_t)(w + 1));
    int rc = -1, maxnorm = 0;
    if (!off || !norm || !ord || !right || !left)
        goto out;
    for (long i = 0; i < noff; i++) {
        long r = i;
        norm[i] = 0;
        for (int k = 1; k < nd; k++) {
            int span = 2 * p->d[k] - 1, v = (int)(r % span) - (p->d[k] - 1);
            r /= span;
            off[i * TOPOMAP_GRID_MAXDIMS + k] = v;
            norm[i] += v < 0 ? -v : v;
        }
        maxnorm = norm[i] > maxnorm ? norm[i] : maxnorm;
    }
    {   /* counting sort by norm */
        long *cnt = calloc((size_t)maxnorm + 2, sizeof(long));
        if (!cnt)
            goto out;
        for (long i = 0; i < noff; i++)
            cnt[norm[i] + 1]++;
        for (int v = 0; v <= maxnorm; v++)
            cnt[v + 1] += cnt[v];
        for (long i = 0; i < noff; i++)
            ord[cnt[norm[i]]++] = i;
        free(cnt);
    }
    /* right[row][x]: next free at or after x (w: none); left[row][x + 1]:
     * next free at or before x, shifted by one (0: none). */
    for (long r = 0; r < rows; r++)
        for (int x = 0; x <= w; x++) {
            right[r * (w + 1) + x] = x;
            left[r * (w + 1) + x] = x;
        }
    long ncells = shape_size(o);
    int c[TOPOMAP_GRID_MAXDIMS], t[TOPOMAP_GRID_MAXDIMS], q[TOPOMAP_GRID_MAXDIMS];
    for (long i = 0; i < ncells; i++) {
        decode(o, i, c);
        for (int k = 0; k < nd; k++)
            t[k] = (int)((long)p->d[k] * c[k] / o->d[k]);
        long best = -1, bestd = 0;
        for (long s = 0; s < noff; s++) {
            long oi = ord[s];
            if (best >= 0 && norm[oi] >= bestd)
                break;
            int inside = 1;
            long row = 0, st = 1;
            for (int k = 1; k < nd; k++) {
                q[k] = t[k] + off[oi * TOPOMAP_GRID_MAXDIMS + k];
                inside &= q[k] >= 0 && q[k] < p->d[k];
                row += q[k] * st;
                st *= p->d[k];
            }
            if (!inside)
                continue;
            int *R = right + row * (w + 1), *L = left + row * (w + 1);
            int xr = uf_find(R, t[0]), xl = uf_find(L, t[0] + 1) - 1;
            long dr = xr < w ? norm[oi] + xr - t[0] : -1;
            long dl = xl >= 0 ? norm[oi] + t[0] - xl : -1;
            if (dr >= 0 && (best < 0 || dr < bestd)) {
                best = row * w + xr;
                bestd = dr;
            }
            if (dl >= 0 && (best < 0 || dl < bestd)) {
                best = row * w + xl;
                bestd = dl;
            }
        }
        if (best < 0) /* cannot happen: as many processors as objects */
            goto out;
        long row = best / w;
        int x = (int)(best % w);
        right[row * (w + 1) + x] = x + 1;
        left[row * (w + 1) + x + 1] = x;
        map[i] = (int)best;
    }
    rc = 0;
out:
    free(off);
    free(norm);
    free(ord);
    free(right);
    free(left);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* MXOVLP and MXOV+AL (Algorithm 2), as a loop over the recursive calls. */

static void mxovlp(int OX, int OY, int PX, int PY, int realign, int *map)
{
    /* The object rectangle still to map (object coordinates), whether its
     * local x runs along the object's y, and the processor rectangle. */
    int ox0 = 0, oy0 = 0, ow = OX, oh = OY, t = 0;
    int px0 = 0, py0 = 0, pw = PX, ph = PY;
    for (;;) {
        int lx = t ? oh : ow, ly = t ? ow : oh;
        if (realign && lx != ly && pw != ph && (lx > ly) != (pw > ph)) {
            t = !t;
            lx = t ? oh : ow;
            ly = t ? ow : oh;
        }
        if (lx == 0 || ly == 0)
            return;
        int bw = lx < pw ? lx : pw, bh = lx < pw ? ph : ly;
        if (lx == pw)
            bh = ly;
        for (int j = 0; j < bh; j++)
            for (int i = 0; i < bw; i++) {
                int X = t ? ox0 + j : ox0 + i, Y = t ? oy0 + i : oy0 + j;
                map[X + OX * Y] = (px0 + i) + PX * (py0 + j);
            }
        if (lx == pw)
            return;
        if (lx > pw) { /* the rest of the object's local x, below */
            if (t) {
                oy0 += pw;
                oh -= pw;
            } else {
                ox0 += pw;
                ow -= pw;
            }
            py0 += ly;
            ph -= ly;
        } else { /* the rest of the object's local y, to the right */
            if (t) {
                ox0 += ph;
                ow -= ph;
            } else {
                oy0 += ph;
                oh -= ph;
            }
            px0 += lx;
            pw -= lx;
        }
    }
}

int topomap_grid_embed2d(int h, int ox, int oy, int px, int py, int *map)
{
    if (h < 0 || h >= TOPOMAP_GRID_NH2D || ox < 1 || oy < 1 || px < 1 || py < 1 ||
        (long)ox * oy != (long)px * py) {
        errno = EINVAL;
        return -1;
    }
    /* Initial alignment: transpose the object, embed, transpose back. */
    if (ox != oy && px != py && (ox > oy) != (px > py)) {
        int *tmp = malloc(sizeof(int) * (size_t)ox * (size_t)oy);
        if (!tmp || topomap_grid_embed2d(h, oy, ox, px, py, tmp) < 0) {
            free(tmp);
            errno = ENOMEM;
            return -1;
        }
        for (int y = 0; y < oy; y++)
            for (int x = 0; x < ox; x++)
                map[x + ox * y] = tmp[y + oy * x];
        free(tmp);
        return 0;
    }
    struct topomap_grid_shape o = {2, {ox, oy}}, p = {2, {px, py}};
    int rc = 0;
    switch (h) {
    case TOPOMAP_GRID_MXOVLP: mxovlp(ox, oy, px, py, 0, map); break;
    case TOPOMAP_GRID_MXOVAL: mxovlp(ox, oy, px, py, 1, map); break;
    case TOPOMAP_GRID_AFFN: rc = affine(&o, &p, map); break;
    default: rc = by_orders(&o, &p, h, map); break;
    }
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

/* ---------------------------------------------------------------------- */
/* Plans. */

enum { ST_ID, ST_BASE2D, ST_EXCO, ST_COCE, ST_AFFN, ST_STACK, ST_SPLIT, ST_FOLD, ST_MERGE };

static struct topomap_grid_shape drop_axis(const struct topomap_grid_shape *s, int a)
{
    struct topomap_grid_shape r = {0, {0}};
    for (int k = 0; k < s->nd; k++)
        if (k != a)
            r.d[r.nd++] = s->d[k];
    return r;
}

static void plan_name(struct topomap_grid_plan *pl)
{
    static const char ax[] = "xyzw";
    size_t len = 0;
    pl->name[0] = 0;
    for (int i = 0; i < pl->nsteps; i++) {
        const struct topomap_grid_step *s = &pl->s[i];
        char part[32];
        switch (s->kind) {
        case ST_ID: snprintf(part, sizeof part, "line"); break;
        case ST_BASE2D: snprintf(part, sizeof part, "%s", topomap_grid_heuristic_names[s->h]); break;
        case ST_EXCO: snprintf(part, sizeof part, "EXCO"); break;
        case ST_COCE: snprintf(part, sizeof part, "COCE"); break;
        case ST_AFFN: snprintf(part, sizeof part, "AFFN"); break;
        case ST_STACK: snprintf(part, sizeof part, "stack %c>%c", ax[s->a], ax[s->b]); break;
        case ST_SPLIT: snprintf(part, sizeof part, "split %c>%c", ax[s->a], ax[s->b]); break;
        case ST_FOLD: snprintf(part, sizeof part, "fold %c>%c", ax[s->a], ax[s->b]); break;
        default: snprintf(part, sizeof part, "merge %c%c", ax[s->a], ax[s->b]); break;
        }
        len += (size_t)snprintf(pl->name + len, len < sizeof pl->name ? sizeof pl->name - len : 0,
                                "%s%s", i ? ", " : "", part);
    }
}

struct plangen {
    struct topomap_grid_plan *out;
    int max, n;
    struct topomap_grid_plan cur;
};

static void emit(struct plangen *g, int kind, int a, int b, int h)
{
    if (g->n >= g->max)
        return;
    struct topomap_grid_plan pl = g->cur;
    pl.s[pl.nsteps++] = (struct topomap_grid_step){kind, a, b, h};
    plan_name(&pl);
    g->out[g->n++] = pl;
}

static void gen(struct plangen *g, const struct topomap_grid_shape *o0,
                const struct topomap_grid_shape *p0)
{
    struct topomap_grid_shape o = normal(o0), p = normal(p0);
    if (g->n >= g->max || g->cur.nsteps >= TOPOMAP_GRID_MAXSTEPS - 1)
        return;
    if (o.nd <= 1 && p.nd <= 1) {
        emit(g, ST_ID, 0, 0, 0);
        return;
    }
    if (o.nd == 2 && p.nd == 2)
        for (int h = 0; h < TOPOMAP_GRID_NH2D; h++)
            emit(g, ST_BASE2D, 0, 0, h);
    if (o.nd == p.nd && o.nd > 2)
        emit(g, ST_AFFN, 0, 0, 0);
    if (o.nd != 2 || p.nd != 2) {
        emit(g, ST_EXCO, 0, 0, 0);
        emit(g, ST_COCE, 0, 0, 0);
    }
    int depth = g->cur.nsteps;
    for (int a = 0; a < o.nd; a++)
        for (int m = 0; m < p.nd; m++) {
            if (o.d[a] != p.d[m] || o.nd < 2 || p.nd < 2)
                continue;
            struct topomap_grid_shape so = drop_axis(&o, a), sp = drop_axis(&p, m);
            g->cur.s[depth] = (struct topomap_grid_step){ST_STACK, a, m, 0};
            g->cur.nsteps = depth + 1;
            gen(g, &so, &sp);
            g->cur.nsteps = depth;
        }
    for (int a = 0; a < o.nd; a++)
        for (int m = 0; m < p.nd; m++) {
            if (o.d[a] <= p.d[m] || o.d[a] % p.d[m] || p.nd < 2)
                continue;
            for (int kind = ST_SPLIT; kind <= ST_FOLD; kind++) {
                struct topomap_grid_shape so = o, sp = drop_axis(&p, m);
                so.d[a] = o.d[a] / p.d[m];
                g->cur.s[depth] = (struct topomap_grid_step){kind, a, m, 0};
                g->cur.nsteps = depth + 1;
                gen(g, &so, &sp);
                g->cur.nsteps = depth;
            }
        }
    if (o.nd > p.nd)
        for (int a = 0; a < o.nd; a++)
            for (int b = 0; b < o.nd; b++) {
                if (a == b)
                    continue;
                struct topomap_grid_shape so = o;
                so.d[a] = o.d[a] * o.d[b];
                so = drop_axis(&so, b);
                g->cur.s[depth] = (struct topomap_grid_step){ST_MERGE, a, b, 0};
                g->cur.nsteps = depth + 1;
                gen(g, &so, &p);
                g->cur.nsteps = depth;
            }
}

int topomap_grid_plans(const struct topomap_grid_shape *o, const struct topomap_grid_shape *p,
                       struct topomap_grid_plan *plans, int max)
{
    struct plangen g;
    memset(&g, 0, sizeof g);
    g.out = plans;
    g.max = max;
    if (shape_size(o) != shape_size(p))
        return 0;
    gen(&g, o, p);
    return g.n;
}

/* Run steps k.. of a plan on (o, p): map[object cell] = processor cell. */
static int run(const struct topomap_grid_plan *pl, int k, const struct topomap_grid_shape *o0,
               const struct topomap_grid_shape *p0, int *map)
{
    struct topomap_grid_shape o = normal(o0), p = normal(p0);
    const struct topomap_grid_step *s = &pl->s[k];
    long n = shape_size(&o);
    int c[TOPOMAP_GRID_MAXDIMS], q[TOPOMAP_GRID_MAXDIMS];
    switch (s->kind) {
    case ST_ID:
        for (long i = 0; i < n; i++)
            map[i] = (int)i;
        return 0;
    case ST_BASE2D:
        return topomap_grid_embed2d(s->h, o.d[0], o.d[1], p.d[0], p.d[1], map);
    case ST_EXCO:
    case ST_COCE:
        return by_orders(&o, &p, s->kind == ST_EXCO ? TOPOMAP_GRID_EXCO : TOPOMAP_GRID_COCE, map)
                   ? (errno = ENOMEM, -1)
                   : 0;
    case ST_AFFN:
        return affine(&o, &p, map) ? (errno = ENOMEM, -1) : 0;
    default: break;
    }
    /* The sub-problem. */
    struct topomap_grid_shape so = o, sp = p;
    int a = s->a, m = s->b, len = 0;
    if (s->kind == ST_STACK) {
        so = drop_axis(&o, a);
        sp = drop_axis(&p, m);
    } else if (s->kind == ST_SPLIT || s->kind == ST_FOLD) {
        len = o.d[a] / p.d[m];
        so.d[a] = len;
        sp = drop_axis(&p, m);
    } else { /* MERGE */
        so.d[a] = o.d[a] * o.d[m];
        so = drop_axis(&so, m);
    }
    long sn = shape_size(&so);
    int *sub = malloc(sizeof(int) * (size_t)(sn ? sn : 1));
    if (!sub || run(pl, k + 1, &so, &sp, sub) < 0) {
        free(sub);
        errno = ENOMEM;
        return -1;
    }
    struct topomap_grid_shape nso = normal(&so), nsp = normal(&sp);
    for (long i = 0; i < n; i++) {
        decode(&o, i, c);
        int layer = 0, sc[TOPOMAP_GRID_MAXDIMS], nsc = 0;
        /* The cell's coordinates in the sub-problem's object grid. */
        for (int j = 0; j < o.nd; j++) {
            int v = c[j];
            if (s->kind == ST_STACK && j == a) {
                layer = v;
                continue;
            }
            if ((s->kind == ST_SPLIT || s->kind == ST_FOLD) && j == a) {
                layer = v / len;
                v %= len;
                if (s->kind == ST_FOLD && layer % 2)
                    v = len - 1 - v;
            }
            if (s->kind == ST_MERGE && j == m)
                continue;
            if (s->kind == ST_MERGE && j == a)
                v = c[m] * o.d[a] + (c[m] % 2 ? o.d[a] - 1 - c[a] : c[a]);
            sc[nsc++] = v;
        }
        /* Extents of 1 vanish in the sub-problem's numbering. */
        int nc[TOPOMAP_GRID_MAXDIMS], nn = 0;
        for (int j = 0; j < so.nd; j++)
            if (so.d[j] > 1)
                nc[nn++] = sc[j];
        long si = encode(&nso, nc), pi = sub[si];
        if (s->kind == ST_MERGE) {
            map[i] = (int)pi;
            continue;
        }
        /* Processor coordinates: the sub-problem's, with layer on axis m. */
        int pc[TOPOMAP_GRID_MAXDIMS], full[TOPOMAP_GRID_MAXDIMS];
        decode(&nsp, pi, pc);
        int t = 0;
        for (int j = 0; j < sp.nd; j++)
            full[j] = sp.d[j] > 1 ? pc[t++] : 0;
        t = 0;
        for (int j = 0; j < p.nd; j++)
            q[j] = j == m ? layer : full[t++];
        map[i] = (int)encode(&p, q);
    }
    free(sub);
    return 0;
}

int topomap_grid_plan_run(const struct topomap_grid_plan *pl, const struct topomap_grid_shape *o,
                          const struct topomap_grid_shape *p, int *map)
{
    if (!pl || pl->nsteps < 1 || shape_size(o) != shape_size(p)) {
        errno = EINVAL;
        return -1;
    }
    return run(pl, 0, o, p, map);
}
