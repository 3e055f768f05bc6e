/* SPDX-License-Identifier: BSD-3-Clause */
/* YAML documents of machine descriptions (topo_yamldoc.h): loading within
 * bounds and the strict accessors shared by topo_yaml.c, its dragonfly
 * section topo_yaml_dragonfly.c and topo_slurmyaml.c, and the top-level
 * 'nodes' key they read. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "internal.h"
#include "topo_yamldoc.h"

/* 1-based line and column. */
int topo_y_fail(struct topo_yctx *c, const yaml_node_t *n, int e, const char *fmt, ...)
{
    char msg[TOPOMAP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return topomap_fail(c->err, c->errlen, e, "%s:%lu:%lu: %s", c->path,
                        n ? (unsigned long)n->start_mark.line + 1 : 1UL,
                        n ? (unsigned long)n->start_mark.column + 1 : 1UL, msg);
}

yaml_node_t *topo_y_node(struct topo_yctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

const char *topo_y_scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

const char *topo_y_type(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "a plain scalar" : "a string";
    }
}

int topo_y_check_map(struct topo_yctx *c, yaml_node_t *map, const char *what,
                     const char *const *allowed)
{
    if (map->type != YAML_MAPPING_NODE)
        return topo_y_fail(c, map, EINVAL, "'%s' must be a mapping, not %s", what,
                           topo_y_type(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = topo_y_node(c, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return topo_y_fail(c, k, EINVAL, "keys of '%s' must be plain words", what);
        int known = 0;
        for (int i = 0; allowed[i] && !known; i++)
            known = !strcmp(allowed[i], topo_y_scalar(k));
        if (!known) {
            char list[256] = "";
            for (int i = 0; allowed[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
            }
            return topo_y_fail(c, k, EINVAL, "unknown key '%s' in %s (expected one of: %s)",
                               topo_y_scalar(k), what, list);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = topo_y_node(c, q->key);
            if (k2->type == YAML_SCALAR_NODE && !strcmp(topo_y_scalar(k2), topo_y_scalar(k)))
                return topo_y_fail(c, k, EINVAL, "duplicate key '%s' in %s (first at line %lu)",
                                   topo_y_scalar(k), what, (unsigned long)k2->start_mark.line + 1);
        }
    }
    return 0;
}

yaml_node_t *topo_y_get(struct topo_yctx *c, yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = topo_y_node(c, p->key);
        if (!strcmp(topo_y_scalar(k), key))
            return topo_y_node(c, p->value);
    }
    return NULL;
}

yaml_node_t *topo_y_require(struct topo_yctx *c, yaml_node_t *map, const char *key,
                            const char *what)
{
    yaml_node_t *v = topo_y_get(c, map, key);
    if (!v)
        topo_y_fail(c, map, EINVAL, "missing required key '%s' in %s", key, what);
    return v;
}

int topo_y_int(struct topo_yctx *c, yaml_node_t *n, const char *key, long min, long max,
               int *out)
{
    long v;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        topomap_parse_long(topo_y_scalar(n), &v) < 0)
        return topo_y_fail(c, n, EINVAL, "'%s' must be an integer, not %s%s%s%s", key,
                           topo_y_type(n),
                           n->type == YAML_SCALAR_NODE ? " '" : "",
                           n->type == YAML_SCALAR_NODE ? topo_y_scalar(n) : "",
                           n->type == YAML_SCALAR_NODE ? "'" : "");
    if (v < min || v > max)
        return topo_y_fail(c, n, EINVAL, "'%s' must be in %ld..%ld, not %ld", key, min, max, v);
    *out = (int)v;
    return 0;
}

int topo_y_double(struct topo_yctx *c, yaml_node_t *n, const char *key, double min, int min_open,
                  double max, double *out)
{
    double v;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        topomap_parse_double(topo_y_scalar(n), &v) < 0)
        return topo_y_fail(c, n, EINVAL, "'%s' must be a number, not %s%s%s%s", key, topo_y_type(n),
                           n->type == YAML_SCALAR_NODE ? " '" : "",
                           n->type == YAML_SCALAR_NODE ? topo_y_scalar(n) : "",
                           n->type == YAML_SCALAR_NODE ? "'" : "");
    if (v < min || (min_open && v == min))
        return topo_y_fail(c, n, EINVAL, "'%s' must be %s %g, not %g", key, min_open ? ">" : ">=",
                           min, v);
    if (v > max)
        return topo_y_fail(c, n, EINVAL, "'%s' must be at most %g, not %g", key, max, v);
    *out = v;
    return 0;
}

int topo_y_bool(struct topo_yctx *c, yaml_node_t *n, const char *key, int *out)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        for (int i = 0; i < 3; i++) {
            if (!strcasecmp(topo_y_scalar(n), yes[i]))
                return *out = 1, 0;
            if (!strcasecmp(topo_y_scalar(n), no[i]))
                return *out = 0, 0;
        }
    return topo_y_fail(c, n, EINVAL, "'%s' must be true or false, not %s%s%s%s", key,
                       topo_y_type(n),
                       n->type == YAML_SCALAR_NODE ? " '" : "",
                       n->type == YAML_SCALAR_NODE ? topo_y_scalar(n) : "",
                       n->type == YAML_SCALAR_NODE ? "'" : "");
}

