/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap plan's two files: the decision (cli/plan.c) and what it prints
 * (cli/plan_print.c). */
#ifndef TOPOMAP_CLI_PLAN_H
#define TOPOMAP_CLI_PLAN_H

#include "policy.h"

/* topomap plan exits with this when the decision is fail (strict=1). */
#define EXIT_PLAN_FAIL 3

/* Print decision @p d made under @p site (its topology= read from @p file):
 * the text lines (with each rank's node and core when @p verbose), or one
 * JSON object carrying @p rc, the status the command exits with. */
void plan_print(const struct topomap_site *site, const char *file, const struct topomap_decision *d,
                int verbose, int json, int rc);
/* gain_metric= as the plugstack.conf line spells it now ("hop-bytes"). */
const char *plan_gain_metric(const struct topomap_site *site);

#endif
