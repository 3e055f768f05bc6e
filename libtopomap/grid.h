/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the process-grid mapping (map_grid.c, grid_embed.c; Bhatele et
 * al. 2010) and its tests and benchmark: the 2D heuristics and the plans
 * that reduce a grid embedding to one. */
#ifndef TOPOMAP_GRID_H
#define TOPOMAP_GRID_H

#include "internal.h"

/* grid_embed.c: embeddings of an object grid into a processor grid of the
 * same number of cells (Bhatele et al. 2010, sections V and VI); cells are
 * numbered x fastest. The 2D -> 2D heuristics: */
enum {
    TOPOMAP_GRID_MXOVLP, TOPOMAP_GRID_MXOVAL, TOPOMAP_GRID_EXCO, TOPOMAP_GRID_COCE,
    TOPOMAP_GRID_AFFN, TOPOMAP_GRID_STEP, TOPOMAP_GRID_NH2D
};
extern const char *const topomap_grid_heuristic_names[TOPOMAP_GRID_NH2D];
/* Heuristic h: map[x + ox * y] = px_cell + PX * py_cell for the ox x oy
 * object grid on the px x py mesh (ox * oy == px * py). 0, or -1 + errno
 * (EINVAL, ENOMEM). */
int topomap_grid_embed2d(int h, int ox, int oy, int px, int py, int *map);
/* A grid's extents (d[0] fastest) and a plan: steps that reduce an object
 * grid and a processor grid to a base heuristic (grid_embed.c explains). */
struct topomap_grid_shape {
    int nd, d[TOPOMAP_GRID_MAXDIMS];
};
#define TOPOMAP_GRID_MAXSTEPS 8
struct topomap_grid_step {
    int kind, a, b, h;
};
struct topomap_grid_plan {
    int nsteps;
    struct topomap_grid_step s[TOPOMAP_GRID_MAXSTEPS];
    char name[96]; /* e.g. "fold x>z, MXOV+AL" */
};
/* Up to max plans embedding o into p (same number of cells); how many. */
int topomap_grid_plans(const struct topomap_grid_shape *o, const struct topomap_grid_shape *p,
                       struct topomap_grid_plan *plans, int max);
/* map[object cell] = processor cell under plan pl. 0, or -1 + errno. */
int topomap_grid_plan_run(const struct topomap_grid_plan *pl, const struct topomap_grid_shape *o,
                          const struct topomap_grid_shape *p, int *map);

#endif