int topo_y_str(struct topo_yctx *c, yaml_node_t *n, const char *key, const char **out)
{
    if (n->type != YAML_SCALAR_NODE || !*topo_y_scalar(n))
        return topo_y_fail(c, n, EINVAL, "'%s' must be a non-empty string, not %s", key,
                           n->type == YAML_SCALAR_NODE ? "empty" : topo_y_type(n));
    *out = topo_y_scalar(n);
    return 0;
}

int topo_y_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *topo_y_item(struct topo_yctx *c, const yaml_node_t *n, int i)
{
    return topo_y_node(c, n->data.sequence.items.start[i]);
}

/* libyaml reports reader errors by byte offset: turn it into line:col. */
static void offset_to_mark(const char *text, size_t len, size_t off, unsigned long *line,
                           unsigned long *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* libyaml's document loader has no bounds of its own, and its scanner is
 * quadratic in the nesting depth (every token looks at the pending simple key
 * of every open level). A first pass over the events stops at the first one
 * past TOPOMAP_MAX_YAML_DEPTH or TOPOMAP_MAX_YAML_NODES, before the document
 * is built; a syntax error is left to the loader, which reports it (no later
 * than this pass would). 0, or -1 with err. */
static int check_bounds(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&parser))
        return topomap_fail(err, errlen, ENOMEM, "%s:1:1: out of memory", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    long depth = 0, nodes = 0;
    int rc = 0, done = 0;
    while (!done && !rc && yaml_parser_parse(&parser, &ev)) {
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > TOPOMAP_MAX_YAML_DEPTH)
                rc = topomap_fail(err, errlen, EINVAL,
                                  "%s:%lu:%lu: lists and mappings nested more than %d deep",
                                  path, (unsigned long)ev.start_mark.line + 1,
                                  (unsigned long)ev.start_mark.column + 1,
                                  TOPOMAP_MAX_YAML_DEPTH);
            nodes++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_SCALAR_EVENT:
        case YAML_ALIAS_EVENT:
            nodes++;
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        if (!rc && nodes > TOPOMAP_MAX_YAML_NODES)
            rc = topomap_fail(err, errlen, EINVAL, "%s:%lu:%lu: more than %d YAML nodes", path,
                              (unsigned long)ev.start_mark.line + 1,
                              (unsigned long)ev.start_mark.column + 1, TOPOMAP_MAX_YAML_NODES);
        yaml_event_delete(&ev);
    }
    if (!rc && parser.error == YAML_MEMORY_ERROR)
        rc = topomap_fail(err, errlen, ENOMEM, "%s:%lu:%lu: out of memory", path,
                          (unsigned long)parser.mark.line + 1,
                          (unsigned long)parser.mark.column + 1);
    yaml_parser_delete(&parser);
    return rc;
}

/* A syntax error of the parser as "FILE:LINE:COL: YAML syntax error: ...". */
static int syntax_error(yaml_parser_t *parser, const char *path, const char *text, size_t len,
                        char *err, size_t errlen)
{
    unsigned long line = parser->problem_mark.line + 1, col = parser->problem_mark.column + 1;
    if (parser->error == YAML_MEMORY_ERROR)
        return topomap_fail(err, errlen, ENOMEM, "%s:%lu:%lu: out of memory", path,
                            (unsigned long)parser->mark.line + 1,
                            (unsigned long)parser->mark.column + 1);
    if (parser->error == YAML_READER_ERROR)
        offset_to_mark(text, len, parser->problem_offset, &line, &col);
    return topomap_fail(err, errlen, EINVAL, "%s:%lu:%lu: YAML syntax error: %s%s%s", path, line,
                        col, parser->problem ? parser->problem : "unknown problem",
                        parser->context ? " " : "", parser->context ? parser->context : "");
}

