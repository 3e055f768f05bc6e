/* SPDX-License-Identifier: BSD-3-Clause */
/* What every libyaml reader of topomap needs before its own checks (the
 * topology YAML of topo_yaml.c): line:col of a reader error, and bounds on
 * the size of a document checked before libyaml builds it. */
#include <errno.h>
#include <stddef.h>

#include <yaml.h>

#include "internal.h"
#include "topology_priv.h"

/* libyaml reports reader errors by byte offset: turn it into line:col. */
void topo_yaml_mark(const char *text, size_t len, size_t off, unsigned long *line,
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
int topo_yaml_bounds(const char *path, const char *text, size_t len, char *err, size_t errlen)
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