int topo_y_load(const char *path, const char *text, size_t len, yaml_document_t *doc, char *err,
                size_t errlen)
{
    yaml_parser_t parser;
    if (check_bounds(path, text, len, err, errlen) < 0)
        return -1;
    if (!yaml_parser_initialize(&parser))
        return topomap_fail(err, errlen, ENOMEM, "%s:1:1: out of memory", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, doc)) {
        syntax_error(&parser, path, text, len, err, errlen);
        yaml_parser_delete(&parser);
        return -1;
    }
    /* One document per file: a second one is almost surely a mistake. */
    yaml_document_t next;
    int rc = 0;
    if (!yaml_parser_load(&parser, &next)) {
        rc = syntax_error(&parser, path, text, len, err, errlen);
    } else {
        yaml_node_t *r2 = yaml_document_get_root_node(&next);
        struct topo_yctx c = {path, &next, err, errlen};
        if (r2)
            rc = topo_y_fail(&c, r2, EINVAL, "only one YAML document is allowed per topology file");
        yaml_document_delete(&next);
    }
    yaml_parser_delete(&parser);
    if (rc < 0)
        yaml_document_delete(doc);
    return rc;
}

/* nodes: one hostlist expression, or a list of them (concatenated), of at
 * most max names (aliases can repeat a long expression: stop at the cap). */
static topomap_hostlist_t *yaml_nodes(struct topo_yctx *c, yaml_node_t *n, size_t max)
{
    char herr[TOPOMAP_ERRLEN];
    if (n->type == YAML_SCALAR_NODE) {
        topomap_hostlist_t *hl = topomap_hostlist_parse(topo_y_scalar(n), herr, sizeof herr);
        if (!hl)
            topo_y_fail(c, n, errno, "nodes: %s", herr);
        return hl;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        topo_y_fail(c, n, EINVAL, "'nodes' must be a hostlist expression or a list of them, not %s",
                    topo_y_type(n));
        return NULL;
    }
    topomap_hostlist_t *all = topo_hostlist_new();
    if (!all) {
        topo_y_fail(c, n, ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < topo_y_len(n); i++) {
        yaml_node_t *it = topo_y_item(c, n, i);
        if (it->type != YAML_SCALAR_NODE) {
            topo_y_fail(c, it, EINVAL, "items of 'nodes' must be hostlist expressions, not %s",
                        topo_y_type(it));
            goto fail;
        }
        topomap_hostlist_t *hl = topomap_hostlist_parse(topo_y_scalar(it), herr, sizeof herr);
        if (!hl) {
            topo_y_fail(c, it, errno, "nodes: %s", herr);
            goto fail;
        }
        if (topomap_hostlist_count(all) + topomap_hostlist_count(hl) > max) {
            topomap_hostlist_free(hl);
            topo_y_fail(c, it, EINVAL, "'nodes' names more than the %zu hosts of the network", max);
            goto fail;
        }
        for (size_t k = 0; k < topomap_hostlist_count(hl); k++) {
            const char *nm = topomap_hostlist_get(hl, k);
            if (topo_hostlist_push(all, nm, strlen(nm)) < 0) {
                topomap_hostlist_free(hl);
                topo_y_fail(c, it, ENOMEM, "out of memory");
                goto fail;
            }
        }
        topomap_hostlist_free(hl);
    }
    if (topo_hostlist_seal(all) == 0)
        return all;
    topo_y_fail(c, n, ENOMEM, "out of memory");
fail:
    topomap_hostlist_free(all);
    return NULL;
}

int topo_y_names(struct topo_yctx *c, yaml_node_t *nodes_node, int count, const char *kind,
                 topomap_hostlist_t **names)
{
    if (!(*names = yaml_nodes(c, nodes_node, (size_t)count)))
        return -1;
    if (topomap_hostlist_count(*names) != (size_t)count) {
        topo_y_fail(c, nodes_node, EINVAL, "'nodes' names %zu hosts but the %s network has %d nodes",
                    topomap_hostlist_count(*names), kind, count);
        topomap_hostlist_free(*names);
        *names = NULL;
        return -1;
    }
    return 0;
}
